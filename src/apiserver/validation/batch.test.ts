import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job, JobSpec } from 'kubernetes-types/batch/v1.js';
import { fieldErrorString } from '../../api/field-errors.js';
import { defaultJob } from './defaults.js';
import { validateIndexesFormat, validateJob, validateJobUpdate } from './batch.js';

function makeJob(spec: Partial<JobSpec>, name = 'myjob'): Job {
  const job: Job = {
    metadata: { name, namespace: 'default', uid: 'uid-1' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main-container', image: 'image' }], initContainers: [{ name: 'init-container', image: 'image' }] } }, ...spec },
  };
  defaultJob(job);
  return job;
}

function errorsOf(job: Job): string[] {
  return validateJob(job).map(fieldErrorString);
}

const exitCodes = (operator: string, values: number[], containerName?: string) => ({
  action: 'FailJob',
  onExitCodes: { operator, values, ...(containerName === undefined ? {} : { containerName }) },
});

// Error cases of upstream's TestValidateJob (pkg/apis/batch/validation/validation_test.go, v1.32): the key is
// the error message, as the upstream table keys it.
const invalid: Record<string, Partial<JobSpec>> = {
  'spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required': {
    podFailurePolicy: { rules: [{ action: 'FailJob' }] },
  },
  'spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator': {
    podFailurePolicy: { rules: [exitCodes('In', [1, 0, 2])] },
  },
  'spec.podFailurePolicy.rules[1].onExitCodes.containerName: Invalid value: "xyz": must be one of the container or initContainer names in the pod template': {
    podFailurePolicy: { rules: [exitCodes('In', [1, 2, 3], 'main-container'), exitCodes('In', [5, 6, 7], 'xyz')] },
  },
  'spec.podFailurePolicy.rules[0].action: Unsupported value: "UnknownAction": supported values: "Count", "FailIndex", "FailJob", "Ignore"': {
    podFailurePolicy: { rules: [{ action: 'UnknownAction', onExitCodes: { operator: 'In', values: [1, 2, 3] } }] },
  },
  'spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "UnknownOperator": supported values: "In", "NotIn"': {
    podFailurePolicy: { rules: [exitCodes('UnknownOperator', [1, 2, 3])] },
  },
  'spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported': {
    podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [11, 12] }, onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] },
  },
  'spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Duplicate value: 11': {
    podFailurePolicy: { rules: [exitCodes('In', [11, 11])] },
  },
  'spec.podFailurePolicy.rules[0].onExitCodes.values: Too many: 256: must have at most 255 items': {
    podFailurePolicy: { rules: [exitCodes('In', Array.from({ length: 256 }, (_, i) => i + 1))] },
  },
  'spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items': {
    podFailurePolicy: { rules: Array.from({ length: 21 }, () => exitCodes('In', [1])) },
  },
  'spec.podFailurePolicy.rules[0].onPodConditions: Too many: 21: must have at most 20 items': {
    podFailurePolicy: { rules: [{ action: 'FailJob', onPodConditions: Array.from({ length: 21 }, () => ({ type: 'DisruptionTarget', status: 'True' })) }] },
  },
  'spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 13': {
    podFailurePolicy: { rules: [exitCodes('In', [12, 13, 13, 13])] },
  },
  'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{19, 11}: must be ordered': {
    podFailurePolicy: { rules: [exitCodes('In', [19, 11])] },
  },
  'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{}: at least one value is required': {
    podFailurePolicy: { rules: [exitCodes('In', [])] },
  },
  'spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]': {
    podFailurePolicy: { rules: [{ action: '', onExitCodes: { operator: 'In', values: [1, 2, 3] } }] },
  },
  'spec.podFailurePolicy.rules[0].onExitCodes.operator: Required value: valid values: ["In" "NotIn"]': {
    podFailurePolicy: { rules: [exitCodes('', [1, 2, 3])] },
  },
  'spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: "Bad!Type": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')': {
    podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'Bad!Type', status: 'True' }] }] },
  },
  'spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "Bad": supported values: "False", "True", "Unknown"': {
    podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'Bad' }] }] },
  },
  'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified': {
    podFailurePolicy: { rules: [] },
    template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main-container', image: 'image' }] } },
  },
  'spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set': {
    completionMode: 'Indexed',
    completions: 2,
    podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [3] } }] },
  },
  'spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode': { backoffLimitPerIndex: 1 },
  'spec.backoffLimitPerIndex: Invalid value: -1: must be greater than or equal to 0': { completionMode: 'Indexed', completions: 2, backoffLimitPerIndex: -1 },
  'spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified': { completionMode: 'Indexed', completions: 2, maxFailedIndexes: 1 },
  'spec.maxFailedIndexes: Invalid value: 11: must be less than or equal to completions': { completionMode: 'Indexed', completions: 10, backoffLimitPerIndex: 1, maxFailedIndexes: 11 },
  'spec.maxFailedIndexes: Required value: must be specified when completions is above 100000': {
    completionMode: 'Indexed',
    completions: 100_001,
    parallelism: 1,
    backoffLimitPerIndex: 1,
  },
  'spec.parallelism: Invalid value: 10001: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index': {
    completionMode: 'Indexed',
    completions: 100_001,
    parallelism: 10_001,
    backoffLimitPerIndex: 1,
    maxFailedIndexes: 1,
  },
  'spec.maxFailedIndexes: Invalid value: 10001: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index': {
    completionMode: 'Indexed',
    completions: 100_001,
    parallelism: 1,
    backoffLimitPerIndex: 1,
    maxFailedIndexes: 10_001,
  },
  'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"': {
    podReplacementPolicy: 'TerminatingOrFailed',
    podFailurePolicy: { rules: [exitCodes('In', [1])] },
  },
  'spec.podReplacementPolicy: Unsupported value: "Unknown": supported values: "Failed", "TerminatingOrFailed"': { podReplacementPolicy: 'Unknown' },
  'spec.successPolicy: Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{batch.SuccessPolicyRule{SucceededIndexes:(*string)(nil), SucceededCount:(*int32)(1)}}}: requires indexed completion mode': {
    successPolicy: { rules: [{ succeededCount: 1 }] },
  },
  'spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified': {
    completionMode: 'Indexed',
    completions: 5,
    successPolicy: { rules: [] },
  },
  'spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified': {
    completionMode: 'Indexed',
    completions: 5,
    successPolicy: { rules: [{}] },
  },
  'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-2,2-3": error parsing succeededIndexes: non-increasing order, previous: 2, current: 2': {
    completionMode: 'Indexed',
    completions: 5,
    successPolicy: { rules: [{ succeededIndexes: '0-2,2-3' }] },
  },
  'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-5": error parsing succeededIndexes: too large index: "5"': {
    completionMode: 'Indexed',
    completions: 5,
    successPolicy: { rules: [{ succeededIndexes: '0-5' }] },
  },
  'spec.successPolicy.rules[0].succeededCount: Invalid value: 6: must be less than or equal to 5 (the number of specified completions)': {
    completionMode: 'Indexed',
    completions: 5,
    successPolicy: { rules: [{ succeededCount: 6 }] },
  },
  'spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 (the number of indexes in the specified succeededIndexes field)': {
    completionMode: 'Indexed',
    completions: 5,
    successPolicy: { rules: [{ succeededIndexes: '0-2', succeededCount: 4 }] },
  },
  'spec.successPolicy.rules: Too many: 21: must have at most 20 items': {
    completionMode: 'Indexed',
    completions: 5,
    successPolicy: { rules: Array.from({ length: 21 }, () => ({ succeededCount: 1 })) },
  },
  'spec.successPolicy.rules[0].succeededCount: Invalid value: -1: must be greater than or equal to 0': {
    completionMode: 'Indexed',
    completions: 5,
    successPolicy: { rules: [{ succeededCount: -1 }] },
  },
  'spec.managedBy: Invalid value: "invalid custom controller name": must be a domain-prefixed path (such as "acme.io/foo")': { managedBy: 'invalid custom controller name' },
  'spec.managedBy: Too long: may not be more than 63 bytes': { managedBy: `example.com/${'a'.repeat(60)}` },
};

for (const [want, spec] of Object.entries(invalid)) {
  void test(`ValidateJob: ${want}`, () => {
    assert.ok(errorsOf(makeJob(spec)).includes(want), `${want} not in ${JSON.stringify(errorsOf(makeJob(spec)))}`);
  });
}

void test('ValidateJob: valid pod failure, success and replacement policies and managedBy pass', () => {
  const cases: Partial<JobSpec>[] = [
    { podFailurePolicy: { rules: [exitCodes('In', [1, 2, 3], 'main-container'), { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' } as { type: string; status: string }] }, { action: 'Count', onExitCodes: { operator: 'NotIn', values: [0, 5] } }] } },
    { podFailurePolicy: { rules: [exitCodes('In', [7], 'init-container')] }, podReplacementPolicy: 'Failed' },
    { completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: 1, maxFailedIndexes: 3, podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [3] } }] } },
    { completionMode: 'Indexed', completions: 5, successPolicy: { rules: [{ succeededIndexes: '0-2,4', succeededCount: 2 }, { succeededCount: 5 }] } },
    { podReplacementPolicy: 'Failed' },
    { managedBy: 'kubernetes.io/job-controller' },
    { managedBy: 'example.com/custom-controller' },
  ];
  for (const spec of cases) assert.deepEqual(errorsOf(makeJob(spec)), [], JSON.stringify(spec));
});

void test('ValidateJob: defaults podReplacementPolicy to Failed with a podFailurePolicy and onPodConditions status to True', () => {
  const job = makeJob({ podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' } as { type: string; status: string }] }] } });
  assert.equal(job.spec?.podReplacementPolicy, 'Failed');
  assert.equal(job.spec?.podFailurePolicy?.rules[0]?.onPodConditions?.[0]?.status, 'True');
  assert.equal(makeJob({}).spec?.podReplacementPolicy, 'TerminatingOrFailed');
  assert.equal(makeJob({ completionMode: 'Indexed', completions: 2, backoffLimitPerIndex: 1 }).spec?.backoffLimit, 2147483647);
});

void test('ValidateJob: the highest index must make a valid pod hostname', () => {
  const name = 'a'.repeat(62);
  assert.ok(errorsOf(makeJob({ completionMode: 'Indexed', completions: 10 }, name)).includes(`metadata.name: Invalid value: "${name}": will not able to create pod with invalid DNS label: ${name}-9`));
});

void test('ValidateJobUpdate: podFailurePolicy, backoffLimitPerIndex, managedBy and successPolicy are immutable', () => {
  const old = makeJob({ completionMode: 'Indexed', completions: 3, backoffLimitPerIndex: 1, managedBy: 'example.com/foo' });
  validateJob(old);
  const cur = structuredClone(old);
  if (cur.spec !== undefined) {
    cur.spec.backoffLimitPerIndex = 2;
    cur.spec.managedBy = 'example.com/bar';
    cur.spec.successPolicy = { rules: [{ succeededCount: 1 }] };
  }
  assert.deepEqual(validateJobUpdate(cur, old).map(fieldErrorString), [
    'spec.backoffLimitPerIndex: Invalid value: 2: field is immutable',
    'spec.managedBy: Invalid value: "example.com/bar": field is immutable',
    'spec.successPolicy: Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{batch.SuccessPolicyRule{SucceededIndexes:(*string)(nil), SucceededCount:(*int32)(1)}}}: field is immutable',
  ]);
  const pfpOld = makeJob({ podFailurePolicy: { rules: [exitCodes('In', [1])] } });
  validateJob(pfpOld);
  const pfpCur = structuredClone(pfpOld);
  if (pfpCur.spec !== undefined) pfpCur.spec.podFailurePolicy = { rules: [exitCodes('In', [2])] };
  assert.deepEqual(validateJobUpdate(pfpCur, pfpOld).map((e) => e.field), ['spec.podFailurePolicy']);
});

void test('validateIndexesFormat (TestValidateIndexesString)', () => {
  assert.equal(validateIndexesFormat('', 3), 0);
  assert.equal(validateIndexesFormat('0,2', 3), 2);
  assert.equal(validateIndexesFormat('0-2,4,6-7', 8), 6);
  assert.equal(validateIndexesFormat('0-2-3', 4), `the fragment "0-2-3" violates the requirement that an index interval can have at most two parts separated by '-'`);
  assert.equal(validateIndexesFormat('a', 4), 'cannot convert string to integer for index: "a"');
  assert.equal(validateIndexesFormat('1-a', 4), 'cannot convert string to integer for index: "a"');
  assert.equal(validateIndexesFormat('3-2', 4), 'non-increasing order, previous: 3, current: 2');
  assert.equal(validateIndexesFormat('0,0', 4), 'non-increasing order, previous: 0, current: 0');
  assert.equal(validateIndexesFormat('4', 4), 'too large index: "4"');
});

void test('ValidateJobUpdate: completions is immutable for NonIndexed Jobs and moves with parallelism for Indexed ones', () => {
  const nonIndexed = makeJob({ completions: 2 });
  validateJob(nonIndexed);
  const ni = structuredClone(nonIndexed);
  if (ni.spec !== undefined) ni.spec.completions = 3;
  assert.deepEqual(validateJobUpdate(ni, nonIndexed).map(fieldErrorString), ['spec.completions: Invalid value: 3: field is immutable']);
  const indexed = makeJob({ completionMode: 'Indexed', completions: 2, parallelism: 2 });
  validateJob(indexed);
  const alone = structuredClone(indexed);
  if (alone.spec !== undefined) alone.spec.completions = 3;
  assert.deepEqual(validateJobUpdate(alone, indexed).map(fieldErrorString), ['spec.completions: Invalid value: 3: can only be modified in tandem with spec.parallelism']);
  const tandem = structuredClone(indexed);
  if (tandem.spec !== undefined) {
    tandem.spec.completions = 3;
    tandem.spec.parallelism = 3;
  }
  assert.deepEqual(validateJobUpdate(tandem, indexed), []);
});
