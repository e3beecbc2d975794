import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { FakeClient } from '../_testing/fake-client.js';
import { startController } from '../_testing/fakes.js';
import { create, FieldManager, typeCheck, typesToCheck, validatingAdmissionPolicies } from './validating-admission-policy-status.js';

type Rule = { apiGroups: string[]; apiVersions: string[]; resources: string[]; operations?: string[] };

function policy(name: string, rules: Rule[], validations: { expression: string; messageExpression?: string }[] = [{ expression: 'true' }]): ValidatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: rules.map((r) => ({ operations: ['CREATE'], ...r })) }, validations },
  };
}

const deployments: Rule = { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] };

// typechecking.go typesToCheck and its extract* helpers.
const typeCases: { name: string; rules: Rule[]; want: string[] }[] = [
  { name: 'no rules', rules: [], want: [] },
  { name: 'a built-in resource', rules: [deployments], want: ['apps/v1/Deployment'] },
  { name: 'the core group', rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'configmaps'] }], want: ['/v1/ConfigMap', '/v1/Pod'] },
  { name: 'a wildcard group gives up on the rule', rules: [{ apiGroups: ['*'], apiVersions: ['v1'], resources: ['pods'] }], want: [] },
  { name: 'a wildcard version gives up on the rule', rules: [{ apiGroups: [''], apiVersions: ['*'], resources: ['pods'] }], want: [] },
  { name: 'wildcard resources and subresources are skipped', rules: [{ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['*', 'deployments/status', 'replicasets'] }], want: ['apps/v1/ReplicaSet'] },
  { name: 'unknown resources resolve to nothing', rules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }], want: [] },
  {
    name: 'sorted by group, version, kind, without duplicates',
    rules: [deployments, { apiGroups: ['', 'apps'], apiVersions: ['v1'], resources: ['pods', 'deployments'] }],
    want: ['/v1/Pod', 'apps/v1/Deployment'],
  },
];

for (const tc of typeCases) {
  test(`typesToCheck/${tc.name}`, () => {
    assert.deepEqual(
      typesToCheck(policy('p', tc.rules)).map((g) => `${g.group}/${g.version}/${g.kind}`),
      tc.want,
    );
  });
}

test('typeCheck: the warning names each kind checked, and the messageExpression separately', () => {
  const p = policy('p', [{ apiGroups: ['', 'apps'], apiVersions: ['v1'], resources: ['pods', 'deployments'] }], [
    { expression: 'object.spec.replicas > 0' },
    { expression: "request.foo == 'x'", messageExpression: "'bad ' + nope" },
  ]);
  assert.deepEqual(typeCheck(p), [
    {
      fieldRef: 'spec.validations[1].expression',
      warning: "/v1, Kind=Pod: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 'x'\n | .......^\n\napps/v1, Kind=Deployment: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 'x'\n | .......^\n",
    },
    {
      fieldRef: 'spec.validations[1].messageExpression',
      warning: "/v1, Kind=Pod: ERROR: <input>:1:10: undeclared reference to 'nope' (in container '')\n | 'bad ' + nope\n | .........^\n\napps/v1, Kind=Deployment: ERROR: <input>:1:10: undeclared reference to 'nope' (in container '')\n | 'bad ' + nope\n | .........^\n",
    },
  ]);
  // No output type is enforced, authorizer is declared, and a kind that does not resolve checks nothing.
  assert.deepEqual(typeCheck(policy('p', [deployments], [{ expression: "object.spec + 1" }, { expression: "authorizer.requestResource.check('get').allowed()" }])), []);
  assert.deepEqual(typeCheck(policy('p', [{ apiGroups: ['*'], apiVersions: ['v1'], resources: ['pods'] }], [{ expression: 'nope' }])), []);
});

test('a policy gets observedGeneration and typeChecking once per generation, by a forced apply of its status', async (t) => {
  const client = new FakeClient();
  await client.create(validatingAdmissionPolicies, policy('ok', [deployments]));
  await client.create(validatingAdmissionPolicies, policy('warned', [deployments], [{ expression: 'nope' }]));
  const ctx = await startController(t, client, create);
  await ctx.settle();
  const get = (n: string): Promise<ValidatingAdmissionPolicy> => client.get<ValidatingAdmissionPolicy>(validatingAdmissionPolicies, n);
  assert.deepEqual((await get('ok')).status, { observedGeneration: 1, typeChecking: {} });
  assert.deepEqual((await get('warned')).status, {
    observedGeneration: 1,
    typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope\n | ^\n" }] },
  });
  const applies = client.actions.filter((a) => a.verb === 'patch');
  assert.equal(applies.length, 2);

  // A label change keeps the generation: no new write. A spec change bumps it: the status follows.
  await client.patch(validatingAdmissionPolicies, 'ok', 'merge', { metadata: { labels: { a: 'b' } } });
  await ctx.settle();
  assert.equal(client.actions.filter((a) => a.verb === 'patch').length, 3);
  await client.patch(validatingAdmissionPolicies, 'ok', 'merge', { spec: { validations: [{ expression: 'false' }] } });
  await ctx.settle();
  const ok = await get('ok');
  assert.equal(ok.metadata?.generation, 2);
  assert.deepEqual(ok.status, { observedGeneration: 2, typeChecking: {} });
  assert.equal(client.actions.filter((a) => a.verb === 'patch').length, 5);
  assert.equal(FieldManager, 'validatingadmissionpolicy-status');
});
