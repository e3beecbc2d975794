import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { startController, type TestContext } from '../_testing/fakes.js';
import { create, ttlAnnotation } from './ttl.js';

const node = (name: string, annotations?: Record<string, string>): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, ...(annotations !== undefined ? { annotations } : {}) } });

async function started(t: { after: (f: () => void) => void }, client: FakeClient): Promise<TestContext> {
  const ctx = await startController(t, client, create);
  await ctx.settle();
  return ctx;
}

async function ttls(client: FakeClient): Promise<Record<string, string | undefined>> {
  const nodes = (await client.list<Node>(resources.nodes)).items;
  return Object.fromEntries(nodes.map((n) => [n.metadata?.name ?? '', n.metadata?.annotations?.[ttlAnnotation]]));
}

void test('a small cluster: every node gets ttl 0, kept beside its other annotations; a wrong or unreadable value is put right', async (t) => {
  const client = new FakeClient();
  await client.create(resources.nodes, node('a', { 'kubeadm.alpha.kubernetes.io/cri-socket': 'unix:///var/run/containerd/containerd.sock' }));
  await client.create(resources.nodes, node('b', { [ttlAnnotation]: '15' }));
  await client.create(resources.nodes, node('c', { [ttlAnnotation]: 'soon' }));
  const ctx = await started(t, client);
  assert.deepEqual(await ttls(client), { a: '0', b: '0', c: '0' });
  assert.equal((await client.get<Node>(resources.nodes, 'a')).metadata?.annotations?.['kubeadm.alpha.kubernetes.io/cri-socket'], 'unix:///var/run/containerd/containerd.sock');
  // A node already right costs no write.
  const writes = client.actions.filter((a) => a.verb === 'patch').length;
  await client.patch(resources.nodes, 'a', 'merge', { metadata: { labels: { x: 'y' } } });
  await ctx.settle();
  assert.equal(client.actions.filter((a) => a.verb === 'patch').length, writes + 1);
});

void test('cluster size steps: above 100 nodes 15 s, back to 0 only below 90 (the bounds overlap)', async (t) => {
  const client = new FakeClient();
  for (let i = 0; i < 100; i++) await client.create(resources.nodes, node(`n${i}`));
  const ctx = await started(t, client);
  assert.equal(new Set(Object.values(await ttls(client))).size, 1);
  assert.equal((await ttls(client))['n0'], '0');
  await client.create(resources.nodes, node('n100'));
  await ctx.settle();
  // The new node gets 15 at once; the others as their next update comes.
  assert.equal((await ttls(client))['n100'], '15');
  await client.patch(resources.nodes, 'n1', 'merge', { metadata: { labels: { touched: 'yes' } } });
  await ctx.settle();
  assert.equal((await ttls(client))['n1'], '15');
  for (let i = 100; i >= 90; i--) await client.delete(resources.nodes, `n${i}`);
  await ctx.settle();
  // 90 nodes: still inside the 15 s step (90..500).
  await client.patch(resources.nodes, 'n2', 'merge', { metadata: { labels: { touched: 'yes' } } });
  await ctx.settle();
  assert.equal((await ttls(client))['n2'], '15');
  await client.delete(resources.nodes, 'n89');
  await client.patch(resources.nodes, 'n3', 'merge', { metadata: { labels: { touched: 'yes' } } });
  await ctx.settle();
  assert.equal((await ttls(client))['n3'], '0');
});
