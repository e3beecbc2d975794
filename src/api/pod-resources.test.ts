import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { formatQuantity, parseQuantity, type Quantity } from './quantity.js';
import { podLimits, podRequests, type Amounts } from './pod-resources.js';

/** Amounts as quantities compared by value: what `equality.Semantic.DeepEqual` of upstream's tests compares. */
const ops: Amounts<Quantity> = {
  parse: (q) => parseQuantity(q),
  add: (a, b) => ({ nanos: a.nanos + b.nanos, format: a.format }),
  greater: (a, b) => a.nanos > b.nanos,
};

function values(m: Map<string, Quantity>): Record<string, bigint> {
  return Object.fromEntries([...m].map(([k, v]) => [k, v.nanos]));
}

function want(rl: Record<string, string>): Record<string, bigint> {
  return Object.fromEntries(Object.entries(rl).map(([k, v]) => [k, parseQuantity(v).nanos]));
}

type Kind = 'requests' | 'limits';
const always = 'Always';

function c(kind: Kind, rl: Record<string, string>, extra: Partial<Container> = {}): Container {
  return { name: extra.name ?? 'c', ...extra, resources: { [kind]: rl } };
}

function pod(containers: Container[], initContainers: Container[] = [], overhead?: Record<string, string>): Pod {
  return { spec: { containers, initContainers, ...(overhead !== undefined ? { overhead } : {}) } };
}

// getPod(name, podResources{...}) of TestPodRequestsAndLimits: one container, optional overhead.
function getPod(r: { cpuRequest?: string; memoryRequest?: string; cpuLimit?: string; memoryLimit?: string; cpuOverhead?: string; memoryOverhead?: string }): Pod {
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  const overhead: Record<string, string> = {};
  if (r.cpuRequest !== undefined) requests['cpu'] = r.cpuRequest;
  if (r.memoryRequest !== undefined) requests['memory'] = r.memoryRequest;
  if (r.cpuLimit !== undefined) limits['cpu'] = r.cpuLimit;
  if (r.memoryLimit !== undefined) limits['memory'] = r.memoryLimit;
  if (r.cpuOverhead !== undefined) overhead['cpu'] = r.cpuOverhead;
  if (r.memoryOverhead !== undefined) overhead['memory'] = r.memoryOverhead;
  return pod([{ name: 'foobar', resources: { requests, limits } }], [], Object.keys(overhead).length > 0 ? overhead : undefined);
}

// TestPodRequestsAndLimits of k8s.io/component-helpers/resource/helpers_test.go.
const withOverhead: { cName: string; pod: Pod; expectedRequests: Record<string, string>; expectedLimits: Record<string, string> }[] = [
  { cName: 'just-limit-no-overhead', pod: getPod({ cpuLimit: '9' }), expectedRequests: {}, expectedLimits: { cpu: '9' } },
  { cName: 'just-overhead', pod: getPod({ cpuOverhead: '5', memoryOverhead: '5' }), expectedRequests: { cpu: '5', memory: '5' }, expectedLimits: {} },
  { cName: 'req-and-overhead', pod: getPod({ cpuRequest: '1', memoryRequest: '10', cpuOverhead: '5', memoryOverhead: '5' }), expectedRequests: { cpu: '6', memory: '15' }, expectedLimits: {} },
  {
    cName: 'all-req-lim-and-overhead',
    pod: getPod({ cpuRequest: '1', cpuLimit: '2', memoryRequest: '10', memoryLimit: '12', cpuOverhead: '5', memoryOverhead: '5' }),
    expectedRequests: { cpu: '6', memory: '15' },
    expectedLimits: { cpu: '7', memory: '17' },
  },
  {
    cName: 'req-some-lim-and-overhead',
    pod: getPod({ cpuRequest: '1', cpuLimit: '2', memoryRequest: '10', cpuOverhead: '5', memoryOverhead: '5' }),
    expectedRequests: { cpu: '6', memory: '15' },
    expectedLimits: { cpu: '7' },
  },
];
for (const tc of withOverhead) {
  void test(`TestPodRequestsAndLimits: ${tc.cName}`, () => {
    assert.deepEqual(values(podRequests(tc.pod, ops)), want(tc.expectedRequests));
    assert.deepEqual(values(podLimits(tc.pod, ops)), want(tc.expectedLimits));
  });
}

const both = (rq: Record<string, string>, lim: Record<string, string>, name: string): Container => ({ name, resources: { requests: rq, limits: lim } });
const twoContainers = [both({ cpu: '1', memory: '5' }, { cpu: '2', memory: '10' }, 'foobar'), both({ cpu: '4', memory: '12' }, { cpu: '8', memory: '24' }, 'foobar2')];

// TestPodRequestsAndLimitsWithoutOverhead (ExcludeOverhead: true).
const withoutOverhead: { name: string; pod: Pod; expectedRequests: Record<string, string>; expectedLimits: Record<string, string> }[] = [
  { name: 'two container no overhead - should just be sum of containers', pod: pod(twoContainers), expectedRequests: { cpu: '5', memory: '17' }, expectedLimits: { cpu: '10', memory: '34' } },
  {
    name: "two container with overhead - shouldn't consider overhead",
    pod: pod(twoContainers, [], { cpu: '3', memory: '8' }),
    expectedRequests: { cpu: '5', memory: '17' },
    expectedLimits: { cpu: '10', memory: '34' },
  },
  {
    name: 'two container with overhead, massive init - should just be the largest init',
    pod: pod(twoContainers, [both({ cpu: '1', memory: '5' }, { cpu: '1', memory: '5' }, 'small-init'), both({ cpu: '40', memory: '120' }, { cpu: '80', memory: '240' }, 'big-init')], { cpu: '3', memory: '8' }),
    expectedRequests: { cpu: '40', memory: '120' },
    expectedLimits: { cpu: '80', memory: '240' },
  },
];
for (const tc of withoutOverhead) {
  void test(`TestPodRequestsAndLimitsWithoutOverhead: ${tc.name}`, () => {
    assert.deepEqual(values(podRequests(tc.pod, ops, { excludeOverhead: true })), want(tc.expectedRequests));
    assert.deepEqual(values(podLimits(tc.pod, ops, { excludeOverhead: true })), want(tc.expectedLimits));
  });
}

// The cases of TestPodResourceRequests and TestPodResourceLimits that do not read status resources (in-place
// resize is off in 1.32's defaults for the helpers' callers here); each table is run for its own kind.
const byKind: { description: string; kind: Kind; excludeOverhead?: boolean; overhead?: Record<string, string>; init?: Container[]; containers: Container[]; expected: Record<string, string> }[] = [];
for (const kind of ['requests', 'limits'] as const) {
  byKind.push(
    { description: 'nil options, larger init container', kind, init: [c(kind, { cpu: '4' })], containers: [c(kind, { cpu: '1' })], expected: { cpu: '4' } },
    { description: 'nil options, larger containers', kind, init: [c(kind, { cpu: '2' })], containers: [c(kind, { cpu: '2' }), c(kind, { cpu: '3' })], expected: { cpu: '5' } },
    {
      description: 'pod overhead excluded',
      kind,
      excludeOverhead: true,
      overhead: { cpu: '1' },
      init: [c(kind, { cpu: '2' })],
      containers: [c(kind, { cpu: '2' }), c(kind, { cpu: '3' })],
      expected: { cpu: '5' },
    },
    {
      description: 'pod overhead included',
      kind,
      overhead: { cpu: '1', memory: '1Gi' },
      init: [c(kind, { cpu: '2' })],
      containers: [c(kind, { cpu: '2' }), c(kind, { cpu: '3' })],
      // Overhead is only added to the limits that are set: no memory limit.
      expected: kind === 'requests' ? { cpu: '6', memory: '1Gi' } : { cpu: '6' },
    },
    {
      description: 'restartable init container',
      kind,
      init: [c(kind, { cpu: '1' }, { name: 'restartable-init-1', restartPolicy: always })],
      containers: [c(kind, { cpu: '1' }, { name: 'container-1' })],
      expected: { cpu: '2' },
    },
    {
      description: 'multiple restartable init containers',
      kind,
      init: [
        c(kind, { cpu: '5' }, { name: 'init-1' }),
        c(kind, { cpu: '1' }, { name: 'restartable-init-1', restartPolicy: always }),
        c(kind, { cpu: '2' }, { name: 'restartable-init-2', restartPolicy: always }),
        c(kind, { cpu: '3' }, { name: 'restartable-init-3', restartPolicy: always }),
      ],
      containers: [c(kind, { cpu: '1' }, { name: 'container-1' })],
      // max(5, restartable init containers(3+2+1) + regular(1)) = 7
      expected: { cpu: '7' },
    },
    {
      description: 'multiple restartable and regular init containers',
      kind,
      init: [
        c(kind, { cpu: '5' }, { name: 'init-1' }),
        c(kind, { cpu: '1' }, { name: 'restartable-init-1', restartPolicy: always }),
        c(kind, { cpu: '2' }, { name: 'restartable-init-2', restartPolicy: always }),
        c(kind, { cpu: '5' }, { name: 'init-2' }),
        c(kind, { cpu: '3' }, { name: 'restartable-init-3', restartPolicy: always }),
      ],
      containers: [c(kind, { cpu: '1' }, { name: 'container-1' })],
      // init-2 requires 5 + the previously running restartable init containers(1+2) = 8; the restartable
      // init container that starts after it doesn't count.
      expected: { cpu: '8' },
    },
    {
      description: 'restartable-init, init and regular',
      kind,
      init: [c(kind, { cpu: '10' }, { name: 'restartable-init-1', restartPolicy: always }), c(kind, { cpu: '200' }, { name: 'init-1' })],
      containers: [c(kind, { cpu: '100' }, { name: 'container-1' })],
      expected: { cpu: '210' },
    },
  );
}
byKind.push(
  { description: 'no limited containers should result in no limits for the pod', kind: 'limits', init: [], containers: [{ name: 'c' }], expected: {} },
  {
    description: "one limited and one unlimited container should result in the limited container's limits for the pod",
    kind: 'limits',
    containers: [c('limits', { cpu: '2', memory: '2Gi' }), { name: 'unlimited' }],
    expected: { cpu: '2', memory: '2Gi' },
  },
  {
    description: "one limited and one unlimited init container should result in the limited init container's limits for the pod",
    kind: 'limits',
    init: [c('limits', { cpu: '2', memory: '2Gi' }), { name: 'unlimited' }],
    containers: [c('limits', { cpu: '1', memory: '1Gi' })],
    expected: { cpu: '2', memory: '2Gi' },
  },
);
for (const tc of byKind) {
  void test(`TestPodResource${tc.kind === 'requests' ? 'Requests' : 'Limits'}: ${tc.description}`, () => {
    const p = pod(tc.containers, tc.init ?? [], tc.overhead);
    const opts = { excludeOverhead: tc.excludeOverhead === true };
    const got = tc.kind === 'requests' ? podRequests(p, ops, opts) : podLimits(p, ops, opts);
    assert.deepEqual(values(got), want(tc.expected));
  });
}

void test('a regular init container before a sidecar is counted alone, not with the sidecar that starts after it', () => {
  const p = pod([c('requests', { cpu: '100m' })], [c('requests', { cpu: '500m' }, { name: 'init' }), c('requests', { cpu: '300m' }, { name: 'sidecar', restartPolicy: always })]);
  // max(100m + 300m, 500m) = 500m
  assert.deepEqual(values(podRequests(p, ops)), want({ cpu: '500m' }));
});

void test('NonMissingContainerRequests fills in only the names a container does not set, init containers included', () => {
  const nonMissing = new Map([
    ['cpu', parseQuantity('100m')],
    ['memory', parseQuantity('200Mi')],
  ]);
  const p = pod([c('requests', { cpu: '1' }), { name: 'bare' }], [c('requests', { memory: '1Gi' }, { name: 'init' })]);
  const got = podRequests(p, ops, { nonMissing });
  assert.deepEqual(values(got), want({ cpu: '1100m', memory: '1Gi' }));
  assert.equal(formatQuantity(got.get('cpu') ?? parseQuantity('0')), '1100m');
});
