import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { newTestFramework } from '../../_testing/framework.js';
import { CycleState } from '../../framework/cycle-state.js';
import { calculatePriority, maxContainerThreshold, minThreshold, normalizedImageName } from './image-locality.js';

const mb = 1024 * 1024;

void test('normalizedImageName adds :latest only when there is no tag', () => {
  assert.equal(normalizedImageName('nginx'), 'nginx:latest');
  assert.equal(normalizedImageName('nginx:1.25'), 'nginx:1.25');
  assert.equal(normalizedImageName('localhost:5000/app'), 'localhost:5000/app:latest');
});

void test('calculatePriority clamps to the thresholds', () => {
  assert.equal(calculatePriority(0, 1), 0);
  assert.equal(calculatePriority(minThreshold, 1), 0);
  assert.equal(calculatePriority(maxContainerThreshold * 2, 1), 100);
});

// image_locality_test.go: "two images spread on two nodes, prefer the larger image one".
void test('prefers the node holding the larger image, scaled by spread', () => {
  const nodes = [makeNode('node1').images({ 'gcr.io/40:latest': 40 * mb, 'gcr.io/300:latest': 300 * mb }).obj(), makeNode('node2').images({ 'gcr.io/250:latest': 250 * mb, 'gcr.io/10:latest': 10 * mb }).obj()];
  const { fwk, snapshot } = newTestFramework({ nodes, profile: { schedulerName: 's', plugins: [{ name: 'ImageLocality', weight: 1 }] } });
  const pod = makePod('p').image('gcr.io/40').image('gcr.io/250').obj();
  const state = new CycleState();
  const ni = snapshot.list();
  fwk.runPreScorePlugins(state, pod, ni);
  const { scores } = fwk.runScorePlugins(state, pod, ni);
  // node1: 40MB * 1/2 = 20MB -> below 23MB -> 0; node2: 250MB * 1/2 = 125MB -> 100*(125-23)/(2000-23) = 5.
  assert.deepEqual(scores.map((s) => s.totalScore), [0, 5]);
});

void test('one instance scoring different pods in turn answers as fresh instances do', () => {
  const nodes = [makeNode('node1').images({ 'gcr.io/40:latest': 40 * mb, 'gcr.io/300:latest': 300 * mb }).obj(), makeNode('node2').images({ 'gcr.io/250:latest': 250 * mb, 'gcr.io/10:latest': 10 * mb }).obj()];
  const profile = { schedulerName: 's', plugins: [{ name: 'ImageLocality', weight: 1 }] };
  const pods = [makePod('a').image('gcr.io/300').obj(), makePod('b').image('gcr.io/250').image('gcr.io/10').obj(), makePod('c').obj()];
  const scoresOf = (fwk: ReturnType<typeof newTestFramework>['fwk'], pod: (typeof pods)[number]): number[] => {
    const state = new CycleState();
    const list = fwk.snapshot().list();
    fwk.runPreScorePlugins(state, pod, list);
    return fwk.runScorePlugins(state, pod, list).scores.map((s) => s.totalScore);
  };
  const { fwk } = newTestFramework({ nodes, profile });
  for (const pod of [...pods, ...pods.slice().reverse()]) assert.deepEqual(scoresOf(fwk, pod), scoresOf(newTestFramework({ nodes, profile }).fwk, pod), pod.metadata?.name);
});

void test("a pod whose images add up to less than minThreshold scores 0 on every node without reading any node's images", () => {
  const nodes = [makeNode('node1').images({ 'registry.k8s.io/pause:3.10': 320_368 }).obj(), makeNode('node2').images({ 'registry.k8s.io/pause:3.10': 320_368, 'gcr.io/300:latest': 300 * mb }).obj()];
  const { fwk, snapshot } = newTestFramework({ nodes, profile: { schedulerName: 's', plugins: [{ name: 'ImageLocality', weight: 1 }] } });
  /** Image states nobody may read. */
  class Unread extends Map<string, { size: number; numNodes: number }> {
    override get(): never {
      throw new Error('read a node image state');
    }
  }
  const list = snapshot.list();
  for (const ni of list) ni.imageStates = new Unread(ni.imageStates);
  const score = (pod: ReturnType<ReturnType<typeof makePod>['obj']>): number[] => {
    const state = new CycleState();
    fwk.runPreScorePlugins(state, pod, list);
    const r = fwk.runScorePlugins(state, pod, list);
    assert.ok(r.status.isSuccess(), r.status.message());
    return r.scores.map((s) => s.totalScore);
  };
  assert.deepEqual(score(makePod('small').image('registry.k8s.io/pause:3.10').obj()), [0, 0]);
  // 300 MB is over the bound: every node is looked at.
  assert.throws(() => score(makePod('big').image('gcr.io/300').obj()), /read a node image state/);
});
