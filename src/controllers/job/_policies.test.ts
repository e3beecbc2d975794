import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Job, PodFailurePolicy, SuccessPolicy } from 'kubernetes-types/batch/v1.js';
import { matchPodFailurePolicy } from './_pod-failure-policy.js';
import { matchSuccessPolicy } from './_success-policy.js';
import { OrderedIntervals, firstPendingIndexes, parseIndexesFromString } from './_indexed.js';

function failedPod(o: { exitCodes?: Record<string, number | undefined>; init?: Record<string, number>; conditions?: [string, string][] }): Pod {
  const statuses = (m: Record<string, number | undefined> | undefined) =>
    Object.entries(m ?? {}).map(([name, code]) => ({
      name,
      image: 'i',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: code === undefined ? { running: {} } : { terminated: { exitCode: code } },
    }));
  return {
    metadata: { name: 'mypod', namespace: 'default' },
    status: {
      phase: 'Failed',
      containerStatuses: statuses(o.exitCodes),
      initContainerStatuses: statuses(o.init),
      conditions: (o.conditions ?? []).map(([type, status]) => ({ type, status })),
    },
  };
}

const onExit = (action: string, operator: string, values: number[], containerName?: string) => ({
  action,
  onExitCodes: { operator, values, ...(containerName === undefined ? {} : { containerName }) },
});
const onCond = (action: string, type: string, status = 'True') => ({ action, onPodConditions: [{ type, status }] });

// Cases of upstream's TestMatchPodFailurePolicy (pkg/controller/job/pod_failure_policy_test.go, v1.32).
const pfpCases: { name: string; policy: PodFailurePolicy; pod: Pod; want: { failJobMessage?: string; countFailed: boolean; action?: string } }[] = [
  { name: 'unknown action for rule matching by exit codes - skip rule with unknown action', policy: { rules: [onExit('UnknownAction', 'In', [1, 2]), onExit('FailJob', 'In', [2, 3])] }, pod: failedPod({ exitCodes: { 'main-container': 2 } }), want: { failJobMessage: 'Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 1', countFailed: true, action: 'FailJob' } },
  { name: 'unknown action for rule matching by pod conditions - skip rule with unknown action', policy: { rules: [onCond('UnknownAction', 'DisruptionTarget'), onCond('Ignore', 'DisruptionTarget')] }, pod: failedPod({ conditions: [['DisruptionTarget', 'True']] }), want: { countFailed: false, action: 'Ignore' } },
  { name: 'unknown operator - rule with unknown action is skipped for onExitCodes', policy: { rules: [onExit('Ignore', 'UnknownOperator', [1, 2]), onExit('FailJob', 'In', [1, 2])] }, pod: failedPod({ exitCodes: { 'main-container': 1 } }), want: { failJobMessage: 'Container main-container for pod default/mypod failed with exit code 1 matching FailJob rule at index 1', countFailed: true, action: 'FailJob' } },
  { name: 'no policy rules', policy: { rules: [] }, pod: failedPod({ exitCodes: { 'main-container': 2 } }), want: { countFailed: true } },
  { name: 'ignore rule matched for exit codes', policy: { rules: [onExit('Ignore', 'In', [1, 2, 3])] }, pod: failedPod({ exitCodes: { 'main-container': 2 } }), want: { countFailed: false, action: 'Ignore' } },
  { name: 'FailJob rule matched for exit codes', policy: { rules: [onExit('FailJob', 'In', [1, 2, 3])] }, pod: failedPod({ exitCodes: { 'main-container': 2 } }), want: { failJobMessage: 'Container main-container for pod default/mypod failed with exit code 2 matching FailJob rule at index 0', countFailed: true, action: 'FailJob' } },
  { name: 'successful containers are skipped by the rules', policy: { rules: [onExit('FailJob', 'NotIn', [111])] }, pod: failedPod({ init: { 'init-container': 0 }, exitCodes: { 'main-container': 0, 'suppport-container': 1 } }), want: { failJobMessage: 'Container suppport-container for pod default/mypod failed with exit code 1 matching FailJob rule at index 0', countFailed: true, action: 'FailJob' } },
  { name: 'pod failure policy with NotIn operator and value 0', policy: { rules: [onExit('FailJob', 'NotIn', [0])] }, pod: failedPod({ exitCodes: { 'main-container': 1, 'suppport-container': 0 } }), want: { failJobMessage: 'Container main-container for pod default/mypod failed with exit code 1 matching FailJob rule at index 0', countFailed: true, action: 'FailJob' } },
  { name: 'second jobfail rule matched for exit codes', policy: { rules: [onExit('Count', 'In', [1, 2, 3]), onExit('FailJob', 'NotIn', [4, 5, 6])] }, pod: failedPod({ exitCodes: { 'main-container': 7 } }), want: { failJobMessage: 'Container main-container for pod default/mypod failed with exit code 7 matching FailJob rule at index 1', countFailed: true, action: 'FailJob' } },
  { name: 'count rule matched for exit codes', policy: { rules: [onExit('Count', 'In', [1, 2, 3])] }, pod: failedPod({ exitCodes: { foo: 2 } }), want: { countFailed: true, action: 'Count' } },
  { name: 'FailIndex rule matched for exit codes', policy: { rules: [onExit('FailIndex', 'In', [1, 2, 3])] }, pod: failedPod({ exitCodes: { foo: 2 } }), want: { countFailed: true, action: 'FailIndex' } },
  { name: 'ignore rule matched for pod conditions', policy: { rules: [onCond('Ignore', 'DisruptionTarget')] }, pod: failedPod({ conditions: [['DisruptionTarget', 'True']] }), want: { countFailed: false, action: 'Ignore' } },
  { name: 'ignore rules matched by the status=False', policy: { rules: [onCond('Ignore', 'ResourceLimitExceeded', 'False')] }, pod: failedPod({ conditions: [['ResourceLimitExceeded', 'False']] }), want: { countFailed: false, action: 'Ignore' } },
  { name: 'ignore rules matched by the status=Unknown', policy: { rules: [onCond('Ignore', 'ResourceLimitExceeded', 'Unknown')] }, pod: failedPod({ conditions: [['ResourceLimitExceeded', 'Unknown']] }), want: { countFailed: false, action: 'Ignore' } },
  { name: 'ignore rules not matched by the status=False', policy: { rules: [onCond('Ignore', 'ResourceLimitExceeded', 'False')] }, pod: failedPod({ conditions: [['ResourceLimitExceeded', 'True']] }), want: { countFailed: true } },
  { name: 'FailJob rule matched for pod conditions', policy: { rules: [onCond('FailJob', 'DisruptionTarget')] }, pod: failedPod({ conditions: [['DisruptionTarget', 'True']] }), want: { failJobMessage: 'Pod default/mypod has condition DisruptionTarget matching FailJob rule at index 0', countFailed: true, action: 'FailJob' } },
  { name: 'no rule matched', policy: { rules: [onExit('Count', 'NotIn', [8]), onExit('FailJob', 'In', [1]), onCond('Count', 'PodUID')] }, pod: failedPod({ exitCodes: { foo: 8 } }), want: { countFailed: true } },
  { name: 'a container still running is skipped, the init container matches', policy: { rules: [onExit('FailJob', 'In', [7])] }, pod: failedPod({ exitCodes: { main: undefined }, init: { setup: 7 } }), want: { failJobMessage: 'Container setup for pod default/mypod failed with exit code 7 matching FailJob rule at index 0', countFailed: true, action: 'FailJob' } },
  { name: 'containerName restricts the match', policy: { rules: [onExit('FailJob', 'In', [42], 'other')] }, pod: failedPod({ exitCodes: { main: 42 } }), want: { countFailed: true } },
];

for (const tc of pfpCases) {
  void test(`matchPodFailurePolicy: ${tc.name}`, () => {
    assert.deepEqual(matchPodFailurePolicy(tc.policy, tc.pod), tc.want);
  });
}

const ivs = (s: string, completions = 100): OrderedIntervals => parseIndexesFromString(s, completions);

// Cases of upstream's TestMatchSuccessPolicy (pkg/controller/job/success_policy_test.go, v1.32).
const spCases: { name: string; policy: SuccessPolicy | undefined; completions: number; succeeded: string; want: string | undefined }[] = [
  { name: 'successPolicy is null', policy: undefined, completions: 10, succeeded: '0-2', want: undefined },
  { name: 'any rules are nothing', policy: { rules: [] }, completions: 10, succeeded: '0-2', want: undefined },
  { name: 'rules.succeededIndexes is invalid format', policy: { rules: [{ succeededIndexes: 'invalid-form' }] }, completions: 10, succeeded: '0-2', want: undefined },
  { name: 'rules.succeededIndexes matched all succeededIndexes', policy: { rules: [{ succeededIndexes: '0-2' }] }, completions: 10, succeeded: '0-2', want: 'Matched rules at index 0' },
  { name: 'rules.succeededIndexes matched a part of succeededIndexes', policy: { rules: [{ succeededIndexes: '0-2' }] }, completions: 10, succeeded: '0-5', want: 'Matched rules at index 0' },
  { name: 'rules.succeededIndexes did not match succeededIndexes', policy: { rules: [{ succeededIndexes: '0-2,5' }] }, completions: 10, succeeded: '0-2', want: undefined },
  { name: 'rules.succeededCount matched succeededIndexes', policy: { rules: [{ succeededCount: 3 }] }, completions: 10, succeeded: '0-2', want: 'Matched rules at index 0' },
  { name: 'rules.succeededCount did not match succeededIndexes', policy: { rules: [{ succeededCount: 4 }] }, completions: 10, succeeded: '0-2', want: undefined },
  { name: 'rules.succeededIndexes and rules.succeededCount matched', policy: { rules: [{ succeededIndexes: '0-5', succeededCount: 3 }] }, completions: 10, succeeded: '1,3,5', want: 'Matched rules at index 0' },
  { name: 'rules.succeededIndexes and rules.succeededCount did not match', policy: { rules: [{ succeededIndexes: '0-5', succeededCount: 4 }] }, completions: 10, succeeded: '1,3,5,7', want: undefined },
  { name: 'the second rule matched', policy: { rules: [{ succeededIndexes: '4-6' }, { succeededCount: 2 }] }, completions: 10, succeeded: '0,1', want: 'Matched rules at index 1' },
  { name: 'no succeeded indexes match nothing', policy: { rules: [{ succeededCount: 0 }] }, completions: 10, succeeded: '', want: undefined },
];

for (const tc of spCases) {
  void test(`matchSuccessPolicy: ${tc.name}`, () => {
    assert.equal(matchSuccessPolicy(tc.policy, tc.completions, ivs(tc.succeeded, tc.completions)), tc.want);
  });
}

void test('orderedIntervals: parse, String() and merge (TestParseIndexesFromString, TestIntervalsHaveIndex)', () => {
  assert.equal(ivs('1,3-5,7,8,9').toString(), '1,3-5,7-9');
  assert.equal(ivs('0,1').toString(), '0,1');
  assert.equal(ivs('0-2,3').toString(), '0-3');
  assert.equal(ivs('0-5,7', 6).toString(), '0-5', 'indexes at or above completions are dropped');
  assert.equal(ivs('0,a,2').toString(), '0,2', 'corrupt intervals are skipped');
  assert.equal(ivs('').total(), 0);
  assert.equal(ivs('1,3-5').total(), 4);
  const merged = ivs('0-2,7').withOrderedIndexes([3, 5, 6]);
  assert.equal(merged.toString(), '0-3,5-7');
  assert.ok(merged.has(6) && !merged.has(4));
});

void test('firstPendingIndexes (TestFirstPendingIndexes)', () => {
  const job: Job = { spec: { completions: 10, completionMode: 'Indexed', template: {} } };
  const pod = (ix: number, deleting = false): Pod => ({ metadata: { annotations: { 'batch.kubernetes.io/job-completion-index': String(ix) }, ...(deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}) }, status: { phase: 'Running' } });
  const base = { job, pods: [] as Pod[], activePods: [] as Pod[], succeededIndexes: new OrderedIntervals(), failedIndexes: undefined };
  assert.deepEqual(firstPendingIndexes(base, 3, 10), [0, 1, 2]);
  assert.deepEqual(firstPendingIndexes({ ...base, activePods: [pod(1), pod(5)], succeededIndexes: ivs('2,3') }, 4, 10), [0, 4, 6, 7]);
  assert.deepEqual(firstPendingIndexes({ ...base, failedIndexes: ivs('0-2'), succeededIndexes: ivs('4') }, 3, 6), [3, 5]);
  const terminating = [pod(0, true)];
  assert.deepEqual(firstPendingIndexes({ ...base, pods: terminating }, 2, 10), [0, 1], 'TerminatingOrFailed replaces terminating indexes');
  const failedOnly: Job = { spec: { ...job.spec, template: {}, podReplacementPolicy: 'Failed' } };
  assert.deepEqual(firstPendingIndexes({ ...base, job: failedOnly, pods: terminating }, 2, 10), [1, 2], 'Failed waits for terminating indexes');
});
