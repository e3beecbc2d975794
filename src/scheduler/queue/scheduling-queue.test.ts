import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../client/clock.js';
import { makeNode, makePod } from '../_testing/wrappers.js';
import { ActionType } from '../framework/interfaces.js';
import { names } from '../framework/names.js';
import { defaultProfile } from '../framework/profile.js';
import { Framework } from '../framework/runtime.js';
import { newInTreeRegistry } from '../plugins/registry.js';
import { SchedulingQueue, type QueuedPodInfo, type RegisteredHint } from './scheduling-queue.js';

function newQueue(clock = new FakeClock(1_000_000)): { q: SchedulingQueue; clock: FakeClock } {
  const fwk = new Framework({ registry: newInTreeRegistry(), profile: defaultProfile() });
  const hints: RegisteredHint[] = [];
  for (const e of fwk.enqueueExtensions) for (const ev of e.events) hints.push({ event: ev.event, pluginName: e.pluginName, fn: ev.queueingHintFn });
  const sort = fwk.queueSortPlugin;
  assert.ok(sort);
  const q = new SchedulingQueue({
    clock,
    less: (a, b) => sort.less(a, b),
    preEnqueue: (p) => fwk.runPreEnqueuePlugins(p),
    hints: new Map([['default-scheduler', hints]]),
  });
  return { q, clock };
}

function fail(q: SchedulingQueue, qpi: QueuedPodInfo, ...plugins: string[]): void {
  for (const p of plugins) qpi.unschedulablePlugins.add(p);
  q.addUnschedulableIfNotPresent(qpi);
}

void test('PrioritySort: higher priority first, then earlier arrival', async () => {
  const { q, clock } = newQueue();
  q.add(makePod('low').priority(1).obj());
  clock.step(10);
  q.add(makePod('high').priority(10).obj());
  clock.step(10);
  q.add(makePod('low2').priority(1).obj());
  const order: string[] = [];
  for (let i = 0; i < 3; i++) order.push((await q.pop())?.podInfo.pod.metadata?.name ?? '');
  assert.deepEqual(order, ['high', 'low', 'low2']);
});

void test('backoff doubles from 1 s per attempt and caps at 10 s', () => {
  const { q } = newQueue();
  q.add(makePod('p').obj());
  const qpi = q.popNow();
  assert.ok(qpi);
  const durations: number[] = [];
  for (let a = 1; a <= 6; a++) {
    qpi.attempts = a;
    durations.push(q.backoffDuration(qpi));
  }
  assert.deepEqual(durations, [1000, 2000, 4000, 8000, 10000, 10000]);
});

void test('a pod rejected by NodeAffinity waits until a matching node is added, then backs off', (t) => {
  const { q, clock } = newQueue();
  q.run();
  t.after(() => q.close());
  const pod = makePod('p').nodeSelector({ disk: 'ssd' }).obj();
  q.add(pod);
  const qpi = q.popNow();
  assert.ok(qpi);
  fail(q, qpi, names.NodeAffinity);
  assert.equal(q.whereIs(pod), 'unschedulable');
  q.moveAllToActiveOrBackoffQueue({ resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' }, undefined, makeNode('n1').obj());
  assert.equal(q.whereIs(pod), 'unschedulable', 'a node without the label does not help');
  q.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', actionType: ActionType.Delete, label: 'AssignedPodDelete' }, makePod('x').obj(), undefined);
  assert.equal(q.whereIs(pod), 'unschedulable', 'NodeAffinity does not register pod deletions');
  q.moveAllToActiveOrBackoffQueue({ resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' }, undefined, makeNode('n2').label('disk', 'ssd').obj());
  assert.equal(q.whereIs(pod), 'backoff');
  clock.step(1000);
  assert.equal(q.whereIs(pod), 'active');
});

void test('a pod rejected by NodeResourcesFit requeues when an assigned pod is deleted', () => {
  const { q, clock } = newQueue();
  const pod = makePod('p').req({ cpu: '1' }).obj();
  q.add(pod);
  const qpi = q.popNow();
  assert.ok(qpi);
  fail(q, qpi, names.NodeResourcesFit);
  clock.step(5000);
  q.moveAllToActiveOrBackoffQueue({ resource: 'AssignedPod', actionType: ActionType.Delete, label: 'AssignedPodDelete' }, makePod('gone').req({ cpu: '2' }).obj(), undefined);
  assert.equal(q.whereIs(pod), 'active', 'backoff already expired');
});

void test('node taint removal requeues a pod rejected by TaintToleration; a label change does not', () => {
  const { q } = newQueue();
  const pod = makePod('p').obj();
  q.add(pod);
  const qpi = q.popNow();
  assert.ok(qpi);
  fail(q, qpi, names.TaintToleration);
  const tainted = makeNode('n').taint({ key: 'k', value: 'v', effect: 'NoSchedule' }).obj();
  q.moveAllToActiveOrBackoffQueue({ resource: 'Node', actionType: ActionType.UpdateNodeLabel, label: 'NodeLabelChange' }, tainted, makeNode('n').label('a', 'b').taint({ key: 'k', value: 'v', effect: 'NoSchedule' }).obj());
  assert.equal(q.whereIs(pod), 'unschedulable');
  q.moveAllToActiveOrBackoffQueue({ resource: 'Node', actionType: ActionType.UpdateNodeTaint, label: 'NodeTaintChange' }, tainted, makeNode('n').obj());
  assert.equal(q.whereIs(pod), 'backoff');
});

void test('an event that arrives while the pod is being scheduled is not lost', () => {
  const { q } = newQueue();
  const pod = makePod('p').nodeSelector({ disk: 'ssd' }).obj();
  q.add(pod);
  const qpi = q.popNow();
  assert.ok(qpi);
  q.moveAllToActiveOrBackoffQueue({ resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' }, undefined, makeNode('n2').label('disk', 'ssd').obj());
  fail(q, qpi, names.NodeAffinity);
  assert.equal(q.whereIs(pod), 'backoff');
});

void test('unschedulable pods are flushed after 5 minutes', () => {
  const { q, clock } = newQueue();
  q.run();
  try {
    const pod = makePod('p').nodeSelector({ disk: 'ssd' }).obj();
    q.add(pod);
    const qpi = q.popNow();
    assert.ok(qpi);
    fail(q, qpi, names.NodeAffinity);
    clock.step(4 * 60_000);
    assert.equal(q.whereIs(pod), 'unschedulable');
    clock.step(90_000);
    assert.equal(q.whereIs(pod), 'active');
  } finally {
    q.close();
  }
});

void test('an error (no rejecting plugin) goes to backoff', () => {
  const { q } = newQueue();
  const pod = makePod('p').obj();
  q.add(pod);
  const qpi = q.popNow();
  assert.ok(qpi);
  q.addUnschedulableIfNotPresent(qpi);
  assert.equal(q.whereIs(pod), 'backoff');
});

void test('a gated pod waits until its scheduling gates are removed', () => {
  const { q } = newQueue();
  const gated = makePod('g').schedulingGates('example.com/gate').obj();
  q.add(gated);
  assert.equal(q.whereIs(gated), 'unschedulable');
  assert.equal(q.popNow(), undefined);
  q.update(gated, makePod('g').obj());
  assert.equal(q.whereIs(gated), 'active');
});

void test('pop waits for a pod and close wakes waiters with undefined', async () => {
  const { q } = newQueue();
  const waiting = q.pop();
  q.add(makePod('p').obj());
  assert.equal((await waiting)?.podInfo.pod.metadata?.name, 'p');
  const w2 = q.pop();
  q.close();
  assert.equal(await w2, undefined);
});

void test('nominated pods are tracked per node', () => {
  const { q } = newQueue();
  const qpi = (() => {
    q.add(makePod('p').obj());
    return q.popNow();
  })();
  assert.ok(qpi);
  q.addNominatedPod(qpi.podInfo, 'n1');
  assert.equal(q.nominatedPodsForNode('n1').length, 1);
  q.addNominatedPod(qpi.podInfo, 'n2');
  assert.equal(q.nominatedPodsForNode('n1').length, 0);
  q.deleteNominatedPodIfExists(qpi.podInfo.pod);
  assert.equal(q.nominatedPodsForNode('n2').length, 0);
});

void test('events kept for in-flight pods are pruned once no in-flight pod needs them', () => {
  const { q } = newQueue();
  const pods = Array.from({ length: 3 }, (_, i) => makePod(`p${i}`).obj());
  for (const p of pods) q.add(p);
  let a = q.popNow();
  assert.ok(a);
  for (let round = 0; round < 600; round++) {
    q.moveAllToActiveOrBackoffQueue({ resource: 'Node', actionType: ActionType.Add, label: 'NodeAdd' }, undefined, makeNode(`n${round}`).obj());
    if (round % 100 === 99) {
      // Keep one pod in flight at all times, as overlapping bindings do.
      q.add(makePod(`extra${round}`).obj());
      const b = q.popNow();
      assert.ok(b);
      q.done(a.podInfo.uid);
      a = b;
    }
  }
  assert.ok(q.inFlightEventCount() < 256, String(q.inFlightEventCount()));
});

void test('hasNominatedPods is true exactly while some pod is nominated', async () => {
  const { q } = newQueue();
  assert.equal(q.hasNominatedPods(), false);
  const p = makePod('p').nominatedNodeName('n1').obj();
  q.add(p);
  assert.equal(q.hasNominatedPods(), true);
  const qpi = await q.pop();
  assert.ok(qpi);
  q.deleteNominatedPodIfExists(p);
  assert.equal(q.hasNominatedPods(), false);
  assert.deepEqual(q.nominatedPodsForNode('n1'), []);
});
