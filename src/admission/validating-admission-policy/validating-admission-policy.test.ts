/**
 * ValidatingAdmissionPolicy as upstream's tests exercise it, with real CEL expressions where upstream used
 * fake compilers and matchers: policy/validating admission_test.go (bindings, params, validation actions),
 * validator_test.go (decisions, reasons, messages, failure policies), policy/matching matching_test.go and
 * webhook/predicates/rules rules_test.go (match resources), and the messages of dispatcher.go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import { ApiError } from '../../api/errors.js';
import { resources, type ResourceType } from '../../api/resources.js';
import type { KubeObject } from '../../client/client.js';
import { attrs, fakeLookup, type FakeObjects } from '../_testing.js';
import type { AdmissionAttributes } from '../types.js';
import type { MatchResources, ValidatingAdmissionPolicy as Policy, ValidatingAdmissionPolicyBinding as Binding, ValidatingAdmissionPolicySpec } from './_api.js';
import { compileExpression } from './_compile.js';
import { create, reasonToCode } from './validating-admission-policy.js';

const paramsResource: ResourceType = { group: 'example.com', version: 'v1', resource: 'paramsconfigs', kind: 'ParamsConfig', namespaced: true };
const clusterParamsResource: ResourceType = { group: 'example.com', version: 'v1', resource: 'clusterscopedparamsconfigs', kind: 'ClusterScopedParamsConfig', namespaced: false };

const everything: MatchResources = {
  namespaceSelector: {},
  objectSelector: {},
  matchPolicy: 'Equivalent',
  resourceRules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*' }],
};

function policy(name: string, spec: ValidatingAdmissionPolicySpec, resourceVersion = '1'): Policy {
  return { metadata: { name, resourceVersion }, spec: { failurePolicy: 'Fail', matchConstraints: everything, ...spec } };
}

function binding(name: string, policyName: string, spec: Partial<Binding['spec']> = {}): Binding {
  return { metadata: { name, resourceVersion: '1' }, spec: { policyName, validationActions: ['Deny'], ...spec } };
}

const denyPolicy = policy('denypolicy.example.com', {
  paramKind: { apiVersion: 'example.com/v1', kind: 'ParamsConfig' },
  validations: [{ expression: 'false', message: 'Denied' }],
});

const fakeParams = (name = 'replicas-test.example.com', namespace = 'default', labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'ParamsConfig',
  metadata: { name, namespace, resourceVersion: '1', labels },
  maxReplicas: 3,
} as KubeObject);

const denyBinding = binding('denybinding.example.com', denyPolicy.metadata?.name ?? '', {
  paramRef: { name: 'replicas-test.example.com', namespace: 'default', parameterNotFoundAction: 'Deny' },
});

const namespaces: Namespace[] = [
  { metadata: { name: 'default', labels: { 'kubernetes.io/metadata.name': 'default' } } },
  { metadata: { name: 'mynamespace', labels: { 'kubernetes.io/metadata.name': 'mynamespace' } } },
  { metadata: { name: 'othernamespace', labels: { 'kubernetes.io/metadata.name': 'othernamespace' } } },
  { metadata: { name: 'test', labels: { environment: 'test' } } },
];

function world(policies: Policy[], bindings: Binding[], params: KubeObject[] = [], extra: FakeObjects = {}): FakeObjects {
  return {
    namespaces,
    validatingAdmissionPolicies: policies as never,
    validatingAdmissionPolicyBindings: bindings as never,
    objects: [
      { resource: paramsResource, items: params.filter((p) => p.kind === 'ParamsConfig') },
      { resource: clusterParamsResource, items: params.filter((p) => p.kind === 'ClusterScopedParamsConfig') },
      { resource: resources.configmaps, items: params.filter((p) => p.kind === 'ConfigMap') },
    ],
    ...extra,
  };
}

/** A CREATE of a ConfigMap (upstream's tests create their param objects). */
function createAttrs(obj: KubeObject, opts: Parameters<typeof attrs>[1] = {}): AdmissionAttributes {
  const a = attrs(obj, { resource: resources.configmaps, ...opts });
  a.warnings = [];
  return a;
}

const configMap = (name: string, namespace = 'default', labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data: { coolkey: namespace } }) as KubeObject;

async function run(objs: FakeObjects, a: AdmissionAttributes, plugin = create()): Promise<ApiError | undefined> {
  try {
    await plugin.validate(a, fakeLookup(objs));
    return undefined;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
}

// ---- admission_test.go ----

test('TestBasicPolicyDefinitionFailure', async () => {
  const a = createAttrs(configMap('cm'));
  const err = await run(world([denyPolicy], [denyBinding], [fakeParams()]), a);
  assert.equal(err?.message, `configmaps "cm" is forbidden: ValidatingAdmissionPolicy 'denypolicy.example.com' with binding 'denybinding.example.com' denied request: Denied`);
  assert.equal(err?.code, 422);
  assert.equal(err?.reason, 'Invalid');
  assert.deepEqual(err?.details?.causes, [{ message: `ValidatingAdmissionPolicy 'denypolicy.example.com' with binding 'denybinding.example.com' denied request: Denied` }]);
  assert.deepEqual(a.warnings, []);
});

test('TestDefinitionDoesntMatch', async () => {
  const p = policy('denypolicy.example.com', { ...denyPolicy.spec, matchConstraints: { ...everything, resourceRules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], resourceNames: ['evenlength'] }] } });
  const objs = world([p], [denyBinding], [fakeParams()]);
  assert.equal(await run(objs, createAttrs(configMap('oddlength'))), undefined);
  assert.match((await run(objs, createAttrs(configMap('evenlength'))))?.message ?? '', /Denied$/);
});

test('TestReconfigureBinding', async () => {
  const plugin = create();
  const params2Binding = binding('denybinding.example.com', 'denypolicy.example.com', { paramRef: { name: 'replicas-test2.example.com', namespace: 'default', parameterNotFoundAction: 'Deny' } });
  assert.match((await run(world([denyPolicy], [denyBinding], [fakeParams()]), createAttrs(configMap('cm')), plugin))?.message ?? '', /Denied$/);
  const err = await run(world([denyPolicy], [params2Binding], [fakeParams()]), createAttrs(configMap('cm')), plugin);
  assert.equal(
    err?.message,
    "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'denypolicy.example.com' with binding 'denybinding.example.com' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
  );
  assert.equal(err?.code, 422);
  assert.match((await run(world([denyPolicy], [params2Binding], [fakeParams(), fakeParams('replicas-test2.example.com')]), createAttrs(configMap('cm')), plugin))?.message ?? '', /Denied$/);
});

test('TestRemoveDefinition', async () => {
  assert.notEqual(await run(world([denyPolicy], [denyBinding], [fakeParams()]), createAttrs(configMap('cm'))), undefined);
  assert.equal(await run(world([], [denyBinding], [fakeParams()]), createAttrs(configMap('cm'))), undefined);
});

test('TestRemoveBinding', async () => {
  assert.notEqual(await run(world([denyPolicy], [denyBinding], [fakeParams()]), createAttrs(configMap('cm'))), undefined);
  assert.equal(await run(world([denyPolicy], [], [fakeParams()]), createAttrs(configMap('cm'))), undefined);
});

test('TestInvalidParamSourceGVK', async () => {
  const bad = policy('denypolicy.example.com', { ...denyPolicy.spec, paramKind: { apiVersion: 'example.com/v1', kind: 'BadParamKind' } });
  const err = await run(world([bad], [denyBinding], [fakeParams()]), createAttrs(configMap('cm')));
  assert.equal(err?.message, "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'denypolicy.example.com' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=BadParamKind'");
});

test('TestInvalidParamSourceInstanceName', async () => {
  const err = await run(world([denyPolicy], [denyBinding]), createAttrs(configMap('cm')));
  assert.match(err?.message ?? '', /no params found for policy binding with `Deny` parameterNotFoundAction$/);
});

test('TestEmptyParamRef: a policy with a paramKind is evaluated with null params when the binding has no paramRef', async () => {
  const p = policy('denypolicy.example.com', { paramKind: { apiVersion: 'example.com/v1', kind: 'ParamsConfig' }, validations: [{ expression: 'params != null', message: 'Denied' }] });
  const err = await run(world([p], [binding('denybinding.example.com', 'denypolicy.example.com')]), createAttrs(configMap('cm')));
  assert.match(err?.message ?? '', /Denied$/);
});

test('TestEmptyParamSource: a paramRef is ignored when the policy has no paramKind', async () => {
  const p = policy('denypolicy.example.com', { validations: [{ expression: 'false', message: 'Denied' }] });
  const err = await run(world([p], [denyBinding]), createAttrs(configMap('cm')));
  assert.match(err?.message ?? '', /Denied$/);
  // No paramKind: `params` is not declared.
  const q = policy('denypolicy.example.com', { validations: [{ expression: 'params == null' }] }, '2');
  const err2 = await run(world([q], [denyBinding]), createAttrs(configMap('cm')));
  assert.equal(
    err2?.message,
    "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'denypolicy.example.com' with binding 'denybinding.example.com' denied request: compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params == null\n | ^",
  );
});

test('TestNativeTypeParam', async () => {
  const p = policy('denypolicy.example.com', {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    validations: [{ expression: "params.kind != 'ConfigMap'", messageExpression: "'correct type ' + params.data.coolkey" }],
  });
  const cm = configMap('replicas-test.example.com', 'default');
  const err = await run(world([p], [denyBinding], [cm]), createAttrs(configMap('cm')));
  assert.match(err?.message ?? '', /denied request: correct type default$/);
});

test('TestAuditValidationAction: Audit neither warns nor denies', async () => {
  const p = policy('denypolicy.example.com', { validations: [{ expression: 'false', message: "I'm sorry Dave" }] });
  const a = createAttrs(configMap('cm'));
  assert.equal(await run(world([p], [binding('denybinding.example.com', 'denypolicy.example.com', { validationActions: ['Audit'] })]), a), undefined);
  assert.deepEqual(a.warnings, []);
});

test('TestWarnValidationAction', async () => {
  const p = policy('denypolicy.example.com', { validations: [{ expression: 'false', message: "I'm sorry Dave" }] });
  const a = createAttrs(configMap('cm'));
  assert.equal(await run(world([p], [binding('denybinding.example.com', 'denypolicy.example.com', { validationActions: ['Warn'] })]), a), undefined);
  assert.deepEqual(a.warnings, ["Validation failed for ValidatingAdmissionPolicy 'denypolicy.example.com' with binding 'denybinding.example.com': I'm sorry Dave"]);
});

test('TestAllValidationActions', async () => {
  const p = policy('denypolicy.example.com', { validations: [{ expression: 'false', message: "I'm sorry Dave" }] });
  const a = createAttrs(configMap('cm'));
  const err = await run(world([p], [binding('denybinding.example.com', 'denypolicy.example.com', { validationActions: ['Deny', 'Warn', 'Audit'] })]), a);
  assert.match(err?.message ?? '', /I'm sorry Dave$/);
  assert.deepEqual(a.warnings, ["Validation failed for ValidatingAdmissionPolicy 'denypolicy.example.com' with binding 'denybinding.example.com': I'm sorry Dave"]);
});

test('TestNamespaceParamRefName: a paramRef without namespace reads the param from the request namespace', async () => {
  const p = policy('denypolicy.example.com', {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    validations: [{ expression: 'false', messageExpression: "'correct type ' + params.metadata.namespace" }],
  });
  const b = binding('denybinding.example.com', 'denypolicy.example.com', { paramRef: { name: 'replicas-test.example.com', parameterNotFoundAction: 'Deny' } });
  const params = ['default', 'mynamespace', 'othernamespace'].map((ns) => configMap('replicas-test.example.com', ns));
  for (const ns of ['default', 'mynamespace', 'othernamespace', 'default']) {
    const err = await run(world([p], [b], params), createAttrs(configMap('x', ns)));
    assert.match(err?.message ?? '', new RegExp(`correct type ${ns}$`));
  }
});

// TestParamRef: namespaced and cluster-scoped params, by name or selector, with and without namespace,
// Allow/Deny when none is found. One denial per param found.
for (const clusterScoped of [false, true]) {
  for (const mode of ['WithName', 'WithLabelSelector', 'WithEverythingSelector'] as const) {
    for (const namespaceIsSet of [false, true]) {
      if (clusterScoped && namespaceIsSet) continue;
      for (const denyNotFound of [false, true]) {
        const name = `${clusterScoped ? 'ClusterScoped' : ''}ParamRef${mode}${namespaceIsSet ? 'WithNamespace' : ''}${denyNotFound ? 'DenyNotFound' : 'AllowNotFound'}`;
        test(`TestParamRef/${name}`, async () => {
          const kind = clusterScoped ? 'ClusterScopedParamsConfig' : 'ParamsConfig';
          const p = policy('denypolicy.example.com', {
            paramKind: { apiVersion: 'example.com/v1', kind },
            validations: [{ expression: 'false', messageExpression: "'denied by ' + params.metadata.name" }],
          });
          const ref = {
            ...(mode === 'WithName' ? { name: 'replicas-test.example.com' } : { selector: mode === 'WithLabelSelector' ? { matchLabels: { shouldmatch: 'true' } } : {} }),
            ...(namespaceIsSet ? { namespace: 'mynamespace' } : {}),
            parameterNotFoundAction: denyNotFound ? ('Deny' as const) : ('Allow' as const),
          };
          const b = binding('denybinding.example.com', 'denypolicy.example.com', { paramRef: ref });
          const mk = (n: string, ns: string, labels: Record<string, string>): KubeObject => {
            const o = fakeParams(n, ns, labels);
            o.kind = kind;
            if (clusterScoped) delete (o.metadata as { namespace?: string }).namespace;
            return o;
          };
          const requestNamespace = 'default';
          const paramNamespace = namespaceIsSet ? 'mynamespace' : requestNamespace;
          const matching = mode === 'WithName' ? [mk('replicas-test.example.com', paramNamespace, {})] : [mk('a', paramNamespace, { shouldmatch: 'true' }), mk('b', paramNamespace, { shouldmatch: 'true' })];
          const others = [mk('c', clusterScoped ? '' : 'othernamespace', { shouldmatch: 'true' }), mk('d', paramNamespace, { shouldmatch: 'false' })];
          const everythingSelector = mode === 'WithEverythingSelector';
          const expected = everythingSelector ? [...matching, ...(clusterScoped ? others : others.filter((o) => o.metadata?.namespace === paramNamespace))] : matching;

          // With params: one denial per param (the first one is reported).
          const err = await run(world([p], [b], [...matching, ...others]), createAttrs(configMap('x', requestNamespace)));
          const first = [...expected].sort((x, y) => ((x.metadata?.name ?? '') < (y.metadata?.name ?? '') ? -1 : 1))[0];
          assert.match(err?.message ?? '', new RegExp(`denied by ${first?.metadata?.name ?? ''}$`));

          // Without params: Deny refuses, Allow admits (the selector still excludes non-matching ones).
          const none = everythingSelector ? [] : others.filter((o) => !(mode === 'WithLabelSelector' && o.metadata?.labels?.['shouldmatch'] === 'true' && (clusterScoped || o.metadata?.namespace === paramNamespace)));
          const err2 = await run(world([p], [b], none), createAttrs(configMap('x', requestNamespace)));
          if (denyNotFound) assert.match(err2?.message ?? '', /no params found for policy binding with `Deny` parameterNotFoundAction$/);
          else assert.equal(err2, undefined);
        });
      }
    }
  }
}

test('a namespaced paramKind without paramRef.namespace cannot serve a cluster-scoped request', async () => {
  const b = binding('denybinding.example.com', 'denypolicy.example.com', { paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } });
  const err = await run(world([denyPolicy], [b]), attrs({ metadata: { name: 'n1' } }, { resource: resources.nodes }));
  assert.match(err?.message ?? '', /denied request: failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources$/);
});

test('a cluster-scoped paramKind refuses paramRef.namespace', async () => {
  const p = policy('denypolicy.example.com', { paramKind: { apiVersion: 'example.com/v1', kind: 'ClusterScopedParamsConfig' }, validations: [{ expression: 'true' }] });
  const b = binding('denybinding.example.com', 'denypolicy.example.com', { paramRef: { name: 'x', namespace: 'default', parameterNotFoundAction: 'Allow' } });
  const err = await run(world([p], [b]), createAttrs(configMap('cm')));
  assert.match(err?.message ?? '', /failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`$/);
});

test('failurePolicy Ignore skips configuration errors', async () => {
  const bad = policy('denypolicy.example.com', { ...denyPolicy.spec, failurePolicy: 'Ignore', paramKind: { apiVersion: 'example.com/v1', kind: 'BadParamKind' } });
  assert.equal(await run(world([bad], [denyBinding]), createAttrs(configMap('cm'))), undefined);
  const p = policy('denypolicy.example.com', { ...denyPolicy.spec, failurePolicy: 'Ignore' });
  assert.equal(await run(world([p], [denyBinding]), createAttrs(configMap('cm'))), undefined);
});

// ---- validator_test.go TestValidate, with expressions that evaluate as the fake evaluations did ----

interface DecisionCase {
  name: string;
  failurePolicy?: 'Fail' | 'Ignore';
  validations: { expression: string; message?: string; messageExpression?: string; reason?: string }[];
  /** The error, or undefined when admitted. */
  want?: { message: string; code: number; reason: string };
}

const P = "ValidatingAdmissionPolicy 'policy.example.com' with binding 'binding.example.com' denied request: ";
const errorExpr = '1/0 == 1';
const errorMsg = "expression '1/0 == 1' resulted in error: division by zero";

const decisionCases: DecisionCase[] = [
  { name: 'test pass', validations: [{ expression: 'true' }] },
  { name: 'test multiple pass', validations: [{ expression: 'true' }, { expression: 'true' }] },
  { name: 'test error with failurepolicy ignore', failurePolicy: 'Ignore', validations: [{ expression: errorExpr }] },
  { name: 'test error with failurepolicy fail', failurePolicy: 'Fail', validations: [{ expression: errorExpr }], want: { message: P + errorMsg, code: 422, reason: 'Invalid' } },
  { name: 'test fail with failurepolicy ignore with multiple validations', failurePolicy: 'Ignore', validations: [{ expression: 'true' }, { expression: errorExpr }] },
  { name: 'test fail with failurepolicy fail with multiple validations', validations: [{ expression: 'true' }, { expression: errorExpr }], want: { message: P + errorMsg, code: 422, reason: 'Invalid' } },
  { name: 'test reason for fail no reason set', validations: [{ expression: 'object.metadata.name == "unit.test"' }], want: { message: `${P}failed expression: object.metadata.name == "unit.test"`, code: 422, reason: 'Invalid' } },
  { name: 'test reason for fail reason set', validations: [{ expression: 'object.metadata.name == "unit.test"', reason: 'Forbidden' }], want: { message: `${P}failed expression: object.metadata.name == "unit.test"`, code: 403, reason: 'Forbidden' } },
  {
    name: 'test reason for failed validations multiple validations',
    validations: [{ expression: 'false', reason: 'Forbidden' }, { expression: '1 == 2', reason: 'Unauthorized' }],
    want: { message: `${P}failed expression: false`, code: 403, reason: 'Forbidden' },
  },
  { name: 'test message for failed validations', validations: [{ expression: 'false', reason: 'Forbidden', message: 'test' }], want: { message: `${P}test`, code: 403, reason: 'Forbidden' } },
  { name: 'test message for failed validations multiple validations', validations: [{ expression: 'false', message: 'test1' }, { expression: 'false', message: 'test2' }], want: { message: `${P}test1`, code: 422, reason: 'Invalid' } },
  { name: 'test messageExpression', validations: [{ expression: 'false', messageExpression: '"test" + "2"' }], want: { message: `${P}test2`, code: 422, reason: 'Invalid' } },
  { name: 'test messageExpression failed, fall back to message', validations: [{ expression: 'false', message: 'test1', messageExpression: '1/0 == 1 ? "a" : "b"' }], want: { message: `${P}test1`, code: 422, reason: 'Invalid' } },
  { name: 'test messageExpression not string, fall back to expression', validations: [{ expression: 'false', messageExpression: 'object.metadata' }], want: { message: `${P}failed expression: false`, code: 422, reason: 'Invalid' } },
  { name: 'test messageExpression multi-line, fall back to message', validations: [{ expression: 'false', message: 'test1', messageExpression: '"line1\\nline2"' }], want: { message: `${P}test1`, code: 422, reason: 'Invalid' } },
  { name: 'test messageExpression whitespace-only, fall back to message', validations: [{ expression: 'false', message: ' test1 ', messageExpression: '"   "' }], want: { message: `${P}test1`, code: 422, reason: 'Invalid' } },
  { name: 'test RequestEntityTooLarge reason', validations: [{ expression: 'false', reason: 'RequestEntityTooLarge' }], want: { message: `${P}failed expression: false`, code: 413, reason: 'RequestEntityTooLarge' } },
];

for (const tc of decisionCases) {
  test(`TestValidate/${tc.name}`, async () => {
    const p = policy('policy.example.com', { failurePolicy: tc.failurePolicy ?? 'Fail', validations: tc.validations });
    const err = await run(world([p], [binding('binding.example.com', 'policy.example.com')]), createAttrs(configMap('cm')));
    if (tc.want === undefined) {
      assert.equal(err, undefined);
      return;
    }
    assert.equal(err?.message, `configmaps "cm" is forbidden: ${tc.want.message}`);
    assert.equal(err?.code, tc.want.code);
    assert.equal(err?.reason, tc.want.reason);
  });
}

test('reasonToCode', () => {
  assert.equal(reasonToCode('Forbidden'), 403);
  assert.equal(reasonToCode('Unauthorized'), 401);
  assert.equal(reasonToCode('RequestEntityTooLarge'), 413);
  assert.equal(reasonToCode('Invalid'), 422);
  assert.equal(reasonToCode('Other'), 422);
});

// ---- the CEL environment ----

test('the docs example: object.spec.replicas <= 5 on deployments', async () => {
  const p: Policy = {
    metadata: { name: 'demo-policy.example.com', resourceVersion: '1' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { ...everything, resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
    },
  };
  const b = binding('demo-binding-test.example.com', 'demo-policy.example.com', { matchResources: { namespaceSelector: { matchLabels: { environment: 'test' } }, objectSelector: {}, matchPolicy: 'Equivalent' } });
  const dep = (ns: string, replicas: number): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx', namespace: ns }, spec: { replicas } } as KubeObject);
  const objs = world([p], [b]);
  const err = await run(objs, attrs(dep('test', 6), { resource: resources.deployments }));
  assert.equal(err?.message, `deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`);
  assert.equal(await run(objs, attrs(dep('test', 5), { resource: resources.deployments })), undefined);
  // Not in a namespace the binding selects.
  assert.equal(await run(objs, attrs(dep('default', 6), { resource: resources.deployments })), undefined);
  // Not a resource the policy matches.
  assert.equal(await run(objs, createAttrs(configMap('cm', 'test'))), undefined);
});

test('request, namespaceObject, oldObject and variables', async () => {
  const p = policy('policy.example.com', {
    variables: [
      { name: 'ns', expression: 'namespaceObject.metadata.name' },
      { name: 'nsIsDefault', expression: "variables.ns == 'default'" },
    ],
    validations: [
      { expression: "request.operation == 'UPDATE' && request.kind.kind == 'ConfigMap' && request.resource.resource == 'configmaps' && request.userInfo.username == 'admin'", message: 'request' },
      { expression: "oldObject.data.coolkey == 'old' && object.data.coolkey == 'default'", message: 'objects' },
      { expression: 'variables.nsIsDefault', message: 'variables' },
      { expression: "request.namespace == 'default' && request.name == 'cm' && request.dryRun == false", message: 'request fields' },
    ],
  });
  const old = configMap('cm');
  (old as { data: Record<string, string> }).data = { coolkey: 'old' };
  const err = await run(world([p], [binding('binding.example.com', 'policy.example.com')]), createAttrs(configMap('cm'), { operation: 'UPDATE', oldObject: old }));
  assert.equal(err, undefined);
  const err2 = await run(world([p], [binding('binding.example.com', 'policy.example.com')]), createAttrs(configMap('cm', 'mynamespace'), { operation: 'UPDATE', oldObject: old }));
  assert.match(err2?.message ?? '', /denied request: objects$/);
});

test('oldObject is null on CREATE, and a missing field is a runtime error', async () => {
  const p = policy('policy.example.com', { validations: [{ expression: 'oldObject == null' }, { expression: 'object.spec.replicas > 1' }] });
  const err = await run(world([p], [binding('binding.example.com', 'policy.example.com')]), createAttrs(configMap('cm')));
  assert.equal(err?.message, `configmaps "cm" is forbidden: ${P}expression 'object.spec.replicas > 1' resulted in error: no such key: spec`);
});

test('a variable that fails to evaluate fails the expressions that read it', async () => {
  const p = policy('policy.example.com', { variables: [{ name: 'bad', expression: 'object.nope' }], validations: [{ expression: 'variables.bad == 1' }] });
  const err = await run(world([p], [binding('binding.example.com', 'policy.example.com')]), createAttrs(configMap('cm')));
  assert.equal(err?.message, `configmaps "cm" is forbidden: ${P}expression 'variables.bad == 1' resulted in error: composited variable "bad" fails to evaluate: no such key: nope`);
});

test('matchConditions: any false skips the policy; errors follow the failure policy', async () => {
  const mk = (failurePolicy: 'Fail' | 'Ignore', conditions: string[]): Policy =>
    policy('policy.example.com', { failurePolicy, matchConditions: conditions.map((expression, i) => ({ name: `c${i}`, expression })), validations: [{ expression: 'false', message: 'Denied' }] });
  const b = [binding('binding.example.com', 'policy.example.com')];
  assert.match((await run(world([mk('Fail', ['true'])], b), createAttrs(configMap('cm'))))?.message ?? '', /Denied$/);
  assert.equal(await run(world([mk('Fail', ['true', 'false'])], b), createAttrs(configMap('cm'))), undefined);
  assert.equal(await run(world([mk('Fail', [errorExpr, 'false'])], b), createAttrs(configMap('cm'))), undefined);
  assert.equal((await run(world([mk('Fail', [errorExpr, 'true'])], b), createAttrs(configMap('cm'))))?.message, `configmaps "cm" is forbidden: ${P}${errorMsg}`);
  assert.equal((await run(world([mk('Fail', [errorExpr, errorExpr])], b), createAttrs(configMap('cm'))))?.message, `configmaps "cm" is forbidden: ${P}[${errorMsg}, ${errorMsg}]`);
  assert.equal(await run(world([mk('Ignore', [errorExpr])], b), createAttrs(configMap('cm'))), undefined);
});

test('auditAnnotations: a value that is not a string or null is an error under failurePolicy Fail', async () => {
  // Upstream's checker refuses most such expressions when the policy is created (`must evaluate to one of
  // [string null_type]`); the run-time check remains for the expressions this port cannot type.
  const p = policy('policy.example.com', { auditAnnotations: [{ key: 'k', valueExpression: '[object.data][0]' }, { key: 'n', valueExpression: 'null' }] });
  const err = await run(world([p], [binding('binding.example.com', 'policy.example.com')]), createAttrs(configMap('cm')));
  assert.equal(err?.message, `configmaps "cm" is forbidden: ${P}valueExpression '[object.data][0]' resulted in unsupported return type: map. Return type must be either string or null.`);
  // A type the compiler can tell fails the policy as a compile error.
  const q = policy('policy.example.com', { validations: [{ expression: 'object.data' }] }, '2');
  const err2 = await run(world([q], [binding('binding.example.com', 'policy.example.com')]), createAttrs(configMap('cm')));
  assert.equal(err2?.message, `configmaps "cm" is forbidden: ${P}compilation error: must evaluate to bool but got dyn`);
});

test('policies and bindings do not apply to themselves', async () => {
  const p = policy('policy.example.com', { validations: [{ expression: 'false' }] });
  const a = attrs(p, { resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', namespaced: false } });
  assert.equal(await run(world([p], [binding('binding.example.com', 'policy.example.com')]), a), undefined);
});

test('no bindings: the lookup is asked for nothing else', async () => {
  let asked = 0;
  const lookup = { ...fakeLookup({}), listValidatingAdmissionPolicies: async () => { asked++; return []; } };
  await create().validate(createAttrs(configMap('cm')), lookup);
  assert.equal(asked, 0);
});

test('a policy is compiled once per resourceVersion', async () => {
  const plugin = create();
  const p1 = policy('policy.example.com', { validations: [{ expression: 'false', message: 'v1' }] }, '1');
  const p2 = policy('policy.example.com', { validations: [{ expression: 'false', message: 'v2' }] }, '2');
  const b = [binding('binding.example.com', 'policy.example.com')];
  assert.match((await run(world([p1], b), createAttrs(configMap('cm')), plugin))?.message ?? '', /v1$/);
  assert.match((await run(world([p2], b), createAttrs(configMap('cm')), plugin))?.message ?? '', /v2$/);
});

// ---- matching (rules_test.go, matching_test.go) ----

interface RuleCase {
  name: string;
  rule: NonNullable<MatchResources['resourceRules']>;
  match: AdmissionAttributes[];
  noMatch: AdmissionAttributes[];
}

const podAttrs = (op: AdmissionAttributes['operation'], sub = '', ns = 'default'): AdmissionAttributes => attrs({ metadata: { name: 'p', namespace: ns } }, { operation: op, subresource: sub, resource: resources.pods });
const nodeAttrs = (): AdmissionAttributes => attrs({ metadata: { name: 'n' } }, { resource: resources.nodes });
const nsAttrs = (): AdmissionAttributes => attrs({ metadata: { name: 'default' } }, { resource: resources.namespaces });

const ruleCases: RuleCase[] = [
  { name: 'no subresources', rule: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['pods'] }], match: [podAttrs('CREATE')], noMatch: [podAttrs('CREATE', 'status'), nodeAttrs()] },
  { name: 'specific subresource', rule: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['pods/status'] }], match: [podAttrs('UPDATE', 'status')], noMatch: [podAttrs('CREATE'), podAttrs('UPDATE', 'binding')] },
  { name: 'resource wildcard subresources', rule: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['pods/*'] }], match: [podAttrs('CREATE'), podAttrs('UPDATE', 'status')], noMatch: [nodeAttrs()] },
  { name: 'wildcard resource, one subresource', rule: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/status'] }], match: [podAttrs('UPDATE', 'status')], noMatch: [podAttrs('CREATE'), nodeAttrs()] },
  { name: 'all resources and subresources', rule: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }], match: [podAttrs('CREATE'), podAttrs('UPDATE', 'status'), nodeAttrs()], noMatch: [] },
  { name: 'operations', rule: [{ operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }], match: [podAttrs('CREATE')], noMatch: [podAttrs('UPDATE'), podAttrs('DELETE')] },
  { name: 'groups and versions', rule: [{ operations: ['*'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['*'] }], match: [], noMatch: [podAttrs('CREATE')] },
  { name: 'Namespaced scope', rule: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Namespaced' }], match: [podAttrs('CREATE')], noMatch: [nodeAttrs(), nsAttrs()] },
  { name: 'Cluster scope', rule: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Cluster' }], match: [nodeAttrs(), nsAttrs()], noMatch: [podAttrs('CREATE')] },
];

for (const tc of ruleCases) {
  test(`rules: ${tc.name}`, async () => {
    const p = policy('policy.example.com', { matchConstraints: { ...everything, resourceRules: tc.rule }, validations: [{ expression: 'false' }] });
    const objs = world([p], [binding('binding.example.com', 'policy.example.com')]);
    for (const a of tc.match) assert.notEqual(await run(objs, a), undefined, `${a.resource.resource}/${a.subresource} ${a.operation} should match`);
    for (const a of tc.noMatch) assert.equal(await run(objs, a), undefined, `${a.resource.resource}/${a.subresource} ${a.operation} should not match`);
  });
}

test('matching: excludeResourceRules, objectSelector on new or old object, namespaceSelector', async () => {
  const mk = (m: Partial<MatchResources>): Policy => policy('policy.example.com', { matchConstraints: { ...everything, ...m }, validations: [{ expression: 'false' }] });
  const b = [binding('binding.example.com', 'policy.example.com')];
  const excluded = mk({ excludeResourceRules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], resourceNames: ['skip'] }] });
  assert.equal(await run(world([excluded], b), createAttrs(configMap('skip'))), undefined);
  assert.notEqual(await run(world([excluded], b), createAttrs(configMap('other'))), undefined);

  const bySelector = mk({ objectSelector: { matchLabels: { app: 'x' } } });
  assert.equal(await run(world([bySelector], b), createAttrs(configMap('cm'))), undefined);
  assert.notEqual(await run(world([bySelector], b), createAttrs(configMap('cm', 'default', { app: 'x' }))), undefined);
  assert.notEqual(await run(world([bySelector], b), createAttrs(configMap('cm'), { operation: 'UPDATE', oldObject: configMap('cm', 'default', { app: 'x' }) })), undefined);

  const byNamespace = mk({ namespaceSelector: { matchExpressions: [{ key: 'environment', operator: 'In', values: ['test'] }] } });
  assert.equal(await run(world([byNamespace], b), createAttrs(configMap('cm'))), undefined);
  assert.notEqual(await run(world([byNamespace], b), createAttrs(configMap('cm', 'test'))), undefined);
  // Cluster-scoped objects other than namespaces always pass the namespace selector.
  assert.notEqual(await run(world([byNamespace], b), nodeAttrs()), undefined);
  // A namespace is matched by its own labels.
  assert.notEqual(await run(world([byNamespace], b), attrs({ metadata: { name: 'x', labels: { environment: 'test' } } }, { resource: resources.namespaces })), undefined);
});

test('a binding whose namespace is missing is a configuration error', async () => {
  const p = policy('policy.example.com', { validations: [{ expression: 'false' }] });
  const b = binding('binding.example.com', 'policy.example.com', { matchResources: { namespaceSelector: { matchLabels: { a: 'b' } }, objectSelector: {}, matchPolicy: 'Equivalent' } });
  const err = await run(world([p], [b]), createAttrs(configMap('cm', 'missing')));
  assert.match(err?.message ?? '', /denied request: failed to configure binding: namespaces "missing" not found$/);
});

// ---- compile ----

test('compile: undeclared references, undefined fields of typed variables', () => {
  assert.equal(compileExpression('object.x == 1', { hasParams: false, variables: [] }).error, undefined);
  assert.equal(compileExpression('params.x', { hasParams: false, variables: [] }).error, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^");
  assert.equal(compileExpression('request.foo', { hasParams: false, variables: [] }).error, "compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo\n | .......^");
  assert.equal(compileExpression('variables.a', { hasParams: false, variables: [] }).error, "compilation failed: ERROR: <input>:1:10: undefined field 'a'\n | variables.a\n | .........^");
  assert.equal(compileExpression('variables.a', { hasParams: false, variables: ['a'] }).error, undefined);
  assert.equal(compileExpression('variables.a', { hasParams: false, variables: [], composition: false }).error, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.a\n | ^");
  assert.equal(compileExpression("namespaceObject.metadata.labels['a'] == 'b' && request.userInfo.groups.size() > 0", { hasParams: false, variables: [] }).error, undefined);
});

// ---- the CEL authorizer (authz.go), asked as the requesting user ----

const bob = { username: 'bob', groups: ['system:authenticated'] };

test('authorizer: resource checks as the requesting user, in validations and messageExpressions', async () => {
  const p = policy('policy.example.com', {
    validations: [
      {
        expression: "authorizer.group('').resource('pods').namespace(object.metadata.namespace).check('create').allowed()",
        messageExpression: "'pods: ' + authorizer.group('').resource('pods').namespace(object.metadata.namespace).check('create').reason()",
      },
    ],
  });
  const objs = world([p], [binding('binding.example.com', 'policy.example.com')], [], {
    authorizations: [
      { user: 'bob', verb: 'create', group: '', resource: 'pods', namespace: 'default', decision: 'allow' },
      { user: 'bob', decision: 'deny', reason: 'bob may not' },
    ],
  });
  assert.equal(await run(objs, createAttrs(configMap('cm'), { userInfo: bob })), undefined);
  const err = await run(objs, createAttrs(configMap('cm', 'mynamespace'), { userInfo: bob }));
  assert.equal(err?.message, `configmaps "cm" is forbidden: ${P}pods: bob may not`);
  // Someone else: no rule, no opinion, not allowed.
  assert.match((await run(objs, createAttrs(configMap('cm'), { userInfo: { username: 'carol', groups: [] } })))?.message ?? '', /denied request: pods:$/);
});

test('authorizer.requestResource: the request itself, in matchConditions', async () => {
  const p = policy('policy.example.com', {
    matchConditions: [{ name: 'not-allowed-to-escalate', expression: "!authorizer.requestResource.check('escalate').allowed()" }],
    validations: [{ expression: 'false', message: 'Denied' }],
  });
  const objs = world([p], [binding('binding.example.com', 'policy.example.com')], [], {
    authorizations: [{ user: 'admin', verb: 'escalate', group: '', resource: 'configmaps', namespace: 'default', name: 'cm', decision: 'allow' }],
  });
  assert.equal(await run(objs, createAttrs(configMap('cm'))), undefined);
  assert.match((await run(objs, createAttrs(configMap('other'))))?.message ?? '', /Denied$/);
});

test('authorizer.path and serviceAccount: non-resource checks and checks as another user, in variables', async () => {
  const p = policy('policy.example.com', {
    variables: [
      { name: 'healthz', expression: "authorizer.path('/healthz').check('get').allowed()" },
      { name: 'saCanGet', expression: "authorizer.serviceAccount('default', 'builder').group('apps').resource('deployments').namespace('default').check('get').allowed()" },
    ],
    validations: [
      { expression: 'variables.healthz', message: 'healthz' },
      { expression: 'variables.saCanGet', message: 'service account' },
    ],
  });
  const b = [binding('binding.example.com', 'policy.example.com')];
  const allowed = world([p], b, [], {
    authorizations: [
      { user: 'admin', verb: 'get', path: '/healthz', decision: 'allow' },
      { user: 'system:serviceaccount:default:builder', verb: 'get', group: 'apps', resource: 'deployments', namespace: 'default', decision: 'allow' },
    ],
  });
  assert.equal(await run(allowed, createAttrs(configMap('cm'))), undefined);
  const noSA = world([p], b, [], { authorizations: [{ user: 'admin', verb: 'get', path: '/healthz', decision: 'allow' }] });
  assert.match((await run(noSA, createAttrs(configMap('cm'))))?.message ?? '', /denied request: service account$/);
});

test('authorizer decisions: errored() and error() in auditAnnotations and validations; an empty path is an error', async () => {
  const p = policy('policy.example.com', {
    validations: [{ expression: "authorizer.group('').resource('secrets').check('list').errored() && authorizer.group('').resource('secrets').check('list').error() == 'webhook down'", message: 'no error' }],
    auditAnnotations: [{ key: 'decision', valueExpression: "authorizer.group('').resource('secrets').check('list').error()" }],
  });
  const objs = world([p], [binding('binding.example.com', 'policy.example.com')], [], { authorizations: [{ verb: 'list', resource: 'secrets', decision: 'noOpinion', error: 'webhook down' }] });
  assert.equal(await run(objs, createAttrs(configMap('cm'))), undefined);
  const q = policy('policy.example.com', { validations: [{ expression: "authorizer.path('').check('get').allowed()" }] }, '2');
  const err = await run(world([q], [binding('binding.example.com', 'policy.example.com')]), createAttrs(configMap('cm')));
  assert.equal(err?.message, `configmaps "cm" is forbidden: ${P}expression 'authorizer.path('').check('get').allowed()' resulted in error: path must not be empty`);
});

test('compile: authorizer is declared, and its decisions are typed', () => {
  assert.equal(compileExpression("authorizer.group('').resource('pods').check('create').allowed()", { hasParams: false, variables: [] }, ['bool']).error, undefined);
  assert.equal(compileExpression("authorizer.requestResource.check('get').reason()", { hasParams: false, variables: [] }, ['string']).error, undefined);
  assert.equal(compileExpression("authorizer.path('/x').check('get').reason()", { hasParams: false, variables: [] }, ['bool']).error, 'must evaluate to bool but got string');
});
