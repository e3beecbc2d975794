import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { CycleState } from '../../framework/cycle-state.js';
import { NodeInfo } from '../../framework/types.js';
import { NodeResourcesBalancedAllocation, balancedResourceScorer } from './node-resources-balanced-allocation.js';

function node(cpu: string, memory: string, ...pods: ReturnType<ReturnType<typeof makePod>['obj']>[]): NodeInfo {
  const ni = new NodeInfo();
  ni.setNode(makeNode('n').capacity({ cpu, memory, pods: '110' }).obj());
  pods.forEach((p) => ni.addPod(p));
  return ni;
}

// balanced_allocation_test.go TestNodeResourcesBalancedAllocation (subset, requests in milli-cpu and bytes).
void test('nothing scheduled, nothing requested: fractions are equal (0 and 0)', () => {
  const pl = new NodeResourcesBalancedAllocation();
  const state = new CycleState();
  const pod = makePod('p').container({ name: 'c', image: 'x' }).obj();
  pl.preScore(state, pod, []);
  assert.equal(pl.score(state, pod, node('4000m', '10000')).score, 100);
});

void test('resources requested, pods scheduled with resources, differently sized nodes', () => {
  // Node1: cpu 3000/4000 = 0.75, memory 5000/10000 = 0.5 -> 100 - 12.5 = 87;
  // Node2: cpu 3000/6000 = 0.5, memory 5000/10000 = 0.5 -> 100.
  const pl = new NodeResourcesBalancedAllocation();
  const state = new CycleState();
  const pod = makePod('p').req({ cpu: '3000m', memory: '5000' }).obj();
  pl.preScore(state, pod, []);
  assert.equal(pl.score(state, pod, node('4000m', '10000')).score, 87);
  assert.equal(pl.score(state, pod, node('6000m', '10000')).score, 100);
});

void test('requests above capacity clamp the fraction to 1', () => {
  assert.equal(balancedResourceScorer([8000, 5000], [4000, 10000]), 75);
});

void test('three resources use the standard deviation', () => {
  // fractions 0.2, 0.4, 0.6: mean 0.4, std sqrt((0.04+0+0.04)/3) = 0.1633 -> 83
  assert.equal(balancedResourceScorer([2, 4, 6], [10, 10, 10]), 83);
});

void test('existing pods count with their actual requests (no non-zero defaults)', () => {
  const pl = new NodeResourcesBalancedAllocation();
  const state = new CycleState();
  const pod = makePod('p').req({ cpu: '1000m', memory: '1000' }).obj();
  pl.preScore(state, pod, []);
  const existing = makePod('e').uid('e').container({ name: 'c', image: 'x' }).obj();
  // cpu 1000/4000 = 0.25, memory 1000/4000 = 0.25 -> 100 even with a best-effort pod present.
  assert.equal(pl.score(state, pod, node('4000m', '4000', existing)).score, 100);
});
