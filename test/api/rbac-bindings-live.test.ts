/**
 * RBAC decisions follow binding changes at once: the authorizer keeps the binding lists between requests
 * only until the watch cache of their resource changes.
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
