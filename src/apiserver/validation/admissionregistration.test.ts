/**
 * `pkg/apis/admissionregistration/validation/validation_test.go` (v1.32): TestValidateValidatingAdmissionPolicy
 * and TestValidateValidatingAdmissionPolicyBinding, case by case where kubemix checks the same thing. As
 * upstream, each case asserts that the aggregated error contains the expected text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateMessage } from '../../api/field-errors.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingAdmissionPolicySpec } from '../../admission/validating-admission-policy/_api.js';
import { validate } from './index.js';
import { validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyBinding } from './admissionregistration.js';

const rule = (over: Record<string, unknown> = {}): NonNullable<NonNullable<ValidatingAdmissionPolicySpec['matchConstraints']>['resourceRules']>[number] =>
  ({ operations: ['CREATE'], apiGroups: ['a'], apiVersions: ['a'], resources: ['a'], ...over });

const validSpec: ValidatingAdmissionPolicySpec = {
  failurePolicy: 'Fail',
  validations: [{ expression: 'object.x < 100' }],
  matchConstraints: { matchPolicy: 'Exact', namespaceSelector: { matchLabels: { a: 'b' } }, objectSelector: { matchLabels: { a: 'b' } }, resourceRules: [rule()] },
};

const vap = (spec: Partial<ValidatingAdmissionPolicySpec>, name = 'config'): ValidatingAdmissionPolicy => ({ metadata: { name }, spec: spec });

function errorText(p: ValidatingAdmissionPolicy): string {
  const errs = validateValidatingAdmissionPolicy(p);
  return errs.length === 0 ? '' : aggregateMessage(errs);
}

const policyCases: { name: string; config: ValidatingAdmissionPolicy; expectedError: string }[] = [
  { name: 'metadata.name validation', config: { metadata: { name: '!!!!' }, spec: {} }, expectedError: 'metadata.name: Invalid value: "!!!!":' },
  { name: 'failure policy validation', config: vap({ failurePolicy: 'other' as never, validations: [{ expression: 'object.x < 100' }] }), expectedError: 'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"' },
  { name: 'API version is required in ParamKind', config: vap({ validations: [{ expression: 'object.x < 100' }], paramKind: { kind: 'Example', apiVersion: 'test.example.com' } }), expectedError: 'spec.paramKind.apiVersion: Invalid value: "test.example.com"' },
  { name: 'API kind is required in ParamKind', config: vap({ validations: [{ expression: 'object.x < 100' }], paramKind: { apiVersion: 'test.example.com/v1' } }), expectedError: 'spec.paramKind.kind: Required value' },
  { name: 'API version format in ParamKind', config: vap({ validations: [{ expression: 'object.x < 100' }], paramKind: { kind: 'Example', apiVersion: 'test.example.com/!!!' } }), expectedError: 'pec.paramKind.apiVersion: Invalid value: "!!!":' },
  { name: 'API group format in ParamKind', config: vap({ validations: [{ expression: 'object.x < 100' }], paramKind: { apiVersion: '!!!/v1', kind: 'ReplicaLimit' } }), expectedError: 'pec.paramKind.apiVersion: Invalid value: "!!!":' },
  { name: 'Validations is required', config: vap({}), expectedError: 'spec.validations: Required value: validations or auditAnnotations must contain at least one item' },
  { name: 'Invalid Validations Reason', config: vap({ validations: [{ expression: 'object.x < 100', reason: 'other' }] }), expectedError: 'spec.validations[0].reason: Unsupported value: "other"' },
  { name: 'MatchConstraints is required', config: vap({ validations: [{ expression: 'object.x < 100' }] }), expectedError: 'spec.matchConstraints: Required value' },
  { name: 'matchConstraints.resourceRules is required', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: {} }), expectedError: 'spec.matchConstraints.resourceRules: Required value' },
  { name: 'matchConstraints.resourceRules has at least one explicit rule', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { resourceRules: [{ resourceNames: ['/./.'] }] } }), expectedError: 'spec.matchConstraints.resourceRules[0].apiVersions: Required value' },
  { name: 'expression is required', config: vap({ validations: [{} as never] }), expectedError: 'spec.validations[0].expression: Required value: expression is not specified' },
  { name: 'matchResources resourceNames check', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { resourceRules: [{ resourceNames: ['/./.'] }] } }), expectedError: 'spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "/./."' },
  { name: 'matchResources resourceNames cannot duplicate', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { resourceRules: [{ resourceNames: ['test', 'test'] }] } }), expectedError: 'spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "test"' },
  { name: 'matchResources validation: matchPolicy', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { matchPolicy: 'other' as never } }), expectedError: 'spec.matchConstraints.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"' },
  {
    name: 'Operations must not be empty or nil',
    config: vap({ ...validSpec, matchConstraints: { ...validSpec.matchConstraints, resourceRules: [rule({ operations: [] }), rule({ operations: undefined })], excludeResourceRules: [rule({ operations: [] }), rule({ operations: undefined })] } }),
    expectedError:
      'spec.matchConstraints.resourceRules[0].operations: Required value, spec.matchConstraints.resourceRules[1].operations: Required value, spec.matchConstraints.excludeResourceRules[0].operations: Required value, spec.matchConstraints.excludeResourceRules[1].operations: Required value',
  },
  { name: '"" is NOT a valid operation', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { resourceRules: [rule({ operations: ['CREATE', ''] })] } }), expectedError: 'Unsupported value: ""' },
  { name: 'operation must be either create/update/delete/connect', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { resourceRules: [rule({ operations: ['PATCH'] })] } }), expectedError: 'Unsupported value: "PATCH"' },
  { name: 'wildcard operation cannot be mixed with other strings', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { resourceRules: [rule({ operations: ['CREATE', '*'] })] } }), expectedError: "if '*' is present, must not specify other operations" },
  { name: 'resource "*" can co-exist with resources that have subresources', config: vap({ ...validSpec, matchConstraints: { ...validSpec.matchConstraints, resourceRules: [rule({ resources: ['*', 'a/b', 'a/*', '*/b'] })] } }), expectedError: '' },
  { name: `resource "*" cannot mix with resources that don't have subresources`, config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { resourceRules: [rule({ resources: ['*', 'a'] })] } }), expectedError: "if '*' is present, must not specify other resources without subresources" },
  { name: 'resource a/* cannot mix with a/x', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { resourceRules: [rule({ resources: ['a/*', 'a/x'] })] } }), expectedError: `spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: "a/x": if 'a/*' is present, must not specify a/x` },
  { name: 'resource a/* can mix with a', config: vap({ ...validSpec, matchConstraints: { ...validSpec.matchConstraints, resourceRules: [rule({ resources: ['a/*', 'a'] })] } }), expectedError: '' },
  { name: 'resource */a cannot mix with x/a', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { resourceRules: [rule({ resources: ['*/a', 'x/a'] })] } }), expectedError: `spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: "x/a": if '*/a' is present, must not specify x/a` },
  { name: 'resource */* cannot mix with other resources', config: vap({ validations: [{ expression: 'object.x < 100' }], matchConstraints: { resourceRules: [rule({ resources: ['*/*', 'a'] })] } }), expectedError: `spec.matchConstraints.resourceRules[0].resources: Invalid value: []string{"*/*", "a"}: if '*/*' is present, must not specify other resources` },
  // The parser's wording after the position is @bufbuild/cel's (upstream: `Syntax error: missing ']' at '<EOF>'`).
  { name: 'invalid expression', config: vap({ validations: [{ expression: 'object.x in [1, 2, ' }], matchConstraints: { resourceRules: [rule({ resources: ['*/*'] })] } }), expectedError: 'spec.validations[0].expression: Invalid value: "object.x in [1, 2, ": compilation failed: ERROR: <input>:1:' },
  { name: 'invalid messageExpression', config: vap({ validations: [{ expression: 'true', messageExpression: 'object.x in [1, 2, ' }], matchConstraints: { resourceRules: [rule({ resources: ['*/*'] })] } }), expectedError: 'spec.validations[0].messageExpression: Invalid value: "object.x in [1, 2, ": compilation failed: ERROR: <input>:1:' },
  {
    name: 'undeclared reference',
    config: vap({ ...validSpec, validations: [{ expression: 'params.x > 1' }] }),
    expectedError: `spec.validations[0].expression: Invalid value: "params.x > 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x > 1\n | ^`,
  },
  { name: 'params are declared with a paramKind', config: vap({ ...validSpec, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: "params.data.x == 'y'" }] }), expectedError: '' },
  { name: 'variables: a valid CEL identifier', config: vap({ ...validSpec, variables: [{ name: 'foo-bar', expression: 'true' }] }), expectedError: 'spec.variables[0].name: Invalid value: "foo-bar": name is not a valid CEL identifier' },
  { name: 'variables: expression is required', config: vap({ ...validSpec, variables: [{ name: 'foo', expression: '' }] }), expectedError: 'spec.variables[0].expression: Required value: expression is not specified' },
  { name: 'variables are declared to validations', config: vap({ ...validSpec, variables: [{ name: 'foo', expression: 'object.x' }], validations: [{ expression: 'variables.foo > 1' }] }), expectedError: '' },
  {
    name: 'an undeclared variable',
    config: vap({ ...validSpec, variables: [{ name: 'foo', expression: 'object.x' }], validations: [{ expression: 'variables.bar > 1' }] }),
    expectedError: `spec.validations[0].expression: Invalid value: "variables.bar > 1": compilation failed: ERROR: <input>:1:10: undefined field 'bar'`,
  },
  {
    name: 'without variables there is no variable composition',
    config: vap({ ...validSpec, validations: [{ expression: 'variables.bar > 1' }] }),
    expectedError: `compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')`,
  },
  { name: 'matchConditions: name required', config: vap({ ...validSpec, matchConditions: [{ name: '', expression: 'true' }] }), expectedError: 'spec.matchConditions[0].name: Required value' },
  { name: 'matchConditions: duplicate names', config: vap({ ...validSpec, matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: 'true' }] }), expectedError: 'spec.matchConditions[1].name: Duplicate value: "a"' },
  { name: 'max of 64 match conditions', config: vap({ ...validSpec, matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `test${i}`, expression: 'true' })) }), expectedError: 'spec.matchConditions: Too many: 65: must have at most 64 items' },
  { name: 'message must not contain line breaks', config: vap({ ...validSpec, validations: [{ expression: 'true', message: 'a\nb' }] }), expectedError: 'spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks' },
  { name: 'auditAnnotations: duplicate keys', config: vap({ ...validSpec, auditAnnotations: [{ key: 'a', valueExpression: "'x'" }, { key: 'a', valueExpression: "'y'" }] }), expectedError: 'spec.auditAnnotations[1].key: Duplicate value: "a"' },
  { name: 'auditAnnotations: valueExpression required', config: vap({ ...validSpec, auditAnnotations: [{ key: 'a', valueExpression: '' }] }), expectedError: 'spec.auditAnnotations[0].valueExpression: Required value: valueExpression is not specified' },
  { name: 'validations must evaluate to bool', config: vap({ ...validSpec, validations: [{ expression: 'object.spec.paused' }] }), expectedError: 'spec.validations[0].expression: Invalid value: "object.spec.paused": must evaluate to bool but got dyn' },
  { name: 'validations must evaluate to bool (int)', config: vap({ ...validSpec, validations: [{ expression: '1' }] }), expectedError: 'spec.validations[0].expression: Invalid value: "1": must evaluate to bool but got int' },
  { name: 'must evaluate to bool', config: vap({ ...validSpec, matchConditions: [{ name: 'a', expression: '6' }] }), expectedError: 'spec.matchConditions[0].expression: Invalid value: "6": must evaluate to bool' },
  { name: 'messageExpression of wrong type', config: vap({ ...validSpec, validations: [{ expression: 'true', messageExpression: '0 == 0' }] }), expectedError: 'spec.validations[0].messageExpression: Invalid value: "0 == 0": must evaluate to string but got bool' },
  { name: 'a variable has the type of its expression', config: vap({ ...validSpec, variables: [{ name: 'paused', expression: 'object.spec.paused' }], validations: [{ expression: 'variables.paused' }] }), expectedError: 'spec.validations[0].expression: Invalid value: "variables.paused": must evaluate to bool but got dyn' },
  { name: 'a boolean variable is a validation', config: vap({ ...validSpec, variables: [{ name: 'ok', expression: 'object.spec.replicas < 5' }], validations: [{ expression: 'variables.ok' }] }), expectedError: '' },
  { name: 'auditAnnotations must evaluate to string or null', config: vap({ ...validSpec, auditAnnotations: [{ key: 'a', valueExpression: '1' }] }), expectedError: 'spec.auditAnnotations[0].valueExpression: Invalid value: "1": must evaluate to one of [string null_type] but got int' },
  { name: 'boolean expressions of every shape', config: vap({ ...validSpec, validations: [{ expression: "has(object.x) && object.items.all(i, i > 0) && object.items.exists_one(i, i == 1) && !object.y && 'a' in object.m && object.s.startsWith('x') && request.dryRun" }] }), expectedError: '' },
  { name: 'a valid policy', config: vap(validSpec), expectedError: '' },
];

for (const tc of policyCases) {
  test(`TestValidateValidatingAdmissionPolicy/${tc.name}`, () => {
    const got = errorText(tc.config);
    if (tc.expectedError === '') assert.equal(got, '');
    else assert.ok(got.includes(tc.expectedError), `expected to contain:\n  ${tc.expectedError}\ngot:\n  ${got}`);
  });
}

const vapb = (spec: ValidatingAdmissionPolicyBinding['spec'], name = 'config'): ValidatingAdmissionPolicyBinding => ({ metadata: { name }, ...(spec !== undefined ? { spec } : {}) });

const bindingCases: { name: string; config: ValidatingAdmissionPolicyBinding; expectedError: string }[] = [
  { name: 'metadata.name validation', config: { metadata: { name: '!!!!' } }, expectedError: 'metadata.name: Invalid value: "!!!!":' },
  { name: 'PolicyName is required', config: vapb({ validationActions: ['Deny'] }), expectedError: 'spec.policyName: Required value' },
  { name: 'matchResources validation: matchPolicy', config: vapb({ policyName: 'xyzlimit-scale.example.com', paramRef: { name: 'xyzlimit-scale-setting.example.com', parameterNotFoundAction: 'Deny' }, validationActions: ['Deny'], matchResources: { matchPolicy: 'other' as never } }), expectedError: 'spec.matchResources.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"' },
  { name: 'validationActions must be unique', config: vapb({ policyName: 'xyzlimit-scale.example.com', validationActions: ['Deny', 'Deny'] }), expectedError: 'spec.validationActions[1]: Duplicate value: "Deny"' },
  { name: 'validationActions must contain supported values', config: vapb({ policyName: 'xyzlimit-scale.example.com', validationActions: ['illegal' as never] }), expectedError: 'Unsupported value: "illegal": supported values: "Audit", "Deny", "Warn"' },
  {
    name: 'validationActions must not contain both Deny and Warn',
    config: vapb({ policyName: 'xyzlimit-scale.example.com', validationActions: ['Deny', 'Warn'] }),
    expectedError: 'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
  },
  { name: 'validationActions is required', config: vapb({ policyName: 'xyzlimit-scale.example.com' }), expectedError: 'spec.validationActions: Required value: at least one validation action is required' },
  { name: 'paramRef selector and name are mutually exclusive', config: vapb({ policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'a', selector: {}, parameterNotFoundAction: 'Allow' } }), expectedError: 'spec.paramRef.name: Forbidden: name and selector are mutually exclusive, spec.paramRef.selector: Forbidden: name and selector are mutually exclusive' },
  { name: 'paramRef one of name or selector', config: vapb({ policyName: 'p', validationActions: ['Deny'], paramRef: { parameterNotFoundAction: 'Allow' } }), expectedError: 'spec.paramRef: Required value: one of name or selector must be specified' },
  { name: 'paramRef parameterNotFoundAction is required', config: vapb({ policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'a' } }), expectedError: 'spec.paramRef.parameterNotFoundAction: Required value' },
  { name: 'a valid binding', config: vapb({ policyName: 'p', validationActions: ['Warn', 'Audit'], paramRef: { name: 'a', namespace: 'ns', parameterNotFoundAction: 'Deny' } }), expectedError: '' },
];

for (const tc of bindingCases) {
  test(`TestValidateValidatingAdmissionPolicyBinding/${tc.name}`, () => {
    const errs = validateValidatingAdmissionPolicyBinding(tc.config);
    const got = errs.length === 0 ? '' : aggregateMessage(errs);
    if (tc.expectedError === '') assert.equal(got, '');
    else assert.ok(got.includes(tc.expectedError), `expected to contain:\n  ${tc.expectedError}\ngot:\n  ${got}`);
  });
}

test('the validation table dispatches both kinds, on create and update', () => {
  const gk = { group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicy' };
  assert.match(aggregateMessage(validate(gk, vap({}) as never)), /spec.validations: Required value/);
  assert.match(aggregateMessage(validate(gk, vap({}) as never, vap(validSpec) as never)), /spec.validations: Required value/);
  const bk = { group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicyBinding' };
  assert.match(aggregateMessage(validate(bk, vapb({ policyName: 'p' }) as never)), /spec.validationActions: Required value: at least one validation action is required/);
});
