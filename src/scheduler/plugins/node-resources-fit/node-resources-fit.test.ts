import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod, seededRandom } from '../../_testing/wrappers.js';
import { CycleState } from '../../framework/cycle-state.js';
import { Code } from '../../framework/status.js';
import { NodeInfo } from '../../framework/types.js';
import { balancedResourceScorer } from '../node-resources-balanced-allocation/node-resources-balanced-allocation.js';
import { NodeResourcesFit, computePodResourceRequest, fitsRequest } from './node-resources-fit.js';
import { balancedCpuMemory, defaultResources, leastAllocatedCpuMemory, leastResourceScorer, podResourceRequestList, scoreResourceAllocation } from './resource-allocation.js';

/** Upstream's `makeResources(milliCPU, memory, pods, ...)` node and `newResourcePod(Resource{MilliCPU, Memory})`. */
function nodeInfo(milliCPU: number, memory: number, pods: number, existing: Pod[], extra: Record<string, string> = {}): NodeInfo {
  const ni = new NodeInfo();
  ni.setNode(makeNode('machine1').capacity({ cpu: `${milliCPU}m`, memory: `${memory}`, pods: `${pods}`, ...extra }).obj());
  existing.forEach((p, i) => ni.addPod({ ...p, metadata: { ...p.metadata, uid: `existing-${i}` } }));
  return ni;
}

function res(cpu: number, mem: number): Record<string, string> {
  const r: Record<string, string> = {};
  if (cpu > 0) r['cpu'] = `${cpu}m`;
  if (mem > 0) r['memory'] = `${mem}`;
  return r;
}

function pod(...containers: [number, number][]): Pod {
  const w = makePod('p');
  if (containers.length === 0) w.container({ name: 'c', image: 'x' });
  for (const [c, m] of containers) w.req(res(c, m));
  return w.obj();
}

function withInit(p: Pod, ...inits: [number, number][]): Pod {
  const spec = p.spec as NonNullable<Pod['spec']>;
  spec.initContainers = inits.map(([c, m], i) => ({ name: `init${i}`, image: 'x', resources: { requests: res(c, m) } }));
  return p;
}

// fit_test.go TestEnoughRequests / TestNotEnoughRequests (node: 10m cpu, 20 bytes memory, 32 pods unless said).
const cases: { name: string; pod: Pod; existing: [number, number]; pods?: number; want: string[] }[] = [
  { name: 'no resources requested always fits', pod: pod(), existing: [10, 20], want: [] },
  { name: 'too many resources fails', pod: pod([1, 1]), existing: [10, 20], want: ['Insufficient cpu', 'Insufficient memory'] },
  { name: 'too many resources fails due to init container cpu', pod: withInit(pod([1, 1]), [3, 1]), existing: [8, 19], want: ['Insufficient cpu'] },
  { name: 'too many resources fails due to highest init container cpu', pod: withInit(pod([1, 1]), [3, 1], [2, 1]), existing: [8, 19], want: ['Insufficient cpu'] },
  { name: 'too many resources fails due to init container memory', pod: withInit(pod([1, 1]), [1, 3]), existing: [9, 19], want: ['Insufficient memory'] },
  { name: 'too many resources fails due to highest init container memory', pod: withInit(pod([1, 1]), [1, 3], [1, 2]), existing: [9, 19], want: ['Insufficient memory'] },
  { name: "init container fits because it's the max, not sum, of containers and init containers", pod: withInit(pod([1, 1]), [1, 1]), existing: [9, 19], want: [] },
  { name: "multiple init containers fit because it's the max, not sum, of containers and init containers", pod: withInit(pod([1, 1]), [1, 1], [1, 1]), existing: [9, 19], want: [] },
  { name: 'both resources fit', pod: pod([1, 1]), existing: [5, 5], want: [] },
  { name: 'one resource memory fits', pod: pod([2, 1]), existing: [9, 5], want: ['Insufficient cpu'] },
  { name: 'one resource cpu fits', pod: pod([1, 2]), existing: [5, 19], want: ['Insufficient memory'] },
  { name: 'equal edge case', pod: pod([5, 1]), existing: [5, 19], want: [] },
  { name: 'equal edge case for init container', pod: withInit(pod([4, 1]), [5, 1]), existing: [5, 19], want: [] },
  { name: 'even without specified resources, predicate fails when there\'s no space for additional pod', pod: pod(), existing: [10, 20], pods: 1, want: ['Too many pods'] },
  { name: "even if both resources fit, predicate fails when there's no space for additional pod", pod: pod([1, 1]), existing: [5, 5], pods: 1, want: ['Too many pods'] },
  { name: "even for equal edge case, predicate fails when there's no space for additional pod", pod: pod([5, 1]), existing: [5, 19], pods: 1, want: ['Too many pods'] },
  { name: "even for equal edge case, predicate fails when there's no space for additional pod due to init container", pod: withInit(pod([5, 1]), [5, 1]), existing: [5, 19], pods: 1, want: ['Too many pods'] },
  { name: 'too many pods and insufficient resources are all reported', pod: pod([6, 1]), existing: [5, 19], pods: 1, want: ['Too many pods', 'Insufficient cpu'] },
];

for (const tc of cases) {
  void test(tc.name, () => {
    const ni = nodeInfo(10, 20, tc.pods ?? 32, [pod(tc.existing)]);
    const pl = new NodeResourcesFit();
    const state = new CycleState();
    assert.ok(pl.preFilter(state, tc.pod).status.isSuccess());
    const s = pl.filter(state, tc.pod, ni);
    if (tc.want.length === 0) assert.ok(s.isSuccess(), s.toString());
    else {
      assert.equal(s.code, Code.Unschedulable);
      assert.deepEqual(s.reasons(), tc.want);
    }
  });
}

void test('resources + pod overhead fits', () => {
  const p = makePod('p').req(res(1, 1)).overhead({ cpu: '3m', memory: '13' }).obj();
  const pl = new NodeResourcesFit();
  const state = new CycleState();
  pl.preFilter(state, p);
  assert.ok(pl.filter(state, p, nodeInfo(10, 20, 32, [pod([5, 5])])).isSuccess());
});

void test('requests + overhead does not fit for memory', () => {
  const p = makePod('p').req(res(1, 1)).overhead({ cpu: '1m', memory: '15' }).obj();
  const pl = new NodeResourcesFit();
  const state = new CycleState();
  pl.preFilter(state, p);
  assert.deepEqual(pl.filter(state, p, nodeInfo(10, 20, 32, [pod([5, 5])])).reasons(), ['Insufficient memory']);
});

void test('extended resource capacity enforced', () => {
  const p = makePod('p').req({ 'example.com/aaa': '10' }).obj();
  const existing = makePod('e').req({ 'example.com/aaa': '0' }).obj();
  const pl = new NodeResourcesFit();
  const state = new CycleState();
  pl.preFilter(state, p);
  assert.deepEqual(pl.filter(state, p, nodeInfo(10, 20, 32, [existing], { 'example.com/aaa': '5' })).reasons(), ['Insufficient example.com/aaa']);
  const ok = makePod('q').req({ 'example.com/aaa': '5' }).obj();
  const st2 = new CycleState();
  pl.preFilter(st2, ok);
  assert.ok(pl.filter(st2, ok, nodeInfo(10, 20, 32, [existing], { 'example.com/aaa': '5' })).isSuccess());
});

void test('extended resource missing from the node counts as 0 allocatable', () => {
  const p = makePod('p').req({ 'example.com/gpu': '1' }).obj();
  const pl = new NodeResourcesFit();
  const state = new CycleState();
  pl.preFilter(state, p);
  assert.deepEqual(pl.filter(state, p, nodeInfo(10, 20, 32, [])).reasons(), ['Insufficient example.com/gpu']);
});

void test('ignored extended resources are not checked', () => {
  const p = makePod('p').req({ 'example.com/gpu': '1' }).obj();
  const pl = new NodeResourcesFit({ ignoredResources: ['example.com/gpu'] });
  const state = new CycleState();
  pl.preFilter(state, p);
  assert.ok(pl.filter(state, p, nodeInfo(10, 20, 32, [])).isSuccess());
});

// least_allocated.go: ((capacity - requested) * 100) / capacity per resource, averaged by weight.
void test('LeastAllocated: nothing scheduled, resources requested, differently sized nodes', () => {
  // Pod requests 3000m cpu / 5000 memory; node1 4000m/10000, node2 6000m/10000.
  const p = pod([3000, 5000]);
  const n1 = nodeInfo(4000, 10000, 32, []);
  const n2 = nodeInfo(6000, 10000, 32, []);
  const pl = new NodeResourcesFit();
  const state = new CycleState();
  pl.preScore(state, p, [n1, n2]);
  // node1: cpu (1000*100/4000)=25, mem (5000*100/10000)=50 -> 37; node2: cpu 50, mem 50 -> 50.
  assert.equal(pl.score(state, p, n1).score, 37);
  assert.equal(pl.score(state, p, n2).score, 50);
});

void test('the cpu/memory fast paths equal the generic scorers', () => {
  const rnd = seededRandom(3);
  const least = leastResourceScorer(defaultResources);
  for (let i = 0; i < 300; i++) {
    const existing = [pod([Math.floor(rnd() * 4000), Math.floor(rnd() * 8e9)]), pod()];
    const ni = nodeInfo(1000 + Math.floor(rnd() * 8000), 1e9 + Math.floor(rnd() * 16e9), 110, existing);
    const p = rnd() < 0.2 ? pod() : pod([Math.floor(rnd() * 2000), Math.floor(rnd() * 4e9)]);
    const nz = podResourceRequestList(p, defaultResources, false);
    assert.equal(leastAllocatedCpuMemory(ni, nz[0] ?? 0, nz[1] ?? 0), scoreResourceAllocation(ni, nz, defaultResources, false, least));
    const rq = podResourceRequestList(p, defaultResources, true);
    assert.equal(balancedCpuMemory(ni, rq[0] ?? 0, rq[1] ?? 0), scoreResourceAllocation(ni, rq, defaultResources, true, balancedResourceScorer));
  }
});

// balanced_allocation_test.go: score = (1 - |cpuFraction - memFraction| / 2) * 100.
void test('BalancedAllocation: cpu and memory fractions 0.75 and 0.5 give 87', () => {
  assert.equal(balancedResourceScorer([3000, 5000], [4000, 10000]), 87);
  assert.equal(balancedResourceScorer([3000, 5000], [6000, 10000]), 100);
  assert.equal(balancedResourceScorer([0, 0], [0, 0]), 100);
});

void test("Filter's statuses without scalar resources equal fitsRequest's reasons for every combination of shortfalls, in the same order", () => {
  const plugin = new NodeResourcesFit();
  const full = (p: Pod, i: number): Pod => ({ ...p, metadata: { ...p.metadata, name: `e${i}` } });
  const nodes = [
    nodeInfo(1000, 2000, 2, []),
    nodeInfo(1000, 2000, 1, [full(pod([100, 100]), 0)]),
    nodeInfo(100, 2000, 2, []),
    nodeInfo(1000, 100, 2, []),
    nodeInfo(100, 100, 1, [full(pod([50, 50]), 0)]),
    nodeInfo(1000, 2000, 5, [], { 'ephemeral-storage': '100' }),
  ];
  const pods = [pod([500, 500]), pod([200, 200]), pod([0, 1000]), pod([900, 0]), makePod('eph').req({ cpu: '10m', 'ephemeral-storage': '500' }).obj(), pod()];
  // Twice: the second round answers from the statuses remembered by shortfall.
  for (let round = 0; round < 2; round++) {
    for (const p of pods) {
      const state = new CycleState();
      plugin.preFilter(state, p);
      for (const [i, ni] of nodes.entries()) {
        const want = fitsRequest(computePodResourceRequest(p), ni).map((r) => r.reason);
        const s = plugin.filter(state, p, ni);
        assert.deepEqual(s.isSuccess() ? [] : s.reasons(), want, `node ${i}`);
        if (!s.isSuccess()) assert.equal(s.code, Code.Unschedulable);
      }
    }
  }
});
