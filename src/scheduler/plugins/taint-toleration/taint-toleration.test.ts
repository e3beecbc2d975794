import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { newTestFramework } from '../../_testing/framework.js';
import { CycleState } from '../../framework/cycle-state.js';
import { Code } from '../../framework/status.js';
import { NodeInfo } from '../../framework/types.js';
import { Name, TaintToleration, untoleratedTaintReason } from './taint-toleration.js';

function nodeWithTaints(name: string, taints: Taint[]): NodeInfo {
  const w = makeNode(name);
  for (const t of taints) w.taint(t);
  const ni = new NodeInfo();
  ni.setNode(w.obj());
  return ni;
}

function podWithTolerations(tols: Toleration[]): ReturnType<ReturnType<typeof makePod>['obj']> {
  const w = makePod('pod1');
  for (const t of tols) w.toleration(t);
  return w.obj();
}

// taint_toleration_test.go TestTaintTolerationFilter.
const filterCases: { name: string; tolerations: Toleration[]; taints: Taint[]; want?: string }[] = [
  {
    name: "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
    tolerations: [],
    taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
    want: 'node(s) had untolerated taint {dedicated: user1}',
  },
  {
    name: 'A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule',
    tolerations: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
    taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
  },
  {
    name: "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
    taints: [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }],
    want: 'node(s) had untolerated taint {dedicated: user1}',
  },
  {
    name: 'A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node',
    tolerations: [{ key: 'foo', operator: 'Exists', effect: 'NoSchedule' }],
    taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
  },
  {
    name: 'A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node',
    tolerations: [
      { key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' },
      { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
    ],
    taints: [
      { key: 'dedicated', value: 'user2', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoSchedule' },
    ],
  },
  {
    name: "A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, can't be scheduled onto the node",
    tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
    taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
    want: 'node(s) had untolerated taint {foo: bar}',
  },
  {
    name: 'The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node',
    tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar' }],
    taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }],
  },
  {
    name: "The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }],
    taints: [{ key: 'dedicated', value: 'user1', effect: 'PreferNoSchedule' }],
  },
  {
    name: 'The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node',
    tolerations: [],
    taints: [{ key: 'dedicated', value: 'user1', effect: 'PreferNoSchedule' }],
  },
  {
    name: 'The pod has no toleration, the node has a NoExecute taint: only the first untolerated taint is named',
    tolerations: [],
    taints: [
      { key: 'a', value: '1', effect: 'PreferNoSchedule' },
      { key: 'b', effect: 'NoExecute' },
      { key: 'c', value: '3', effect: 'NoSchedule' },
    ],
    want: 'node(s) had untolerated taint {b: }',
  },
];

for (const tc of filterCases) {
  void test(`TaintToleration Filter: ${tc.name}`, () => {
    const pl = new TaintToleration();
    const s = pl.filter(new CycleState(), podWithTolerations(tc.tolerations), nodeWithTaints('nodeA', tc.taints));
    if (tc.want === undefined) {
      assert.ok(s.isSuccess(), s.toString());
    } else {
      assert.equal(s.code, Code.UnschedulableAndUnresolvable);
      assert.deepEqual(s.reasons(), [tc.want]);
    }
  });
}

void test('the untolerated-taint reason prints an empty value as "{key: }"', () => {
  assert.equal(untoleratedTaintReason({ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }), 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }');
});

// taint_toleration_test.go TestTaintTolerationScore.
const scoreCases: { name: string; tolerations: Toleration[]; nodes: [string, Taint[]][]; want: number[] }[] = [
  {
    name: 'node with taints tolerated by the pod, gets a higher score than those node with intolerable taints',
    tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
    nodes: [
      ['nodeA', [{ key: 'foo', value: 'bar', effect: 'PreferNoSchedule' }]],
      ['nodeB', [{ key: 'foo', value: 'blah', effect: 'PreferNoSchedule' }]],
    ],
    want: [100, 0],
  },
  {
    name: 'the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has',
    tolerations: [
      { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'PreferNoSchedule' },
      { key: 'disk-type', operator: 'Equal', value: 'ssd', effect: 'PreferNoSchedule' },
    ],
    nodes: [
      ['nodeA', []],
      ['nodeB', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }]],
      ['nodeC', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }, { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' }]],
    ],
    want: [100, 100, 100],
  },
  {
    name: 'the more intolerable taints a node has, the lower score it gets.',
    tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'PreferNoSchedule' }],
    nodes: [
      ['nodeA', []],
      ['nodeB', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }]],
      ['nodeC', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }, { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' }]],
    ],
    want: [100, 50, 0],
  },
  {
    name: 'only taints and tolerations that have effect PreferNoSchedule are checked by prioritizeTaintToleration function',
    tolerations: [
      { key: 'cpu-type', operator: 'Equal', value: 'arm64', effect: 'NoSchedule' },
      { key: 'disk-type', operator: 'Equal', value: 'ssd', effect: 'NoSchedule' },
    ],
    nodes: [
      ['nodeA', []],
      ['nodeB', [{ key: 'cpu-type', value: 'arm64', effect: 'NoSchedule' }]],
      ['nodeC', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }, { key: 'disk-type', value: 'ssd', effect: 'PreferNoSchedule' }]],
    ],
    want: [100, 100, 0],
  },
  {
    name: 'Default behaviour No taints and tolerations, lands on node with no taints',
    tolerations: [],
    nodes: [
      ['nodeA', []],
      ['nodeB', [{ key: 'cpu-type', value: 'arm64', effect: 'PreferNoSchedule' }]],
    ],
    want: [100, 0],
  },
];

for (const tc of scoreCases) {
  void test(`TaintToleration Score: ${tc.name}`, () => {
    const nodes = tc.nodes.map(([n, t]) => nodeWithTaints(n, t));
    const { fwk } = newTestFramework({ nodes: nodes.map((n) => n.node).filter((n) => n !== undefined), profile: { schedulerName: 's', plugins: [{ name: Name, weight: 1 }] } });
    const state = new CycleState();
    const pod = podWithTolerations(tc.tolerations);
    assert.ok(fwk.runPreScorePlugins(state, pod, nodes).isSuccess());
    const { scores, status } = fwk.runScorePlugins(state, pod, nodes);
    assert.ok(status.isSuccess(), status.toString());
    assert.deepEqual(scores.map((s) => s.totalScore), tc.want);
  });
}
