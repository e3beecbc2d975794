import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { CycleState } from '../../framework/cycle-state.js';
import { Code } from '../../framework/status.js';
import { NodeInfo } from '../../framework/types.js';
import { ErrReasonUnknownCondition, ErrReasonUnschedulable, NodeUnschedulable } from './node-unschedulable.js';

// node_unschedulable_test.go TestNodeUnschedulable.
const cases = [
  { name: 'Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)', unschedulable: true, tolerate: false, want: ErrReasonUnschedulable },
  { name: 'Schedule pod to normal node', unschedulable: false, tolerate: false },
  { name: 'Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)', unschedulable: true, tolerate: true },
];

for (const tc of cases) {
  void test(tc.name, () => {
    const ni = new NodeInfo();
    ni.setNode(makeNode('n').unschedulable(tc.unschedulable).obj());
    const w = makePod('p');
    if (tc.tolerate) w.toleration({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' });
    const s = new NodeUnschedulable().filter(new CycleState(), w.obj(), ni);
    if (tc.want === undefined) assert.ok(s.isSuccess());
    else {
      assert.equal(s.code, Code.UnschedulableAndUnresolvable);
      assert.deepEqual(s.reasons(), [tc.want]);
    }
  });
}

void test('a NodeInfo without a node reports unknown conditions', () => {
  const s = new NodeUnschedulable().filter(new CycleState(), makePod('p').obj(), new NodeInfo());
  assert.deepEqual(s.reasons(), [ErrReasonUnknownCondition]);
  assert.equal(s.code, Code.UnschedulableAndUnresolvable);
});

void test('queueing hint: a node becoming schedulable requeues, an unrelated update does not', () => {
  const pl = new NodeUnschedulable();
  const hint = pl.eventsToRegister()[0]?.queueingHintFn;
  assert.ok(hint);
  const pod = makePod('p').obj();
  assert.equal(hint(pod, makeNode('n').unschedulable().obj(), makeNode('n').obj()), 'Queue');
  assert.equal(hint(pod, makeNode('n').obj(), makeNode('n').label('a', 'b').obj()), 'QueueSkip');
  assert.equal(hint(pod, undefined, makeNode('n').obj()), 'Queue');
});
