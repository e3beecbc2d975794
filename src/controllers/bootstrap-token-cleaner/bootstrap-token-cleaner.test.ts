import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { FakeClient } from '../_testing/fake-client.js';
import { FakeClock, TestContext } from '../_testing/fakes.js';
import { resources } from '../../api/resources.js';
import { tokenSecret } from '../../bootstrap/token.js';
import { computeDetachedSignature } from '../../bootstrap/jws.js';
import { clusterInfoConfigMap } from '../../bootstrap/cluster-info.js';
import { TokenCleaner } from './bootstrap-token-cleaner.js';
import { BootstrapSigner } from './bootstrap-signer.js';

const start = Date.parse('2025-01-01T00:00:00Z');

test('the token cleaner deletes a token Secret once it has expired, and leaves others alone', async () => {
  const clock = new FakeClock(start);
  const client = new FakeClient({ now: () => clock.now() });
  await client.create(resources.secrets, tokenSecret({ token: { id: 'aaaaaa', secret: '0123456789abcdef' }, ttlMs: 60_000, now: new Date(start) }));
  await client.create(resources.secrets, tokenSecret({ token: { id: 'bbbbbb', secret: '0123456789abcdef' }, ttlMs: 0, now: new Date(start) }));
  await client.create<Secret>(resources.secrets, { metadata: { name: 'other', namespace: 'kube-system' }, type: 'Opaque', data: { expiration: Buffer.from('2000-01-01T00:00:00Z').toString('base64') } });
  const ctx = new TestContext(client, clock);
  const c = new TokenCleaner(ctx);
  c.start();
  ctx.startInformers();
  await ctx.settle();
  assert.deepEqual(client.actions.filter((a) => a.verb === 'delete'), []);
  clock.step(62_000);
  await ctx.settle();
  assert.deepEqual(client.actions.filter((a) => a.verb === 'delete').map((a) => a.name), ['bootstrap-token-aaaaaa']);
  ctx.stop();
});

test('the bootstrap signer signs cluster-info per signing token and drops signatures of removed tokens', async () => {
  const clock = new FakeClock(start);
  const client = new FakeClient({ now: () => clock.now() });
  const cm = clusterInfoConfigMap('https://127.0.0.1:6443', 'CA');
  await client.create(resources.configmaps, cm);
  await client.create(resources.secrets, tokenSecret({ token: { id: 'aaaaaa', secret: '0123456789abcdef' }, now: new Date(start) }));
  await client.create(resources.secrets, tokenSecret({ token: { id: 'cccccc', secret: '0123456789abcdef' }, usages: ['authentication'], now: new Date(start) }));
  const ctx = new TestContext(client, clock);
  const s = new BootstrapSigner(ctx);
  s.start();
  ctx.startInformers();
  await ctx.settle();
  const kubeconfig = cm.data?.['kubeconfig'] ?? '';
  let live = await client.get<ConfigMap>(resources.configmaps, 'cluster-info', { namespace: 'kube-public' });
  assert.deepEqual(Object.keys(live.data ?? {}).sort(), ['jws-kubeconfig-aaaaaa', 'kubeconfig']);
  assert.equal(live.data?.['jws-kubeconfig-aaaaaa'], computeDetachedSignature(kubeconfig, 'aaaaaa', '0123456789abcdef'));
  await client.delete(resources.secrets, 'bootstrap-token-aaaaaa', { namespace: 'kube-system' });
  await ctx.settle();
  live = await client.get<ConfigMap>(resources.configmaps, 'cluster-info', { namespace: 'kube-public' });
  assert.deepEqual(Object.keys(live.data ?? {}), ['kubeconfig']);
  ctx.stop();
});
