import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, NodeCondition, NodeStatus, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { resources } from '../api/resources.js';
import type { KubeObject, WriteOptions } from '../client/client.js';
import type { ResourceType } from '../api/resources.js';
import { FakeClock } from '../client/clock.js';
import type { EventsV1Recorder } from '../client/events-v1.js';
import { FakeClient } from './_testing/fake-client.js';
import { makeNode, makePod, seededRandom } from './_testing/wrappers.js';
import { LeaderElector } from './leader-election.js';
import { Scheduler, assignedPodUpdateActions, nodeUpdateActions, truncateMessage } from './scheduler.js';
import { ActionType } from './framework/interfaces.js';

interface Ev {
  name: string;
  type: string;
  reason: string;
  action: string;
  message: string;
}

function recorder(): { rec: EventsV1Recorder; events: Ev[] } {
  const events: Ev[] = [];
  return {
    events,
    rec: {
      eventf(obj: KubeObject, _related: KubeObject | undefined, type: 'Normal' | 'Warning', reason: string, action: string, message: string) {
        events.push({ name: obj.metadata?.name ?? '', type, reason, action, message });
      },
      flush: async () => undefined,
      stop: () => undefined,
    },
  };
}

async function waitUntil(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function startScheduler(client: FakeClient, t: { after: (fn: () => Promise<void>) => void }): { s: Scheduler; events: Ev[] } {
  const { rec, events } = recorder();
  const s = new Scheduler({ client, recorder: rec, random: seededRandom(7), log: () => undefined });
  s.start();
  t.after(() => s.stop());
  return { s, events };
}

const podOf = (c: FakeClient, name: string): Pod | undefined => c.getNow<Pod>(resources.pods, name, 'default');

void test('binds a pod through pods/binding and records Scheduled', async (t) => {
  const c = new FakeClient();
  c.seed(resources.nodes, makeNode('n1').obj());
  c.seed(resources.pods, makePod('web').req({ cpu: '100m' }).obj());
  const { events } = startScheduler(c, t);
  await waitUntil(() => podOf(c, 'web')?.spec?.nodeName === 'n1', 'binding');
  const binding = c.calls.find((x) => x.subresource === 'binding');
  assert.deepEqual(binding?.body, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web', namespace: 'default', uid: podOf(c, 'web')?.metadata?.uid }, target: { kind: 'Node', name: 'n1' } });
  await waitUntil(() => events.some((e) => e.reason === 'Scheduled'), 'event');
  assert.deepEqual(events.find((e) => e.reason === 'Scheduled'), { name: 'web', type: 'Normal', reason: 'Scheduled', action: 'Binding', message: 'Successfully assigned default/web to n1' });
});

void test('a long queue does not hold the thread: other work runs between slices of scheduling cycles', async (t) => {
  const c = new FakeClient();
  for (let i = 0; i < 100; i++) c.seed(resources.nodes, makeNode(`n${i}`).obj());
  const total = 3000;
  for (let i = 0; i < total; i++) c.seed(resources.pods, makePod(`p${i}`).req({ cpu: '10m' }).obj());
  const bound = (): number => c.calls.filter((x) => x.subresource === 'binding').length;
  // A macrotask ticker: without yielding, the loop would schedule the whole queue before it ticks again.
  const seen: number[] = [];
  let ticking = true;
  const tick = (): void => {
    seen.push(bound());
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  t.after(() => {
    ticking = false;
  });
  startScheduler(c, t);
  await waitUntil(() => bound() === total, 'every binding', 60_000);
  ticking = false;
  assert.ok(
    seen.some((n) => n > 0 && n < total),
    'the ticker ran while the queue was being worked through',
  );
});

void test('pods naming another scheduler are ignored', async (t) => {
  const c = new FakeClient();
  c.seed(resources.nodes, makeNode('n1').obj());
  c.seed(resources.pods, makePod('other').schedulerName('my-scheduler').obj());
  c.seed(resources.pods, makePod('mine').obj());
  startScheduler(c, t);
  await waitUntil(() => podOf(c, 'mine')?.spec?.nodeName === 'n1', 'mine bound');
  assert.equal(podOf(c, 'other')?.spec?.nodeName, undefined);
});

void test('an unschedulable pod gets FailedScheduling and PodScheduled=False, then schedules when a fitting node arrives', async (t) => {
  const c = new FakeClient();
  c.seed(resources.nodes, makeNode('linux').label('kubernetes.io/os', 'linux').obj());
  c.seed(resources.pods, makePod('win').nodeSelector({ 'kubernetes.io/os': 'windows' }).obj());
  const { events } = startScheduler(c, t);
  const msg = "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
  await waitUntil(() => events.some((e) => e.reason === 'FailedScheduling'), 'FailedScheduling');
  assert.deepEqual(events.find((e) => e.reason === 'FailedScheduling'), { name: 'win', type: 'Warning', reason: 'FailedScheduling', action: 'Scheduling', message: msg });
  await waitUntil(() => (podOf(c, 'win')?.status?.conditions ?? []).length > 0, 'condition');
  const cond = podOf(c, 'win')?.status?.conditions?.[0];
  assert.equal(cond?.type, 'PodScheduled');
  assert.equal(cond?.status, 'False');
  assert.equal(cond?.reason, 'Unschedulable');
  assert.equal(cond?.message, msg);
  // A node that does not match leaves the pod where it is: no second attempt, no second event.
  c.seed(resources.nodes, makeNode('linux2').label('kubernetes.io/os', 'linux').obj());
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(events.filter((e) => e.reason === 'FailedScheduling').length, 1);
  c.seed(resources.nodes, makeNode('windows').label('kubernetes.io/os', 'windows').obj());
  await waitUntil(() => podOf(c, 'win')?.spec?.nodeName === 'windows', 'bound to windows', 4000);
});

void test('preemption deletes the lower-priority victim, nominates the node, then binds the preemptor', async (t) => {
  const c = new FakeClient();
  c.seed(resources.nodes, makeNode('n1').capacity({ cpu: '2', memory: '4Gi', pods: '10' }).obj());
  c.seed(resources.pods, makePod('low').node('n1').priority(1).req({ cpu: '1500m' }).obj());
  const { events } = startScheduler(c, t);
  await new Promise((r) => setTimeout(r, 20));
  const high = c.seed(resources.pods, makePod('high').priority(1000).req({ cpu: '1' }).obj());
  await waitUntil(() => podOf(c, 'low') === undefined, 'victim deleted');
  const preempted = events.find((e) => e.reason === 'Preempted');
  assert.deepEqual(preempted, { name: 'low', type: 'Normal', reason: 'Preempted', action: 'Preempting', message: `Preempted by pod ${high.metadata?.uid ?? ''} on node n1` });
  const disruption = c.calls.find((x) => x.verb === 'patch' && x.name === 'low');
  assert.match(JSON.stringify(disruption?.body), /PreemptionByScheduler/);
  await waitUntil(() => c.calls.some((x) => x.verb === 'patch' && x.name === 'high' && JSON.stringify(x.body).includes('"nominatedNodeName":"n1"')), 'nominated');
  await waitUntil(() => podOf(c, 'high')?.spec?.nodeName === 'n1', 'preemptor bound', 4000);
});

void test('a failed binding forgets the assumed pod and retries', async (t) => {
  const c = new FakeClient();
  c.seed(resources.nodes, makeNode('n1').obj());
  c.failBindings.add('p');
  c.seed(resources.pods, makePod('p').obj());
  const { s } = startScheduler(c, t);
  await waitUntil(() => podOf(c, 'p')?.spec?.nodeName === 'n1', 'bound after retry', 4000);
  assert.equal(c.calls.filter((x) => x.subresource === 'binding').length, 2);
  assert.equal(s.cache.nodeInfo('n1')?.pods.length, 1);
});

void test('truncateMessage keeps 1024 bytes with a trailing " ..."', () => {
  assert.equal(truncateMessage('short'), 'short');
  const long = 'x'.repeat(2000);
  const t = truncateMessage(long);
  assert.equal(Buffer.byteLength(t), 1024);
  assert.ok(t.endsWith(' ...'));
});

void test('leader election: one of two candidates leads; the other takes over after the lease expires', async () => {
  const c = new FakeClient();
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const state = { a: false, b: false, stoppedA: 0 };
  const mk = (id: 'a' | 'b'): LeaderElector =>
    new LeaderElector({
      client: c,
      namespace: 'kube-system',
      name: 'kube-scheduler',
      identity: id,
      clock,
      onStartedLeading: () => (state[id] = true),
      onStoppedLeading: () => {
        state[id] = false;
        if (id === 'a') state.stoppedA++;
      },
    });
  const a = mk('a');
  const b = mk('b');
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  a.start();
  clock.step(0);
  await settle();
  b.start();
  for (let i = 0; i < 5; i++) {
    clock.step(2000);
    await settle();
  }
  assert.equal(state.a, true);
  assert.equal(state.b, false);
  const lease = c.getNow<Lease>(resources.leases, 'kube-scheduler', 'kube-system');
  assert.equal(lease?.spec?.holderIdentity, 'a');
  assert.equal(lease?.spec?.leaseDurationSeconds, 15);
  assert.equal(b.getLeader(), 'a');
  await a.stop();
  // stop() released the lease (releaseOnCancel): b acquires on its next try.
  clock.step(2000);
  await settle();
  assert.equal(state.b, true);
  assert.equal(state.stoppedA, 1);
  assert.equal(c.getNow<Lease>(resources.leases, 'kube-scheduler', 'kube-system')?.spec?.leaseTransitions, 1);
  await b.stop();
});

void test('leader election: an expired lease held by someone else is taken over only after leaseDuration', async () => {
  const c = new FakeClient();
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  c.seed(resources.leases, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'kube-scheduler', namespace: 'kube-system' },
    spec: { holderIdentity: 'gone', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.000000Z' },
  });
  let leading = false;
  const e = new LeaderElector({ client: c, namespace: 'kube-system', name: 'kube-scheduler', identity: 'me', clock, onStartedLeading: () => (leading = true), onStoppedLeading: () => (leading = false) });
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  e.start();
  clock.step(0);
  await settle();
  for (let i = 0; i < 6; i++) {
    clock.step(2000);
    await settle();
  }
  assert.equal(leading, false, '12 s < 15 s');
  for (let i = 0; i < 3; i++) {
    clock.step(2000);
    await settle();
  }
  assert.equal(leading, true);
  await e.stop();
  assert.equal(c.getNow<Lease>(resources.leases, 'kube-scheduler', 'kube-system')?.spec?.holderIdentity, '');
});

void test('with leader election the scheduler schedules only after acquiring kube-system/kube-scheduler', async (t) => {
  const c = new FakeClient();
  c.seed(resources.leases, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'kube-scheduler', namespace: 'kube-system' },
    spec: { holderIdentity: 'other', leaseDurationSeconds: 1, renewTime: new Date().toISOString() },
  });
  c.seed(resources.nodes, makeNode('n1').obj());
  c.seed(resources.pods, makePod('p').obj());
  const { rec } = recorder();
  const s = new Scheduler({ client: c, recorder: rec, log: () => undefined, leaderElection: { identity: 'me', leaseDurationMs: 1000, renewDeadlineMs: 500, retryPeriodMs: 100 } });
  s.start();
  t.after(() => s.stop());
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(podOf(c, 'p')?.spec?.nodeName, undefined, 'not leading yet: the other holder\'s lease has not expired');
  await waitUntil(() => podOf(c, 'p')?.spec?.nodeName === 'n1', 'scheduled once leading', 4000);
  assert.ok(s.isLeader());
  assert.equal(c.getNow<Lease>(resources.leases, 'kube-scheduler', 'kube-system')?.spec?.holderIdentity, 'me');
});

void test('Scheduled events of different pods are written at once, not one after another (none waits in a queue that drops)', async (t) => {
  let held = 0;
  const release: (() => void)[] = [];
  /** Event creates wait until the test ends. */
  class HeldEvents extends FakeClient {
    override async create<T extends KubeObject>(res: ResourceType, obj: T, opts?: WriteOptions): Promise<T> {
      if (res.resource === 'events') {
        held++;
        await new Promise<void>((resolve) => release.push(resolve));
      }
      return super.create(res, obj, opts);
    }
  }
  const c = new HeldEvents();
  c.seed(resources.nodes, makeNode('n1').obj());
  for (let i = 0; i < 50; i++) c.seed(resources.pods, makePod(`p${i}`).obj());
  const s = new Scheduler({ client: c, random: seededRandom(7), log: () => undefined });
  s.start();
  t.after(async () => {
    release.forEach((r) => r());
    await s.stop();
  });
  await waitUntil(() => held === 50, '50 Scheduled events in flight together');
});

void test('a pod with an unbound Immediate claim gets VolumeBinding\'s FailedScheduling, and schedules once the claim is bound', async (t) => {
  const c = new FakeClient();
  c.seed(resources.nodes, makeNode('n1').obj());
  c.seed(resources.storageclasses, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'standard' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'Immediate' });
  const claim = c.seed<PersistentVolumeClaim>(resources.persistentvolumeclaims, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec: { storageClassName: 'standard', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  const pod = makePod('db').obj();
  pod.spec = { ...pod.spec, containers: [], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] };
  c.seed(resources.pods, pod);
  const { events } = startScheduler(c, t);
  const msg = '0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.';
  await waitUntil(() => events.some((e) => e.reason === 'FailedScheduling'), 'FailedScheduling');
  assert.deepEqual(events.find((e) => e.reason === 'FailedScheduling'), { name: 'db', type: 'Warning', reason: 'FailedScheduling', action: 'Scheduling', message: msg });
  // The PV controller binds the claim: the PVC update requeues the pod, which now schedules.
  c.seed(resources.persistentvolumes, { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: { storageClassName: 'standard', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv1' }, claimRef: { namespace: 'default', name: 'data', uid: claim.metadata?.uid ?? '' } } });
  c.seed(resources.persistentvolumeclaims, { ...claim, metadata: { ...claim.metadata, annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }, spec: { ...claim.spec, volumeName: 'pv1' } });
  await waitUntil(() => podOf(c, 'db')?.spec?.nodeName === 'n1', 'binding');
});

void test('a pod with a missing claim, or a WaitForFirstConsumer claim without volumes, gets upstream\'s messages', async (t) => {
  const c = new FakeClient();
  c.seed(resources.nodes, makeNode('n1').obj());
  c.seed(resources.storageclasses, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'local' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' });
  c.seed(resources.persistentvolumeclaims, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'local-data', namespace: 'default' }, spec: { storageClassName: 'local', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  const withClaim = (name: string, claimName: string): Pod => {
    const p = makePod(name).obj();
    p.spec = { ...p.spec, containers: [], volumes: [{ name: 'v', persistentVolumeClaim: { claimName } }] };
    return p;
  };
  c.seed(resources.pods, withClaim('missing', 'nope'));
  c.seed(resources.pods, withClaim('wffc', 'local-data'));
  const { events } = startScheduler(c, t);
  await waitUntil(() => events.filter((e) => e.reason === 'FailedScheduling').length >= 2, 'FailedScheduling');
  assert.equal(events.find((e) => e.name === 'missing')?.message, '0/1 nodes are available: persistentvolumeclaim "nope" not found. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.');
  assert.equal(events.find((e) => e.name === 'wffc')?.message, "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
});

void test('nodeUpdateActions and assignedPodUpdateActions name what changed, shared parts or not', () => {
  const ready: NodeCondition = { type: 'Ready', status: 'True', lastHeartbeatTime: '2026-11-28T12:00:00Z' };
  const base: Node = {
    metadata: { name: 'n1', labels: { a: '1' }, annotations: { x: 'y' } },
    spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] },
    status: { allocatable: { cpu: '4' }, conditions: [ready] },
  };
  const withStatus = (n: Node, status: NodeStatus): Node => ({ ...n, status: { ...n.status, ...status } });
  const cases: { name: string; next: (n: Node) => Node; want: number }[] = [
    { name: 'nothing (a copy, no part shared)', next: (n) => structuredClone(n), want: 0 },
    { name: 'a heartbeat only', next: (n) => withStatus(n, { conditions: [{ ...ready, lastHeartbeatTime: '2026-11-28T12:00:10Z' }] }), want: 0 },
    { name: 'allocatable', next: (n) => withStatus(n, { allocatable: { cpu: '2' } }), want: ActionType.UpdateNodeAllocatable },
    { name: 'labels', next: (n) => ({ ...n, metadata: { ...n.metadata, labels: { a: '2' } } }), want: ActionType.UpdateNodeLabel },
    { name: 'taints', next: (n) => ({ ...n, spec: { taints: [] } }), want: ActionType.UpdateNodeTaint },
    { name: 'unschedulable', next: (n) => ({ ...n, spec: { ...n.spec, unschedulable: true } }), want: ActionType.UpdateNodeTaint },
    { name: 'a condition status', next: (n) => withStatus(n, { conditions: [{ ...ready, status: 'False' }] }), want: ActionType.UpdateNodeCondition },
    { name: 'a condition more', next: (n) => withStatus(n, { conditions: [ready, { type: 'DiskPressure', status: 'False' }] }), want: ActionType.UpdateNodeCondition },
    { name: 'annotations', next: (n) => ({ ...n, metadata: { ...n.metadata, annotations: {} } }), want: ActionType.UpdateNodeAnnotation },
  ];
  for (const c of cases) {
    assert.equal(nodeUpdateActions(base, c.next(base)), c.want, c.name);
    // The same change on a version that does not share the parts left alone.
    assert.equal(nodeUpdateActions(structuredClone(base), c.next(base)), c.want, `${c.name} (nothing shared)`);
  }
  const pod: Pod = { metadata: { name: 'p', labels: { app: 'a' } }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } };
  assert.equal(assignedPodUpdateActions(pod, { ...pod }), 0);
  assert.equal(assignedPodUpdateActions(pod, { ...pod, metadata: { ...pod.metadata, labels: { app: 'b' } } }), ActionType.UpdatePodLabel);
  assert.equal(assignedPodUpdateActions(pod, { ...pod, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '500m' } } }] } }), ActionType.UpdatePodScaleDown);
  assert.equal(assignedPodUpdateActions(pod, structuredClone(pod)), 0, 'equal requests in a new object');
});
