import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeNode, makePod } from '../_testing/wrappers.js';
import { Snapshot } from '../cache/snapshot.js';
import { FitError, NodeToStatus, newDiagnosis } from './fit-error.js';
import { Code, newStatus } from './status.js';

const nodes = ['a', 'b', 'c', 'd'].map((n) => makeNode(n).obj());

void test('byPosition lays the recorded statuses out by list position, as get answers them', () => {
  const list = Snapshot.fromPodsAndNodes([], nodes).list();
  const m = new NodeToStatus();
  const s1 = newStatus(Code.Unschedulable, 'one');
  const s2 = newStatus(Code.UnschedulableAndUnresolvable, 'two');
  m.appendNew('c', s1, 2);
  m.appendNew('a', s2, 0);
  m.setAbsentNodesStatus(newStatus(Code.UnschedulableAndUnresolvable, 'absent'));
  const byPos = m.byPosition(list);
  assert.ok(byPos !== undefined);
  assert.deepEqual(byPos, [s2, undefined, s1, undefined]);
  for (const [i, ni] of list.entries()) assert.equal(byPos[i] ?? m.absentNodesStatus(), m.get(ni.name), ni.name);
});

void test('byPosition declines when an entry has no position or another list', () => {
  const list = Snapshot.fromPodsAndNodes([], nodes).list();
  const s = newStatus(Code.Unschedulable, 'x');
  const noPosition = new NodeToStatus();
  noPosition.appendNew('a', s, 0);
  noPosition.set('b', s);
  assert.equal(noPosition.byPosition(list), undefined);
  const otherList = new NodeToStatus();
  otherList.appendNew('b', s, 0);
  assert.equal(otherList.byPosition(list), undefined);
  assert.deepEqual(new NodeToStatus().byPosition(list), [undefined, undefined, undefined, undefined]);
});

void test('FitError counts each reason once per node, however the nodes share status objects', () => {
  const d = newDiagnosis();
  const shared = newStatus(Code.Unschedulable, 'Insufficient cpu', 'Insufficient memory');
  d.nodeToStatus.appendNew('a', shared);
  d.nodeToStatus.appendNew('b', shared);
  d.nodeToStatus.appendNew('c', newStatus(Code.Unschedulable, 'Insufficient cpu'));
  const fe = new FitError(makePod('p').obj(), 5, d);
  assert.equal(fe.message, '0/5 nodes are available: 2 Insufficient memory, 3 Insufficient cpu.');
});
