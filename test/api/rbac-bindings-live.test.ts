/**
 * RBAC decisions follow changes of bindings and roles at once: the authorizer keeps the binding lists and
 * each user's applied rules between requests only until the watch cache of an RBAC resource changes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resources } from '../../src/api/resources.js';
import { isApiError } from '../../src/api/errors.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';
import { InProcessClient } from '../../src/apiserver/in-process-client.js';

let srv: TestApiServer;
before(async () => {
  srv = await startTestApiServer();
});
after(async () => {
  await srv.stop();
});

async function canListPods(c: InProcessClient, namespace: string): Promise<boolean> {
  try {
    await c.list(resources.pods, { namespace });
    return true;
  } catch (e) {
    if (isApiError(e) && e.code === 403) return false;
    throw e;
  }
}

test('a RoleBinding or ClusterRoleBinding grants from the next request on, and its deletion revokes', async () => {
  const admin = srv.inProcess();
  const ann = new InProcessClient(srv.server, { user: { username: 'ann', groups: ['system:authenticated'] } });
  await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  assert.equal(await canListPods(ann, 'team'), false);
  assert.equal(await canListPods(ann, 'team'), false);

  const subjects = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'ann' }];
  const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
  await admin.create(resources.rolebindings, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'ann-view', namespace: 'team' }, subjects, roleRef });
  assert.equal(await canListPods(ann, 'team'), true);
  assert.equal(await canListPods(ann, 'default'), false);

  await admin.delete(resources.rolebindings, 'ann-view', { namespace: 'team' });
  assert.equal(await canListPods(ann, 'team'), false);

  await admin.create(resources.clusterrolebindings, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'ann-view' }, subjects, roleRef });
  assert.equal(await canListPods(ann, 'default'), true);
  assert.equal(await canListPods(ann, 'team'), true);
  await admin.delete(resources.clusterrolebindings, 'ann-view');
  assert.equal(await canListPods(ann, 'default'), false);
});

test('a changed Role or ClusterRole grants or revokes from the next request on', async () => {
  const admin = srv.inProcess();
  const bob = new InProcessClient(srv.server, { user: { username: 'bob', groups: ['system:authenticated'] } });
  await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } });
  const subjects = [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }];
  const getOnly = [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }];
  const getAndList = [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }];

  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pods', namespace: 'lab' }, rules: getOnly };
  await admin.create(resources.roles, role);
  await admin.create(resources.rolebindings, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'bob-pods', namespace: 'lab' }, subjects, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pods' } });
  assert.equal(await canListPods(bob, 'lab'), false);
  await admin.update(resources.roles, { ...(await admin.get<typeof role>(resources.roles, 'pods', { namespace: 'lab' })), rules: getAndList });
  assert.equal(await canListPods(bob, 'lab'), true);
  await admin.update(resources.roles, { ...(await admin.get<typeof role>(resources.roles, 'pods', { namespace: 'lab' })), rules: getOnly });
  assert.equal(await canListPods(bob, 'lab'), false);

  const clusterRole = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'bob-pods' }, rules: getOnly };
  await admin.create(resources.clusterroles, clusterRole);
  await admin.create(resources.clusterrolebindings, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'bob-pods' }, subjects, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bob-pods' } });
  assert.equal(await canListPods(bob, 'default'), false);
  await admin.update(resources.clusterroles, { ...(await admin.get<typeof clusterRole>(resources.clusterroles, 'bob-pods')), rules: getAndList });
  assert.equal(await canListPods(bob, 'default'), true);
  await admin.delete(resources.clusterroles, 'bob-pods');
  assert.equal(await canListPods(bob, 'default'), false);
});
