import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Pod, ContainerStatus } from 'kubernetes-types/core/v1.js';
import { columnsFor, columnDefinitions } from './columns.js';
import { printTable, type KubeObject, type TableRow } from './printers.js';

interface FixtureTable {
  columnDefinitions: unknown[];
  firstRow: TableRow & { object: { metadata: { creationTimestamp: string } } };
}
const fixtures = JSON.parse(
  readFileSync(new URL('../../../../src/apiserver/printers/testdata/tables-1.32.json', import.meta.url), 'utf8'),
) as { tables: Record<string, FixtureTable> };

function fixture(key: string): FixtureTable {
  const f = fixtures.tables[key];
  if (!f) throw new Error(`no fixture ${key}`);
  return f;
}

for (const key of Object.keys(fixtures.tables)) {
  void test(`column definitions of ${key} equal kube-apiserver 1.32's`, () => {
    const [group = '', resource = ''] = key.split('/');
    assert.deepEqual(columnsFor(group, resource), fixture(key).columnDefinitions);
  });
}

void test('every printer has as many cells as columns', () => {
  for (const key of Object.keys(columnDefinitions)) {
    const [group = '', resource = ''] = key.split('/');
    const t = printTable(resource, group, [{ metadata: { name: 'x' }, spec: {}, status: {}, roleRef: { kind: 'Role', name: 'r' }, involvedObject: {} }], {
      includeObject: 'None',
      now: 0,
    });
    assert.equal(t.rows[0]?.cells.length, t.columnDefinitions.length, key);
  }
});

/** Prints `obj` as the fixture's first row was printed, `age` after its creation. */
function printLikeFixture(key: string, obj: KubeObject): { got: TableRow; want: TableRow } {
  const f = fixture(key);
  const meta = f.firstRow.object.metadata;
  const ageCell = f.firstRow.cells[key === '/events' ? 0 : f.columnDefinitions.findIndex((c) => (c as { name: string }).name === 'Age')];
  const seconds = Number(String(ageCell).replace(/s$/, ''));
  const [group = '', resource = ''] = key.split('/');
  const t = printTable(resource, group, [{ ...obj, metadata: meta }], {
    includeObject: 'Metadata',
    now: Date.parse(meta.creationTimestamp) + seconds * 1000,
  });
  const got = t.rows[0];
  assert.ok(got);
  return { got, want: f.firstRow };
}

void test('a bound pod without container statuses prints as the real server did', () => {
  const { got, want } = printLikeFixture('/pods', {
    spec: { nodeName: 'linux-amd64-1', containers: [{ name: 'a', image: 'nginx' }] },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }], qosClass: 'BestEffort' },
  });
  assert.deepEqual(got, want);
});

void test('a Ready control-plane node prints as the real server did', () => {
  const { got, want } = printLikeFixture('/nodes', {
    spec: {},
    status: {
      conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
      addresses: [{ type: 'InternalIP', address: '10.0.0.10' }, { type: 'Hostname', address: 'control-plane' }],
      nodeInfo: {
        kubeletVersion: 'v1.28.0',
        osImage: 'Ubuntu 22.04.4 LTS',
        kernelVersion: '5.15.0-105-generic',
        containerRuntimeVersion: 'containerd://1.7.13',
      },
    },
  });
  // The fixture node carries the node-role.kubernetes.io/control-plane label in its metadata.
  assert.deepEqual(got, want);
});

void test('a LoadBalancer service without ingress shows <pending>, as the real server did', () => {
  const { got, want } = printLikeFixture('/services', {
    spec: {
      type: 'LoadBalancer',
      clusterIP: '10.110.109.147',
      clusterIPs: ['10.110.109.147'],
      ports: [{ port: 80, nodePort: 31236, protocol: 'TCP', targetPort: 80 }],
      selector: { app: 'iis-2019' },
    },
    status: { loadBalancer: {} },
  });
  assert.deepEqual(got, want);
});

void test('a deployment prints READY, integer UP-TO-DATE and AVAILABLE, as the real server did', () => {
  const { got, want } = printLikeFixture('apps/deployments', {
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'iis-2019' } },
      template: { spec: { containers: [{ name: 'iis', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019' }] } },
    },
    status: { replicas: 1, updatedReplicas: 1, unavailableReplicas: 1 },
  });
  assert.deepEqual(got, want);
});

void test('a daemonset prints NODE SELECTOR from the template, as the real server did', () => {
  const { got, want } = printLikeFixture('apps/daemonsets', {
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'a', image: 'nginx' }] } },
    },
    status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, updatedNumberScheduled: 3, numberMisscheduled: 0, numberReady: 0 },
  });
  assert.deepEqual(got, want);
});

void test('a core/v1 event from the new events API prints source from reportingController/Instance', () => {
  const { got, want } = printLikeFixture('/events', {
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'agent-55k88' },
    reason: 'Scheduled',
    message: 'Successfully assigned default/agent-55k88 to linux-amd64-1',
    source: {},
    eventTime: '2026-11-22T01:08:52.000000Z',
    type: 'Normal',
    action: 'Binding',
    reportingComponent: 'default-scheduler',
    reportingInstance: 'default-scheduler-vm',
  });
  assert.deepEqual(got, want);
});

void test('a runtimeclass prints its handler', () => {
  const { got, want } = printLikeFixture('node.k8s.io/runtimeclasses', { handler: 'example-container-runtime-handler' });
  assert.deepEqual(got, want);
});

// ---- pod STATUS / READY / RESTARTS (upstream printers_test.go TestPrintPod and friends) ----

const now = Date.parse('2026-11-22T12:00:00Z');
const ago = (ms: number): string => new Date(now - ms).toISOString();
const running = (name: string, ready: boolean, restartCount = 0): ContainerStatus => ({
  name,
  image: 'i',
  imageID: '',
  ready,
  restartCount,
  state: { running: { startedAt: ago(60_000) } },
});

interface PodCase {
  name: string;
  pod: Pod;
  want: unknown[];
}
function pod(spec: Partial<NonNullable<Pod['spec']>>, status: NonNullable<Pod['status']>, meta: Pod['metadata'] = {}): Pod {
  return {
    metadata: { name: 'test1', ...meta },
    spec: { containers: [{ name: 'c1' }, { name: 'c2' }], ...spec },
    status,
  };
}

const podCases: PodCase[] = [
  {
    name: 'Test printing pod with restarts: the phase, 1/2 ready, restarts summed',
    pod: pod({}, { phase: 'podPhase', containerStatuses: [running('c1', true, 3), { ...running('c2', false, 3), state: {} }] }),
    want: ['test1', '1/2', 'podPhase', '6', '<unknown>'],
  },
  {
    name: 'Test printing pod that is terminating (deletionTimestamp set, phase not terminal)',
    pod: pod({}, { phase: 'Running', containerStatuses: [running('c1', true), running('c2', true)] }, { deletionTimestamp: ago(1000) }),
    want: ['test1', '2/2', 'Terminating', '0', '<unknown>'],
  },
  {
    name: 'Test printing pod with NodeLost reason while deleting: Unknown',
    pod: pod({}, { phase: 'Running', reason: 'NodeLost', containerStatuses: [running('c1', true), running('c2', true)] }, { deletionTimestamp: ago(1000) }),
    want: ['test1', '2/2', 'Unknown', '0', '<unknown>'],
  },
  {
    name: 'Test printing a succeeded pod being deleted keeps Completed',
    pod: pod(
      { containers: [{ name: 'c1' }] },
      { phase: 'Succeeded', containerStatuses: [{ name: 'c1', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] },
      { deletionTimestamp: ago(1000) },
    ),
    want: ['test1', '0/1', 'Completed', '0', '<unknown>'],
  },
  {
    name: 'CrashLoopBackOff with the last restart 10 minutes ago',
    pod: pod(
      { containers: [{ name: 'c1' }] },
      {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'c1',
            image: 'i',
            imageID: '',
            ready: false,
            restartCount: 5,
            state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(10 * 60_000) } },
          },
        ],
      },
    ),
    want: ['test1', '0/1', 'CrashLoopBackOff', '5 (10m ago)', '<unknown>'],
  },
  {
    name: 'ImagePullBackOff while Pending',
    pod: pod(
      { containers: [{ name: 'c1' }] },
      { phase: 'Pending', containerStatuses: [{ name: 'c1', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } }] },
    ),
    want: ['test1', '0/1', 'ImagePullBackOff', '0', '<unknown>'],
  },
  {
    name: 'ContainerCreating while Pending',
    pod: pod(
      { containers: [{ name: 'c1' }] },
      { phase: 'Pending', containerStatuses: [{ name: 'c1', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] },
    ),
    want: ['test1', '0/1', 'ContainerCreating', '0', '<unknown>'],
  },
  {
    name: 'the first container wins: statuses are scanned from last to first',
    pod: pod(
      {},
      {
        phase: 'Running',
        containerStatuses: [
          { name: 'c1', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } },
          { name: 'c2', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 2 } } },
        ],
      },
    ),
    want: ['test1', '0/2', 'OOMKilled', '0', '<unknown>'],
  },
  {
    name: 'terminated without a reason: Signal:N, else ExitCode:N',
    pod: pod(
      {},
      {
        phase: 'Running',
        containerStatuses: [
          { name: 'c1', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, signal: 9 } } },
          running('c2', true),
        ],
      },
    ),
    want: ['test1', '1/2', 'Signal:9', '0', '<unknown>'],
  },
  {
    name: 'Completed with a container still running and Ready: Running',
    pod: pod(
      {},
      {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          { name: 'c1', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          running('c2', true),
        ],
      },
    ),
    want: ['test1', '1/2', 'Running', '0', '<unknown>'],
  },
  {
    name: 'Completed with a container still running, pod not Ready: NotReady',
    pod: pod(
      {},
      {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [
          { name: 'c1', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          running('c2', true),
        ],
      },
    ),
    want: ['test1', '1/2', 'NotReady', '0', '<unknown>'],
  },
  {
    name: 'init containers: Init:1/2 while the second one runs',
    pod: pod(
      { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'c1' }] },
      {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'i1', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          running('i2', false),
        ],
        containerStatuses: [{ name: 'c1', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
      },
    ),
    want: ['test1', '0/1', 'Init:1/2', '0', '<unknown>'],
  },
  {
    name: 'init containers: Init:ImagePullBackOff',
    pod: pod(
      { initContainers: [{ name: 'i1' }], containers: [{ name: 'c1' }] },
      { phase: 'Pending', initContainerStatuses: [{ name: 'i1', image: 'i', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } }] },
    ),
    want: ['test1', '0/1', 'Init:ImagePullBackOff', '0', '<unknown>'],
  },
  {
    name: 'init containers: Init:ExitCode:1 and Init:Error',
    pod: pod(
      { initContainers: [{ name: 'i1' }], containers: [{ name: 'c1' }] },
      {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'i1', image: 'i', imageID: '', ready: false, restartCount: 3, state: { terminated: { exitCode: 1 } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(30_000) } } }],
      },
    ),
    want: ['test1', '0/1', 'Init:ExitCode:1', '3 (30s ago)', '<unknown>'],
  },
  {
    name: 'a started restartable init container (sidecar) counts in READY and does not block',
    pod: pod(
      { initContainers: [{ name: 's1', restartPolicy: 'Always' }], containers: [{ name: 'c1' }] },
      {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [{ ...running('s1', true, 2), started: true, lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * 60_000) } } }],
        containerStatuses: [running('c1', true)],
      },
    ),
    want: ['test1', '2/2', 'Running', '2 (5m ago)', '<unknown>'],
  },
  {
    name: 'SchedulingGated from the PodScheduled condition',
    pod: pod({}, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }),
    want: ['test1', '0/2', 'SchedulingGated', '0', '<unknown>'],
  },
  {
    name: 'status.reason overrides the phase (Evicted)',
    pod: pod({}, { phase: 'Failed', reason: 'Evicted' }),
    want: ['test1', '0/2', 'Evicted', '0', '<unknown>'],
  },
];

for (const tc of podCases) {
  void test(tc.name, () => {
    const row = printTable('pods', '', [tc.pod as unknown as KubeObject], { includeObject: 'None', now }).rows[0];
    assert.deepEqual(row?.cells.slice(0, 5), tc.want);
  });
}

void test('a succeeded pod row carries the Completed row condition', () => {
  const row = printTable('pods', '', [pod({}, { phase: 'Succeeded' }) as unknown as KubeObject], { includeObject: 'None', now }).rows[0];
  assert.deepEqual(row?.conditions, [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  assert.equal(row?.object, null);
});

void test('pod wide cells: first podIP, node, nominated node, readiness gates true/total', () => {
  const p = pod(
    { nodeName: 'n1', readinessGates: [{ conditionType: 'g1' }, { conditionType: 'g2' }] },
    { phase: 'Running', podIPs: [{ ip: '10.244.0.5' }, { ip: 'fd00::5' }], nominatedNodeName: 'n2', conditions: [{ type: 'g1', status: 'True' }] },
  );
  const row = printTable('pods', '', [p as unknown as KubeObject], { includeObject: 'None', now }).rows[0];
  assert.deepEqual(row?.cells.slice(5), ['10.244.0.5', 'n1', 'n2', '1/2']);
});

// ---- nodes ----

void test('node Ready,SchedulingDisabled with roles from both label forms, sorted', () => {
  const node: KubeObject = {
    metadata: {
      name: 'n1',
      creationTimestamp: ago(3 * 24 * 3600_000 + 5 * 3600_000),
      labels: { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'ingress', 'node-role.kubernetes.io/': 'x' },
    },
    spec: { unschedulable: true },
    status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.32.0' } },
  };
  const row = printTable('nodes', '', [node], { includeObject: 'None', now }).rows[0];
  assert.deepEqual(row?.cells, ['n1', 'Ready,SchedulingDisabled', 'control-plane,ingress,worker', '3d5h', 'v1.32.0', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
});

void test('node status: NotReady for Unknown, Unknown without a Ready condition', () => {
  const mk = (conditions: unknown[]): KubeObject => ({ metadata: { name: 'n' }, spec: {}, status: { conditions } });
  const t = printTable('nodes', '', [mk([{ type: 'Ready', status: 'Unknown' }]), mk([])], { includeObject: 'None', now });
  assert.deepEqual(t.rows.map((r) => r.cells[1]), ['NotReady', 'Unknown']);
  assert.deepEqual(t.rows.map((r) => r.cells[2]), ['<none>', '<none>']);
});

// ---- services ----

const svcCases: Array<{ name: string; spec: Record<string, unknown>; status?: Record<string, unknown>; want: [string, string] }> = [
  { name: 'ClusterIP without external IPs', spec: { type: 'ClusterIP', clusterIPs: ['10.96.0.1'], ports: [{ port: 443, protocol: 'TCP' }] }, want: ['<none>', '443/TCP'] },
  { name: 'NodePort 80:30001/TCP', spec: { type: 'NodePort', clusterIPs: ['10.0.0.1'], ports: [{ port: 80, nodePort: 30001, protocol: 'TCP' }] }, want: ['<none>', '80:30001/TCP'] },
  {
    name: 'LoadBalancer pending',
    spec: { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 31236, protocol: 'TCP' }, { port: 53, nodePort: 31000, protocol: 'UDP' }] },
    want: ['<pending>', '80:31236/TCP,53:31000/UDP'],
  },
  {
    name: 'LoadBalancer with ingress IPs and hostnames plus externalIPs, not clipped (server prints wide)',
    spec: { type: 'LoadBalancer', externalIPs: ['1.2.3.4'], ports: [] },
    status: { loadBalancer: { ingress: [{ ip: '5.6.7.8' }, { hostname: 'a-very-long-load-balancer-name.example.com' }] } },
    want: ['5.6.7.8,a-very-long-load-balancer-name.example.com,1.2.3.4', '<none>'],
  },
  { name: 'ExternalName', spec: { type: 'ExternalName', externalName: 'db.example.com' }, want: ['db.example.com', '<none>'] },
];
for (const tc of svcCases) {
  void test(`service EXTERNAL-IP and PORT(S): ${tc.name}`, () => {
    const row = printTable('services', '', [{ metadata: { name: 's' }, spec: tc.spec, status: tc.status ?? {} }], { includeObject: 'None', now }).rows[0];
    assert.deepEqual([row?.cells[3], row?.cells[4]], tc.want);
  });
}

// ---- others ----

void test('jobs: status, completions and duration', () => {
  const job: KubeObject = {
    metadata: { name: 'j', creationTimestamp: ago(120_000) },
    spec: { completions: 3, parallelism: 2, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u' } }, template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    status: { succeeded: 3, startTime: ago(100_000), completionTime: ago(10_000), conditions: [{ type: 'Complete', status: 'True' }] },
  };
  const indexed: KubeObject = { metadata: { name: 'k' }, spec: { parallelism: 4, template: { spec: { containers: [] } } }, status: { conditions: [{ type: 'Suspended', status: 'True' }] } };
  const t = printTable('jobs', 'batch', [job, indexed], { includeObject: 'None', now });
  assert.deepEqual(t.rows[0]?.cells, ['j', 'Complete', '3/3', '90s', '2m', 'c', 'busybox', 'batch.kubernetes.io/controller-uid=u']);
  assert.deepEqual(t.rows[1]?.cells, ['k', 'Suspended', '0/1 of 4', '', '<unknown>', '', '', '<none>']);
});

void test('cronjobs: timezone, suspend and last schedule', () => {
  const cj: KubeObject = {
    metadata: { name: 'c' },
    spec: { schedule: '*/5 * * * *', suspend: false, jobTemplate: { spec: { template: { spec: { containers: [{ name: 'x', image: 'y' }] } } } } },
    status: { active: [{ name: 'a' }], lastScheduleTime: ago(3 * 60_000) },
  };
  assert.deepEqual(printTable('cronjobs', 'batch', [cj], { includeObject: 'None', now }).rows[0]?.cells, ['c', '*/5 * * * *', '<none>', 'False', 1, '3m', '<unknown>', 'x', 'y', '<none>']);
});

void test('replicasets, statefulsets, configmaps, secrets, serviceaccounts, namespaces', () => {
  const o = (name: string, rest: Record<string, unknown>): KubeObject => ({ metadata: { name, creationTimestamp: ago(25 * 24 * 3600_000) }, ...rest });
  assert.deepEqual(
    printTable('replicasets', 'apps', [o('rs', { spec: { replicas: 3, selector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'c', operator: 'In', values: ['y', 'x'] }] }, template: { spec: { containers: [{ name: 'n', image: 'i' }, { name: 'm', image: 'j' }] } } }, status: { replicas: 2, readyReplicas: 1 } })], { includeObject: 'None', now }).rows[0]?.cells,
    ['rs', 3, 2, 1, '25d', 'n,m', 'i,j', 'a=1,b=2,c in (x,y)'],
  );
  assert.deepEqual(printTable('statefulsets', 'apps', [o('ss', { spec: { replicas: 2, template: { spec: { containers: [] } } }, status: { readyReplicas: 1 } })], { includeObject: 'None', now }).rows[0]?.cells, ['ss', '1/2', '25d', '', '']);
  assert.deepEqual(printTable('configmaps', '', [o('cm', { data: { a: 'x' }, binaryData: { b: 'eA==' } })], { includeObject: 'None', now }).rows[0]?.cells, ['cm', 2, '25d']);
  assert.deepEqual(printTable('secrets', '', [o('s', { type: 'Opaque', data: { a: 'eA==' } })], { includeObject: 'None', now }).rows[0]?.cells, ['s', 'Opaque', 1, '25d']);
  assert.deepEqual(printTable('serviceaccounts', '', [o('default', {})], { includeObject: 'None', now }).rows[0]?.cells, ['default', 0, '25d']);
  assert.deepEqual(printTable('namespaces', '', [o('ns', { status: { phase: 'Terminating' } })], { includeObject: 'None', now }).rows[0]?.cells, ['ns', 'Terminating', '25d']);
});

void test('endpoints and endpointslices list at most three addresses', () => {
  const ep: KubeObject = {
    metadata: { name: 'e' },
    subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: 'fd00::3' }, { ip: '10.0.0.4' }], ports: [{ port: 80 }] }],
  };
  assert.equal(printTable('endpoints', '', [ep], { includeObject: 'None', now }).rows[0]?.cells[1], '10.0.0.1:80,10.0.0.2:80,[fd00::3]:80 + 1 more...');
  assert.equal(printTable('endpoints', '', [{ metadata: { name: 'e' } }], { includeObject: 'None', now }).rows[0]?.cells[1], '<none>');
  const es: KubeObject = { metadata: { name: 's' }, addressType: 'IPv4', ports: [{ port: 80 }, { name: 'dns' }], endpoints: [{ addresses: ['10.0.0.1'] }] };
  assert.deepEqual(printTable('endpointslices', 'discovery.k8s.io', [es], { includeObject: 'None', now }).rows[0]?.cells.slice(0, 4), ['s', 'IPv4', '80,dns', '10.0.0.1']);
});

void test('rbac bindings, leases, priorityclasses, pdbs, pvcs, quotas, hpas, ingresses, networkpolicies', () => {
  const opts = { includeObject: 'None' as const, now };
  assert.deepEqual(
    printTable('rolebindings', 'rbac.authorization.k8s.io', [{ metadata: { name: 'rb' }, roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }, { kind: 'Group', name: 'g1' }, { kind: 'Group', name: 'g2' }] }], opts).rows[0]?.cells,
    ['rb', 'Role/r', '<unknown>', 'u', 'g1, g2', 'ns/sa'],
  );
  assert.deepEqual(printTable('leases', 'coordination.k8s.io', [{ metadata: { name: 'n1' }, spec: { holderIdentity: 'n1' } }], opts).rows[0]?.cells, ['n1', 'n1', '<unknown>']);
  assert.deepEqual(printTable('priorityclasses', 'scheduling.k8s.io', [{ metadata: { name: 'system-node-critical' }, value: 2000001000, preemptionPolicy: 'PreemptLowerPriority' }], opts).rows[0]?.cells, ['system-node-critical', 2000001000, false, '<unknown>', 'PreemptLowerPriority']);
  assert.deepEqual(printTable('poddisruptionbudgets', 'policy', [{ metadata: { name: 'p' }, spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } }], opts).rows[0]?.cells, ['p', '50%', 'N/A', 1, '<unknown>']);
  assert.deepEqual(
    printTable('persistentvolumeclaims', '', [{ metadata: { name: 'c' }, spec: { volumeName: 'pv1', storageClassName: 'standard', volumeMode: 'Filesystem' }, status: { phase: 'Bound', capacity: { storage: '1024Mi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'] } }], opts).rows[0]?.cells,
    ['c', 'Bound', 'pv1', '1Gi', 'RWO,RWX', 'standard', '<unset>', '<unknown>', 'Filesystem'],
  );
  assert.deepEqual(
    printTable('resourcequotas', '', [{ metadata: { name: 'q' }, status: { hard: { 'limits.cpu': '2', pods: '10', 'requests.memory': '1Gi' }, used: { pods: '3' } } }], opts).rows[0]?.cells,
    ['q', '<unknown>', 'pods: 3/10, requests.memory: 0/1Gi', 'limits.cpu: 0/2'],
  );
  assert.deepEqual(
    printTable('horizontalpodautoscalers', 'autoscaling', [{ metadata: { name: 'h' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] }, status: { currentReplicas: 2 } }], opts).rows[0]?.cells,
    ['h', 'Deployment/web', 'cpu: <unknown>/80%', '<unset>', 5, 2, '<unknown>'],
  );
  assert.deepEqual(printTable('ingresses', 'networking.k8s.io', [{ metadata: { name: 'i' }, spec: { rules: [{ host: 'a.example.com' }, {}], tls: [{}] }, status: {} }], opts).rows[0]?.cells, ['i', '<none>', 'a.example.com', '', '80, 443', '<unknown>']);
  assert.deepEqual(printTable('networkpolicies', 'networking.k8s.io', [{ metadata: { name: 'np' }, spec: { podSelector: {} } }], opts).rows[0]?.cells, ['np', '<none>', '<unknown>']);
});

void test('resources without a printer get Name and Created At (roles, limitranges, CRDs)', () => {
  for (const [group, resource] of [['rbac.authorization.k8s.io', 'roles'], ['rbac.authorization.k8s.io', 'clusterroles'], ['', 'limitranges'], ['apiextensions.k8s.io', 'customresourcedefinitions']] as const) {
    const t = printTable(resource, group, [{ metadata: { name: 'x', creationTimestamp: '2026-11-22T01:08:52Z' } }], { includeObject: 'Object', now });
    assert.deepEqual(t.columnDefinitions.map((c) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Created At', 'date', '']]);
    assert.deepEqual(t.rows[0]?.cells, ['x', '2026-11-22T01:08:52Z']);
    assert.deepEqual(t.rows[0]?.object, { metadata: { name: 'x', creationTimestamp: '2026-11-22T01:08:52Z' } });
  }
});

void test('certificate signing requests: signer, requestor, requested duration and condition', () => {
  const csr: KubeObject = {
    metadata: { name: 'csr-1', creationTimestamp: ago(90_000) },
    spec: { signerName: 'kubernetes.io/kube-apiserver-client-kubelet', username: 'system:bootstrap:abcdef', expirationSeconds: 86400, request: 'LS0t' },
    status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'LS0t' },
  };
  assert.deepEqual(printTable('certificatesigningrequests', 'certificates.k8s.io', [csr], { includeObject: 'None', now }).rows[0]?.cells, [
    'csr-1',
    '90s',
    'kubernetes.io/kube-apiserver-client-kubelet',
    'system:bootstrap:abcdef',
    '24h',
    'Approved,Issued',
  ]);
  const pending: KubeObject = { metadata: { name: 'p' }, spec: { request: '' }, status: {} };
  assert.deepEqual(printTable('certificatesigningrequests', 'certificates.k8s.io', [pending], { includeObject: 'None', now }).rows[0]?.cells.slice(2), ['<none>', '', '<none>', 'Pending']);
});

void test('events.k8s.io/v1 events print with the core event columns', () => {
  const ev: KubeObject = {
    metadata: { name: 'e1', creationTimestamp: ago(60_000) },
    eventTime: ago(60_000),
    regarding: { kind: 'Pod', name: 'p1', namespace: 'default' },
    note: 'Successfully assigned default/p1 to n1',
    reason: 'Scheduled',
    type: 'Normal',
    action: 'Binding',
    reportingController: 'default-scheduler',
    reportingInstance: 'default-scheduler-n1',
  };
  const t = printTable('events', 'events.k8s.io', [ev], { includeObject: 'None', now });
  assert.deepEqual(t.columnDefinitions.map((c) => c.name), ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
  assert.deepEqual(t.rows[0]?.cells, ['60s', 'Normal', 'Scheduled', 'pod/p1', '', 'default-scheduler, default-scheduler-n1', 'Successfully assigned default/p1 to n1', '60s', 1, 'e1']);
});

void test('replication controllers, pod templates, webhooks and CSI objects', () => {
  const opts = { includeObject: 'None' as const, now };
  assert.deepEqual(
    printTable('replicationcontrollers', '', [{ metadata: { name: 'rc' }, spec: { replicas: 2, selector: { app: 'x' }, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } }, status: { replicas: 2, readyReplicas: 1 } }], opts).rows[0]?.cells,
    ['rc', 2, 2, 1, '<unknown>', 'c', 'i', 'app=x'],
  );
  assert.deepEqual(printTable('podtemplates', '', [{ metadata: { name: 'pt' }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } }], opts).rows[0]?.cells, ['pt', 'c', 'i', 'a=b']);
  assert.deepEqual(printTable('validatingwebhookconfigurations', 'admissionregistration.k8s.io', [{ metadata: { name: 'v' }, webhooks: [{}, {}] }], opts).rows[0]?.cells, ['v', 2, '<unknown>']);
  assert.deepEqual(printTable('csidrivers', 'storage.k8s.io', [{ metadata: { name: 'd' }, spec: {} }], opts).rows[0]?.cells, ['d', true, false, false, '<unset>', false, '<none>', '<unknown>']);
  assert.deepEqual(printTable('volumeattachments', 'storage.k8s.io', [{ metadata: { name: 'va' }, spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } }, status: { attached: true } }], opts).rows[0]?.cells, ['va', 'csi.example.com', 'pv1', 'n1', true, '<unknown>']);
});

const none = { includeObject: 'None' as const, now };
const cellsOf = (resource: string, group: string, obj: KubeObject): unknown[] | undefined => printTable(resource, group, [obj], none).rows[0]?.cells;

void test('the newer printers have upstream\'s columns: names, types, formats and no wide ones', () => {
  const cases: Array<[string, string, Array<[string, string]>]> = [
    ['flowcontrol.apiserver.k8s.io', 'flowschemas', [['Name', 'string'], ['PriorityLevel', 'string'], ['MatchingPrecedence', 'string'], ['DistinguisherMethod', 'string'], ['Age', 'string'], ['MissingPL', 'string']]],
    [
      'flowcontrol.apiserver.k8s.io',
      'prioritylevelconfigurations',
      [['Name', 'string'], ['Type', 'string'], ['NominalConcurrencyShares', 'string'], ['Queues', 'string'], ['HandSize', 'string'], ['QueueLengthLimit', 'string'], ['Age', 'string']],
    ],
    ['apiregistration.k8s.io', 'apiservices', [['Name', 'string'], ['Service', 'string'], ['Available', 'string'], ['Age', 'string']]],
    ['admissionregistration.k8s.io', 'validatingadmissionpolicies', [['Name', 'string'], ['Validations', 'integer'], ['ParamKind', 'string'], ['Age', 'string']]],
    ['admissionregistration.k8s.io', 'validatingadmissionpolicybindings', [['Name', 'string'], ['PolicyName', 'string'], ['ParamRef', 'string'], ['Age', 'string']]],
    ['storage.k8s.io', 'csistoragecapacities', [['Name', 'string'], ['StorageClassName', 'string'], ['Capacity', 'string']]],
  ];
  for (const [group, resource, want] of cases) {
    const cols = columnsFor(group, resource);
    assert.deepEqual(cols.map((c) => [c.name, c.type]), want, resource);
    assert.deepEqual(cols.map((c) => c.format), want.map((_, i) => (i === 0 ? 'name' : '')), resource);
    assert.ok(cols.every((c) => c.priority === 0), resource);
  }
  const descriptions = (group: string, resource: string): string[] => columnsFor(group, resource).map((c) => c.description);
  assert.equal(descriptions('flowcontrol.apiserver.k8s.io', 'flowschemas')[5], 'references a broken or non-existent PriorityLevelConfiguration');
  assert.deepEqual(descriptions('apiregistration.k8s.io', 'apiservices').slice(1, 3), ['The reference to the service that hosts this API endpoint.', 'Whether this service is available.']);
  assert.deepEqual(descriptions('admissionregistration.k8s.io', 'validatingadmissionpolicies').slice(1, 3), [
    'Validations indicates the number of validation rules defined in this configuration',
    'ParamKind specifies the kind of resources used to parameterize this policy',
  ]);
  assert.deepEqual(descriptions('admissionregistration.k8s.io', 'validatingadmissionpolicybindings').slice(1, 3), [
    'PolicyName indicates the policy definition which the policy binding binded to',
    'ParamRef indicates the param resource which sets the configration param',
  ]);
});

void test('the newer printers describe their columns with the 1.32 OpenAPI text of the fields they show', () => {
  const swagger = JSON.parse(gunzipSync(readFileSync(new URL('../../../../src/apiserver/openapi/data/swagger.json.gz', import.meta.url))).toString('utf8')) as {
    definitions: Record<string, { properties: Record<string, { description: string }> }>;
  };
  const field = (definition: string, property: string): string | undefined => swagger.definitions[definition]?.properties[property]?.description;
  const fc = 'io.k8s.api.flowcontrol.v1.';
  const cases: Array<[string, string, number, string, string]> = [
    ['flowcontrol.apiserver.k8s.io', 'flowschemas', 1, `${fc}PriorityLevelConfigurationReference`, 'name'],
    ['flowcontrol.apiserver.k8s.io', 'flowschemas', 2, `${fc}FlowSchemaSpec`, 'matchingPrecedence'],
    ['flowcontrol.apiserver.k8s.io', 'flowschemas', 3, `${fc}FlowSchemaSpec`, 'distinguisherMethod'],
    ['flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', 1, `${fc}PriorityLevelConfigurationSpec`, 'type'],
    ['flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', 2, `${fc}LimitedPriorityLevelConfiguration`, 'nominalConcurrencyShares'],
    ['flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', 3, `${fc}QueuingConfiguration`, 'queues'],
    ['flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', 4, `${fc}QueuingConfiguration`, 'handSize'],
    ['flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations', 5, `${fc}QueuingConfiguration`, 'queueLengthLimit'],
    ['storage.k8s.io', 'csistoragecapacities', 1, 'io.k8s.api.storage.v1.CSIStorageCapacity', 'storageClassName'],
    ['storage.k8s.io', 'csistoragecapacities', 2, 'io.k8s.api.storage.v1.CSIStorageCapacity', 'capacity'],
  ];
  for (const [group, resource, i, definition, property] of cases) {
    assert.equal(columnsFor(group, resource)[i]?.description, field(definition, property), `${resource} column ${i}`);
  }
});

void test('flowschemas: priority level, precedence, distinguisher and whether the level is missing', () => {
  const fs = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'fs', creationTimestamp: ago(120_000) }, spec, status });
  const cases: Array<[string, KubeObject, unknown[]]> = [
    [
      'a schema whose level exists prints MissingPL False',
      fs({ priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: 9000, distinguisherMethod: { type: 'ByUser' } }, { conditions: [{ type: 'Dangling', status: 'False', reason: 'Found' }] }),
      ['fs', 'workload-low', 9000, 'ByUser', '2m', 'False'],
    ],
    [
      'a schema without a distinguisher prints <none>',
      fs({ priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1 }, { conditions: [{ type: 'Dangling', status: 'False' }] }),
      ['fs', 'exempt', 1, '<none>', '2m', 'False'],
    ],
    [
      'a dangling schema prints MissingPL True',
      fs({ priorityLevelConfiguration: { name: 'gone' }, matchingPrecedence: 500, distinguisherMethod: { type: 'ByNamespace' } }, { conditions: [{ type: 'Dangling', status: 'True', reason: 'NotFound' }] }),
      ['fs', 'gone', 500, 'ByNamespace', '2m', 'True'],
    ],
    ['a schema the controller has not seen yet prints MissingPL ?', fs({ priorityLevelConfiguration: { name: 'system' }, matchingPrecedence: 1000 }), ['fs', 'system', 1000, '<none>', '2m', '?']],
  ];
  for (const [what, obj, want] of cases) assert.deepEqual(cellsOf('flowschemas', 'flowcontrol.apiserver.k8s.io', obj), want, what);
});

void test('a list of flowschemas prints by matching precedence, then by name', () => {
  const fs = (name: string, matchingPrecedence: number): KubeObject => ({ metadata: { name }, spec: { priorityLevelConfiguration: { name: 'p' }, matchingPrecedence } });
  const t = printTable('flowschemas', 'flowcontrol.apiserver.k8s.io', [fs('b', 800), fs('z', 100), fs('a', 800), fs('c', 10000)], none);
  assert.deepEqual(t.rows.map((r) => r.cells[0]), ['z', 'a', 'b', 'c']);
});

void test('prioritylevelconfigurations: shares and queuing of limited levels, <none> elsewhere', () => {
  const plc = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'pl', creationTimestamp: ago(3_600_000) }, spec, status: {} });
  const cases: Array<[string, KubeObject, unknown[]]> = [
    [
      'a queuing level prints its shares, queues, hand size and queue length limit',
      plc({ type: 'Limited', limited: { nominalConcurrencyShares: 100, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } }, lendablePercent: 90 } }),
      ['pl', 'Limited', 100, 128, 6, 50, '60m'],
    ],
    [
      'a rejecting level prints its shares and no queuing',
      plc({ type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 } }),
      ['pl', 'Limited', 5, '<none>', '<none>', '<none>', '60m'],
    ],
    ['an exempt level prints <none> throughout', plc({ type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }), ['pl', 'Exempt', '<none>', '<none>', '<none>', '<none>', '60m']],
  ];
  for (const [what, obj, want] of cases) assert.deepEqual(cellsOf('prioritylevelconfigurations', 'flowcontrol.apiserver.k8s.io', obj), want, what);
});

void test('apiservices: Local or namespace/name, and the Available condition with its reason unless True', () => {
  const svc = (spec: Record<string, unknown>, conditions?: unknown[]): KubeObject => ({
    metadata: { name: 'v1beta1.metrics.k8s.io', creationTimestamp: ago(90_000) },
    spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, ...spec },
    ...(conditions !== undefined ? { status: { conditions } } : {}),
  });
  const cases: Array<[string, KubeObject, unknown[]]> = [
    ['a local APIService is Local and True', svc({}, [{ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' }]), ['v1beta1.metrics.k8s.io', 'Local', 'True', '90s']],
    [
      'an unavailable aggregated APIService shows the reason',
      svc({ service: { namespace: 'kube-system', name: 'metrics-server', port: 443 } }, [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }]),
      ['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'False (MissingEndpoints)', '90s'],
    ],
    ['a condition without a reason shows the status alone', svc({}, [{ type: 'Available', status: 'False' }]), ['v1beta1.metrics.k8s.io', 'Local', 'False', '90s']],
    ['an APIService no controller has looked at is Unknown', svc({ service: null }), ['v1beta1.metrics.k8s.io', 'Local', 'Unknown', '90s']],
  ];
  for (const [what, obj, want] of cases) assert.deepEqual(cellsOf('apiservices', 'apiregistration.k8s.io', obj), want, what);
});

void test('validatingadmissionpolicies: number of validations and the param kind', () => {
  const vap = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'vap', creationTimestamp: ago(30_000) }, spec });
  assert.deepEqual(
    cellsOf('validatingadmissionpolicies', 'admissionregistration.k8s.io', vap({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }, { expression: 'false' }] })),
    ['vap', 2, 'v1/ConfigMap', '30s'],
  );
  assert.deepEqual(cellsOf('validatingadmissionpolicies', 'admissionregistration.k8s.io', vap({})), ['vap', 0, '<unset>', '30s']);
});

void test('validatingadmissionpolicybindings: the policy and the param reference', () => {
  const binding = (paramRef?: Record<string, unknown>): KubeObject => ({
    metadata: { name: 'b', creationTimestamp: ago(30_000) },
    spec: { policyName: 'vap', validationActions: ['Deny'], ...(paramRef !== undefined ? { paramRef } : {}) },
  });
  const cases: Array<[string, KubeObject, string]> = [
    ['a named param in a namespace prints namespace/name', binding({ name: 'limits', namespace: 'team-a' }), 'team-a/limits'],
    ['a named param without a namespace prints */name', binding({ name: 'limits' }), '*/limits'],
    [
      'a param selector prints as Go prints the LabelSelector',
      binding({ selector: { matchLabels: { tier: 'b', app: 'a' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['dev', 'prod'] }, { key: 'x', operator: 'Exists' }] } }),
      '&LabelSelector{MatchLabels:map[string]string{app: a,tier: b,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[dev prod],},LabelSelectorRequirement{Key:x,Operator:Exists,Values:[],},},}',
    ],
    ['an empty selector prints its empty Go form', binding({ selector: {} }), '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}'],
    ['no param reference prints <unset>', binding(), '<unset>'],
  ];
  for (const [what, obj, want] of cases) assert.deepEqual(cellsOf('validatingadmissionpolicybindings', 'admissionregistration.k8s.io', obj), ['b', 'vap', want, '30s'], what);
});

void test('csistoragecapacities: storage class and canonical capacity, no age', () => {
  const cap = (capacity?: string): KubeObject => ({ metadata: { name: 'csisc-1', namespace: 'kube-system' }, storageClassName: 'fast', ...(capacity !== undefined ? { capacity } : {}) });
  assert.deepEqual(cellsOf('csistoragecapacities', 'storage.k8s.io', cap('10Gi')), ['csisc-1', 'fast', '10Gi']);
  assert.deepEqual(cellsOf('csistoragecapacities', 'storage.k8s.io', cap('1536Mi')), ['csisc-1', 'fast', '1536Mi']);
  assert.deepEqual(cellsOf('csistoragecapacities', 'storage.k8s.io', cap()), ['csisc-1', 'fast', '<unset>']);
});

void test('a core/v1 event read back from storage without timestamps (null) takes eventTime, and a series its count', () => {
  const ev: KubeObject = {
    metadata: { name: 'e2', creationTimestamp: ago(120_000) },
    involvedObject: { kind: 'Pod', name: 'p2', namespace: 'default' },
    reason: 'FailedScheduling',
    message: '0/1 nodes are available: 1 Too many pods.',
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    type: 'Warning',
    eventTime: ago(120_000),
    action: 'Scheduling',
    reportingComponent: 'default-scheduler',
    reportingInstance: 'default-scheduler-vm',
  };
  const single = printTable('events', '', [ev], { includeObject: 'None', now });
  assert.deepEqual(single.rows[0]?.cells, ['2m', 'Warning', 'FailedScheduling', 'pod/p2', '', 'default-scheduler, default-scheduler-vm', '0/1 nodes are available: 1 Too many pods.', '2m', 1, 'e2']);
  const series = printTable('events', '', [{ ...ev, series: { count: 3, lastObservedTime: ago(30_000) } }], { includeObject: 'None', now });
  assert.deepEqual(series.rows[0]?.cells.slice(0, 1).concat(series.rows[0]?.cells.slice(7, 9) ?? []), ['30s', '2m', 3]);
});
