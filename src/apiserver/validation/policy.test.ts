/**
 * pkg/apis/policy/validation/validation_test.go (v1.32), case by case, with the exact messages; then the
 * registry's order (strategy first, generic metadata after) through the dispatcher.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodDisruptionBudget, PodDisruptionBudgetSpec, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import { fieldErrorString, Path } from '../../api/field-errors.js';
import { validatePodDisruptionBudgetSpec, validatePodDisruptionBudgetStatus } from './policy.js';
import { validate } from './index.js';

const kind = { group: 'policy', kind: 'PodDisruptionBudget' };
const specErrors = (spec: PodDisruptionBudgetSpec): string[] => validatePodDisruptionBudgetSpec(spec, { allowInvalidLabelValueInSelector: true }, Path.root('foo')).map(fieldErrorString);
const ios = (v: number | string): string => (typeof v === 'string' ? `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}` : `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`);
const bothSet = (min: number | string, max: number | string): string =>
  `foo: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(${ios(min)}), Selector:(*v1.LabelSelector)(nil), MaxUnavailable:(*intstr.IntOrString)(${ios(max)}), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set`;

test('TestValidatePodDisruptionBudgetSpec: minAvailable and maxUnavailable cannot be both set', () => {
  assert.deepEqual(specErrors({ minAvailable: '0%', maxUnavailable: '10%' }), [bothSet('0%', '10%')]);
});

test('TestValidateMinAvailablePodAndMaxUnavailableDisruptionBudgetSpec: a percentage and a number', () => {
  assert.deepEqual(specErrors({ minAvailable: '10%', maxUnavailable: 1 }), [bothSet('10%', 1)]);
});

const percentRegexError = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

for (const field of ['minAvailable', 'maxUnavailable'] as const) {
  for (const v of ['0%', '1%', '100%', 0, 1, 100]) {
    test(`${field} ${JSON.stringify(v)} is valid`, () => {
      assert.deepEqual(specErrors({ [field]: v }), []);
    });
  }
  const failures: [number | string, string][] = [
    ['1.1%', percentRegexError],
    ['nope', percentRegexError],
    ['-1%', percentRegexError],
    ['101%', 'must not be greater than 100%'],
    [-1, 'must be greater than or equal to 0'],
  ];
  for (const [v, detail] of failures) {
    test(`${field} ${JSON.stringify(v)}: ${detail}`, () => {
      const shown = typeof v === 'number' ? String(v) : ios(v);
      assert.deepEqual(specErrors({ [field]: v }), [`foo.${field}: Invalid value: ${shown}: ${detail}`]);
    });
  }
}

const unhealthyPodEvictionPolicyCases: { name: string; policy?: string; want: string[] }[] = [
  { name: 'valid nil UnhealthyPodEvictionPolicy', want: [] },
  { name: 'valid UnhealthyPodEvictionPolicy', policy: 'AlwaysAllow', want: [] },
  { name: 'empty UnhealthyPodEvictionPolicy', policy: '', want: ['foo.unhealthyPodEvictionPolicy: Unsupported value: "": supported values: "AlwaysAllow", "IfHealthyBudget"'] },
  { name: 'invalid UnhealthyPodEvictionPolicy', policy: 'Invalid', want: ['foo.unhealthyPodEvictionPolicy: Unsupported value: "Invalid": supported values: "AlwaysAllow", "IfHealthyBudget"'] },
];

for (const tc of unhealthyPodEvictionPolicyCases) {
  test(tc.name, () => {
    const spec: PodDisruptionBudgetSpec = { minAvailable: '10%', ...(tc.policy !== undefined ? { unhealthyPodEvictionPolicy: tc.policy } : {}) };
    assert.deepEqual(specErrors(spec), tc.want);
  });
}

const statusCases: { name: string; status: PodDisruptionBudgetStatus; want: string[] }[] = [
  { name: 'DisruptionsAllowed: 10', status: { disruptionsAllowed: 10 } as PodDisruptionBudgetStatus, want: [] },
  { name: 'CurrentHealthy: 5', status: { currentHealthy: 5 } as PodDisruptionBudgetStatus, want: [] },
  { name: 'DesiredHealthy: 3', status: { desiredHealthy: 3 } as PodDisruptionBudgetStatus, want: [] },
  { name: 'ExpectedPods: 2', status: { expectedPods: 2 } as PodDisruptionBudgetStatus, want: [] },
  { name: 'DisruptionsAllowed: -10', status: { disruptionsAllowed: -10 } as PodDisruptionBudgetStatus, want: ['status.disruptionsAllowed: Invalid value: -10: must be greater than or equal to 0'] },
  { name: 'CurrentHealthy: -5', status: { currentHealthy: -5 } as PodDisruptionBudgetStatus, want: ['status.currentHealthy: Invalid value: -5: must be greater than or equal to 0'] },
  { name: 'DesiredHealthy: -3', status: { desiredHealthy: -3 } as PodDisruptionBudgetStatus, want: ['status.desiredHealthy: Invalid value: -3: must be greater than or equal to 0'] },
  { name: 'ExpectedPods: -2', status: { expectedPods: -2 } as PodDisruptionBudgetStatus, want: ['status.expectedPods: Invalid value: -2: must be greater than or equal to 0'] },
  {
    name: 'Conditions valid',
    status: {
      conditions: [{ type: 'DisruptionAllowed', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'SufficientPods', message: 'message', observedGeneration: 3 }],
    } as PodDisruptionBudgetStatus,
    want: [],
  },
  {
    name: 'Conditions not valid',
    status: { conditions: [{ type: 'DisruptionAllowed', status: 'True' }, { type: 'DisruptionAllowed', status: 'False' }] } as PodDisruptionBudgetStatus,
    want: [
      'status.conditions[0].lastTransitionTime: Required value: must be set',
      'status.conditions[0].reason: Required value: must be set',
      'status.conditions[1].type: Duplicate value: "DisruptionAllowed"',
      'status.conditions[1].lastTransitionTime: Required value: must be set',
      'status.conditions[1].reason: Required value: must be set',
    ],
  },
];

for (const tc of statusCases) {
  test(`TestValidatePodDisruptionBudgetStatus (policy/v1): ${tc.name}`, () => {
    assert.deepEqual(validatePodDisruptionBudgetStatus(tc.status, Path.root('status')).map(fieldErrorString), tc.want);
  });
}

test('condition reasons and statuses have their own rules', () => {
  const status = { conditions: [{ type: 'Bad Type', status: 'Maybe', lastTransitionTime: '2024-05-01T10:00:00Z', reason: '1reason', message: '', observedGeneration: -1 }] } as PodDisruptionBudgetStatus;
  assert.deepEqual(validatePodDisruptionBudgetStatus(status, Path.root('status')).map(fieldErrorString), [
    `status.conditions[0].type: Invalid value: "Bad Type": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
    'status.conditions[0].observedGeneration: Invalid value: -1: must be greater than or equal to zero',
    `status.conditions[0].reason: Invalid value: "1reason": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')`,
  ]);
});

// ---- the registry: strategy, then generic metadata ----

function pdb(name: string, spec: PodDisruptionBudgetSpec): PodDisruptionBudget {
  return { metadata: { name, namespace: 'default' }, spec };
}

test('create: names are path segments (the generic registry checks them), not DNS subdomains', () => {
  assert.deepEqual(validate(kind, pdb('Not_A_DNS_Name', { minAvailable: 1 })), []);
  assert.deepEqual(validate(kind, pdb('a/b%c', { minAvailable: 1 })).map(fieldErrorString), [`metadata.name: Invalid value: "a/b%c": may not contain '/'`, `metadata.name: Invalid value: "a/b%c": may not contain '%'`]);
});

test('create: metadata is only checked once the spec is valid', () => {
  assert.deepEqual(validate(kind, pdb('a/b', { minAvailable: -1 })).map(fieldErrorString), ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0']);
});

test('create: selector values must be label values', () => {
  const spec: PodDisruptionBudgetSpec = { minAvailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['not valid'] }] } };
  assert.deepEqual(validate(kind, pdb('p', spec)).map(fieldErrorString), [
    `spec.selector.matchExpressions[0].values[0]: Invalid value: "not valid": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
  ]);
});

test('update: the spec may change; a stored invalid selector value may stay (ratcheting)', () => {
  const bad: PodDisruptionBudgetSpec = { minAvailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['not valid'] }] } };
  const good = pdb('p', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } });
  assert.deepEqual(validate(kind, pdb('p', { maxUnavailable: '50%' }), good), []);
  assert.deepEqual(validate(kind, pdb('p', { ...bad, minAvailable: 2 }), pdb('p', bad)), []);
  assert.equal(validate(kind, pdb('p', bad), good).length, 1);
});

test('update: metadata is checked by the generic registry, as on create, and then for immutability', () => {
  const old = pdb('p', { minAvailable: 1 });
  const next: PodDisruptionBudget = { metadata: { name: 'p', namespace: 'default', labels: { 'a b': 'c' } }, spec: { minAvailable: 1, maxUnavailable: 1 } };
  const label = `metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`;
  assert.deepEqual(validate(kind, next, old).map(fieldErrorString), [label, label, bothSetAt('spec', 1, 1)]);
});

function bothSetAt(path: string, min: number | string, max: number | string): string {
  return bothSet(min, max).replace(/^foo/, path);
}

test('status update: counts and conditions, not the spec', () => {
  const old = pdb('p', { minAvailable: 1, maxUnavailable: 1 });
  const next: PodDisruptionBudget = { ...old, status: { disruptionsAllowed: -1, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } };
  assert.deepEqual(validate(kind, next, old, { subresource: 'status' }).map(fieldErrorString), ['status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0']);
});
