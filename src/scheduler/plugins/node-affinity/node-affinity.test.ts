import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeAffinity as NodeAffinitySpec, NodeSelectorTerm, Pod, PreferredSchedulingTerm } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { newTestFramework } from '../../_testing/framework.js';
import { CycleState } from '../../framework/cycle-state.js';
import { Code } from '../../framework/status.js';
import { NodeInfo } from '../../framework/types.js';
import { ErrReasonPod, NodeAffinity, errReasonConflict, errReasonEnforced } from './node-affinity.js';

function podWith(opts: { nodeSelector?: Record<string, string>; terms?: NodeSelectorTerm[]; emptyAffinity?: boolean }): Pod {
  const p = makePod('p').obj();
  const spec = p.spec as NonNullable<Pod['spec']>;
  if (opts.nodeSelector !== undefined) spec.nodeSelector = opts.nodeSelector;
  if (opts.terms !== undefined) spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: opts.terms } } };
  if (opts.emptyAffinity === true) spec.affinity = { nodeAffinity: {} };
  return p;
}

function node(name: string, labels: Record<string, string>): NodeInfo {
  const w = makeNode(name);
  const n = w.obj();
  n.metadata = { name, labels };
  const ni = new NodeInfo();
  ni.setNode(n);
  return ni;
}

const expr = (key: string, operator: string, values?: string[]) => ({ key, operator, ...(values !== undefined ? { values } : {}) });
const nameField = (values: string[]) => ({ key: 'metadata.name', operator: 'In', values });

// node_affinity_test.go TestNodeAffinity (a substantial subset).
const cases: { name: string; pod: Pod; labels: Record<string, string>; nodeName?: string; fits: boolean; preFilterNodes?: string[]; args?: { addedAffinity: NodeAffinitySpec }; reason?: string }[] = [
  { name: 'missing labels', pod: podWith({ nodeSelector: { foo: 'bar' } }), labels: {}, fits: false },
  { name: 'same labels', pod: podWith({ nodeSelector: { foo: 'bar' } }), labels: { foo: 'bar' }, fits: true },
  { name: 'node labels are superset', pod: podWith({ nodeSelector: { foo: 'bar' } }), labels: { foo: 'bar', baz: 'blah' }, fits: true },
  { name: 'node labels are subset', pod: podWith({ nodeSelector: { foo: 'bar', baz: 'blah' } }), labels: { foo: 'bar' }, fits: false },
  { name: 'Pod with matchExpressions using In operator that matches the existing node', pod: podWith({ terms: [{ matchExpressions: [expr('foo', 'In', ['bar', 'value2'])] }] }), labels: { foo: 'bar' }, fits: true },
  { name: 'Pod with matchExpressions using Gt operator that matches the existing node', pod: podWith({ terms: [{ matchExpressions: [expr('kernel-version', 'Gt', ['0204'])] }] }), labels: { 'kernel-version': '0206' }, fits: true },
  { name: 'Pod with matchExpressions using NotIn operator that matches the existing node', pod: podWith({ terms: [{ matchExpressions: [expr('mem-type', 'NotIn', ['DDR', 'DDR2'])] }] }), labels: { 'mem-type': 'DDR3' }, fits: true },
  { name: 'Pod with matchExpressions using Exists operator that matches the existing node', pod: podWith({ terms: [{ matchExpressions: [expr('GPU', 'Exists')] }] }), labels: { GPU: 'NVIDIA-GRID-K1' }, fits: true },
  { name: "Pod with affinity that don't match node's labels won't schedule onto the node", pod: podWith({ terms: [{ matchExpressions: [expr('foo', 'In', ['value1', 'value2'])] }] }), labels: { foo: 'bar' }, fits: false },
  { name: 'Pod with empty MatchExpressions is not a valid value will match no objects and won\'t schedule onto the node', pod: podWith({ terms: [{ matchExpressions: [] }] }), labels: { foo: 'bar' }, fits: false },
  { name: 'Pod with no Affinity will schedule onto a node', pod: podWith({}), labels: { foo: 'bar' }, fits: true },
  { name: 'Pod with Affinity but nil NodeSelector will schedule onto a node', pod: podWith({ emptyAffinity: true }), labels: { foo: 'bar' }, fits: true },
  { name: 'Pod with multiple matchExpressions ANDed that matches the existing node', pod: podWith({ terms: [{ matchExpressions: [expr('GPU', 'Exists'), expr('GPU', 'NotIn', ['AMD', 'INTER'])] }] }), labels: { GPU: 'NVIDIA-GRID-K1' }, fits: true },
  { name: "Pod with multiple matchExpressions ANDed that doesn't match the existing node", pod: podWith({ terms: [{ matchExpressions: [expr('GPU', 'Exists'), expr('GPU', 'In', ['AMD', 'INTER'])] }] }), labels: { GPU: 'NVIDIA-GRID-K1' }, fits: false },
  {
    name: "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
    pod: podWith({ terms: [{ matchExpressions: [expr('foo', 'In', ['bar', 'value2'])] }, { matchExpressions: [expr('diffkey', 'In', ['wrong', 'value2'])] }] }),
    labels: { foo: 'bar' },
    fits: true,
  },
  {
    name: 'Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node',
    pod: podWith({ nodeSelector: { foo: 'bar' }, terms: [{ matchExpressions: [expr('foo', 'Exists')] }] }),
    labels: { foo: 'bar' },
    fits: true,
  },
  {
    name: "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
    pod: podWith({ nodeSelector: { foo: 'bar' }, terms: [{ matchExpressions: [expr('foo', 'Exists')] }] }),
    labels: { foo: 'barrrrrr' },
    fits: false,
  },
  { name: "Pod with an invalid value in Affinity term won't be scheduled onto the node", pod: podWith({ terms: [{ matchExpressions: [expr('foo', 'NotIn', ['invalid value: ___@#$%^'])] }] }), labels: { foo: 'bar' }, fits: false },
  { name: 'Pod with matchFields using In operator that matches the existing node', pod: podWith({ terms: [{ matchFields: [nameField(['node1'])] }] }), labels: {}, nodeName: 'node1', fits: true, preFilterNodes: ['node1'] },
  { name: 'Pod with matchFields using In operator that does not match the existing node', pod: podWith({ terms: [{ matchFields: [nameField(['node1'])] }] }), labels: {}, nodeName: 'node2', fits: false, preFilterNodes: ['node1'] },
  {
    name: 'Pod with two terms: matchFields does not match, but matchExpressions matches',
    pod: podWith({ terms: [{ matchFields: [nameField(['node1'])] }, { matchExpressions: [expr('foo', 'In', ['bar'])] }] }),
    labels: { foo: 'bar' },
    nodeName: 'node2',
    fits: true,
  },
  {
    name: 'Pod with one term: matchFields does not match, but matchExpressions matches',
    pod: podWith({ terms: [{ matchFields: [nameField(['node1'])], matchExpressions: [expr('foo', 'In', ['bar'])] }] }),
    labels: { foo: 'bar' },
    nodeName: 'node2',
    fits: false,
    preFilterNodes: ['node1'],
  },
  {
    name: 'Pod with one term: both matchFields and matchExpressions match',
    pod: podWith({ terms: [{ matchFields: [nameField(['node1'])], matchExpressions: [expr('foo', 'In', ['bar'])] }] }),
    labels: { foo: 'bar' },
    nodeName: 'node1',
    fits: true,
    preFilterNodes: ['node1'],
  },
  {
    name: 'Pod with two terms: both matchFields and matchExpressions do not match',
    pod: podWith({ terms: [{ matchFields: [nameField(['node1'])] }, { matchExpressions: [expr('foo', 'In', ['not-match-to-bar'])] }] }),
    labels: { foo: 'bar' },
    nodeName: 'node2',
    fits: false,
  },
  {
    name: 'Pod with two terms of node.Name affinity',
    pod: podWith({ terms: [{ matchFields: [nameField(['node1'])] }, { matchFields: [nameField(['node2'])] }] }),
    labels: {},
    nodeName: 'node2',
    fits: true,
    preFilterNodes: ['node1', 'node2'],
  },
  {
    name: "Doesn't match added affinity",
    pod: podWith({}),
    labels: { zone: 'bar' },
    fits: false,
    args: { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expr('zone', 'In', ['foo'])] }] } } },
    reason: errReasonEnforced,
  },
];

for (const tc of cases) {
  void test(tc.name, () => {
    const pl = new NodeAffinity(tc.args ?? {});
    const state = new CycleState();
    const pre = pl.preFilter(state, tc.pod);
    if (tc.preFilterNodes !== undefined) assert.deepEqual([...(pre.result?.nodeNames ?? [])].sort(), tc.preFilterNodes);
    else assert.equal(pre.result, undefined);
    const ni = node(tc.nodeName ?? 'node1', tc.labels);
    const s = pre.status.isSkip() ? null : pl.filter(state, tc.pod, ni);
    if (tc.fits) {
      assert.ok(s === null || s.isSuccess(), s?.toString());
    } else {
      assert.ok(s !== null);
      assert.equal(s.code, Code.UnschedulableAndUnresolvable);
      assert.deepEqual(s.reasons(), [tc.reason ?? ErrReasonPod]);
    }
  });
}

void test('PreFilter: conflicting node-name terms are rejected with "pod affinity terms conflict"', () => {
  const pod = podWith({ terms: [{ matchFields: [nameField(['node1']), nameField(['node2'])] }] });
  const pre = new NodeAffinity().preFilter(new CycleState(), pod);
  assert.equal(pre.status.code, Code.UnschedulableAndUnresolvable);
  assert.deepEqual(pre.status.reasons(), [errReasonConflict]);
});

void test('PreFilter skips a pod without nodeSelector or required affinity', () => {
  assert.ok(new NodeAffinity().preFilter(new CycleState(), podWith({})).status.isSkip());
});

// node_affinity_test.go TestNodeAffinityPriority.
const affinity2: PreferredSchedulingTerm[] = [
  { weight: 2, preference: { matchExpressions: [expr('foo', 'In', ['bar'])] } },
  { weight: 4, preference: { matchExpressions: [expr('key', 'In', ['value'])] } },
  { weight: 5, preference: { matchExpressions: [expr('foo', 'In', ['bar']), expr('key', 'In', ['value']), expr('az', 'In', ['az1'])] } },
];

const scoreCases: { name: string; preferred?: PreferredSchedulingTerm[]; nodes: [string, Record<string, string>][]; want: number[] }[] = [
  {
    name: 'all nodes are same priority as NodeAffinity is nil',
    nodes: [['node1', { foo: 'bar' }], ['node2', { key: 'value' }], ['node3', { az: 'az1' }]],
    want: [0, 0, 0],
  },
  {
    name: "no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",
    preferred: [{ weight: 2, preference: { matchExpressions: [expr('foo', 'In', ['bar'])] } }],
    nodes: [['node1', { key: 'value' }], ['node2', { az: 'az1' }], ['node3', { bar: 'foo' }]],
    want: [0, 0, 0],
  },
  {
    name: 'only node1 matches the preferred scheduling requirements of pod',
    preferred: [{ weight: 2, preference: { matchExpressions: [expr('foo', 'In', ['bar'])] } }],
    nodes: [['node1', { foo: 'bar' }], ['node2', { key: 'value' }], ['node3', { az: 'az1' }]],
    want: [100, 0, 0],
  },
  {
    name: 'all nodes matches the preferred scheduling requirements of pod but with different priorities',
    preferred: affinity2,
    nodes: [['node1', { foo: 'bar' }], ['node5', { foo: 'bar', key: 'value', az: 'az1' }], ['node2', { key: 'value' }]],
    want: [18, 100, 36],
  },
];

for (const tc of scoreCases) {
  void test(`NodeAffinity Score: ${tc.name}`, () => {
    const nodes = tc.nodes.map(([n, l]) => node(n, l));
    const { fwk } = newTestFramework({ profile: { schedulerName: 's', plugins: [{ name: 'NodeAffinity', weight: 1 }] } });
    const p = makePod('p').obj();
    if (tc.preferred !== undefined) (p.spec as NonNullable<Pod['spec']>).affinity = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: tc.preferred } };
    const state = new CycleState();
    assert.ok(fwk.runPreScorePlugins(state, p, nodes).isSuccess());
    const { scores } = fwk.runScorePlugins(state, p, nodes);
    assert.deepEqual(scores.map((s) => s.totalScore), tc.want);
  });
}
