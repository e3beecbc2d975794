import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { waitFor, startController } from '../_testing/fakes.js';
import { makePod } from '../_testing/builders.js';
import { create, namespaceConditions } from './namespace.js';

void test('namespace deletion conditions', async (t) => {
  await t.test('all content removed', () => {
    const c = namespaceConditions({ remaining: new Map(), finalizers: new Map(), errors: [] }, [], 0);
    assert.deepEqual(
      c.map((x) => [x.type, x.status, x.reason, x.message]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
        ['NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed'],
        ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
      ],
    );
  });
  await t.test('content and finalizers remaining', () => {
    const c = namespaceConditions(
      { remaining: new Map([['pods.', 2], ['deployments.apps', 1]]), finalizers: new Map([['example.com/hold', 2]]), errors: [] },
      [],
      0,
    );
    const byType = new Map(c.map((x) => [x.type, x]));
    assert.deepEqual(
      [byType.get('NamespaceContentRemaining')?.reason, byType.get('NamespaceContentRemaining')?.message],
      ['SomeResourcesRemain', 'Some resources are remaining: deployments.apps has 1 resource instances, pods. has 2 resource instances'],
    );
    assert.deepEqual(
      [byType.get('NamespaceFinalizersRemaining')?.reason, byType.get('NamespaceFinalizersRemaining')?.message],
      ['SomeFinalizersRemain', 'Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances'],
    );
  });
});

void test('a Terminating namespace is emptied, then finalized and removed', async (t) => {
  const client = new FakeClient();
  const ctx = await startController(t, client, create);
  await client.create<Namespace>(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'team' } });
  const held = makePod('held', 'team').obj();
  (held.metadata as { finalizers?: string[] }).finalizers = ['example.com/hold'];
  await client.create(resources.pods, held);
  await client.create(resources.pods, makePod('free', 'team').obj());
  await client.delete(resources.namespaces, 'team');
  await waitFor(() => client.peekAll(resources.configmaps, 'team').length === 0);
  await waitFor(() =>
    client.peek<Namespace>(resources.namespaces, 'team')?.status?.conditions?.some((x) => x.type === 'NamespaceContentRemaining' && x.status === 'True') === true,
  );
  const ns = client.peek<Namespace>(resources.namespaces, 'team');
  assert.equal(ns?.status?.phase, 'Terminating');
  assert.equal(ns?.status?.conditions?.find((x) => x.type === 'NamespaceContentRemaining')?.message, 'Some resources are remaining: pods. has 1 resource instances');
  assert.deepEqual(ns?.spec?.finalizers, ['kubernetes']);
  const p = client.peek<Pod>(resources.pods, 'held', 'team') as Pod;
  await client.update(resources.pods, { ...p, metadata: { ...p.metadata, finalizers: [] } });
  ctx.clock.step(5000);
  await waitFor(() => client.peek(resources.namespaces, 'team') === undefined);
  assert.ok(client.actions.some((a) => a.resource === 'namespaces' && a.subresource === 'finalize'));
});
