import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { newTestFramework } from '../../_testing/framework.js';
import { CycleState } from '../../framework/cycle-state.js';
import { Code } from '../../framework/status.js';
import { ErrReasonAffinityRulesNotMatch, ErrReasonAntiAffinityRulesNotMatch, ErrReasonExistingAntiAffinityRulesNotMatch, InterPodAffinity } from './inter-pod-affinity.js';

const sel = (key: string, operator: string, values?: string[]): LabelSelector => ({ matchExpressions: [{ key, operator, ...(values !== undefined ? { values } : {}) }] });

function filterOn(pod: Pod, nodes: Node[], pods: Pod[]): Record<string, string> {
  const { fwk, snapshot } = newTestFramework({ nodes, pods, profile: { schedulerName: 's', plugins: [{ name: 'InterPodAffinity' }] } });
  const pl = fwk.plugins[0] as InterPodAffinity;
  const state = new CycleState();
  const pre = pl.preFilter(state, pod);
  const out: Record<string, string> = {};
  for (const ni of snapshot.list()) {
    if (pre.status.isSkip()) {
      out[ni.name] = 'ok';
      continue;
    }
    const s = pl.filter(state, pod, ni);
    out[ni.name] = s.isSuccess() ? 'ok' : `${s.code === Code.UnschedulableAndUnresolvable ? 'U&U' : 'U'}: ${s.message()}`;
  }
  return out;
}

const node1 = (): Node => makeNode('node1').label('region', 'r1').label('zone', 'z11').obj();
const aff = `U&U: ${ErrReasonAffinityRulesNotMatch}`;
const anti = `U: ${ErrReasonAntiAffinityRulesNotMatch}`;
const existingAnti = `U: ${ErrReasonExistingAntiAffinityRulesNotMatch}`;

// filtering_test.go TestRequiredAffinitySingleNode (subset).
const cases: { name: string; pod: Pod; pods: Pod[]; nodes?: Node[]; want: Record<string, string> }[] = [
  { name: 'A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods', pod: makePod('p').obj(), pods: [], want: { node1: 'ok' } },
  {
    name: 'satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod',
    pod: makePod('p').podAffinity('region', sel('service', 'In', ['securityscan', 'value2'])).obj(),
    pods: [makePod('e').node('node1').label('service', 'securityscan').obj()],
    want: { node1: 'ok' },
  },
  {
    name: 'satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod',
    pod: makePod('p').podAffinity('region', sel('service', 'NotIn', ['securityscan3', 'value3'])).obj(),
    pods: [makePod('e').node('node1').label('service', 'securityscan').obj()],
    want: { node1: 'ok' },
  },
  {
    name: 'Does not satisfy the PodAffinity with labelSelector because of diff Namespace',
    pod: makePod('p').podAffinity('region', sel('service', 'In', ['securityscan', 'value2'])).obj(),
    pods: [makePod('e').node('node1').namespace('ns').label('service', 'securityscan').obj()],
    want: { node1: aff },
  },
  {
    name: "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
    pod: makePod('p').podAffinity('region', sel('service', 'In', ['antivirusscan', 'value2'])).obj(),
    pods: [makePod('e').node('node1').label('service', 'securityscan').obj()],
    want: { node1: aff },
  },
  {
    name: 'satisfies the PodAffinity and PodAntiAffinity with the existing pod',
    pod: makePod('p').podAffinity('region', sel('service', 'In', ['securityscan', 'value2'])).podAntiAffinity('node', sel('service', 'In', ['antivirusscan', 'value2'])).obj(),
    pods: [makePod('e').node('node1').label('service', 'securityscan').obj()],
    want: { node1: 'ok' },
  },
  {
    name: "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
    pod: makePod('p').podAffinity('region', sel('service', 'In', ['securityscan', 'value2'])).podAntiAffinity('zone', sel('service', 'In', ['securityscan', 'value2'])).obj(),
    pods: [makePod('e').node('node1').label('service', 'securityscan').obj()],
    want: { node1: anti },
  },
  {
    name: "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
    pod: makePod('p').label('service', 'securityscan').podAffinity('region', sel('service', 'In', ['securityscan', 'value2'])).obj(),
    pods: [makePod('e').node('node1').label('service', 'securityscan').podAntiAffinity('zone', sel('service', 'In', ['securityscan', 'value2'])).obj()],
    want: { node1: existingAnti },
  },
  {
    name: 'verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn\'t satisfy PodAntiAffinity symmetry with the existing pod',
    pod: makePod('p').label('foo', '').obj(),
    pods: [makePod('e').node('node1').podAntiAffinity('zone', sel('foo', 'Exists')).obj()],
    want: { node1: existingAnti },
  },
  {
    name: 'verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod',
    pod: makePod('p').label('foo', '').obj(),
    pods: [makePod('e').node('node1').podAntiAffinity('zone', sel('bar', 'Exists')).obj()],
    want: { node1: 'ok' },
  },
  {
    name: 'verify that PodAffinity is satisfied when the pod is the first of its group and matches its own terms',
    pod: makePod('p').label('app', 'db').podAffinity('zone', sel('app', 'In', ['db'])).obj(),
    pods: [],
    nodes: [node1(), makeNode('nozone').obj()],
    want: { node1: 'ok', nozone: aff },
  },
  {
    name: 'a pod whose affinity matches nobody and not itself cannot be scheduled',
    pod: makePod('p').label('app', 'web').podAffinity('zone', sel('app', 'In', ['db'])).obj(),
    pods: [],
    want: { node1: aff },
  },
  {
    name: 'anti-affinity on hostname keeps replicas apart',
    pod: makePod('p').label('app', 'web').podAntiAffinity('kubernetes.io/hostname', sel('app', 'In', ['web'])).obj(),
    pods: [makePod('e').node('node1').label('app', 'web').obj()],
    nodes: [node1(), makeNode('node2').label('region', 'r1').obj()],
    want: { node1: anti, node2: 'ok' },
  },
];

for (const tc of cases) {
  void test(tc.name, () => {
    assert.deepEqual(filterOn(tc.pod, tc.nodes ?? [node1()], tc.pods), tc.want);
  });
}

void test('namespaceSelector terms are resolved through the namespace lister', () => {
  const pod = makePod('p').obj();
  (pod.spec as NonNullable<Pod['spec']>).affinity = {
    podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'region', labelSelector: sel('service', 'Exists'), namespaceSelector: { matchLabels: { team: 'a' } } }] },
  };
  const pods = [makePod('e').node('node1').namespace('team-a').label('service', 'x').obj()];
  const namespaces = {
    labels: (ns: string) => (ns === 'team-a' ? { team: 'a' } : {}),
    matching: (s: { matches(l: Record<string, string>): boolean }) => (s.matches({ team: 'a' }) ? ['team-a'] : []),
  };
  const { fwk, snapshot } = newTestFramework({ nodes: [node1()], pods, namespaces, profile: { schedulerName: 's', plugins: [{ name: 'InterPodAffinity' }] } });
  const pl = fwk.plugins[0] as InterPodAffinity;
  const state = new CycleState();
  pl.preFilter(state, pod);
  assert.ok(pl.filter(state, pod, snapshot.list()[0] as NonNullable<ReturnType<typeof snapshot.get>>).isSuccess());
});

// scoring_test.go TestPreferredAffinity (subset).
void test('Affinity: pod that matches topology key & pods in nodes will get high score comparing to others which doesn\'t match either pods in nodes or in topology key', () => {
  const nodes = [makeNode('node1').label('region', 'China').obj(), makeNode('node2').label('region', 'India').obj(), makeNode('node3').label('az', 'az1').obj()];
  const pods = [makePod('e1').node('node1').label('security', 'S1').obj(), makePod('e2').node('node2').label('security', 'S2').obj(), makePod('e3').node('node3').label('security', 'S1').obj()];
  const pod = makePod('p').podAffinity('region', sel('security', 'In', ['S1']), 'preferred', 5).obj();
  const { fwk, snapshot } = newTestFramework({ nodes, pods, profile: { schedulerName: 's', plugins: [{ name: 'InterPodAffinity', weight: 1 }] } });
  const state = new CycleState();
  assert.ok(fwk.runPreScorePlugins(state, pod, snapshot.list()).isSuccess());
  const { scores } = fwk.runScorePlugins(state, pod, snapshot.list());
  assert.deepEqual(scores.map((s) => s.totalScore), [100, 0, 0]);
});

void test('Anti Affinity: pods in the same topology as a matching pod score lowest', () => {
  const nodes = [makeNode('node1').label('zone', 'z1').obj(), makeNode('node2').label('zone', 'z2').obj()];
  const pods = [makePod('e1').node('node1').label('app', 'web').obj()];
  const pod = makePod('p').podAntiAffinity('zone', sel('app', 'In', ['web']), 'preferred', 10).obj();
  const { fwk, snapshot } = newTestFramework({ nodes, pods, profile: { schedulerName: 's', plugins: [{ name: 'InterPodAffinity', weight: 1 }] } });
  const state = new CycleState();
  fwk.runPreScorePlugins(state, pod, snapshot.list());
  const { scores } = fwk.runScorePlugins(state, pod, snapshot.list());
  assert.deepEqual(scores.map((s) => s.totalScore), [0, 100]);
});

void test('existing pods\' required affinity attracts the incoming pod (hardPodAffinityWeight 1)', () => {
  const nodes = [makeNode('node1').label('zone', 'z1').obj(), makeNode('node2').label('zone', 'z2').obj()];
  const pods = [makePod('e1').node('node2').podAffinity('zone', sel('app', 'In', ['db'])).obj()];
  const pod = makePod('p').label('app', 'db').obj();
  const { fwk, snapshot } = newTestFramework({ nodes, pods, profile: { schedulerName: 's', plugins: [{ name: 'InterPodAffinity', weight: 1 }] } });
  const state = new CycleState();
  assert.ok(fwk.runPreScorePlugins(state, pod, snapshot.list()).isSuccess());
  const { scores } = fwk.runScorePlugins(state, pod, snapshot.list());
  assert.deepEqual(scores.map((s) => s.totalScore), [0, 100]);
});

void test('Score without the PreScore state fails the cycle with the state error', () => {
  const nodes = [makeNode('node1').label('zone', 'z1').obj()];
  const pod = makePod('p').podAffinity('zone', sel('security', 'In', ['S1']), 'preferred', 5).obj();
  const { fwk, snapshot } = newTestFramework({ nodes, profile: { schedulerName: 's', plugins: [{ name: 'InterPodAffinity', weight: 1 }] } });
  const { scores, status } = fwk.runScorePlugins(new CycleState(), pod, snapshot.list());
  assert.deepEqual(scores, []);
  assert.equal(status.code, Code.Error);
  assert.equal(status.message(), 'plugin "InterPodAffinity" failed with: reading "PreScoreInterPodAffinity" from cycleState: not found');
});
