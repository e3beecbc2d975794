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

void test('a cleared map answers like a new one and reuses its room', () => {
  const list = Snapshot.fromPodsAndNodes([], nodes).list();
  const m = new NodeToStatus();
  const old = newStatus(Code.Unschedulable, 'old');
  for (const [i, ni] of list.entries()) m.appendNew(ni.name, old, i);
  m.setAbsentNodesStatus(newStatus(Code.Unschedulable, 'absent'));
  assert.equal(m.get('a'), old);
  m.clear();
  const fresh = new NodeToStatus();
  assert.equal(m.len(), 0);
  assert.deepEqual(m.absentNodesStatus().reasons(), fresh.absentNodesStatus().reasons());
  assert.equal(m.absentNodesStatus().code, Code.UnschedulableAndUnresolvable);
  assert.equal(m.has('a'), false);
  const s = newStatus(Code.Unschedulable, 'new');
  m.appendNew('b', s, 1);
  const seen: string[] = [];
  m.forEachExplicitNode((n, st) => seen.push(`${n}=${st.message()}`));
  assert.deepEqual(seen, ['b=new']);
  assert.deepEqual(m.byPosition(list), [undefined, s, undefined, undefined]);
  assert.equal(m.get('a'), m.absentNodesStatus());
  assert.equal(m.get('b'), s);
  assert.equal(m.len(), 1);
});
