import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { classify, FlowDispatcher, serverConcurrencyLimit, type Classification, type PriorityLevel, type RequestAttributes } from './flow-control.js';
import type { UserInfo } from './registry/policy.js';

const kubelet: UserInfo = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const kcm: UserInfo = { username: 'system:kube-controller-manager', groups: ['system:authenticated'] };
const scheduler: UserInfo = { username: 'system:kube-scheduler', groups: ['system:authenticated'] };
const admin: UserInfo = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
const dsController: UserInfo = {
  username: 'system:serviceaccount:kube-system:daemon-set-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};
const mirroring: UserInfo = {
  username: 'system:serviceaccount:kube-system:endpointslicemirroring-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};
const app: UserInfo = { username: 'system:serviceaccount:default:app', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] };
const jane: UserInfo = { username: 'jane', groups: ['system:authenticated'] };

function req(user: UserInfo, verb: string, group: string, resource: string, namespace: string): RequestAttributes {
  return { user, verb, group, resource, namespace };
}

void test('requests are classified by the suggested FlowSchemas of kube-apiserver 1.32', () => {
  const cases: Array<[string, RequestAttributes, Classification]> = [
    ['a kubelet posts its node status', req(kubelet, 'patch', '', 'nodes/status', ''), { flowSchema: 'system-node-high', level: 'node-high', flow: 'system:node:n1' }],
    ['a kubelet reads its node', req(kubelet, 'get', '', 'nodes', ''), { flowSchema: 'system-node-high', level: 'node-high', flow: 'system:node:n1' }],
    ['a kubelet renews its lease', req(kubelet, 'update', 'coordination.k8s.io', 'leases', 'kube-node-lease'), { flowSchema: 'system-node-high', level: 'node-high', flow: 'system:node:n1' }],
    ['a kubelet records an event', req(kubelet, 'create', '', 'events', 'default'), { flowSchema: 'system-nodes', level: 'system', flow: 'system:node:n1' }],
    ['a kubelet patches a pod status', req(kubelet, 'patch', '', 'pods/status', 'default'), { flowSchema: 'system-nodes', level: 'system', flow: 'system:node:n1' }],
    ['a kubelet proxies to its node', req(kubelet, 'get', '', 'nodes/proxy', ''), { flowSchema: 'system-nodes', level: 'system', flow: 'system:node:n1' }],
    ['system:masters, whatever the request', req(admin, 'delete', '', 'nodes', ''), { flowSchema: 'exempt', level: 'exempt', flow: '' }],
    ['the controller manager renews its lock', req(kcm, 'update', 'coordination.k8s.io', 'leases', 'kube-system'), { flowSchema: 'system-leader-election', level: 'leader-election', flow: kcm.username }],
    ['the controller manager lists its lock', req(kcm, 'list', 'coordination.k8s.io', 'leases', 'kube-system'), { flowSchema: 'kube-controller-manager', level: 'workload-high', flow: 'kube-system' }],
    ['the controller manager writes Endpoints', req(kcm, 'update', '', 'endpoints', 'default'), { flowSchema: 'endpoint-controller', level: 'workload-high', flow: kcm.username }],
    ['the controller manager creates a pod', req(kcm, 'create', '', 'pods', 'team-a'), { flowSchema: 'kube-controller-manager', level: 'workload-high', flow: 'team-a' }],
    ['the controller manager lists pods everywhere', req(kcm, 'list', '', 'pods', ''), { flowSchema: 'kube-controller-manager', level: 'workload-high', flow: '' }],
    ['the scheduler binds a pod', req(scheduler, 'create', '', 'pods/binding', 'team-b'), { flowSchema: 'kube-scheduler', level: 'workload-high', flow: 'team-b' }],
    // 1.32's system-leader-election matches Leases only.
    ['the scheduler reads a config map in kube-system', req(scheduler, 'get', '', 'configmaps', 'kube-system'), { flowSchema: 'kube-scheduler', level: 'workload-high', flow: 'kube-system' }],
    ['the scheduler renews its lease', req(scheduler, 'update', 'coordination.k8s.io', 'leases', 'kube-system'), { flowSchema: 'system-leader-election', level: 'leader-election', flow: scheduler.username }],
    ['the endpointslice mirroring controller writes endpoints', req(mirroring, 'update', '', 'endpoints', 'default'), { flowSchema: 'endpoint-controller', level: 'workload-high', flow: mirroring.username }],
    ['a kube-system service account takes a lock anywhere', req(dsController, 'update', 'coordination.k8s.io', 'leases', 'default'), { flowSchema: 'system-leader-election', level: 'leader-election', flow: dsController.username }],
    ['a kube-system service account writes a config map lock elsewhere', req(dsController, 'update', '', 'configmaps', 'default'), { flowSchema: 'workload-leader-election', level: 'leader-election', flow: dsController.username }],
    ['a kube-system service account creates a pod', req(dsController, 'create', '', 'pods', 'default'), { flowSchema: 'kube-system-service-accounts', level: 'workload-high', flow: 'default' }],
    ['another service account', req(app, 'list', '', 'pods', 'default'), { flowSchema: 'service-accounts', level: 'workload-low', flow: app.username }],
    ['an authenticated user', req(jane, 'get', 'apps', 'deployments', 'default'), { flowSchema: 'global-default', level: 'global-default', flow: 'jane' }],
    ['a user in no group', req({ username: 'x', groups: [] }, 'get', '', 'pods', 'default'), { flowSchema: 'catch-all', level: 'catch-all', flow: 'x' }],
  ];
  for (const [what, attrs, want] of cases) assert.deepEqual(classify(attrs), want, what);
});

/** Starts recorded in order; `submit` queues a call that records its label. */
function harness(perTurn?: number): {
  d: FlowDispatcher;
  started: string[];
  submit: (level: PriorityLevel, flow: string, label: string, flowSchema?: string) => void;
} {
  const d = new FlowDispatcher(perTurn);
  const started: string[] = [];
  return {
    d,
    started,
    submit: (level, flow, label, flowSchema = 'fs') =>
      d.submit({ flowSchema, level, flow }, () => {
        started.push(label);
      }),
  };
}

async function drain(d: FlowDispatcher): Promise<void> {
  while (d.waiting > 0) await nextTurn();
  await nextTurn();
}

void test('a heartbeat does not wait behind a backlog of other kubelet calls', async () => {
  const { d, started, submit } = harness();
  for (let i = 0; i < 1000; i++) submit('system', 'system:node-host', `event ${i}`);
  submit('node-high', 'system:node-host', 'lease');
  await nextTurn();
  assert.ok(started.includes('lease'), 'started in the first turn');
  assert.ok(started.indexOf('lease') < 2, `started as the second call, not the ${started.indexOf('lease') + 1}th`);
  await drain(d);
  assert.equal(started.length, 1001);
});

void test('saturated levels share the starts by their nominal concurrency shares', async () => {
  const { d, started, submit } = harness(70);
  for (let i = 0; i < 500; i++) submit('system', 'k', 'system');
  for (let i = 0; i < 500; i++) submit('node-high', 'k', 'node-high');
  await nextTurn();
  assert.equal(started.filter((s) => s === 'node-high').length, 40);
  assert.equal(started.filter((s) => s === 'system').length, 30);
  await drain(d);
});

void test('a level that was idle joins at the current virtual time, with no credit for its idle time', async () => {
  const { d, started, submit } = harness(70);
  for (let i = 0; i < 200; i++) submit('workload-high', 'f', 'busy');
  await nextTurn();
  assert.equal(started.length, 70);
  for (let i = 0; i < 200; i++) submit('system', 'k', 'late');
  started.length = 0;
  await nextTurn();
  // 40:30 from now on, not the late level alone until it has made up for the busy one's 70 starts.
  const late = started.filter((s) => s === 'late').length;
  assert.ok(late >= 29 && late <= 31, `${late} of 70 starts`);
  await drain(d);
});

void test('within a level flows take turns, and each flow keeps its order', async () => {
  const { d, started, submit } = harness();
  for (let i = 0; i < 3; i++) submit('workload-high', 'team-a', `a${i}`);
  for (let i = 0; i < 3; i++) submit('workload-high', 'team-b', `b${i}`);
  await drain(d);
  assert.deepEqual(started, ['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
});

void test('a flow is a FlowSchema and a distinguisher value: two schemas with one namespace are two flows', async () => {
  const { d, started, submit } = harness();
  for (let i = 0; i < 3; i++) submit('workload-high', 'team-a', `bind${i}`, 'kube-scheduler');
  for (let i = 0; i < 3; i++) submit('workload-high', 'team-a', `create${i}`, 'kube-system-service-accounts');
  await drain(d);
  assert.deepEqual(started, ['bind0', 'create0', 'bind1', 'create1', 'bind2', 'create2']);
});

void test('exempt calls go first; at most perTurn calls start in one event-loop turn', async () => {
  const { d, started, submit } = harness(128);
  for (let i = 0; i < 300; i++) submit('workload-high', '', `w${i}`);
  submit('exempt', '', 'admin');
  await nextTurn();
  assert.equal(started[0], 'admin');
  assert.equal(started.length, 128);
  await drain(d);
  assert.equal(started.length, 301);
  assert.deepEqual(started.slice(1, 4), ['w0', 'w1', 'w2']);
});

/** Event-loop turns enough for what can start to start (128 a turn), and for answers to free their seats. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await nextTurn();
}

/** Calls that are answered only when the test says so: `answer(label)` settles the call `label` started. */
function seatedHarness(seats: number): {
  d: FlowDispatcher;
  started: string[];
  submit: (level: PriorityLevel, label: string) => void;
  answer: (label: string, fail?: boolean) => void;
} {
  const d = new FlowDispatcher(128, seats);
  const started: string[] = [];
  const answers = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  return {
    d,
    started,
    submit: (level, label) =>
      d.submit({ flowSchema: 'fs', level, flow: 'f' }, () => {
        started.push(label);
        return new Promise<void>((resolve, reject) => answers.set(label, { resolve, reject }));
      }),
    answer: (label, fail = false) => {
      const a = answers.get(label);
      if (a === undefined) throw new Error(`${label} has not started`);
      if (fail) a.reject(new Error('refused'));
      else a.resolve();
    },
  };
}

void test('the server holds 600 calls in flight at most, as kube-apiserver its 400 + 200', async () => {
  assert.equal(serverConcurrencyLimit, 600);
  const d = new FlowDispatcher();
  let started = 0;
  const answers: (() => void)[] = [];
  for (let i = 0; i < 700; i++) {
    d.submit({ flowSchema: 'fs', level: 'system', flow: 'k' }, () => {
      started++;
      return new Promise<void>((resolve) => answers.push(resolve));
    });
  }
  await settle();
  assert.equal(started, 600);
  assert.equal(d.inFlight, 600);
  assert.equal(d.waiting, 100);
  for (const answer of answers.splice(0, 100)) answer();
  await settle();
  assert.equal(started, 700);
  for (const answer of answers) answer();
  await settle();
  assert.equal(d.inFlight, 0);
});

void test('a call holds its seat until its answer, failed or not; a call answered at once holds none', async () => {
  const { d, started, submit, answer } = seatedHarness(2);
  for (const label of ['a', 'b', 'c', 'd']) submit('workload-high', label);
  await settle();
  assert.deepEqual(started, ['a', 'b']);
  assert.equal(d.inFlight, 2);
  answer('a', true);
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c']);
  answer('b');
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c', 'd']);
  answer('c');
  answer('d');
  await settle();
  assert.equal(d.inFlight, 0);
  // A call answered within its start (a watch once opened) frees its seat at once.
  const quick: string[] = [];
  for (let i = 0; i < 5; i++) {
    d.submit({ flowSchema: 'fs', level: 'system', flow: 'k' }, () => {
      quick.push(`w${i}`);
    });
  }
  await settle();
  assert.equal(quick.length, 5);
  assert.equal(d.inFlight, 0);
});

void test('with every seat taken, a heartbeat takes the next free seat ahead of the events waiting', async () => {
  const { started, submit, answer } = seatedHarness(3);
  for (let i = 0; i < 50; i++) submit('system', `event ${i}`);
  await settle();
  submit('node-high', 'lease');
  await settle();
  assert.equal(started.length, 3);
  answer('event 0');
  await settle();
  assert.equal(started[3], 'lease');
});

void test('exempt calls start even when every seat is taken, and hold none', async () => {
  const { d, started, submit, answer } = seatedHarness(1);
  submit('workload-high', 'w0');
  submit('workload-high', 'w1');
  await settle();
  assert.deepEqual(started, ['w0']);
  submit('exempt', 'admin');
  await settle();
  assert.deepEqual(started, ['w0', 'admin']);
  assert.equal(d.inFlight, 1);
  answer('admin');
  await settle();
  assert.deepEqual(started, ['w0', 'admin']);
  answer('w0');
  await settle();
  assert.deepEqual(started, ['w0', 'admin', 'w1']);
});
