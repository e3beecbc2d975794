import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { newTestFramework } from '../../_testing/framework.js';
import { Selector } from '../../../api/labels.js';
import { CycleState } from '../../framework/cycle-state.js';
import type { NodeInfo } from '../../framework/types.js';
import { Code } from '../../framework/status.js';
import { ErrReasonConstraintsNotMatch, ErrReasonNodeLabelNotMatch, PodTopologySpread } from './pod-topology-spread.js';

const fooExists = { matchExpressions: [{ key: 'foo', operator: 'Exists' }] };

function nodes4(): Node[] {
  return [
    makeNode('node-a').label('zone', 'zone1').label('node', 'node-a').obj(),
    makeNode('node-b').label('zone', 'zone1').label('node', 'node-b').obj(),
    makeNode('node-x').label('zone', 'zone2').label('node', 'node-x').obj(),
    makeNode('node-y').label('zone', 'zone2').label('node', 'node-y').obj(),
  ];
}

function existing(spec: Record<string, number>, label: Record<string, string> = { foo: '' }): Pod[] {
  const out: Pod[] = [];
  for (const [node, n] of Object.entries(spec)) for (let i = 0; i < n; i++) out.push(makePod(`p-${node}-${i}`).node(node).labels(label).obj());
  return out;
}

type Want = 'ok' | 'skew' | 'label';

function runFilter(pod: Pod, nodes: Node[], pods: Pod[]): Record<string, Want> {
  const { fwk, snapshot } = newTestFramework({ nodes, pods, profile: { schedulerName: 's', plugins: [{ name: 'PodTopologySpread' }] } });
  const pl = fwk.plugins[0] as PodTopologySpread;
  const state = new CycleState();
  const pre = pl.preFilter(state, pod);
  const out: Record<string, Want> = {};
  for (const ni of snapshot.list()) {
    if (pre.status.isSkip()) {
      out[ni.name] = 'ok';
      continue;
    }
    const s = pl.filter(state, pod, ni);
    if (s.isSuccess()) out[ni.name] = 'ok';
    else if (s.code === Code.UnschedulableAndUnresolvable) {
      assert.deepEqual(s.reasons(), [ErrReasonNodeLabelNotMatch]);
      out[ni.name] = 'label';
    } else {
      assert.equal(s.code, Code.Unschedulable);
      assert.deepEqual(s.reasons(), [ErrReasonConstraintsNotMatch]);
      out[ni.name] = 'skew';
    }
  }
  return out;
}

// filtering_test.go TestSingleConstraint (subset).
const cases: { name: string; pod: Pod; nodes?: Node[]; pods: Pod[]; want: Record<string, Want> }[] = [
  {
    name: 'no existing pods',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', fooExists).obj(),
    pods: [],
    want: { 'node-a': 'ok', 'node-b': 'ok', 'node-x': 'ok', 'node-y': 'ok' },
  },
  {
    name: "no existing pods, incoming pod doesn't match itself",
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', { matchExpressions: [{ key: 'bar', operator: 'Exists' }] }).obj(),
    pods: [],
    want: { 'node-a': 'ok', 'node-b': 'ok', 'node-x': 'ok', 'node-y': 'ok' },
  },
  {
    name: 'pods spread across zones as 3/3, all nodes fit',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', fooExists).obj(),
    pods: existing({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }),
    want: { 'node-a': 'ok', 'node-b': 'ok', 'node-x': 'ok', 'node-y': 'ok' },
  },
  {
    name: "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', fooExists).obj(),
    nodes: [makeNode('node-a').label('zone', 'zone1').obj(), makeNode('node-b').label('zon', 'zone1').obj(), makeNode('node-x').label('zone', 'zone2').obj(), makeNode('node-y').label('zone', 'zone2').obj()],
    pods: existing({ 'node-a': 1, 'node-b': 1, 'node-x': 1, 'node-y': 1 }),
    want: { 'node-a': 'ok', 'node-b': 'label', 'node-x': 'skew', 'node-y': 'skew' },
  },
  {
    name: "pod cannot be scheduled as all nodes don't have label 'rack'",
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'rack', 'DoNotSchedule', fooExists).obj(),
    pods: [],
    want: { 'node-a': 'label', 'node-b': 'label', 'node-x': 'label', 'node-y': 'label' },
  },
  {
    name: 'pods spread across nodes as 2/1/0/3, only node-x fits',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'node', 'DoNotSchedule', fooExists).obj(),
    pods: existing({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }),
    want: { 'node-a': 'skew', 'node-b': 'skew', 'node-x': 'ok', 'node-y': 'skew' },
  },
  {
    name: 'pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit',
    pod: makePod('p').label('foo', '').spreadConstraint(2, 'node', 'DoNotSchedule', fooExists).obj(),
    pods: existing({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }),
    want: { 'node-a': 'skew', 'node-b': 'ok', 'node-x': 'ok', 'node-y': 'skew' },
  },
  {
    name: "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
    pod: makePod('p').label('bar', '').spreadConstraint(1, 'node', 'DoNotSchedule', fooExists).obj(),
    pods: existing({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }),
    want: { 'node-a': 'skew', 'node-b': 'ok', 'node-x': 'ok', 'node-y': 'skew' },
  },
  {
    name: 'terminating pods and pods of other namespaces are not counted',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'node', 'DoNotSchedule', fooExists).obj(),
    pods: [
      makePod('t1').node('node-a').label('foo', '').terminating().obj(),
      makePod('t2').node('node-a').label('foo', '').terminating().obj(),
      makePod('o1').node('node-b').namespace('other').label('foo', '').obj(),
      makePod('o2').node('node-b').namespace('other').label('foo', '').obj(),
    ],
    want: { 'node-a': 'ok', 'node-b': 'ok', 'node-x': 'ok', 'node-y': 'ok' },
  },
  {
    name: 'minDomains above the number of domains makes the global minimum 0',
    pod: makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'DoNotSchedule', fooExists, { minDomains: 3 }).obj(),
    pods: existing({ 'node-a': 1, 'node-x': 0 }),
    want: { 'node-a': 'skew', 'node-b': 'skew', 'node-x': 'ok', 'node-y': 'ok' },
  },
  {
    name: 'nodes not matching the pod\'s node affinity are not counted (nodeAffinityPolicy Honor)',
    pod: makePod('p').label('foo', '').nodeSelector({ zone: 'zone1' }).spreadConstraint(1, 'node', 'DoNotSchedule', fooExists).obj(),
    pods: existing({ 'node-a': 1 }),
    want: { 'node-a': 'skew', 'node-b': 'ok', 'node-x': 'ok', 'node-y': 'ok' },
  },
];

for (const tc of cases) {
  void test(tc.name, () => {
    assert.deepEqual(runFilter(tc.pod, tc.nodes ?? nodes4(), tc.pods), tc.want);
  });
}

void test('PreFilter skips a pod without hard constraints', () => {
  const { fwk } = newTestFramework({ nodes: nodes4(), profile: { schedulerName: 's', plugins: [{ name: 'PodTopologySpread' }] } });
  const pl = fwk.plugins[0] as PodTopologySpread;
  assert.ok(pl.preFilter(new CycleState(), makePod('p').obj()).status.isSkip());
  assert.ok(pl.preFilter(new CycleState(), makePod('p').spreadConstraint(1, 'zone', 'ScheduleAnyway', fooExists).obj()).status.isSkip());
});

function runScore(pod: Pod, nodes: Node[], pods: Pod[]): Record<string, number> {
  const { fwk, snapshot } = newTestFramework({ nodes, pods, profile: { schedulerName: 's', plugins: [{ name: 'PodTopologySpread', weight: 1 }] } });
  const state = new CycleState();
  const list = snapshot.list();
  const s = fwk.runPreScorePlugins(state, pod, list);
  assert.ok(s.isSuccess(), s.toString());
  const { scores, status } = fwk.runScorePlugins(state, pod, list);
  assert.ok(status.isSuccess(), status.toString());
  return Object.fromEntries(scores.map((x) => [x.name, x.totalScore]));
}

// scoring_test.go TestPodTopologySpreadScore (subset).
void test('one constraint on node, no existing pods', () => {
  const pod = makePod('p').label('foo', '').spreadConstraint(1, 'kubernetes.io/hostname', 'ScheduleAnyway', fooExists).obj();
  const nodes = [makeNode('node-a').obj(), makeNode('node-b').obj()];
  assert.deepEqual(runScore(pod, nodes, []), { 'node-a': 100, 'node-b': 100 });
});

void test('one constraint on node, all 4 nodes are candidates', () => {
  const pod = makePod('p').label('foo', '').spreadConstraint(1, 'kubernetes.io/hostname', 'ScheduleAnyway', fooExists).obj();
  const nodes = ['node-a', 'node-b', 'node-c', 'node-d'].map((n) => makeNode(n).obj());
  const pods = existing({ 'node-a': 2, 'node-b': 1, 'node-d': 3 });
  assert.deepEqual(runScore(pod, nodes, pods), { 'node-a': 20, 'node-b': 60, 'node-c': 100, 'node-d': 0 });
});

void test('one constraint on zone: nodes in the emptier zone score higher; nodes without the label score 0', () => {
  const pod = makePod('p').label('foo', '').spreadConstraint(1, 'zone', 'ScheduleAnyway', fooExists).obj();
  const nodes = [...nodes4(), makeNode('node-nolabel').obj()];
  const pods = existing({ 'node-a': 2, 'node-x': 1 });
  // zone1: 2, zone2: 1; weight ln(2+2); zone1 round(2*1.386)=3, zone2 round(1.386)=1; normalised 100*(3+1-s)/3.
  assert.deepEqual(runScore(pod, nodes, pods), { 'node-a': 33, 'node-b': 33, 'node-x': 100, 'node-y': 100, 'node-nolabel': 0 });
});

void test('system default constraints spread pods selected by the same Service', () => {
  const nodes = ['node-a', 'node-b', 'node-c'].map((n) => makeNode(n).label('topology.kubernetes.io/zone', 'z1').obj());
  const pods = existing({ 'node-a': 2, 'node-b': 1 }, { app: 'web' });
  const { snapshot } = newTestFramework({ nodes, pods, profile: { schedulerName: 's', plugins: [{ name: 'PodTopologySpread', weight: 1 }] } });
  const withSource = new PodTopologySpread(
    {
      snapshot: () => snapshot,
      spreadingSelectorSource: () => ({ serviceSelectors: () => [{ app: 'web' }], controllerSelector: () => undefined as Selector | undefined }),
    } as unknown as ConstructorParameters<typeof PodTopologySpread>[0],
  );
  const pod = makePod('p').label('app', 'web').obj();
  const state = new CycleState();
  assert.ok(withSource.preScore(state, pod, snapshot.list()).isSuccess());
  const raw = snapshot.list().map((n) => ({ name: n.name, score: withSource.score(state, pod, n).score }));
  withSource.normalizeScore(state, pod, raw);
  const by = Object.fromEntries(raw.map((r) => [r.name, r.score]));
  assert.ok((by['node-c'] ?? 0) > (by['node-b'] ?? 0) && (by['node-b'] ?? 0) > (by['node-a'] ?? 0), JSON.stringify(by));
  // Without a Service or controller selecting the pod there is no default spreading.
  const noSource = new PodTopologySpread({ snapshot: () => snapshot, spreadingSelectorSource: () => undefined } as unknown as ConstructorParameters<typeof PodTopologySpread>[0]);
  assert.ok(noSource.preScore(new CycleState(), pod, snapshot.list()).isSkip());
});

void test('Score without the PreScore state fails the cycle with the state error, through the runtime and directly', () => {
  const nodes = [makeNode('node-a').obj(), makeNode('node-b').obj()];
  const { fwk, snapshot } = newTestFramework({ nodes, profile: { schedulerName: 's', plugins: [{ name: 'PodTopologySpread', weight: 1 }] } });
  const pod = makePod('p').label('foo', '').spreadConstraint(1, 'kubernetes.io/hostname', 'ScheduleAnyway', fooExists).obj();
  const { scores, status } = fwk.runScorePlugins(new CycleState(), pod, snapshot.list());
  assert.deepEqual(scores, []);
  assert.equal(status.code, Code.Error);
  assert.equal(status.message(), 'plugin "PodTopologySpread" failed with: reading "PreScorePodTopologySpread" from cycleState: not found');
  const direct = (fwk.plugins[0] as PodTopologySpread).score(new CycleState(), pod, snapshot.list()[0] as NodeInfo);
  assert.equal(direct.status.message(), 'reading "PreScorePodTopologySpread" from cycleState: not found');
});
