/**
 * pkg/apis/rbac/validation/validation_test.go (v1.32), case by case. Upstream checks each error's type and
 * field; these assert the whole message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { fieldErrorString } from '../../api/field-errors.js';
import { validate } from './index.js';

const group = 'rbac.authorization.k8s.io';
const kinds = {
  Role: { group, kind: 'Role' },
  ClusterRole: { group, kind: 'ClusterRole' },
  RoleBinding: { group, kind: 'RoleBinding' },
  ClusterRoleBinding: { group, kind: 'ClusterRoleBinding' },
};
const errs = (kind: { group: string; kind: string }, obj: object, old?: object): string[] => validate(kind, obj as never, old as never).map(fieldErrorString);

// ---- TestValidateRoleBinding / TestValidateClusterRoleBinding ----

const validSubjects: Subject[] = [
  { name: 'validsaname', apiGroup: '', kind: 'ServiceAccount', namespace: 'foo' },
  { name: 'valid@username', apiGroup: group, kind: 'User' },
  { name: 'valid@groupname', apiGroup: group, kind: 'Group' },
];

test('RoleBinding: valid subjects of every kind', () => {
  const rb: RoleBinding = { metadata: { namespace: 'default', name: 'master' }, roleRef: { apiGroup: group, kind: 'Role', name: 'valid' }, subjects: validSubjects };
  assert.deepEqual(errs(kinds.RoleBinding, rb), []);
});

test('ClusterRoleBinding: valid subjects of every kind', () => {
  const crb: ClusterRoleBinding = { metadata: { name: 'master' }, roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'valid' }, subjects: validSubjects };
  assert.deepEqual(errs(kinds.ClusterRoleBinding, crb), []);
});

const roleBindingErrorCases: { name: string; rb: RoleBinding; want: string[] }[] = [
  {
    name: 'bad group',
    rb: { metadata: { namespace: 'default', name: 'default' }, roleRef: { apiGroup: 'rbac.GroupName.foo', kind: 'ClusterRole', name: 'valid' } },
    want: ['roleRef.apiGroup: Unsupported value: "rbac.GroupName.foo": supported values: "rbac.authorization.k8s.io"'],
  },
  {
    name: 'bad kind',
    rb: { metadata: { namespace: 'default', name: 'default' }, roleRef: { apiGroup: group, kind: 'Type', name: 'valid' } },
    want: ['roleRef.kind: Unsupported value: "Type": supported values: "Role", "ClusterRole"'],
  },
  {
    name: 'reference role',
    rb: { metadata: { namespace: 'default', name: 'default' }, roleRef: { apiGroup: group, kind: 'Role', name: '.' } },
    want: [`roleRef.name: Invalid value: ".": may not be '.'`],
  },
  { name: 'zero-length namespace', rb: { metadata: { name: 'default' }, roleRef: { apiGroup: group, kind: 'Role', name: 'valid' } }, want: ['metadata.namespace: Required value'] },
  {
    name: 'zero-length name',
    rb: { metadata: { namespace: 'default' }, roleRef: { apiGroup: group, kind: 'Role', name: 'valid' } },
    want: ['metadata.name: Required value: name or generateName is required'],
  },
  { name: 'bad role', rb: { metadata: { namespace: 'default', name: 'default' }, roleRef: { apiGroup: group, kind: 'Role' } as never }, want: ['roleRef.name: Required value'] },
  {
    name: 'bad subject kind',
    rb: { metadata: { namespace: 'default', name: 'master' }, roleRef: { apiGroup: group, kind: 'Role', name: 'valid' }, subjects: [{ name: 'subject' } as Subject] },
    want: ['subjects[0].kind: Unsupported value: "": supported values: "ServiceAccount", "User", "Group"'],
  },
  {
    name: 'bad subject name',
    rb: { metadata: { namespace: 'default', name: 'master' }, roleRef: { apiGroup: group, kind: 'Role', name: 'valid' }, subjects: [{ namespace: 'foo', name: 'subject:bad', kind: 'ServiceAccount' }] },
    want: [
      `subjects[0].name: Invalid value: "subject:bad": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  },
  {
    name: 'missing subject name',
    rb: { metadata: { namespace: 'default', name: 'master' }, roleRef: { apiGroup: group, kind: 'Role', name: 'valid' }, subjects: [{ namespace: 'foo', kind: 'ServiceAccount' } as Subject] },
    want: ['subjects[0].name: Required value'],
  },
  {
    name: 'service account subject with an API group',
    rb: { metadata: { namespace: 'default', name: 'master' }, roleRef: { apiGroup: group, kind: 'Role', name: 'valid' }, subjects: [{ name: 'sa', apiGroup: group, kind: 'ServiceAccount' }] },
    want: ['subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""'],
  },
  {
    name: 'user subject without the RBAC API group',
    rb: { metadata: { namespace: 'default', name: 'master' }, roleRef: { apiGroup: group, kind: 'Role', name: 'valid' }, subjects: [{ name: 'jane', kind: 'User' }] },
    want: ['subjects[0].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"'],
  },
];

for (const tc of roleBindingErrorCases) {
  test(`RoleBinding: ${tc.name}`, () => {
    assert.deepEqual(errs(kinds.RoleBinding, tc.rb), tc.want);
  });
}

const clusterRoleBindingErrorCases: { name: string; crb: ClusterRoleBinding; want: string[] }[] = [
  {
    name: 'bad kind (a ClusterRoleBinding binds only ClusterRoles)',
    crb: { metadata: { name: 'default' }, roleRef: { apiGroup: group, kind: 'Role', name: 'valid' } },
    want: ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"'],
  },
  {
    name: 'missing SA namespace',
    crb: { metadata: { name: 'master' }, roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'valid' }, subjects: [{ name: 'good', kind: 'ServiceAccount' }] },
    want: ['subjects[0].namespace: Required value'],
  },
  {
    name: 'namespace on a cluster-scoped binding',
    crb: { metadata: { name: 'master', namespace: 'default' }, roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'valid' } },
    want: ['metadata.namespace: Forbidden: not allowed on this type'],
  },
];

for (const tc of clusterRoleBindingErrorCases) {
  test(`ClusterRoleBinding: ${tc.name}`, () => {
    assert.deepEqual(errs(kinds.ClusterRoleBinding, tc.crb), tc.want);
  });
}

// ---- TestValidateRoleBindingUpdate / TestValidateClusterRoleBindingUpdate ----

test('RoleBinding update: changedRef', () => {
  const old: RoleBinding = { metadata: { namespace: 'default', name: 'master', resourceVersion: '1' }, roleRef: { apiGroup: group, kind: 'Role', name: 'valid' } };
  assert.deepEqual(errs(kinds.RoleBinding, old, old), []);
  const changed: RoleBinding = { ...old, roleRef: { apiGroup: group, kind: 'Role', name: 'changed' } };
  assert.deepEqual(errs(kinds.RoleBinding, changed, old), ['roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"changed"}: cannot change roleRef']);
});

test('ClusterRoleBinding update: changedRef; subjects may change', () => {
  const old: ClusterRoleBinding = { metadata: { name: 'master', resourceVersion: '1' }, roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'valid' } };
  assert.deepEqual(errs(kinds.ClusterRoleBinding, { ...old, subjects: validSubjects }, old), []);
  const changed: ClusterRoleBinding = { ...old, roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'changed' } };
  assert.deepEqual(errs(kinds.ClusterRoleBinding, changed, old), ['roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"changed"}: cannot change roleRef']);
});

// ---- TestValidateRole* (roles and cluster roles share ValidatePolicyRule) ----

const roleCases: { name: string; role: Role | ClusterRole; namespaced: boolean; want: string[] }[] = [
  { name: 'ZeroLengthNamespace', role: { metadata: { name: 'default' } }, namespaced: true, want: ['metadata.namespace: Required value'] },
  { name: 'ZeroLengthName', role: { metadata: { namespace: 'default' } }, namespaced: true, want: ['metadata.name: Required value: name or generateName is required'] },
  { name: 'ValidRole', role: { metadata: { namespace: 'default', name: 'default' } }, namespaced: true, want: [] },
  { name: 'ValidRoleNoNamespace', role: { metadata: { name: 'default' } }, namespaced: false, want: [] },
  { name: 'NonResourceURL', role: { metadata: { name: 'default' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/*'] }] }, namespaced: false, want: [] },
  {
    name: 'NamespacedNonResourceURL',
    role: { metadata: { namespace: 'default', name: 'default' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/*'] }] },
    namespaced: true,
    want: ['rules[0].nonResourceURLs: Invalid value: []string{"/*"}: namespaced rules cannot apply to non-resource URLs'],
  },
  {
    name: 'NonResourceURLNoVerbs',
    role: { metadata: { name: 'default' }, rules: [{ verbs: [], nonResourceURLs: ['/*'] }] },
    namespaced: false,
    want: ['rules[0].verbs: Required value: verbs must contain at least one value'],
  },
  {
    name: 'MixedNonResourceAndResource',
    role: { metadata: { name: 'default' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/*'], apiGroups: ['v1'], resources: ['pods'] }] },
    namespaced: false,
    want: ['rules[0].nonResourceURLs: Invalid value: []string{"/*"}: rules cannot apply to both regular resources and non-resource URLs'],
  },
  { name: 'ValidResource', role: { metadata: { name: 'default' }, rules: [{ verbs: ['get'], apiGroups: ['v1'], resources: ['pods'] }] }, namespaced: false, want: [] },
  {
    name: 'NoAPIGroup',
    role: { metadata: { name: 'default' }, rules: [{ verbs: ['get'], resources: ['pods'] }] },
    namespaced: false,
    want: ['rules[0].apiGroups: Required value: resource rules must supply at least one api group'],
  },
  {
    name: 'NoResources',
    role: { metadata: { name: 'default' }, rules: [{ verbs: ['get'], apiGroups: ['v1'] }] },
    namespaced: false,
    want: ['rules[0].resources: Required value: resource rules must supply at least one resource'],
  },
];

for (const tc of roleCases) {
  test(`TestValidateRole${tc.name}`, () => {
    assert.deepEqual(errs(tc.namespaced ? kinds.Role : kinds.ClusterRole, tc.role), tc.want);
  });
}

test('RBAC names are path segments, generateName included', () => {
  assert.deepEqual(errs(kinds.ClusterRole, { metadata: { name: 'system:controller:Foo_Bar' } }), []);
  assert.deepEqual(errs(kinds.ClusterRole, { metadata: { name: 'a/b' } }), [`metadata.name: Invalid value: "a/b": may not contain '/'`]);
  assert.deepEqual(errs(kinds.Role, { metadata: { generateName: '..', name: 'x', namespace: 'default' } }), [`metadata.generateName: Invalid value: "..": may not be '..'`]);
});

test('Role update: metadata rules on top of the role rules', () => {
  const old: Role = { metadata: { namespace: 'default', name: 'r', resourceVersion: '1' } };
  assert.deepEqual(errs(kinds.Role, { metadata: { namespace: 'default', name: 'other', resourceVersion: '1' }, rules: [{ verbs: ['get'] }] }, old), [
    'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
    'rules[0].resources: Required value: resource rules must supply at least one resource',
    'metadata.name: Invalid value: "other": field is immutable',
  ]);
});

// ---- aggregated cluster roles ----

test('ClusterRole: an aggregation rule needs at least one selector', () => {
  assert.deepEqual(errs(kinds.ClusterRole, { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [] } }), [
    'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
  ]);
  assert.deepEqual(errs(kinds.ClusterRole, { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-view': 'true' } }] } }), []);
});

const badValueSelector = { matchExpressions: [{ key: 'app', operator: 'In', values: ['not valid'] }] };
const badValueMsg = `aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[0]: Invalid value: "not valid": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`;
const invalidSelectorMsg = 'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.';

test('ClusterRole: a selector the label parser refuses is also an invalid label selector', () => {
  assert.deepEqual(errs(kinds.ClusterRole, { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [badValueSelector] } }), [badValueMsg, invalidSelectorMsg]);
});

test('ClusterRole update: a stored invalid selector value skips the value check, not the parser', () => {
  const old: ClusterRole = { metadata: { name: 'agg', resourceVersion: '1' }, aggregationRule: { clusterRoleSelectors: [badValueSelector] } };
  assert.deepEqual(errs(kinds.ClusterRole, old, old), [invalidSelectorMsg]);
});
