import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { RbacAuthorizer, type RbacSource } from './rbac.js';
import type { AuthorizationAttributes } from '../authz.js';
import { clusterRoles } from './bootstrap-policy.js';

// Builders in the shape of plugin/pkg/auth/authorizer/rbac/rbac_test.go.
const newRule = (verbs: string, groups: string, resources: string, urls: string): PolicyRule =>
  urls !== '' ? { verbs: verbs.split(','), nonResourceURLs: urls.split(',') } : { verbs: verbs.split(','), apiGroups: groups.split(','), resources: resources.split(',') };
const newClusterRole = (name: string, ...rules: PolicyRule[]): ClusterRole => ({ metadata: { name }, rules });
const subjects = (...s: string[]): Subject[] =>
  s.map((x) => {
    const [kind, name] = x.split(':', 2) as [string, string];
    return { kind, name, apiGroup: 'rbac.authorization.k8s.io' };
  });
const newClusterRoleBinding = (role: string, ...s: string[]): ClusterRoleBinding => ({ metadata: { name: role }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: subjects(...s) });
const newRoleBinding = (ns: string, role: string, kind: 'Role' | 'ClusterRole', ...s: string[]): RoleBinding => ({ metadata: { name: role, namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role }, subjects: subjects(...s) });

function source(o: { clusterRoles?: ClusterRole[]; roles?: Role[]; clusterRoleBindings?: ClusterRoleBinding[]; roleBindings?: RoleBinding[] }): RbacSource {
  return {
    getRole: async (ns, name) => o.roles?.find((r) => r.metadata?.namespace === ns && r.metadata.name === name),
    getClusterRole: async (name) => o.clusterRoles?.find((r) => r.metadata?.name === name),
    listClusterRoles: async () => o.clusterRoles ?? [],
    listRoleBindings: async (ns) => (o.roleBindings ?? []).filter((b) => b.metadata?.namespace === ns),
    listClusterRoleBindings: async () => o.clusterRoleBindings ?? [],
  };
}

/** `defaultAttributes{user, groups, verb, resource, subresource, namespace, path}` */
function attrs(user: string, groups: string, verb: string, resource: string, subresource: string, namespace: string, path: string): AuthorizationAttributes {
  return {
    user: { username: user, groups: groups === '' ? [] : groups.split(',') },
    verb,
    resourceRequest: path === '',
    group: '',
    version: 'v1',
    resource,
    subresource,
    namespace,
    name: '',
    path,
  };
}

type A = Parameters<typeof attrs>;
const cases: { name: string; src: RbacSource; shouldPass: A[]; shouldFail: A[] }[] = [
  {
    name: 'cluster role bound in a namespace',
    src: source({ clusterRoles: [newClusterRole('admin', newRule('*', '*', '*', ''))], roleBindings: [newRoleBinding('ns1', 'admin', 'ClusterRole', 'User:admin', 'Group:admins')] }),
    shouldPass: [
      ['admin', '', 'get', 'pods', '', 'ns1', ''],
      ['admin', '', 'watch', 'pods', '', 'ns1', ''],
      ['admin', 'group1', 'watch', 'foobar', '', 'ns1', ''],
      ['joe', 'admins', 'watch', 'foobar', '', 'ns1', ''],
      ['joe', 'group1,admins', 'watch', 'foobar', '', 'ns1', ''],
    ],
    shouldFail: [
      ['admin', '', 'GET', 'pods', '', 'ns2', ''],
      ['admin', '', 'GET', 'nodes', '', '', ''],
      ['admin', 'admins', 'GET', 'pods', '', 'ns2', ''],
      ['admin', 'admins', 'GET', 'nodes', '', '', ''],
    ],
  },
  {
    name: 'Non-resource-url tests',
    src: source({
      clusterRoles: [
        newClusterRole('non-resource-url-getter', newRule('get', '', '', '/apis')),
        newClusterRole('non-resource-url', newRule('*', '', '', '/apis')),
        newClusterRole('non-resource-url-prefix', newRule('get', '', '', '/apis/*')),
      ],
      clusterRoleBindings: [
        newClusterRoleBinding('non-resource-url-getter', 'User:foo', 'Group:bar'),
        newClusterRoleBinding('non-resource-url', 'User:admin', 'Group:admin'),
        newClusterRoleBinding('non-resource-url-prefix', 'User:prefixed', 'Group:prefixed'),
      ],
    }),
    shouldPass: [
      ['foo', '', 'get', '', '', '', '/apis'],
      ['', 'bar', 'get', '', '', '', '/apis'],
      ['admin', '', 'get', '', '', '', '/apis'],
      ['', 'admin', 'get', '', '', '', '/apis'],
      ['admin', '', 'watch', '', '', '', '/apis'],
      ['', 'admin', 'watch', '', '', '', '/apis'],
      ['prefixed', '', 'get', '', '', '', '/apis/v1'],
      ['', 'prefixed', 'get', '', '', '', '/apis/v1'],
      ['prefixed', '', 'get', '', '', '', '/apis/v1/foobar'],
    ],
    shouldFail: [
      ['foo', '', 'get', '', '', '', '/'],
      ['', 'bar', 'get', '', '', '', '/'],
      ['foo', '', 'get', '', '', '', '/root'],
      ['', 'bar', 'get', '', '', '', '/root'],
      ['foo', '', 'watch', '', '', '', '/apis'],
      ['', 'bar', 'watch', '', '', '', '/apis'],
      ['prefixed', '', 'get', '', '', '', '/api'],
      ['', 'prefixed', 'get', '', '', '', '/api'],
      ['prefixed', '', 'get', '', '', '', '/api/v1'],
      ['', 'prefixed', 'get', '', '', '', '/api/v1'],
    ],
  },
  {
    name: 'test subresource resolution',
    src: source({ clusterRoles: [newClusterRole('admin', newRule('*', '*', 'pods', ''))], roleBindings: [newRoleBinding('ns1', 'admin', 'ClusterRole', 'User:admin', 'Group:admins')] }),
    shouldPass: [['admin', '', 'get', 'pods', '', 'ns1', '']],
    shouldFail: [['admin', '', 'get', 'pods', 'status', 'ns1', '']],
  },
  {
    name: 'test subresource resolution with wildcards',
    src: source({
      clusterRoles: [newClusterRole('admin', newRule('*', '*', 'pods/status', ''), newRule('*', '*', '*/scale', ''))],
      roleBindings: [newRoleBinding('ns1', 'admin', 'ClusterRole', 'User:admin', 'Group:admins')],
    }),
    shouldPass: [
      ['admin', '', 'get', 'pods', 'status', 'ns1', ''],
      ['admin', '', 'get', 'foo', 'scale', 'ns1', ''],
      ['admin', '', 'get', 'pods', 'scale', 'ns1', ''],
    ],
    shouldFail: [
      ['admin', '', 'get', 'pods', '', 'ns1', ''],
      ['admin', '', 'get', 'pods', 'foo', 'ns1', ''],
    ],
  },
];

for (const tc of cases) {
  test(tc.name, async () => {
    const a = new RbacAuthorizer(tc.src);
    for (const p of tc.shouldPass) assert.equal((await a.authorize(attrs(...p))).decision, 'allow', `should pass: ${p.join(' ')}`);
    for (const f of tc.shouldFail) assert.equal((await a.authorize(attrs(...f))).decision, 'noOpinion', `should fail: ${f.join(' ')}`);
  });
}

test('a binding to a missing role is reported in the reason', async () => {
  const a = new RbacAuthorizer(source({ clusterRoleBindings: [newClusterRoleBinding('gone', 'User:alice')], roleBindings: [newRoleBinding('ns1', 'missing', 'Role', 'User:alice')] }));
  assert.deepEqual(await a.authorize(attrs('alice', '', 'get', 'pods', '', 'ns1', '')), {
    decision: 'noOpinion',
    reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "missing" not found]',
  });
  assert.deepEqual(await a.authorize(attrs('alice', '', 'get', 'nodes', '', '', '')), { decision: 'noOpinion', reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' });
  assert.deepEqual(await a.authorize(attrs('bob', '', 'get', 'pods', '', 'ns1', '')), { decision: 'noOpinion', reason: '' });
});

test('aggregated ClusterRoles grant the rules of the roles they select, transitively (view -> edit -> admin)', async () => {
  const a = new RbacAuthorizer(source({ clusterRoles: clusterRoles(), roleBindings: [newRoleBinding('ns1', 'admin', 'ClusterRole', 'User:ann'), newRoleBinding('ns1', 'view', 'ClusterRole', 'User:vic')] }));
  const can = async (user: string, verb: string, resource: string, group = ''): Promise<string> => (await a.authorize({ ...attrs(user, '', verb, resource, '', 'ns1', ''), group })).decision;
  assert.equal(await can('ann', 'list', 'pods'), 'allow');
  assert.equal(await can('ann', 'create', 'rolebindings', 'rbac.authorization.k8s.io'), 'allow');
  assert.equal(await can('ann', 'create', 'deployments', 'apps'), 'allow');
  assert.equal(await can('vic', 'list', 'deployments', 'apps'), 'allow');
  assert.equal(await can('vic', 'create', 'deployments', 'apps'), 'noOpinion');
  assert.equal(await can('vic', 'get', 'secrets'), 'noOpinion');
});

test('service account subjects default to the binding namespace', async () => {
  const b: RoleBinding = { metadata: { name: 'sa', namespace: 'ns1' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'ServiceAccount', name: 'default' }] };
  const a = new RbacAuthorizer(source({ clusterRoles: [newClusterRole('admin', newRule('*', '*', '*', ''))], roleBindings: [b] }));
  assert.equal((await a.authorize(attrs('system:serviceaccount:ns1:default', '', 'get', 'pods', '', 'ns1', ''))).decision, 'allow');
  assert.equal((await a.authorize(attrs('system:serviceaccount:ns2:default', '', 'get', 'pods', '', 'ns1', ''))).decision, 'noOpinion');
});

test('rulesFor lists the rules of every binding that applies', async () => {
  const a = new RbacAuthorizer(source({ clusterRoles: [newClusterRole('r', newRule('get,list', '', 'pods', ''), newRule('get', '', '', '/healthz'))], roleBindings: [newRoleBinding('ns1', 'r', 'ClusterRole', 'User:u')] }));
  assert.deepEqual(await a.rulesFor({ username: 'u', groups: [] }, 'ns1'), {
    resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    incomplete: false,
    errors: [],
  });
});

test('with a policyVersion the applied rules are read once per user, groups and namespace until it changes', async () => {
  const o = { clusterRoles: [newClusterRole('reader', newRule('get', '', 'pods', ''))], roleBindings: [newRoleBinding('ns1', 'reader', 'ClusterRole', 'User:ann', 'Group:readers')] };
  let version = 1;
  let bindingReads = 0;
  const plain = source(o);
  const a = new RbacAuthorizer({
    ...plain,
    listRoleBindings: async (ns) => {
      bindingReads++;
      return plain.listRoleBindings(ns);
    },
    policyVersion: async () => String(version),
  });
  const decide = async (user: string, groups: string, ns: string): Promise<string> => (await a.authorize(attrs(user, groups, 'get', 'pods', '', ns, ''))).decision;
  assert.equal(await decide('ann', '', 'ns1'), 'allow');
  assert.equal(await decide('ann', '', 'ns1'), 'allow');
  assert.equal(bindingReads, 1);
  // Other groups, another namespace: other rule sets.
  assert.equal(await decide('bob', 'readers', 'ns1'), 'allow');
  assert.equal(await decide('bob', '', 'ns1'), 'noOpinion');
  assert.equal(await decide('ann', '', 'ns2'), 'noOpinion');
  assert.equal(bindingReads, 4);
  // Unchanged version: the kept answer stands even if the objects were changed behind its back.
  o.roleBindings = [];
  assert.equal(await decide('ann', '', 'ns1'), 'allow');
  version++;
  assert.equal(await decide('ann', '', 'ns1'), 'noOpinion');
  // A missing role's error is kept in its place.
  o.roleBindings = [newRoleBinding('ns1', 'gone', 'ClusterRole', 'User:ann')];
  version++;
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(await a.authorize(attrs('ann', '', 'get', 'pods', '', 'ns1', '')), { decision: 'noOpinion', reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' });
  }
});
