import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod, seededRandom } from '../_testing/wrappers.js';
import { Cache } from '../cache/cache.js';
import { newInTreeRegistry } from '../plugins/registry.js';
import { SchedulingAlgorithm } from '../schedule-one.js';
import { CycleState } from './cycle-state.js';
import { NodeTable } from './node-table.js';
import { defaultProfile } from './profile.js';
import { Framework } from './runtime.js';
import { NodeInfo } from './types.js';

function nodeInfo(node: Node): NodeInfo {
  const ni = new NodeInfo();
  ni.setNode(node);
  return ni;
}

void test('a position keeps its generation while its node object is the same, and gets a new one for a new object', () => {
  const a = nodeInfo(makeNode('a').capacity({ cpu: '2', memory: '1Gi', pods: '10' }).obj());
  const b = nodeInfo(makeNode('b').capacity({ cpu: '4', memory: '2Gi', pods: '20' }).obj());
  const table = new NodeTable();
  const list = [a, b];
  list.forEach((ni, i) => (ni.snapshotIndex = i));
  table.rebuild(list);
  const [ga, gb] = [table.objectGen[0], table.objectGen[1]];
  assert.ok(ga !== 0 && gb !== 0 && ga !== gb);
  assert.deepEqual([table.names[0], table.names[1], table.columns.freeMilliCPU[1], table.columns.freePods[1], table.columns.allocatableMemory[0]], ['a', 'b', 4000, 20, 1024 ** 3]);
  assert.equal(table.genOf(a), ga);
  table.rebuild(list);
  assert.equal(table.objectGen[0], ga, 'the same node object keeps its generation');
  b.setNode(makeNode('b').label('x', 'y').capacity({ cpu: '4', memory: '2Gi', pods: '20' }).obj());
  table.set(1, b);
  assert.notEqual(table.objectGen[1], gb, 'a new node object gets a new generation');
  // Nodes move: a position now holding another node object gets a new generation.
  const moved = [b, a];
  moved.forEach((ni, i) => (ni.snapshotIndex = i));
  table.rebuild(moved);
  assert.notEqual(table.objectGen[0], ga);
  assert.equal(table.names[0], 'b');
  assert.equal(table.genOf(nodeInfo(makeNode('a').obj())), 0, 'a NodeInfo outside the table has no generation');
});

const zoneNode = (name: string, zone: string | undefined, cpu: string, extra?: (b: ReturnType<typeof makeNode>) => ReturnType<typeof makeNode>): Node => {
  let b = makeNode(name).label('kubernetes.io/hostname', name).capacity({ cpu, memory: '8Gi', pods: '20' });
  if (zone !== undefined) b = b.label('topology.kubernetes.io/zone', zone);
  return (extra ? extra(b) : b).obj();
};

function scoringNodes(): Node[] {
  return [
    zoneNode('n1', 'a', '4'),
    zoneNode('n2', 'a', '2', (b) => b.taint({ key: 'soft', value: 'x', effect: 'PreferNoSchedule' })),
    zoneNode('n3', 'b', '8', (b) => b.images({ 'registry.example/big:1': 900 * 1024 * 1024 })),
    zoneNode('n4', 'b', '1'),
    zoneNode('n5', undefined, '4'),
    zoneNode('n6', 'c', '16', (b) => b.taint({ key: 'soft', value: 'x', effect: 'PreferNoSchedule' }).label('disk', 'ssd')),
  ];
}

function scoringPods(): Pod[] {
  const app = { matchLabels: { app: 'web' } };
  return [
    makePod('plain').req({ cpu: '500m', memory: '1Gi' }).obj(),
    makePod('best-effort').obj(),
    makePod('spread').label('app', 'web').req({ cpu: '100m' }).spreadConstraint(1, 'topology.kubernetes.io/zone', 'ScheduleAnyway', app).spreadConstraint(2, 'kubernetes.io/hostname', 'ScheduleAnyway', app).obj(),
    makePod('tolerant').toleration({ key: 'soft', operator: 'Exists', effect: 'PreferNoSchedule' }).req({ cpu: '1' }).obj(),
    makePod('prefers-ssd').preferredNodeAffinity(10, [{ key: 'disk', operator: 'In', values: ['ssd'] }]).obj(),
    makePod('big-image').image('registry.example/big:1').obj(),
  ];
}

void test('scoring by position gives every node the score that scoring each NodeInfo gives, as nodes fill and change', () => {
  const fwk = new Framework({ registry: newInTreeRegistry(), profile: defaultProfile(), random: seededRandom(1) });
  const cache = new Cache();
  const algo = new SchedulingAlgorithm({ cache, random: seededRandom(1) });
  for (const n of scoringNodes()) cache.addNode(n);
  const scores = (pod: Pod, byPosition: boolean): string[] => {
    algo.nextStartNodeIndex = 0;
    const state = new CycleState();
    const fit = algo.findNodesThatFitPod(fwk, state, pod);
    assert.ok(fit.positions !== undefined, `${pod.metadata?.name ?? ''} is filtered by position`);
    if (byPosition) state.nodePositions = fit.positions;
    assert.ok(fwk.runPreScorePlugins(state, pod, fit.feasibleNodes).isSuccess());
    const r = fwk.runScorePlugins(state, pod, fit.feasibleNodes);
    assert.ok(r.status.isSuccess());
    return r.scores.map((s) => `${s.name}=${s.totalScore}`);
  };
  const compare = (): void => {
    cache.updateSnapshot(algo.snapshot);
    fwk.setSnapshot(algo.snapshot);
    for (const pod of scoringPods()) assert.deepEqual(scores(pod, true), scores(pod, false), pod.metadata?.name);
  };
  compare();
  // A pod without requests counts the non-zero defaults for LeastAllocated, nothing for BalancedAllocation.
  cache.assumePod(makePod('idle').image('pause').node('n3').obj());
  for (let i = 0; i < 8; i++) cache.assumePod(makePod(`web-${i}`).label('app', 'web').req({ cpu: '200m', memory: '512Mi' }).node(`n${(i % 4) + 1}`).obj());
  compare();
  cache.updateNode(undefined, zoneNode('n5', 'c', '4', (b) => b.taint({ key: 'soft', value: 'x', effect: 'PreferNoSchedule' })));
  cache.removeNode(scoringNodes()[0] as Node);
  compare();
});
