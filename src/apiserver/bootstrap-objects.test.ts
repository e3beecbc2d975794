/**
 * The objects a fresh API server creates at start, as kube-apiserver 1.32 does: the API Priority and Fairness
 * configuration (with the status its controller writes) and the local APIServices. Restarting on the same
 * storage neither duplicates nor rewrites them.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import { openBackend } from '../storage/index.js';
import type { Backend } from '../storage/backend.js';
import { ensurePki, type ClusterPki } from '../bootstrap/pki.js';
import { createApiServer } from './wiring.js';
import type { ApiServer } from './server.js';
import { InProcessClient } from './in-process-client.js';
import type { ResourceType } from '../api/resources.js';
import type { APIService } from './local-apiservices.js';
import { printTable, type KubeObject } from './printers/index.js';

const flowschemas: ResourceType = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas', kind: 'FlowSchema', namespaced: false };
const prioritylevels: ResourceType = {
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1',
  resource: 'prioritylevelconfigurations',
  kind: 'PriorityLevelConfiguration',
  namespaced: false,
};
const apiservices: ResourceType = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false };

const admin = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
const all = ['*'];
const everything = { resourceRules: [{ verbs: all, apiGroups: all, resources: all, clusterScope: true, namespaces: all }], nonResourceRules: [{ verbs: all, nonResourceURLs: all }] };

describe('bootstrap objects of kube-apiserver 1.32', () => {
  let dataDir: string;
  let pki: ClusterPki;
  let backend: Backend;
  let server: ApiServer;
  let fss: FlowSchema[];
  let plcs: PriorityLevelConfiguration[];
  let svcs: APIService[];

  async function startServer(): Promise<ApiServer> {
    const s = createApiServer({ backend, tls: { caPem: pki.ca.certPem, certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem }, port: 0 });
    await s.start();
    return s;
  }

  async function listAll(s: ApiServer): Promise<{ fss: FlowSchema[]; plcs: PriorityLevelConfiguration[]; svcs: APIService[] }> {
    const client = new InProcessClient(s, { user: admin });
    return {
      fss: (await client.list<FlowSchema & { metadata: object }>(flowschemas)).items,
      plcs: (await client.list<PriorityLevelConfiguration & { metadata: object }>(prioritylevels)).items,
      svcs: (await client.list<APIService>(apiservices)).items,
    };
  }

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kubemix-bootstrap-'));
    pki = await ensurePki(dataDir);
    backend = await openBackend({ kind: 'sqlite', dataDir, compaction: false });
    server = await startServer();
    ({ fss, plcs, svcs } = await listAll(server));
  });
  after(async () => {
    await server.stop();
    await backend.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const byName = <T extends { metadata?: { name?: string } }>(items: T[], name: string): T => {
    const found = items.find((i) => i.metadata?.name === name);
    assert.ok(found, `${name} exists`);
    return found;
  };

  test('the 8 mandatory and suggested PriorityLevelConfigurations exist', () => {
    assert.deepEqual(plcs.map((p) => p.metadata?.name).sort(), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    for (const p of plcs) assert.deepEqual(p.metadata?.annotations, { 'apf.kubernetes.io/autoupdate-spec': 'true' }, p.metadata?.name);
  });

  const plcCases: Array<{ name: string; spec: PriorityLevelConfiguration['spec'] }> = [
    { name: 'exempt', spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } },
    { name: 'catch-all', spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 } } },
    {
      name: 'workload-low',
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 100, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } }, lendablePercent: 90 } },
    },
    {
      name: 'leader-election',
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 50 } }, lendablePercent: 0 } },
    },
    {
      name: 'system',
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } }, lendablePercent: 33 } },
    },
  ];
  for (const tc of plcCases) {
    test(`the ${tc.name} priority level has upstream's spec and an empty status`, () => {
      const p = byName(plcs, tc.name);
      assert.deepEqual(p.spec, tc.spec);
      assert.deepEqual(p.status, {});
    });
  }

  test('the 13 mandatory and suggested FlowSchemas exist', () => {
    assert.deepEqual(fss.map((f) => f.metadata?.name).sort(), [
      'catch-all',
      'endpoint-controller',
      'exempt',
      'global-default',
      'kube-controller-manager',
      'kube-scheduler',
      'kube-system-service-accounts',
      'probes',
      'service-accounts',
      'system-leader-election',
      'system-node-high',
      'system-nodes',
      'workload-leader-election',
    ]);
  });

  const fsCases: Array<{ name: string; spec: FlowSchema['spec'] }> = [
    {
      name: 'exempt',
      spec: { priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1, rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:masters' } }], ...everything }] },
    },
    {
      name: 'probes',
      spec: {
        priorityLevelConfiguration: { name: 'exempt' },
        matchingPrecedence: 2,
        rules: [
          {
            subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }, { kind: 'Group', group: { name: 'system:authenticated' } }],
            nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
          },
        ],
      },
    },
    {
      name: 'system-nodes',
      spec: {
        priorityLevelConfiguration: { name: 'system' },
        matchingPrecedence: 500,
        distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:nodes' } }], ...everything }],
      },
    },
    {
      name: 'system-node-high',
      spec: {
        priorityLevelConfiguration: { name: 'node-high' },
        matchingPrecedence: 400,
        distinguisherMethod: { type: 'ByUser' },
        rules: [
          {
            subjects: [{ kind: 'Group', group: { name: 'system:nodes' } }],
            resourceRules: [
              { verbs: all, apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true, namespaces: all },
              { verbs: all, apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: all },
            ],
          },
        ],
      },
    },
    {
      name: 'endpoint-controller',
      spec: {
        priorityLevelConfiguration: { name: 'workload-high' },
        matchingPrecedence: 150,
        distinguisherMethod: { type: 'ByUser' },
        rules: [
          {
            subjects: [
              { kind: 'User', user: { name: 'system:kube-controller-manager' } },
              { kind: 'ServiceAccount', serviceAccount: { name: 'endpoint-controller', namespace: 'kube-system' } },
              { kind: 'ServiceAccount', serviceAccount: { name: 'endpointslicemirroring-controller', namespace: 'kube-system' } },
            ],
            resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints'], namespaces: all }],
          },
        ],
      },
    },
    {
      name: 'kube-system-service-accounts',
      spec: {
        priorityLevelConfiguration: { name: 'workload-high' },
        matchingPrecedence: 900,
        distinguisherMethod: { type: 'ByNamespace' },
        rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: 'kube-system' } }], ...everything }],
      },
    },
  ];
  for (const tc of fsCases) {
    test(`the ${tc.name} FlowSchema has upstream's spec`, () => {
      const f = byName(fss, tc.name);
      assert.deepEqual(f.spec, tc.spec);
      assert.deepEqual(f.metadata?.annotations, { 'apf.kubernetes.io/autoupdate-spec': 'true' });
    });
  }

  test('every FlowSchema carries the Dangling=False condition the APF controller writes', () => {
    for (const f of fss) {
      const pl = f.spec?.priorityLevelConfiguration.name ?? '';
      const conditions = (f.status?.conditions ?? []).map(({ lastTransitionTime, ...c }) => {
        assert.ok(lastTransitionTime !== undefined && lastTransitionTime !== '', f.metadata?.name);
        return c;
      });
      assert.deepEqual(
        conditions,
        [{ type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${pl}" and it exists` }],
        f.metadata?.name,
      );
    }
  });

  test('kubectl get flowschemas lists them by matching precedence, as a real 1.32 server does', () => {
    const t = printTable('flowschemas', 'flowcontrol.apiserver.k8s.io', fss as KubeObject[], { includeObject: 'None', now: Date.now() });
    assert.deepEqual(
      t.rows.map((r) => [r.cells[0], r.cells[1], r.cells[2], r.cells[3], r.cells[5]]),
      [
        ['exempt', 'exempt', 1, '<none>', 'False'],
        ['probes', 'exempt', 2, '<none>', 'False'],
        ['system-leader-election', 'leader-election', 100, 'ByUser', 'False'],
        ['endpoint-controller', 'workload-high', 150, 'ByUser', 'False'],
        ['workload-leader-election', 'leader-election', 200, 'ByUser', 'False'],
        ['system-node-high', 'node-high', 400, 'ByUser', 'False'],
        ['system-nodes', 'system', 500, 'ByUser', 'False'],
        ['kube-controller-manager', 'workload-high', 800, 'ByNamespace', 'False'],
        ['kube-scheduler', 'workload-high', 800, 'ByNamespace', 'False'],
        ['kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', 'False'],
        ['service-accounts', 'workload-low', 9000, 'ByUser', 'False'],
        ['global-default', 'global-default', 9900, 'ByUser', 'False'],
        ['catch-all', 'catch-all', 10000, 'ByUser', 'False'],
      ],
    );
  });

  test('every served built-in group/version has its local APIService', () => {
    const want = server.table
      .all()
      .filter((d) => !d.custom && d.group !== 'apiregistration.k8s.io')
      .map((d) => `${d.version}.${d.group}`);
    assert.deepEqual(svcs.map((s) => s.metadata?.name).sort(), [...new Set(want)].sort());
  });

  test('the core group has the local APIService v1.', () => {
    assert.deepEqual(byName(svcs, 'v1.').spec, { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
  });

  const svcCases: Array<{ name: string; spec: APIService['spec'] }> = [
    { name: 'v1.apps', spec: { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 } },
    { name: 'v2.autoscaling', spec: { group: 'autoscaling', version: 'v2', groupPriorityMinimum: 17500, versionPriority: 30 } },
    { name: 'v1.autoscaling', spec: { group: 'autoscaling', version: 'v1', groupPriorityMinimum: 17500, versionPriority: 15 } },
    { name: 'v1.flowcontrol.apiserver.k8s.io', spec: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', groupPriorityMinimum: 16100, versionPriority: 21 } },
    { name: 'v1.apiextensions.k8s.io', spec: { group: 'apiextensions.k8s.io', version: 'v1', groupPriorityMinimum: 16700, versionPriority: 15 } },
    { name: 'v1.authentication.k8s.io', spec: { group: 'authentication.k8s.io', version: 'v1', groupPriorityMinimum: 17700, versionPriority: 15 } },
  ];
  for (const tc of svcCases) {
    test(`${tc.name} has kube-apiserver's priorities, the onstart label and no service`, () => {
      const s = byName(svcs, tc.name);
      assert.deepEqual(s.spec, tc.spec);
      assert.deepEqual(s.metadata?.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    });
  }

  test('every local APIService is Available, as Local ones always are', () => {
    for (const s of svcs) {
      const conditions = (s.status?.conditions ?? []).map(({ lastTransitionTime, ...c }) => {
        assert.ok(lastTransitionTime !== undefined && lastTransitionTime !== '', s.metadata?.name);
        return c;
      });
      assert.deepEqual(conditions, [{ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' }], s.metadata?.name);
    }
    const t = printTable('apiservices', 'apiregistration.k8s.io', [byName(svcs, 'v1.apps') as unknown as KubeObject], { includeObject: 'None', now: Date.now() });
    assert.deepEqual(t.rows[0]?.cells.slice(0, 3), ['v1.apps', 'Local', 'True']);
  });

  test('a restart on the same storage neither duplicates nor rewrites them', async () => {
    const versions = (items: Array<{ metadata?: { name?: string; uid?: string; resourceVersion?: string } }>): string[] =>
      items.map((i) => `${i.metadata?.name}@${i.metadata?.uid}@${i.metadata?.resourceVersion}`).sort();
    await server.stop();
    server = await startServer();
    const again = await listAll(server);
    assert.deepEqual(versions(again.fss), versions(fss));
    assert.deepEqual(versions(again.plcs), versions(plcs));
    assert.deepEqual(versions(again.svcs), versions(svcs));
  });

  test('a FlowSchema the user took over is kept, and marked Dangling when its level does not exist', async () => {
    const client = new InProcessClient(server, { user: admin });
    const fs = await client.get<FlowSchema & { metadata: object }>(flowschemas, 'service-accounts');
    fs.metadata = { ...fs.metadata, annotations: { 'apf.kubernetes.io/autoupdate-spec': 'false' } };
    fs.spec = { ...fs.spec, priorityLevelConfiguration: { name: 'mine' } };
    await client.update(flowschemas, fs);
    await server.stop();
    server = await startServer();
    const kept = await new InProcessClient(server, { user: admin }).get<FlowSchema & { metadata: object }>(flowschemas, 'service-accounts');
    assert.equal(kept.spec?.priorityLevelConfiguration.name, 'mine');
    assert.deepEqual(
      kept.status?.conditions?.map(({ lastTransitionTime: _, ...c }) => c),
      [{ type: 'Dangling', status: 'True', reason: 'NotFound', message: 'This FlowSchema references the PriorityLevelConfiguration object named "mine" but there is no such object' }],
    );
  });
});
