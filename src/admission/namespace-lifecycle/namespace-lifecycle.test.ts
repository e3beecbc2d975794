import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Namespace, Pod } from 'kubernetes-types/core/v1.js';
import { ApiError } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { attrs, fakeLookup } from '../_testing.js';
import { create } from './namespace-lifecycle.js';

const active: Namespace = { metadata: { name: 'default' }, status: { phase: 'Active' } };
const terminating: Namespace = { metadata: { name: 'dying' }, status: { phase: 'Terminating' } };
const lookup = fakeLookup({ namespaces: [active, terminating] });
const pod = (ns: string): Pod => ({ metadata: { name: 'p', namespace: ns }, spec: { containers: [] } });

test('creating in a missing namespace is 404 namespaces "x" not found', async () => {
  // shared/fixtures/apiserver-1.32/errors/404-namespace-not-found.json
  await assert.rejects(create().admit(attrs(pod('nosuchns')), lookup), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.deepEqual(e.toStatus(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'namespaces "nosuchns" not found',
      reason: 'NotFound',
      details: { name: 'nosuchns', kind: 'namespaces' },
      code: 404,
    });
    return true;
  });
});

test('creating in a terminating namespace is forbidden, with the NamespaceTerminating cause', async () => {
  await assert.rejects(create().admit(attrs(pod('dying')), lookup), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, 403);
    assert.equal(e.message, 'pods "p" is forbidden: unable to create new content in namespace dying because it is being terminated');
    assert.deepEqual(e.details?.causes, [{ reason: 'NamespaceTerminating', message: 'namespace dying is being terminated', field: 'metadata.namespace' }]);
    return true;
  });
});

test('updates and deletes in a terminating namespace are allowed', async () => {
  const p = create();
  await p.admit(attrs(pod('dying'), { operation: 'UPDATE' }), lookup);
  await p.admit(attrs(pod('dying'), { operation: 'DELETE' }), lookup);
});

test('the immortal namespaces may not be deleted', async () => {
  for (const name of ['default', 'kube-system', 'kube-public']) {
    await assert.rejects(create().admit(attrs(undefined, { operation: 'DELETE', resource: resources.namespaces, name }), lookup), {
      message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
    });
  }
  await create().admit(attrs(undefined, { operation: 'DELETE', resource: resources.namespaces, name: 'dying' }), lookup);
});

test('cluster-scoped resources and namespaces themselves are always allowed', async () => {
  const p = create();
  await p.admit(attrs({ metadata: { name: 'n1' } }, { resource: resources.nodes }), lookup);
  await p.admit(attrs({ metadata: { name: 'new-ns' } }, { resource: resources.namespaces }), lookup);
  const cm: ConfigMap = { metadata: { name: 'c', namespace: 'default' } };
  await p.admit(attrs(cm, { resource: resources.configmaps }), lookup);
});
