import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { newTestFramework } from '../_testing/framework.js';
import { makeNode, makePod, seededRandom } from '../_testing/wrappers.js';
import { Cache } from '../cache/cache.js';
import { newInTreeRegistry } from '../plugins/registry.js';
import { SchedulingAlgorithm } from '../schedule-one.js';
import { CycleState } from './cycle-state.js';
import type { NodeObjectFilterPlugin } from './interfaces.js';
import { defaultProfile } from './profile.js';
import { Registry } from './registry.js';
import { Framework } from './runtime.js';
import { Code, Status, newStatus } from './status.js';
import type { NodeInfo } from './types.js';

const windowsTaint = { key: 'os', value: 'windows', effect: 'NoSchedule' } as const;

function tableNodes(): Node[] {
  return [
    makeNode('linux-a').label('kubernetes.io/os', 'linux').label('zone', 'a').capacity({ cpu: '4', memory: '8Gi', pods: '10' }).obj(),
    makeNode('linux-b').label('kubernetes.io/os', 'linux').label('zone', 'b').capacity({ cpu: '4', memory: '8Gi', pods: '10' }).obj(),
    makeNode('windows').label('kubernetes.io/os', 'windows').taint(windowsTaint).capacity({ cpu: '4', memory: '8Gi', pods: '10' }).obj(),
    makeNode('cordoned').label('kubernetes.io/os', 'linux').unschedulable().capacity({ cpu: '4', memory: '8Gi', pods: '10' }).obj(),
    makeNode('noexec').label('kubernetes.io/os', 'linux').taint({ key: 'k', value: 'v', effect: 'NoExecute' }).capacity({ cpu: '4', memory: '8Gi', pods: '10' }).obj(),
    makeNode('tiny').label('kubernetes.io/os', 'linux').capacity({ cpu: '100m', memory: '8Gi', pods: '10' }).obj(),
  ];
}

function tablePods(): Pod[] {
  return [
    makePod('plain').req({ cpu: '500m' }).obj(),
    makePod('linux').nodeSelector({ 'kubernetes.io/os': 'linux' }).obj(),
    makePod('windows').nodeSelector({ 'kubernetes.io/os': 'windows' }).toleration({ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }).obj(),
    makePod('windows-untolerated').nodeSelector({ 'kubernetes.io/os': 'windows' }).obj(),
    makePod('zone-b').nodeAffinityIn('zone', ['b']).obj(),
    makePod('named').node('linux-b').obj(),
    makePod('tolerates-cordon').toleration({ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }).obj(),
    makePod('tolerates-all').toleration({ operator: 'Exists' }).req({ cpu: '200m' }).obj(),
    makePod('plan9').nodeSelector({ 'kubernetes.io/os': 'plan9' }).obj(),
    // The same shape again: answered from the verdicts of `linux`.
    makePod('linux-2').nodeSelector({ 'kubernetes.io/os': 'linux' }).obj(),
    // PodTopologySpread's Filter after the node-object ones (nodes without the key, skew).
    makePod('spread').label('app', 'web').spreadConstraint(1, 'zone', 'DoNotSchedule', { matchLabels: { app: 'web' } }).obj(),
  ];
}

function describe(s: Status): string {
  return `${s.code} ${s.failedPlugin()} ${s.message()}`;
}

void test('stored verdicts equal running every filter, for every pod and node of a table, over repeated cycles', () => {
  const { fwk, snapshot } = newTestFramework({ nodes: tableNodes() });
  for (let round = 0; round < 3; round++) {
    for (const pod of tablePods()) {
      const state = new CycleState();
      const pre = fwk.runPreFilterPlugins(state, pod);
      assert.ok(pre.status.isSuccess(), pod.metadata?.name);
      assert.ok(state.nodeVerdicts !== undefined && state.nodeObjectFilterCount > 0);
      for (const ni of snapshot.list()) {
        const slow = state.clone();
        slow.nodeVerdicts = undefined;
        slow.nodeObjectFilterCount = 0;
        const want = fwk.runFilterPlugins(slow, pod, ni);
        assert.equal(describe(fwk.runFilterPlugins(state, pod, ni)), describe(want), `${pod.metadata?.name ?? ''} on ${ni.name}`);
      }
    }
  }
});

void test('a pod whose PreFilter names its nodes (a DaemonSet pod) stores no verdicts and filters as without them', () => {
  const { fwk, snapshot } = newTestFramework({ nodes: tableNodes() });
  // The DaemonSet controller's node affinity: one term on metadata.name.
  const daemon = (node: string): Pod =>
    makePod(`ds-${node}`)
      .nodeAffinityTerm([], [{ key: 'metadata.name', operator: 'In', values: [node] }])
      .toleration({ operator: 'Exists' })
      .obj();
  for (const node of ['linux-a', 'windows', 'cordoned']) {
    const state = new CycleState();
    const pre = fwk.runPreFilterPlugins(state, daemon(node));
    assert.ok(pre.status.isSuccess());
    assert.deepEqual([...(pre.result?.nodeNames ?? [])], [node]);
    assert.equal(state.nodeVerdicts, undefined, node);
    assert.ok(state.nodeObjectFilterCount > 0);
    const ni = snapshot.get(node);
    assert.ok(ni !== undefined);
    assert.equal(describe(fwk.runFilterPlugins(state, daemon(node), ni)), describe(Status.success()), node);
  }
  // The affinity still rejects the other nodes, as the filters say without stored verdicts.
  const state = new CycleState();
  const pod = daemon('linux-a');
  fwk.runPreFilterPlugins(state, pod);
  const other = snapshot.get('linux-b');
  assert.ok(other !== undefined);
  assert.equal(describe(fwk.runFilterPlugins(state, pod, other)), `${Code.UnschedulableAndUnresolvable} NodeAffinity node(s) didn't match Pod's node affinity/selector`);
});

void test('a NodeInfo outside the snapshot (preemption and nominated-pod copies) runs the filters', () => {
  const { fwk, snapshot } = newTestFramework({ nodes: tableNodes() });
  const pod = makePod('windows-untolerated').nodeSelector({ 'kubernetes.io/os': 'windows' }).obj();
  const state = new CycleState();
  fwk.runPreFilterPlugins(state, pod);
  const ni = snapshot.get('windows');
  assert.ok(ni !== undefined);
  const copy = ni.snapshot();
  assert.equal(copy.snapshotIndex, -1);
  assert.equal(describe(fwk.runFilterPlugins(state, pod, copy)), describe(fwk.runFilterPlugins(state, pod, ni)));
  assert.equal(describe(fwk.runFilterPlugins(state, pod, copy)), `${Code.UnschedulableAndUnresolvable} TaintToleration node(s) had untolerated taint {os: windows}`);
});

/** A node-object filter that counts its calls and rejects nodes labelled `reject`. */
function countingFilter(calls: string[]): NodeObjectFilterPlugin {
  return {
    name: 'CountingFilter',
    filter: (_s, _p, ni) => {
      calls.push(ni.name);
      return ni.labels['reject'] === undefined ? Status.success() : newStatus(Code.UnschedulableAndUnresolvable, 'rejected');
    },
    nodeObjectFilterKey: (_s, pod) => pod.metadata?.labels?.['shape'] ?? '',
  };
}

function countingSetup(calls: string[]): { fwk: Framework; cache: Cache; algo: SchedulingAlgorithm } {
  const registry = newInTreeRegistry().merge(new Registry({ CountingFilter: () => countingFilter(calls) }));
  const fwk = new Framework({ registry, profile: { schedulerName: 'test', plugins: [{ name: 'PrioritySort' }, { name: 'CountingFilter' }, ...defaultProfile().plugins.filter((p) => p.name !== 'PrioritySort')] }, random: seededRandom(1) });
  const cache = new Cache();
  for (const n of ['n1', 'n2', 'n3']) cache.addNode(makeNode(n).capacity({ cpu: '4', memory: '8Gi', pods: '10' }).obj());
  return { fwk, cache, algo: new SchedulingAlgorithm({ cache, random: seededRandom(1) }) };
}

void test('an equal key reuses the verdicts; a new node object or another key runs the filter again', () => {
  const calls: string[] = [];
  const { cache, algo, fwk } = countingSetup(calls);
  assert.equal(algo.schedulingCycle(fwk, makePod('a').label('shape', 'x').obj()).kind, 'assumed');
  assert.deepEqual(calls.sort(), ['n1', 'n2', 'n3']);
  calls.length = 0;
  assert.equal(algo.schedulingCycle(fwk, makePod('b').label('shape', 'x').obj()).kind, 'assumed');
  assert.deepEqual(calls, [], 'pods assumed on nodes do not change the node objects');
  cache.updateNode(undefined, makeNode('n2').label('reject', 'yes').capacity({ cpu: '4', memory: '8Gi', pods: '10' }).obj());
  const out = algo.schedulingCycle(fwk, makePod('c').label('shape', 'x').obj());
  assert.deepEqual(calls, ['n2']);
  assert.ok(out.kind === 'assumed' && out.nodeName !== 'n2');
  calls.length = 0;
  algo.schedulingCycle(fwk, makePod('d').label('shape', 'y').obj());
  assert.deepEqual(calls.sort(), ['n1', 'n2', 'n3']);
});

function cycleMessage(algo: SchedulingAlgorithm, fwk: Framework, pod: Pod): string {
  const out = algo.schedulingCycle(fwk, pod);
  return out.kind === 'assumed' ? `assumed on ${out.nodeName}` : out.status.message();
}

void test("changes of a node's labels, taints, unschedulable and allocatable reach the next cycle of the same shape", () => {
  const fwk = new Framework({ registry: newInTreeRegistry(), profile: defaultProfile(), random: seededRandom(1) });
  const cache = new Cache();
  const algo = new SchedulingAlgorithm({ cache, random: seededRandom(1) });
  const node = (b: ReturnType<typeof makeNode>): Node => b.capacity({ cpu: '1', memory: '8Gi', pods: '10' }).obj();
  cache.addNode(node(makeNode('n').label('kubernetes.io/os', 'linux')));
  const pod = (name: string): Pod => makePod(name).nodeSelector({ 'kubernetes.io/os': 'linux' }).req({ cpu: '100m' }).obj();
  assert.equal(cycleMessage(algo, fwk, pod('p1')), 'assumed on n');
  cache.updateNode(undefined, node(makeNode('n').label('kubernetes.io/os', 'windows')));
  assert.equal(cycleMessage(algo, fwk, pod('p2')), "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
  cache.updateNode(undefined, node(makeNode('n').label('kubernetes.io/os', 'linux').taint(windowsTaint)));
  assert.equal(cycleMessage(algo, fwk, pod('p3')), '0/1 nodes are available: 1 node(s) had untolerated taint {os: windows}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.');
  cache.updateNode(undefined, node(makeNode('n').label('kubernetes.io/os', 'linux').unschedulable()));
  assert.equal(cycleMessage(algo, fwk, pod('p4')), '0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.');
  cache.updateNode(undefined, node(makeNode('n').label('kubernetes.io/os', 'linux')));
  assert.equal(cycleMessage(algo, fwk, pod('p5')), 'assumed on n');
  cache.updateNode(undefined, makeNode('n').label('kubernetes.io/os', 'linux').capacity({ cpu: '150m', memory: '8Gi', pods: '10' }).obj());
  assert.equal(cycleMessage(algo, fwk, pod('p6')), '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.');
});

void test('judging by position equals running the filters on each NodeInfo, as nodes change, fill up, come and go', () => {
  const fwk = new Framework({ registry: newInTreeRegistry(), profile: defaultProfile(), random: seededRandom(1) });
  const cache = new Cache();
  const algo = new SchedulingAlgorithm({ cache, random: seededRandom(1) });
  for (const n of tableNodes()) cache.addNode(n);
  const judged = (): number => {
    cache.updateSnapshot(algo.snapshot);
    fwk.setSnapshot(algo.snapshot);
    const list = algo.snapshot.list();
    let count = 0;
    for (const pod of tablePods()) {
      const state = new CycleState();
      if (!fwk.runPreFilterPlugins(state, pod).status.isSuccess()) continue;
      const judge = fwk.filterByPosition(state, pod, list);
      if (judge === undefined) continue;
      count++;
      for (let i = 0; i < list.length; i++) {
        const ni = list[i] as NodeInfo;
        const slow = state.clone();
        slow.nodeVerdicts = undefined;
        slow.nodeObjectFilterCount = 0;
        const want = describe(fwk.runFilterPluginsWithNominatedPods(slow, pod, ni));
        assert.equal(describe(judge(i)), want, `${pod.metadata?.name ?? ''} on ${ni.name}`);
        assert.equal(algo.snapshot.table.names[i], ni.name);
      }
    }
    return count;
  };
  assert.equal(judged(), 11, 'every pod of the table is judged by position');
  // One matching pod in zone a: a skew of exactly maxSkew + 1 there.
  cache.assumePod(makePod('web-0').label('app', 'web').node('linux-a').obj());
  assert.equal(judged(), 11);
  // Pods fill `tiny` and `linux-a`: the free amounts change, the node objects do not.
  for (let i = 0; i < 12; i++) cache.assumePod(makePod(`filler-${i}`).label('app', 'web').req({ cpu: '300m' }).node(i % 2 === 0 ? 'tiny' : 'linux-a').obj());
  assert.equal(judged(), 11);
  cache.updateNode(undefined, makeNode('windows').label('kubernetes.io/os', 'linux').capacity({ cpu: '4', memory: '8Gi', pods: '10' }).obj());
  assert.equal(judged(), 11);
  const gone = tableNodes()[0];
  assert.ok(gone !== undefined);
  cache.removeNode(gone);
  cache.addNode(makeNode('arm').label('kubernetes.io/os', 'linux').label('zone', 'b').capacity({ cpu: '2', memory: '1Gi', pods: '1' }).obj());
  assert.equal(judged(), 11);
});

void test('a nominated pod, or a filter that needs the NodeInfo, leaves the loop to the NodeInfos', () => {
  const { fwk, snapshot } = newTestFramework({ nodes: tableNodes() });
  const state = new CycleState();
  const pod = makePod('scalar').req({ 'example.com/gpu': '1' }).obj();
  assert.ok(fwk.runPreFilterPlugins(state, pod).status.isSuccess());
  assert.equal(fwk.filterByPosition(state, pod, snapshot.list()), undefined, 'extended resources are not in the table');
  const plain = makePod('plain').obj();
  const s2 = new CycleState();
  fwk.runPreFilterPlugins(s2, plain);
  assert.notEqual(fwk.filterByPosition(s2, plain, snapshot.list()), undefined);
  assert.equal(fwk.filterByPosition(s2, plain, snapshot.list().slice(1)), undefined, 'a subset of the list has other positions');
  fwk.setNominator({ nominatedPodsForNode: () => [], hasNominatedPods: () => true });
  assert.equal(fwk.filterByPosition(s2, plain, snapshot.list()), undefined, 'nominated pods are added to NodeInfo copies');
});
