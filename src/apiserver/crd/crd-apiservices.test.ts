/**
 * The custom resources' APIServices: which ones the CRDs ask for (kube-apiserver's crdRegistrationController,
 * `TestHandleVersionUpdate`), what the autoregister controller does with each name (the rows of its
 * `checkAPIService` table for APIServices synced continuously), and the two together on a running server.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackend } from '../../storage/index.js';
import type { Backend } from '../../storage/backend.js';
import { ensurePki, type ClusterPki } from '../../bootstrap/pki.js';
import { createApiServer } from '../wiring.js';
import type { ApiServer } from '../server.js';
import { InProcessClient } from '../in-process-client.js';
import type { ResourceType } from '../../api/resources.js';
import { isNotFound } from '../../api/errors.js';
import type { APIService } from '../local-apiservices.js';
import type { CrdSpec } from './crd-registrar.js';
import { autoregisterAction, crdAPIServices, type AutoregisterAction } from './crd-apiservices.js';

const label = 'kube-aggregator.kubernetes.io/automanaged';

const crdSpec = (group: string, versions: Array<{ name: string; served: boolean }>): CrdSpec => ({
  group,
  scope: 'Namespaced',
  names: { plural: 'widgets', kind: 'Widget' },
  versions: versions.map((v, i) => ({ ...v, storage: i === 0, schema: { openAPIV3Schema: { type: 'object' } } })),
});

const wanted = (group: string, version: string): APIService => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: `${version}.${group}`, labels: { [label]: 'true' } },
  spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 100 },
});

describe('crdAPIServices: one APIService per served group/version', () => {
  const cases: Array<{ name: string; crds: CrdSpec[]; want: APIService[] }> = [
    { name: 'simple add crd', crds: [crdSpec('group.com', [{ name: 'v1', served: true }])], want: [wanted('group.com', 'v1')] },
    {
      name: 'every served version gets the same priorities, whatever its place in the list',
      crds: [crdSpec('group.com', [{ name: 'v1', served: true }, { name: 'v1beta1', served: true }, { name: 'v2', served: true }])],
      want: [wanted('group.com', 'v1'), wanted('group.com', 'v1beta1'), wanted('group.com', 'v2')],
    },
    { name: 'a version not served gets none', crds: [crdSpec('group.com', [{ name: 'v1', served: true }, { name: 'v1beta1', served: false }])], want: [wanted('group.com', 'v1')] },
    {
      name: 'two CRDs of one group/version share one',
      crds: [crdSpec('group.com', [{ name: 'v1', served: true }]), { ...crdSpec('group.com', [{ name: 'v1', served: true }]), names: { plural: 'gadgets', kind: 'Gadget' } }],
      want: [wanted('group.com', 'v1')],
    },
    { name: 'no CRDs, no APIServices', crds: [], want: [] },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      const got = crdAPIServices(tc.crds);
      assert.deepEqual([...got.keys()], tc.want.map((s) => s.metadata?.name));
      assert.deepEqual([...got.values()], tc.want);
    });
  }
});

describe('autoregisterAction: checkAPIService for APIServices synced continuously', () => {
  const desired = wanted('group.com', 'v1');
  const stored = (labels: Record<string, string> | undefined, spec: NonNullable<APIService['spec']> = { ...desired.spec }): APIService => ({
    ...desired,
    metadata: { name: 'v1.group.com', uid: 'u1', resourceVersion: '7', ...(labels !== undefined ? { labels } : {}) },
    spec,
  });
  const cases: Array<{ name: string; desired: APIService | undefined; current: APIService | undefined; want: AutoregisterAction }> = [
    { name: '2A: not stored and not wanted: nothing', desired: undefined, current: undefined, want: 'none' },
    { name: '2C: not stored and wanted: create', desired, current: undefined, want: 'create' },
    { name: '3A: stored without the label, not wanted: left alone', desired: undefined, current: stored(undefined), want: 'none' },
    { name: '3C: stored without the label, wanted with another spec: left alone', desired, current: stored(undefined, { ...desired.spec, versionPriority: 5 }), want: 'none' },
    { name: '4A/5A: stored onstart (a built-in one), not wanted: left to the bootstrap', desired: undefined, current: stored({ [label]: 'onstart' }), want: 'none' },
    { name: '6A: stored "true", not wanted: delete', desired: undefined, current: stored({ [label]: 'true' }), want: 'delete' },
    { name: '6C: stored "true" with the wanted spec: nothing', desired, current: stored({ [label]: 'true' }), want: 'none' },
    {
      name: '6C: stored "true" with the spec written out in full (zero values, no service): nothing',
      desired,
      current: stored({ [label]: 'true' }, { ...desired.spec, service: null, insecureSkipTLSVerify: false, caBundle: '' }),
      want: 'none',
    },
    { name: '6C: stored "true" with another priority: update', desired, current: stored({ [label]: 'true' }, { ...desired.spec, groupPriorityMinimum: 2000 }), want: 'update' },
    {
      name: '6C: stored "true" with a service: update',
      desired,
      current: stored({ [label]: 'true' }, { ...desired.spec, service: { namespace: 'ns', name: 'svc', port: 443 } }),
      want: 'update',
    },
  ];
  for (const tc of cases) {
    test(tc.name, () => assert.equal(autoregisterAction(tc.desired, tc.current), tc.want));
  }
});

const crds: ResourceType = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false };
const apiservices: ResourceType = { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false };
const admin = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };

type CRD = { apiVersion: string; kind: string; metadata: { name: string; resourceVersion?: string }; spec: CrdSpec };

describe('the CRD APIService registration on a running server', () => {
  let dataDir: string;
  let pki: ClusterPki;
  let backend: Backend;
  let server: ApiServer;
  let client: InProcessClient;

  async function startServer(): Promise<void> {
    server = createApiServer({ backend, tls: { caPem: pki.ca.certPem, certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem }, port: 0 });
    await server.start();
    client = new InProcessClient(server, { user: admin });
  }

  /** The APIService, or undefined once it is gone, after the registration has seen every change and synced. */
  async function apiService(name: string): Promise<APIService | undefined> {
    await server.dispatcher.waitForRevision(await backend.currentRevision());
    await server.crdAPIServices.settled();
    try {
      return await client.get<APIService & { metadata: object }>(apiservices, name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** Polls until `check` passes: a CRD's deletion runs through its finalizer first. */
  async function eventually(check: () => Promise<void>): Promise<void> {
    for (let i = 0; ; i++) {
      try {
        return await check();
      } catch (e) {
        if (i >= 100) throw e;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  const widgets = (versions: Array<{ name: string; served: boolean }>): CRD => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.stable.example.com' },
    spec: crdSpec('stable.example.com', versions),
  });

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kubemix-crd-apiservices-'));
    pki = await ensurePki(dataDir);
    backend = await openBackend({ kind: 'sqlite', dataDir, compaction: false });
    await startServer();
  });
  after(async () => {
    await server.stop();
    await backend.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a CRD gets one APIService per served version, labelled, with the CRD priorities, local and Available', async () => {
    await client.create(crds, widgets([{ name: 'v1', served: true }, { name: 'v1beta1', served: true }]));
    for (const version of ['v1', 'v1beta1']) {
      const svc = await apiService(`${version}.stable.example.com`);
      assert.deepEqual(svc?.metadata?.labels, { [label]: 'true' });
      assert.deepEqual(svc?.spec, { group: 'stable.example.com', version, groupPriorityMinimum: 1000, versionPriority: 100 });
      assert.deepEqual(
        svc?.status?.conditions?.map(({ type, status, reason, message }) => ({ type, status, reason, message })),
        [{ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' }],
      );
    }
  });

  test('an APIService deleted by hand comes back; one whose spec was changed gets it back', async () => {
    await client.delete(apiservices, 'v1beta1.stable.example.com');
    assert.ok(await apiService('v1beta1.stable.example.com'));
    const live = await client.get<APIService & { metadata: object }>(apiservices, 'v1.stable.example.com');
    await client.update(apiservices, { ...live, spec: { ...live.spec, versionPriority: 7 } });
    assert.equal((await apiService('v1.stable.example.com'))?.spec?.versionPriority, 100);
  });

  test('a version no longer served loses its APIService; the others stay', async () => {
    const live = await client.get<CRD>(crds, 'widgets.stable.example.com');
    await client.update(crds, { ...live, spec: widgets([{ name: 'v1', served: true }, { name: 'v1beta1', served: false }]).spec });
    assert.equal(await apiService('v1beta1.stable.example.com'), undefined);
    assert.ok(await apiService('v1.stable.example.com'));
  });

  test('an APIService of the group without the label is left alone', async () => {
    await client.create(apiservices, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v2.stable.example.com' },
      spec: { group: 'stable.example.com', version: 'v2', groupPriorityMinimum: 500, versionPriority: 10 },
    });
    assert.equal((await apiService('v2.stable.example.com'))?.spec?.groupPriorityMinimum, 500);
  });

  test('deleting the CRD deletes its APIServices, and none of the built-in ones', async () => {
    const before = (await client.list<APIService & { metadata: object }>(apiservices)).items.filter((s) => s.metadata.labels?.[label] === 'onstart');
    assert.ok(before.length > 0);
    await client.delete(crds, 'widgets.stable.example.com');
    await eventually(async () => assert.equal(await apiService('v1.stable.example.com'), undefined));
    const after = (await client.list<APIService & { metadata: object }>(apiservices)).items;
    assert.deepEqual(after.filter((s) => s.metadata.labels?.[label] === 'onstart').map((s) => s.metadata.name), before.map((s) => s.metadata.name));
    assert.ok(after.some((s) => s.metadata.name === 'v2.stable.example.com'));
    await client.delete(apiservices, 'v2.stable.example.com');
  });

  test('an APIService labelled "true" that no CRD serves is deleted', async () => {
    await client.create(apiservices, wanted('gone.example.com', 'v1'));
    assert.equal(await apiService('v1.gone.example.com'), undefined);
  });

  test('a restart keeps the APIServices of the stored CRDs as they are', async () => {
    await client.create(crds, widgets([{ name: 'v1', served: true }]));
    const uid = (await apiService('v1.stable.example.com'))?.metadata?.uid;
    assert.ok(uid);
    await server.stop();
    await startServer();
    assert.equal((await apiService('v1.stable.example.com'))?.metadata?.uid, uid);
  });
});
