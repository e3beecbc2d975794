import assert from 'node:assert/strict';
import { test } from 'node:test';
import { numFeasibleNodesToFind } from './feasible.js';
import { FitError, NodeToStatus, newDiagnosis } from './fit-error.js';
import { defaultNormalizeScore } from './normalize.js';
import { Registry } from './registry.js';
import { Code, Status, newStatus } from './status.js';
import { NodeInfo, HostPortInfo } from './types.js';
import { calculatePodResource } from './resources.js';
import { makeNode, makePod } from '../_testing/wrappers.js';
import { newInTreeRegistry } from '../plugins/registry.js';

// schedule_one_test.go TestNumFeasibleNodesToFind (adaptive percentage).
for (const tc of [
  { name: 'not set percentageOfNodesToScore and nodes number not more than 50', numAllNodes: 10, want: 10 },
  { name: 'not set percentageOfNodesToScore and nodes number just below 100', numAllNodes: 99, want: 99 },
  { name: 'not set percentageOfNodesToScore and nodes number more than 50', numAllNodes: 1000, want: 420 },
  { name: 'set percentageOfNodesToScore and nodes number not more than 50', percentage: 40, numAllNodes: 10, want: 10 },
  { name: 'set percentageOfNodesToScore and nodes number more than 50', percentage: 40, numAllNodes: 1000, want: 400 },
  { name: 'not set percentageOfNodesToScore and nodes number more than 50*125', numAllNodes: 6000, want: 300 },
  { name: 'set percentageOfNodesToScore and nodes number more than 50*125', percentage: 40, numAllNodes: 6000, want: 2400 },
  { name: 'exactly 100 nodes', numAllNodes: 100, want: 100 },
  { name: '500 nodes', numAllNodes: 500, want: 230 },
  { name: '5000 nodes', numAllNodes: 5000, want: 500 },
]) {
  void test(`numFeasibleNodesToFind: ${tc.name}`, () => {
    assert.equal(numFeasibleNodesToFind(tc.percentage, tc.numAllNodes), tc.want);
  });
}

void test('registering a plugin name twice throws', () => {
  const r = new Registry();
  r.register('A', () => ({ name: 'A' }));
  assert.throws(() => r.register('A', () => ({ name: 'A' })), /a plugin named A already exists/);
  assert.throws(() => newInTreeRegistry().merge(newInTreeRegistry()), /already exists/);
});

void test('Status: codes, reasons, message and failed plugin', () => {
  const s = newStatus(Code.Unschedulable, 'Insufficient cpu', 'Insufficient memory').withPlugin('NodeResourcesFit');
  assert.equal(s.message(), 'Insufficient cpu, Insufficient memory');
  assert.equal(s.failedPlugin(), 'NodeResourcesFit');
  assert.ok(s.isRejected());
  assert.ok(!Status.success().isRejected());
  assert.ok(newStatus(Code.UnschedulableAndUnresolvable).isRejected());
  assert.ok(newStatus(Code.Pending).isRejected());
  assert.ok(!newStatus(Code.Error, 'x').isRejected());
  assert.deepEqual(Status.error('boom').reasons(), ['boom']);
  assert.equal(Status.success().withPlugin('X').failedPlugin(), '');
});

// types_test.go TestFitError_Error (histogram, sort.Strings, prefilter, absent nodes).
void test('FitError: nodes failing different reasons are counted and sorted byte-wise', () => {
  const d = newDiagnosis();
  d.nodeToStatus.set('node1', newStatus(Code.Unschedulable, 'Insufficient cpu'));
  d.nodeToStatus.set('node2', newStatus(Code.Unschedulable, 'Insufficient cpu', 'Insufficient memory'));
  d.nodeToStatus.set('node3', newStatus(Code.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector"));
  for (let i = 4; i <= 12; i++) d.nodeToStatus.set(`node${i}`, newStatus(Code.UnschedulableAndUnresolvable, 'node(s) were unschedulable'));
  const fe = new FitError(makePod('p').obj(), 12, d);
  assert.equal(fe.message, "0/12 nodes are available: 1 Insufficient memory, 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu, 9 node(s) were unschedulable.");
});

void test('FitError: PreFilter message replaces the per-node reasons', () => {
  const d = newDiagnosis();
  const s = newStatus(Code.UnschedulableAndUnresolvable, 'pod affinity terms conflict');
  d.nodeToStatus.setAbsentNodesStatus(s);
  d.preFilterMsg = s.message();
  const fe = new FitError(makePod('p').obj(), 3, d);
  assert.equal(fe.message, '0/3 nodes are available: pod affinity terms conflict.');
});

void test('FitError: nodes absent from the map get the absent-nodes reasons', () => {
  const d = newDiagnosis();
  d.nodeToStatus.setAbsentNodesStatus(newStatus(Code.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [NodeAffinity]"));
  d.nodeToStatus.set('node1', newStatus(Code.Unschedulable, 'Insufficient cpu'));
  const fe = new FitError(makePod('p').obj(), 5, d);
  assert.equal(fe.message, "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't satisfy plugin(s) [NodeAffinity].");
});

void test('FitError: the PostFilter message is appended after one space', () => {
  const d = newDiagnosis();
  d.nodeToStatus.set('n1', newStatus(Code.Unschedulable, 'Insufficient cpu'));
  d.postFilterMsg = 'preemption: not eligible due to preemptionPolicy=Never.';
  assert.equal(new FitError(makePod('p').obj(), 1, d).message, '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.');
});

void test('NodeToStatus answers UnschedulableAndUnresolvable for absent nodes by default', () => {
  const m = new NodeToStatus();
  assert.equal(m.get('x').code, Code.UnschedulableAndUnresolvable);
  assert.deepEqual(m.get('x').reasons(), []);
});

// helper.DefaultNormalizeScore.
void test('defaultNormalizeScore scales by the maximum, reverses, and handles all-zero', () => {
  const s = [{ name: 'a', score: 1 }, { name: 'b', score: 3 }, { name: 'c', score: 0 }];
  defaultNormalizeScore(100, false, s);
  assert.deepEqual(s.map((x) => x.score), [33, 100, 0]);
  const r = [{ name: 'a', score: 1 }, { name: 'b', score: 2 }];
  defaultNormalizeScore(100, true, r);
  assert.deepEqual(r.map((x) => x.score), [50, 0]);
  const z = [{ name: 'a', score: 0 }, { name: 'b', score: 0 }];
  defaultNormalizeScore(100, true, z);
  assert.deepEqual(z.map((x) => x.score), [100, 100]);
});

void test('pod requests: max of init containers and sum of containers, sidecars added, plus overhead', () => {
  const p = makePod('p').req({ cpu: '1', memory: '1Gi' }).req({ cpu: '500m' }).initReq({ cpu: '2' }).overhead({ cpu: '250m', memory: '120Mi' }).obj();
  const r = calculatePodResource(p);
  assert.equal(r.requests.milliCPU, 2250);
  assert.equal(r.requests.memory, 1024 * 1024 * 1024 + 120 * 1024 * 1024);
  // Non-zero: the second container has no memory request -> 200Mi default.
  assert.equal(r.nonZeroMemory, 1024 * 1024 * 1024 + 200 * 1024 * 1024 + 120 * 1024 * 1024);
  const sidecar = makePod('s').req({ cpu: '1' }).initReq({ cpu: '500m' }, 'Always').initReq({ cpu: '2' }).obj();
  // sidecar (500m) + containers (1) = 1.5; init 2 + sidecar 0.5 = 2.5 -> max 2.5
  assert.equal(calculatePodResource(sidecar).requests.milliCPU, 2500);
  const empty = calculatePodResource(makePod('e').container({ name: 'c', image: 'x' }).obj());
  assert.equal(empty.requests.milliCPU, 0);
  assert.equal(empty.nonZeroMilliCPU, 100);
  assert.equal(empty.nonZeroMemory, 200 * 1024 * 1024);
});

void test('NodeInfo accounts requested resources and host ports on add and remove', () => {
  const ni = new NodeInfo();
  ni.setNode(makeNode('n').obj());
  const p = makePod('p').req({ cpu: '1', memory: '1Gi' }).hostPort(8080).obj();
  ni.addPod(p);
  assert.equal(ni.requested.milliCPU, 1000);
  assert.ok(ni.usedPorts.checkConflict('0.0.0.0', 'TCP', 8080));
  const snap = ni.snapshot();
  assert.ok(ni.removePod(p));
  assert.equal(ni.requested.milliCPU, 0);
  assert.equal(ni.pods.length, 0);
  assert.equal(snap.pods.length, 1, 'a snapshot is independent');
  assert.equal(snap.requested.milliCPU, 1000);
});

void test('HostPortInfo conflicts on the same IP or 0.0.0.0 on either side', () => {
  const h = new HostPortInfo();
  h.add('127.0.0.1', 'TCP', 80);
  assert.ok(h.checkConflict('127.0.0.1', 'TCP', 80));
  assert.ok(h.checkConflict('0.0.0.0', 'TCP', 80));
  assert.ok(h.checkConflict('', '', 80));
  assert.ok(!h.checkConflict('127.0.0.2', 'TCP', 80));
  assert.ok(!h.checkConflict('127.0.0.1', 'UDP', 80));
  h.add('0.0.0.0', 'UDP', 53);
  assert.ok(h.checkConflict('10.0.0.1', 'UDP', 53));
  assert.ok(!h.checkConflict('10.0.0.1', 'TCP', 0));
});

void test('NodeToStatus: set replaces, appendNew records new nodes, lookups work before and after', () => {
  const m = new NodeToStatus();
  m.appendNew('a', newStatus(Code.Unschedulable, 'x'));
  m.appendNew('b', newStatus(Code.Unschedulable, 'y'));
  assert.deepEqual(m.get('a').reasons(), ['x']);
  m.set('a', newStatus(Code.Unschedulable, 'z'));
  m.appendNew('c', newStatus(Code.Unschedulable, 'w'));
  assert.equal(m.len(), 3);
  assert.deepEqual(m.get('a').reasons(), ['z']);
  assert.deepEqual(m.get('c').reasons(), ['w']);
  const seen: string[] = [];
  m.forEachExplicitNode((n, s) => seen.push(`${n}=${s.message()}`));
  assert.deepEqual(seen, ['a=z', 'b=y', 'c=w']);
});
