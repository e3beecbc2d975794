import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import { newTestFramework } from '../../_testing/framework.js';
import { CycleState } from '../../framework/cycle-state.js';
import type { PodDisruptionBudgetLike } from '../../framework/interfaces.js';
import { NodeToStatus } from '../../framework/fit-error.js';
import { Code, newStatus } from '../../framework/status.js';
import { PodInfo } from '../../framework/types.js';
import { DefaultPreemption, filterPodsWithPDBViolation, msgPreemptionPolicyNever, msgTerminatingPodOnNominatedNode, pickOneNodeForPreemption, type Candidate } from './default-preemption.js';

const now = Date.parse('2024-06-01T00:00:00Z');

function cand(name: string, victims: { prio: number; start?: string }[], pdb = 0): Candidate {
  return {
    name,
    victims: {
      pods: victims.map((v, i) => {
        const w = makePod(`${name}-v${i}`).priority(v.prio);
        if (v.start !== undefined) w.startTime(v.start);
        return new PodInfo(w.obj());
      }),
      numPDBViolations: pdb,
    },
  };
}

// default_preemption_test.go TestPickOneNodeForPreemption (criteria in order).
void test('pick the node with the fewest PDB violations', () => {
  assert.equal(pickOneNodeForPreemption([cand('node1', [{ prio: 1 }], 1), cand('node2', [{ prio: 100 }], 0)], now)?.name, 'node2');
});
void test('pick the node whose highest-priority victim has the lowest priority', () => {
  assert.equal(pickOneNodeForPreemption([cand('node1', [{ prio: 10 }]), cand('node2', [{ prio: 5 }, { prio: 5 }, { prio: 5 }])], now)?.name, 'node2');
});
void test('pick the node with the smallest sum of victim priorities (which also favours fewer victims)', () => {
  assert.equal(pickOneNodeForPreemption([cand('node1', [{ prio: 5 }, { prio: 4 }]), cand('node2', [{ prio: 5 }, { prio: 1 }])], now)?.name, 'node2');
  assert.equal(pickOneNodeForPreemption([cand('node1', [{ prio: 5 }, { prio: 0 }, { prio: 0 }]), cand('node2', [{ prio: 5 }, { prio: 0 }])], now)?.name, 'node2');
});
void test('pick the node whose highest-priority victims started latest', () => {
  const c1 = cand('node1', [{ prio: 5, start: '2020-01-01T00:00:00Z' }]);
  const c2 = cand('node2', [{ prio: 5, start: '2021-01-01T00:00:00Z' }]);
  assert.equal(pickOneNodeForPreemption([c1, c2], now)?.name, 'node2');
});
void test('ties keep the first candidate', () => {
  assert.equal(pickOneNodeForPreemption([cand('node1', [{ prio: 5, start: '2020-01-01T00:00:00Z' }]), cand('node2', [{ prio: 5, start: '2020-01-01T00:00:00Z' }])], now)?.name, 'node1');
});

void test('filterPodsWithPDBViolation spends a budget per matching pod and skips already-disrupted pods', () => {
  const pdb: PodDisruptionBudgetLike = { metadata: { namespace: 'default', name: 'pdb' }, spec: { selector: { matchLabels: { app: 'a' } } }, status: { disruptionsAllowed: 1, disruptedPods: { gone: '2024-01-01T00:00:00Z' } } };
  const pods = ['p1', 'p2', 'gone'].map((n) => new PodInfo(makePod(n).label('app', 'a').obj()));
  const other = new PodInfo(makePod('x').label('app', 'b').obj());
  const { violating, nonViolating } = filterPodsWithPDBViolation([...pods, other], [pdb]);
  assert.deepEqual(violating.map((p) => p.pod.metadata?.name), ['p2']);
  assert.deepEqual(nonViolating.map((p) => p.pod.metadata?.name), ['p1', 'gone', 'x']);
  const empty: PodDisruptionBudgetLike = { metadata: { namespace: 'default' }, spec: { selector: {} }, status: { disruptionsAllowed: 0 } };
  assert.equal(filterPodsWithPDBViolation(pods, [empty]).violating.length, 0, 'an empty selector matches nothing');
});

function plugin(nodes = [makeNode('n1').capacity({ cpu: '3', memory: '4Gi', pods: '10' }).obj()], pods: Pod[] = []): { pl: DefaultPreemption } & ReturnType<typeof newTestFramework> {
  const t = newTestFramework({ nodes, pods });
  const pl = t.fwk.plugins.find((p) => p.name === 'DefaultPreemption') as DefaultPreemption;
  pl.now = () => now;
  return { pl, ...t };
}

void test('selectVictimsOnNode reprieves the most important pods and evicts only what is needed', () => {
  const pods = [
    makePod('v1').node('n1').priority(1).req({ cpu: '1' }).obj(),
    makePod('v2').node('n1').priority(2).req({ cpu: '1' }).obj(),
    makePod('v3').node('n1').priority(3).req({ cpu: '1' }).obj(),
  ];
  const { pl, fwk, snapshot } = plugin(undefined, pods);
  const preemptor = makePod('high').priority(10).req({ cpu: '1' }).obj();
  const state = new CycleState();
  fwk.runPreFilterPlugins(state, preemptor);
  const n1 = snapshot.get('n1');
  assert.ok(n1);
  const ni = n1.snapshot();
  const r = pl.selectVictimsOnNode(state, preemptor, ni, []);
  assert.ok(r.status.isSuccess(), r.status.toString());
  assert.deepEqual(r.victims.map((v) => v.pod.metadata?.name), ['v1']);
  assert.equal(r.numViolating, 0);
});

void test('PostFilter messages: preemptionPolicy=Never and a terminating victim on the nominated node', () => {
  const { pl } = plugin();
  const m = new NodeToStatus();
  m.set('n1', newStatus(Code.Unschedulable, 'Insufficient cpu'));
  const never = pl.postFilter(new CycleState(), makePod('p').preemptionPolicy('Never').obj(), m);
  assert.deepEqual(never.status.reasons(), [`preemption: ${msgPreemptionPolicyNever}`]);
  const terminating = makePod('t').node('n1').priority(0).terminating().obj();
  (terminating as { status?: Pod['status'] }).status = { conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }] };
  const { pl: pl2 } = plugin(undefined, [terminating]);
  const r = pl2.postFilter(new CycleState(), makePod('p').priority(5).nominatedNodeName('n1').obj(), m);
  assert.deepEqual(r.status.reasons(), [`preemption: ${msgTerminatingPodOnNominatedNode}`]);
});

void test('calculateNumCandidates: 10% of potential nodes, at least 100, at most all', () => {
  const { pl } = plugin();
  assert.equal(pl.calculateNumCandidates(50), 50);
  assert.equal(pl.calculateNumCandidates(500), 100);
  assert.equal(pl.calculateNumCandidates(5000), 500);
});
