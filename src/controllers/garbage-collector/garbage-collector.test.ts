import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { resources } from '../../api/resources.js';
import type { KubeObject } from '../../client/client.js';
import { FakeClient } from '../_testing/fake-client.js';
import { TestContext, waitFor } from '../_testing/fakes.js';
import { makePod, replicaSet } from '../_testing/builders.js';
import { create, resourceForRef } from './garbage-collector.js';

async function setup(t: { after(fn: () => void): void }): Promise<{ client: FakeClient; ctx: TestContext }> {
  const client = new FakeClient();
  const ctx = new TestContext(client);
  const gc = create(ctx);
  gc.start();
  ctx.startInformers();
  // The collector creates its informers once it has probed which resources are served.
  await waitFor(() => ctx.informerCount() > 10);
  await ctx.settle();
  await ctx.waitForSync();
  t.after(() => {
    gc.stop();
    ctx.stop();
  });
  return { client, ctx };
}

function ref(o: KubeObject, block = true): OwnerReference {
  return { apiVersion: o.apiVersion ?? '', kind: o.kind ?? '', name: o.metadata?.name ?? '', uid: o.metadata?.uid ?? '', controller: true, blockOwnerDeletion: block };
}

async function ownedPods(client: FakeClient, owner: KubeObject, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const p = makePod(`${owner.metadata?.name ?? ''}-${i}`).obj();
    (p.metadata as { ownerReferences?: OwnerReference[] }).ownerReferences = [ref(owner)];
    await client.create(resources.pods, p);
  }
}

void test('resourceForRef maps apiVersion and kind to the served resource', () => {
  assert.equal(resourceForRef({ apiVersion: 'apps/v1', kind: 'ReplicaSet' })?.resource, 'replicasets');
  assert.equal(resourceForRef({ apiVersion: 'v1', kind: 'Node' })?.resource, 'nodes');
  assert.equal(resourceForRef({ apiVersion: 'example.com/v1', kind: 'Widget' }), undefined);
});

void test('background: dependents are deleted after their owner is gone', async (t) => {
  const { client, ctx } = await setup(t);
  const rs = await client.create(resources.replicasets, replicaSet('web', 2));
  await ownedPods(client, rs, 2);
  await ctx.settle();
  await client.delete(resources.replicasets, 'web', { namespace: 'default', propagationPolicy: 'Background' });
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 0);
  const deletes = client.actions.filter((a) => a.verb === 'delete' && a.resource === 'pods').map((a) => a.name).sort();
  assert.deepEqual(deletes, ['web-0', 'web-1']);
});

void test('foreground: the owner waits with foregroundDeletion until its blocking dependents are gone', async (t) => {
  const { client, ctx } = await setup(t);
  const rs = await client.create(resources.replicasets, replicaSet('web', 2));
  await ownedPods(client, rs, 2);
  const keep = makePod('blocker').obj();
  (keep.metadata as { ownerReferences?: OwnerReference[]; finalizers?: string[] }).ownerReferences = [ref(rs)];
  (keep.metadata as { finalizers?: string[] }).finalizers = ['example.com/hold'];
  await client.create(resources.pods, keep);
  await ctx.settle();
  await client.delete(resources.replicasets, 'web', { namespace: 'default', propagationPolicy: 'Foreground' });
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 1);
  await ctx.settle();
  const waiting = client.peek<ReplicaSet>(resources.replicasets, 'web', 'default');
  assert.deepEqual(waiting?.metadata?.finalizers, ['foregroundDeletion'], 'owner still present while a blocking dependent remains');
  assert.ok(waiting?.metadata?.deletionTimestamp !== undefined);
  const blocker = client.peek<Pod>(resources.pods, 'blocker', 'default') as Pod;
  await client.update(resources.pods, { ...blocker, metadata: { ...blocker.metadata, finalizers: [] } });
  await waitFor(() => client.peek(resources.replicasets, 'web', 'default') === undefined);
});

void test('foreground through a chain: Deployment -> ReplicaSet -> Pods, the Deployment goes last', async (t) => {
  const { client, ctx } = await setup(t);
  const d = await client.create<Deployment>(resources.deployments, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'app', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'app' } }, template: {} },
  });
  const rsObj = replicaSet('app-abc', 2);
  (rsObj.metadata as { ownerReferences?: OwnerReference[] }).ownerReferences = [ref(d)];
  const rs = await client.create(resources.replicasets, rsObj);
  await ownedPods(client, rs, 2);
  await ctx.settle();
  await client.delete(resources.deployments, 'app', { namespace: 'default', propagationPolicy: 'Foreground' });
  await waitFor(() => client.peek(resources.deployments, 'app', 'default') === undefined);
  assert.equal(client.peekAll(resources.replicasets).length, 0);
  assert.equal(client.peekAll(resources.pods).length, 0);
});

void test('orphan: dependents lose the ownerReference and stay; the owner goes', async (t) => {
  const { client, ctx } = await setup(t);
  const rs = await client.create(resources.replicasets, replicaSet('web', 2));
  await ownedPods(client, rs, 2);
  await ctx.settle();
  await client.delete(resources.replicasets, 'web', { namespace: 'default', propagationPolicy: 'Orphan' });
  await waitFor(() => client.peek(resources.replicasets, 'web', 'default') === undefined);
  await ctx.settle();
  const pods = client.peekAll<Pod>(resources.pods);
  assert.equal(pods.length, 2);
  for (const p of pods) assert.equal(p.metadata?.ownerReferences, undefined);
});

void test('a dependent with another live owner only loses the dangling reference', async (t) => {
  const { client, ctx } = await setup(t);
  const a = await client.create<ConfigMap>(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } });
  const b = await client.create<ConfigMap>(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default' } });
  const dep = await client.create<ConfigMap>(resources.configmaps, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'dep', namespace: 'default', ownerReferences: [ref(a, false), { ...ref(b, false), controller: false }] },
  });
  await ctx.settle();
  await client.delete(resources.configmaps, 'a', { namespace: 'default' });
  await waitFor(() => client.peek<ConfigMap>(resources.configmaps, 'dep', 'default')?.metadata?.ownerReferences?.length === 1);
  assert.equal(client.peek<ConfigMap>(resources.configmaps, 'dep', 'default')?.metadata?.ownerReferences?.[0]?.uid, b.metadata?.uid);
  assert.equal(dep.metadata?.name, 'dep');
});

void test('an object created with an owner that does not exist is collected', async (t) => {
  const { client } = await setup(t);
  const p = makePod('stray').obj();
  (p.metadata as { ownerReferences?: OwnerReference[] }).ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gone', uid: 'no-such-uid', controller: true }];
  await client.create(resources.pods, p);
  await waitFor(() => client.peek(resources.pods, 'stray', 'default') === undefined);
});
