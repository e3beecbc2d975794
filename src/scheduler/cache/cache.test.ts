import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { NodeInfo } from '../framework/types.js';
import { makeNode, makePod } from '../_testing/wrappers.js';
import { Cache } from './cache.js';
import { NodeTree } from './node-tree.js';
import { Snapshot } from './snapshot.js';

void test('assume counts a pod at once; the informer confirms it; forget undoes an assumption', () => {
  const c = new Cache();
  c.addNode(makeNode('n1').obj());
  const p = makePod('p').req({ cpu: '1' }).node('n1').obj();
  c.assumePod(p);
  assert.ok(c.isAssumedPod(p));
  assert.equal(c.nodeInfo('n1')?.requested.milliCPU, 1000);
  assert.throws(() => c.assumePod(p), /is in the cache, so can't be assumed/);
  c.addPod(p);
  assert.ok(!c.isAssumedPod(p));
  assert.equal(c.nodeInfo('n1')?.pods.length, 1);
  c.forgetPod(p);
  assert.equal(c.nodeInfo('n1')?.pods.length, 1, 'a confirmed pod is not forgotten');
  const q = makePod('q').req({ cpu: '2' }).node('n1').obj();
  c.assumePod(q);
  c.forgetPod(q);
  assert.equal(c.nodeInfo('n1')?.requested.milliCPU, 1000);
  c.removePod(p);
  assert.equal(c.nodeInfo('n1')?.requested.milliCPU, 0);
});

void test('an assumed pod confirmed on another node moves there', () => {
  const c = new Cache();
  c.addNode(makeNode('n1').obj());
  c.addNode(makeNode('n2').obj());
  c.assumePod(makePod('p').node('n1').obj());
  c.addPod(makePod('p').node('n2').obj());
  assert.equal(c.nodeInfo('n1')?.pods.length, 0);
  assert.equal(c.nodeInfo('n2')?.pods.length, 1);
});

void test('the snapshot is updated incrementally and keeps NodeInfo objects stable', () => {
  const c = new Cache();
  for (let i = 0; i < 5; i++) c.addNode(makeNode(`n${i}`).obj());
  const s = new Snapshot();
  c.updateSnapshot(s);
  assert.equal(s.numNodes(), 5);
  const n0 = s.get('n0');
  const n1 = s.get('n1');
  c.addPod(makePod('p').node('n1').req({ cpu: '1' }).obj());
  c.updateSnapshot(s);
  assert.equal(s.get('n0'), n0);
  assert.equal(s.get('n1'), n1, 'updated in place');
  assert.equal(s.get('n1')?.requested.milliCPU, 1000);
  // A change after the snapshot does not leak into it until the next update.
  c.addPod(makePod('q').node('n1').req({ cpu: '1' }).obj());
  assert.equal(s.get('n1')?.requested.milliCPU, 1000);
  c.removeNode(makeNode('n4').obj());
  c.updateSnapshot(s);
  assert.equal(s.numNodes(), 4);
  assert.equal(s.get('n1')?.requested.milliCPU, 2000);
  c.addPod(makePod('aff').node('n2').podAntiAffinity('kubernetes.io/hostname', { matchLabels: { a: 'b' } }).obj());
  c.updateSnapshot(s);
  assert.deepEqual(s.havePodsWithRequiredAntiAffinityList().map((n) => n.name), ['n2']);
  assert.deepEqual(s.havePodsWithAffinityList().map((n) => n.name), ['n2']);
});

void test('pods of a node not yet known are kept and counted once the node arrives', () => {
  const c = new Cache();
  c.addPod(makePod('p').node('late').req({ cpu: '1' }).obj());
  const s = new Snapshot();
  c.updateSnapshot(s);
  assert.equal(s.numNodes(), 0);
  c.addNode(makeNode('late').obj());
  c.updateSnapshot(s);
  assert.equal(s.get('late')?.requested.milliCPU, 1000);
});

void test('image states count the nodes holding an image', () => {
  const c = new Cache();
  c.addNode(makeNode('a').images({ 'nginx:1.25': 50_000_000 }).obj());
  c.addNode(makeNode('b').images({ 'nginx:1.25': 50_000_000 }).obj());
  const s = new Snapshot();
  c.updateSnapshot(s);
  assert.deepEqual(s.get('b')?.imageStates.get('nginx:1.25'), { size: 50_000_000, numNodes: 2 });
  // Counted when the snapshot copies the node (ImageStateSummary.Snapshot), not when the node was added.
  assert.deepEqual(s.get('a')?.imageStates.get('nginx:1.25'), { size: 50_000_000, numNodes: 2 });
  // A third node with the image: unchanged nodes keep the count of their last copy; a re-copied one counts again.
  c.addNode(makeNode('c').images({ 'nginx:1.25': 50_000_000 }).obj());
  c.updateSnapshot(s);
  assert.equal(s.get('a')?.imageStates.get('nginx:1.25')?.numNodes, 2);
  assert.equal(s.get('c')?.imageStates.get('nginx:1.25')?.numNodes, 3);
  c.assumePod(makePod('p').node('a').obj());
  c.updateSnapshot(s);
  assert.equal(s.get('a')?.imageStates.get('nginx:1.25')?.numNodes, 3);
  assert.equal(s.get('b')?.imageStates.get('nginx:1.25')?.numNodes, 2);
});

void test('the node tree interleaves zones round-robin', () => {
  const t = new NodeTree();
  const z = (n: string, zone: string) => makeNode(n).label('topology.kubernetes.io/zone', zone).obj();
  for (const n of [z('a1', 'a'), z('a2', 'a'), z('a3', 'a'), z('b1', 'b'), z('c1', 'c'), z('c2', 'c')]) t.addNode(n);
  assert.deepEqual(t.list(), ['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
  t.removeNode(z('b1', 'b'));
  assert.deepEqual(t.list(), ['a1', 'c1', 'a2', 'c2', 'a3']);
});

void test('pod updates keep the node accounting equal to a recount, whether or not the requests changed', () => {
  const c = new Cache();
  c.addNode(makeNode('n1').obj());
  const base = makePod('p').req({ cpu: '250m', memory: '64Mi' }).initReq({ cpu: '1' }).overhead({ cpu: '10m' }).node('n1').obj();
  c.assumePod(base);
  const spec = base.spec as NonNullable<typeof base.spec>;
  const updates = [
    { ...base, status: { phase: 'Pending' } },
    { ...base, status: { phase: 'Running' } },
    { ...base, spec: { ...spec, containers: spec.containers.map((ct) => ({ ...ct, resources: { requests: { cpu: '500m', memory: '64Mi' } } })) } },
    { ...base, spec: { ...spec, overhead: { cpu: '20m' } } },
    { ...base, spec: { ...spec, initContainers: (spec.initContainers ?? []).map((ct) => ({ ...ct, restartPolicy: 'Always' })) } },
    { ...base, spec: { ...spec, initContainers: [] } },
    { ...base, status: { phase: 'Succeeded' } },
  ];
  let prev = base;
  for (const next of updates) {
    c.updatePod(prev, next);
    prev = next;
    const fresh = new Cache();
    fresh.addNode(makeNode('n1').obj());
    fresh.addPod(next);
    assert.deepEqual(c.nodeInfo('n1')?.requested, fresh.nodeInfo('n1')?.requested);
    assert.deepEqual(c.nodeInfo('n1')?.nonZeroRequested, fresh.nodeInfo('n1')?.nonZeroRequested);
  }
});

/**
 * Runs one node `n1` through an assume, an add, a node update, removals and a forget, calling `check` on the
 * cache's NodeInfo, the snapshot's and a copy of the snapshot's after each step (`afterAdd` once more).
 */
function nodeInfoHistory(cap: Record<string, string>, p1: Pod, p2: Pod, check: (ni: NodeInfo) => void, afterAdd: (s: Snapshot) => void = () => {}): void {
  const c = new Cache();
  const s = new Snapshot();
  const node = (cpu: string): ReturnType<typeof makeNode> => makeNode('n1').capacity({ ...cap, cpu });
  c.addNode(node('2').obj());
  const checkAll = (): void => {
    c.updateSnapshot(s);
    for (const ni of [c.nodeInfo('n1'), s.get('n1'), s.get('n1')?.snapshot()]) {
      assert.ok(ni);
      check(ni);
    }
  };
  checkAll();
  c.assumePod(p1);
  checkAll();
  c.addPod(p2);
  checkAll();
  afterAdd(s);
  c.updateNode(undefined, node('4').obj());
  checkAll();
  c.removePod(p1);
  checkAll();
  c.forgetPod(p1);
  c.removePod(p2);
  checkAll();
}

void test('the free capacity kept on NodeInfo equals allocatable minus requested through adds, removals, node updates and snapshot copies', () => {
  const p1 = makePod('p1').req({ cpu: '500m', memory: '100Mi', 'ephemeral-storage': '1Gi' }).node('n1').obj();
  const p2 = makePod('p2').req({ cpu: '1' }).node('n1').obj();
  nodeInfoHistory({ memory: '1Gi', pods: '3', 'ephemeral-storage': '10Gi' }, p1, p2, (ni) => {
    const a = ni.allocatable;
    const r = ni.requested;
    assert.deepEqual([ni.freeMilliCPU, ni.freeMemory, ni.freeEphemeralStorage, ni.freePods], [a.milliCPU - r.milliCPU, a.memory - r.memory, a.ephemeralStorage - r.ephemeralStorage, a.allowedPodNumber - ni.pods.length]);
  });
});

void test("the scorers' cpu and memory copies on NodeInfo equal allocatable, requested and nonZeroRequested through adds, removals, node updates and snapshot copies", () => {
  const p1 = makePod('p1').req({ cpu: '500m', memory: '100Mi' }).node('n1').obj();
  const p2 = makePod('p2').container({ name: 'c', image: 'x' }).node('n1').obj();
  nodeInfoHistory(
    { memory: '1Gi', pods: '3' },
    p1,
    p2,
    (ni) =>
      assert.deepEqual(
        [ni.allocatableMilliCPU, ni.allocatableMemory, ni.requestedMilliCPU, ni.requestedMemory, ni.nonZeroMilliCPU, ni.nonZeroMemory],
        [ni.allocatable.milliCPU, ni.allocatable.memory, ni.requested.milliCPU, ni.requested.memory, ni.nonZeroRequested.milliCPU, ni.nonZeroRequested.memory],
      ),
    (s) => assert.equal(s.get('n1')?.nonZeroMilliCPU, 600, 'the container without requests counts 100m for scoring'),
  );
});

void test('nodes without images share one empty imageStates map; a node reporting images gets its own', () => {
  const c = new Cache();
  const s = new Snapshot();
  c.addNode(makeNode('a').obj());
  c.addNode(makeNode('b').obj());
  c.updateSnapshot(s);
  assert.equal(s.get('a')?.imageStates, s.get('b')?.imageStates);
  assert.equal(s.get('a')?.imageStates.size, 0);
  c.updateNode(undefined, makeNode('b').images({ 'nginx:1.25': 50_000_000 }).obj());
  c.updateSnapshot(s);
  assert.notEqual(s.get('a')?.imageStates, s.get('b')?.imageStates);
  assert.equal(s.get('a')?.imageStates.size, 0);
  assert.deepEqual(s.get('b')?.imageStates.get('nginx:1.25'), { size: 50_000_000, numNodes: 1 });
});

void test("a NodeInfo's lowest pod priority follows its pods through adds, removals and snapshot copies", () => {
  const c = new Cache();
  const s = new Snapshot();
  c.addNode(makeNode('n1').obj());
  const low = makePod('low').priority(-5).node('n1').obj();
  const high = makePod('high').priority(100).node('n1').obj();
  const lowest = (): (number | undefined)[] => {
    c.updateSnapshot(s);
    return [c.nodeInfo('n1')?.lowestPodPriority(), s.get('n1')?.lowestPodPriority(), s.get('n1')?.snapshot().lowestPodPriority()];
  };
  assert.deepEqual(lowest(), [Infinity, Infinity, Infinity]);
  c.addPod(high);
  assert.deepEqual(lowest(), [100, 100, 100]);
  c.assumePod(low);
  assert.deepEqual(lowest(), [-5, -5, -5]);
  const copy = s.get('n1')?.snapshot();
  assert.ok(copy);
  copy.removePod(low);
  assert.equal(copy.lowestPodPriority(), 100);
  assert.equal(s.get('n1')?.lowestPodPriority(), -5, 'a copy is independent');
  c.forgetPod(low);
  assert.deepEqual(lowest(), [100, 100, 100]);
  c.addPod(makePod('plain').node('n1').obj());
  assert.deepEqual(lowest(), [0, 0, 0]);
});
