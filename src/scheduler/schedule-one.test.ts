import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod, seededRandom } from './_testing/wrappers.js';
import { Cache } from './cache/cache.js';
import type { ApiActions, PodDisruptionBudgetLike } from './framework/interfaces.js';
import { defaultProfile, type Profile } from './framework/profile.js';
import { Framework } from './framework/runtime.js';
import { newInTreeRegistry } from './plugins/registry.js';
import { SchedulingAlgorithm, selectHost } from './schedule-one.js';

/** The kubemix default topology. */
function defaultTopology(): Node[] {
  const linux = (name: string, arch: string): ReturnType<typeof makeNode> => makeNode(name).label('kubernetes.io/os', 'linux').label('kubernetes.io/arch', arch);
  const windows = (name: string, build: string): Node =>
    makeNode(name).label('kubernetes.io/os', 'windows').label('kubernetes.io/arch', 'amd64').label('node.kubernetes.io/windows-build', build).taint({ key: 'os', value: 'windows', effect: 'NoSchedule' }).obj();
  return [
    linux('control-plane', 'amd64').label('node-role.kubernetes.io/control-plane', '').taint({ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }).obj(),
    linux('linux-amd64-1', 'amd64').obj(),
    linux('linux-amd64-2', 'amd64').obj(),
    linux('linux-arm64-1', 'arm64').obj(),
    windows('windows-2019-1', '10.0.17763'),
    windows('windows-2022-1', '10.0.20348'),
  ];
}

interface Recorded {
  preempted: { victim: string; preemptor: string; node: string }[];
  cleared: string[];
}

function fakeApi(pdbs: PodDisruptionBudgetLike[] = []): { api: ApiActions; rec: Recorded } {
  const rec: Recorded = { preempted: [], cleared: [] };
  const api: ApiActions = {
    bind: async () => undefined,
    preemptVictim: async (victim, preemptor, node) => {
      rec.preempted.push({ victim: victim.metadata?.name ?? '', preemptor: preemptor.metadata?.uid ?? '', node });
    },
    clearNominatedNodeName: async (p) => {
      rec.cleared.push(p.metadata?.name ?? '');
    },
    podDisruptionBudgets: () => pdbs,
  };
  return { api, rec };
}

function setup(nodes: Node[], pods: Pod[] = [], opts: { random?: () => number; profile?: Profile; pdbs?: PodDisruptionBudgetLike[]; percentage?: number } = {}): { algo: SchedulingAlgorithm; fwk: Framework; cache: Cache; rec: Recorded } {
  const cache = new Cache();
  for (const n of nodes) cache.addNode(n);
  for (const p of pods) cache.addPod(p);
  const random = opts.random ?? seededRandom(1);
  const { api, rec } = fakeApi(opts.pdbs);
  const fwk = new Framework({ registry: newInTreeRegistry(), profile: opts.profile ?? defaultProfile(), random, apiActions: api });
  const algo = new SchedulingAlgorithm({ cache, random, ...(opts.percentage !== undefined ? { percentageOfNodesToScore: opts.percentage } : {}) });
  return { algo, fwk, cache, rec };
}

function failureMessage(algo: SchedulingAlgorithm, fwk: Framework, pod: Pod): string {
  const out = algo.schedulingCycle(fwk, pod);
  assert.equal(out.kind, 'failed');
  if (out.kind !== 'failed') return '';
  return out.status.message();
}

void test('a Windows pod without a toleration on the default topology gets upstream\'s full message', () => {
  const { algo, fwk } = setup(defaultTopology());
  const pod = makePod('win').nodeSelector({ 'kubernetes.io/os': 'windows' }).obj();
  assert.equal(
    failureMessage(algo, fwk, pod),
    "0/6 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) had untolerated taint {os: windows}, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.",
  );
});

void test('a Windows pod with the toleration lands on a Windows node', () => {
  const { algo, fwk, cache } = setup(defaultTopology());
  const pod = makePod('win').nodeSelector({ 'kubernetes.io/os': 'windows' }).toleration({ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }).obj();
  const out = algo.schedulingCycle(fwk, pod);
  assert.equal(out.kind, 'assumed');
  if (out.kind !== 'assumed') return;
  assert.match(out.nodeName, /^windows-20(19|22)-1$/);
  assert.ok(cache.isAssumedPod(out.assumedPod));
  assert.equal(cache.nodeInfo(out.nodeName)?.pods.length, 1);
});

void test('no nodes at all gives "no nodes available to schedule pods"', () => {
  const { algo, fwk } = setup([]);
  const out = algo.schedulingCycle(fwk, makePod('p').obj());
  assert.equal(out.kind, 'failed');
  if (out.kind === 'failed') assert.equal(out.status.message(), 'no nodes available to schedule pods');
});

void test('insufficient cpu on one node and affinity mismatch on two: preemption finds no victims', () => {
  const nodes = [makeNode('a').label('zone', 'z1').capacity({ cpu: '1', memory: '1Gi', pods: '10' }).obj(), makeNode('b').obj(), makeNode('c').obj()];
  const { algo, fwk } = setup(nodes);
  const pod = makePod('p').nodeSelector({ zone: 'z1' }).req({ cpu: '2' }).obj();
  assert.equal(
    failureMessage(algo, fwk, pod),
    "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
  );
});

void test('preemptionPolicy=Never is not eligible to preempt', () => {
  const nodes = ['a', 'b', 'c'].map((n) => makeNode(n).capacity({ cpu: '1', memory: '1Gi', pods: '10' }).obj());
  const { algo, fwk } = setup(nodes);
  const pod = makePod('p').req({ cpu: '2' }).preemptionPolicy('Never').obj();
  assert.equal(failureMessage(algo, fwk, pod), '0/3 nodes are available: 3 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.');
});

void test('a PreFilter rejection replaces the per-node reasons (conflicting matchFields terms)', () => {
  const { algo, fwk } = setup([makeNode('a').obj(), makeNode('b').obj()]);
  const pod = makePod('p').nodeAffinityTerm([], [{ key: 'metadata.name', operator: 'In', values: ['a'] }, { key: 'metadata.name', operator: 'In', values: ['b'] }]).obj();
  assert.equal(failureMessage(algo, fwk, pod), '0/2 nodes are available: pod affinity terms conflict. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.');
});

void test('nodes outside the PreFilter result (DaemonSet-style matchFields) are reported as not satisfying NodeAffinity', () => {
  const nodes = [makeNode('a').capacity({ cpu: '1', memory: '1Gi', pods: '10' }).obj(), makeNode('b').obj(), makeNode('c').obj()];
  const { algo, fwk } = setup(nodes);
  const pod = makePod('ds').req({ cpu: '2' }).nodeAffinityTerm([], [{ key: 'metadata.name', operator: 'In', values: ['a'] }]).obj();
  assert.equal(
    failureMessage(algo, fwk, pod),
    "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
  );
});

void test('a pinned pod that fits is placed on its node', () => {
  const { algo, fwk } = setup([makeNode('a').obj(), makeNode('b').obj(), makeNode('c').obj()]);
  const pod = makePod('ds').nodeAffinityTerm([], [{ key: 'metadata.name', operator: 'In', values: ['b'] }]).obj();
  const out = algo.schedulingCycle(fwk, pod);
  assert.equal(out.kind === 'assumed' ? out.nodeName : '', 'b');
});

void test('Too many pods counts even for a pod without requests, and equal-priority pods are never victims', () => {
  const node = makeNode('a').capacity({ cpu: '4', memory: '4Gi', pods: '1' }).obj();
  const existing = makePod('e').node('a').obj();
  const { algo, fwk } = setup([node], [existing]);
  assert.equal(failureMessage(algo, fwk, makePod('p').obj()), '0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.');
});

void test('preemption evicts the lower-priority pod and nominates the node', () => {
  const node = makeNode('a').capacity({ cpu: '2', memory: '4Gi', pods: '10' }).obj();
  const low = makePod('low').uid('low').node('a').priority(1).req({ cpu: '1500m' }).obj();
  const { algo, fwk, rec } = setup([node], [low]);
  const pod = makePod('high').uid('high-uid').priority(100).req({ cpu: '1' }).obj();
  const out = algo.schedulingCycle(fwk, pod);
  assert.equal(out.kind, 'failed');
  if (out.kind !== 'failed') return;
  assert.equal(out.status.message(), '0/1 nodes are available: 1 Insufficient cpu.');
  assert.deepEqual(out.nominatingInfo, { nominatedNodeName: 'a', mode: 'Override' });
  assert.deepEqual(rec.preempted, [{ victim: 'low', preemptor: 'high-uid', node: 'a' }]);
});

void test('preemption reports the filter reason when removing every lower-priority pod is not enough', () => {
  const node = makeNode('a').capacity({ cpu: '2', memory: '4Gi', pods: '10' }).obj();
  const low = makePod('low').node('a').priority(1).req({ cpu: '500m' }).obj();
  const same = makePod('same').node('a').priority(100).req({ cpu: '1500m' }).obj();
  const { algo, fwk, rec } = setup([node], [low, same]);
  const pod = makePod('high').priority(100).req({ cpu: '1' }).obj();
  assert.equal(failureMessage(algo, fwk, pod), '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.');
  assert.deepEqual(rec.preempted, []);
});

void test('the nominated node is tried first on the next attempt', () => {
  const nodes = [makeNode('a').obj(), makeNode('b').obj(), makeNode('c').obj()];
  const { algo, fwk } = setup(nodes);
  const out = algo.schedulingCycle(fwk, makePod('p').nominatedNodeName('c').obj());
  assert.equal(out.kind === 'assumed' ? out.nodeName : '', 'c');
});

void test('selectHost picks the highest total and breaks ties by reservoir sampling', () => {
  const scores = [
    { name: 'a', totalScore: 10 },
    { name: 'b', totalScore: 30 },
    { name: 'c', totalScore: 30 },
    { name: 'd', totalScore: 5 },
  ];
  assert.equal(selectHost(scores, () => 0.99), 'b');
  assert.equal(selectHost(scores, () => 0), 'c');
  const counts = new Map<string, number>();
  const rnd = seededRandom(42);
  for (let i = 0; i < 2000; i++) {
    const h = selectHost(scores, rnd);
    counts.set(h, (counts.get(h) ?? 0) + 1);
  }
  assert.ok((counts.get('b') ?? 0) > 800 && (counts.get('c') ?? 0) > 800, JSON.stringify([...counts]));
  assert.equal(counts.get('a'), undefined);
});

void test('the filter loop starts at a rotating index and stops at numFeasibleNodesToFind', () => {
  const nodes = Array.from({ length: 200 }, (_, i) => makeNode(`n${String(i).padStart(3, '0')}`).obj());
  const { algo, fwk } = setup(nodes, [], { percentage: 50 });
  let out = algo.schedulingCycle(fwk, makePod('p1').obj());
  assert.equal(out.kind === 'assumed' ? out.result.feasibleNodes : -1, 100);
  assert.equal(algo.nextStartNodeIndex, 100);
  out = algo.schedulingCycle(fwk, makePod('p2').obj());
  assert.equal(out.kind === 'assumed' ? out.result.evaluatedNodes : -1, 100);
  assert.equal(algo.nextStartNodeIndex, 0);
  // Fewer than 100 nodes: all are evaluated, the index wraps back.
  const small = setup(nodes.slice(0, 7));
  small.algo.schedulingCycle(small.fwk, makePod('q').obj());
  assert.equal(small.algo.nextStartNodeIndex, 0);
});

void test('LeastAllocated spreads identical pods over identical nodes', () => {
  const nodes = ['a', 'b', 'c'].map((n) => makeNode(n).capacity({ cpu: '4', memory: '8Gi', pods: '110' }).obj());
  const { algo, fwk, cache } = setup(nodes);
  for (let i = 0; i < 6; i++) {
    const out = algo.schedulingCycle(fwk, makePod(`p${i}`).req({ cpu: '1', memory: '1Gi' }).obj());
    assert.equal(out.kind, 'assumed');
  }
  assert.deepEqual(['a', 'b', 'c'].map((n) => cache.nodeInfo(n)?.pods.length), [2, 2, 2]);
});

void test('a nominated node that no longer fits is counted once in the message', () => {
  const nodes = [makeNode('a').capacity({ cpu: '1', memory: '1Gi', pods: '10' }).obj(), makeNode('b').capacity({ cpu: '1', memory: '1Gi', pods: '10' }).obj()];
  const { algo, fwk } = setup(nodes);
  const pod = makePod('p').req({ cpu: '2' }).nominatedNodeName('a').obj();
  assert.equal(failureMessage(algo, fwk, pod), '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.');
});

void test('a failed cycle after successful ones (whose status maps are reused) reports every node once', () => {
  const cache = new Cache();
  for (let i = 0; i < 120; i++) cache.addNode(makeNode(`n${i}`).label('kind', i % 4 === 0 ? 'a' : 'b').capacity({ cpu: '1', memory: '1Gi', pods: '10' }).obj());
  const fwk = new Framework({ registry: newInTreeRegistry(), profile: defaultProfile(), random: seededRandom(1) });
  const algo = new SchedulingAlgorithm({ cache, random: seededRandom(1) });
  for (let i = 0; i < 5; i++) {
    const out = algo.schedulingCycle(fwk, makePod(`ok${i}`).nodeSelector({ kind: 'a' }).obj());
    assert.equal(out.kind, 'assumed');
    if (out.kind === 'assumed') assert.equal(out.result.evaluatedNodes, 120, 'every node is examined: fewer than 100 fit');
  }
  const out = algo.schedulingCycle(fwk, makePod('big').nodeSelector({ kind: 'a' }).req({ cpu: '2' }).obj());
  assert.equal(out.kind, 'failed');
  assert.ok(out.kind === 'failed' && out.fitError !== undefined);
  assert.equal(out.fitError.diagnosis.nodeToStatus.len(), 120);
  assert.equal(out.status.message(), "0/120 nodes are available: 30 Insufficient cpu, 90 node(s) didn't match Pod's node affinity/selector. preemption: 0/120 nodes are available: 30 No preemption victims found for incoming pod, 90 Preemption is not helpful for scheduling.");
});
