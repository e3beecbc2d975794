import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { TestContext, startController } from '../_testing/fakes.js';
import { template } from '../_testing/builders.js';
import { create, getOrdinal, newStatefulSetPod } from './statefulset.js';

function sts(replicas: number, policy: 'OrderedReady' | 'Parallel' = 'OrderedReady'): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      serviceName: 'nginx',
      podManagementPolicy: policy,
      selector: { matchLabels: { app: 'web' } },
      template: template({ app: 'web' }),
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  };
}

void test('getOrdinal and the pod identity', () => {
  const s = sts(1);
  assert.equal(getOrdinal(s, { metadata: { name: 'web-3' } }), 3);
  assert.equal(getOrdinal(s, { metadata: { name: 'web-03' } }), -1);
  assert.equal(getOrdinal(s, { metadata: { name: 'webx-1' } }), -1);
  const p = newStatefulSetPod(s, 2, 'web-abc');
  assert.equal(p.metadata?.name, 'web-2');
  assert.equal(p.spec?.hostname, 'web-2');
  assert.equal(p.spec?.subdomain, 'nginx');
  assert.deepEqual(p.metadata?.labels, { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-2', 'apps.kubernetes.io/pod-index': '2', 'controller-revision-hash': 'web-abc' });
  assert.deepEqual(p.spec?.volumes, [{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-2' } }]);
});

interface H {
  client: FakeClient;
  ctx: TestContext;
}

async function setup(t: { after(fn: () => void): void }): Promise<H> {
  const client = new FakeClient();
  const ctx = await startController(t, client, create);
  return { client, ctx };
}

async function runAll(h: H): Promise<number> {
  let n = 0;
  for (const p of h.client.peekAll<Pod>(resources.pods)) {
    if (p.status?.phase === 'Running') continue;
    await h.client.update(resources.pods, { ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
    n++;
  }
  return n;
}

function podNames(h: H): string[] {
  return h.client.peekAll<Pod>(resources.pods).map((p) => p.metadata?.name ?? '').sort();
}

void test('OrderedReady creates web-0, web-1, web-2 one at a time and their claims first', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.statefulsets, sts(3));
  await h.ctx.settle();
  assert.deepEqual(podNames(h), ['web-0'], 'web-1 waits for web-0 to be Running and Ready');
  assert.deepEqual(h.client.peekAll<PersistentVolumeClaim>(resources.persistentvolumeclaims).map((c) => c.metadata?.name), ['www-web-0']);
  await runAll(h);
  await h.ctx.settle();
  assert.deepEqual(podNames(h), ['web-0', 'web-1']);
  await runAll(h);
  await h.ctx.settle();
  await runAll(h);
  await h.ctx.settle();
  assert.deepEqual(podNames(h), ['web-0', 'web-1', 'web-2']);
  const msgs = h.ctx.events.map((e) => e.message);
  assert.ok(msgs.includes('create Claim www-web-0 Pod web-0 in StatefulSet web success'));
  assert.ok(msgs.includes('create Pod web-0 in StatefulSet web successful'));
  const st = h.client.peek<StatefulSet>(resources.statefulsets, 'web', 'default')?.status;
  assert.deepEqual([st?.replicas, st?.readyReplicas, st?.updatedReplicas, st?.currentRevision === st?.updateRevision], [3, 3, 3, true]);

  // Scale down removes the highest ordinal first.
  const cur = h.client.peek<StatefulSet>(resources.statefulsets, 'web', 'default') as StatefulSet;
  await h.client.update(resources.statefulsets, { ...cur, spec: { ...(cur.spec as NonNullable<StatefulSet['spec']>), replicas: 1 } });
  await h.ctx.settle();
  assert.deepEqual(podNames(h), ['web-0']);
  assert.deepEqual(
    h.ctx.events.filter((e) => e.reason === 'SuccessfulDelete').map((e) => e.message),
    ['delete Pod web-2 in StatefulSet web successful', 'delete Pod web-1 in StatefulSet web successful'],
  );
  assert.equal(h.client.peekAll(resources.persistentvolumeclaims).length, 3, 'claims are retained');
});

void test('Parallel creates every pod at once', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.statefulsets, sts(3, 'Parallel'));
  await h.ctx.settle();
  assert.deepEqual(podNames(h), ['web-0', 'web-1', 'web-2']);
});

void test('RollingUpdate replaces pods from the highest ordinal down, one at a time', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.statefulsets, sts(3, 'Parallel'));
  await h.ctx.settle();
  await runAll(h);
  await h.ctx.settle();
  const cur = h.client.peek<StatefulSet>(resources.statefulsets, 'web', 'default') as StatefulSet;
  const next = structuredClone(cur);
  const c0 = next.spec?.template.spec?.containers[0];
  if (c0 !== undefined) c0.image = 'nginx:1.28';
  await h.client.update(resources.statefulsets, next);
  const order: string[] = [];
  for (let i = 0; i < 10; i++) {
    await h.ctx.settle();
    for (const a of h.client.actions.filter((x) => x.verb === 'delete' && x.resource === 'pods')) if (!order.includes(a.name)) order.push(a.name);
    if ((await runAll(h)) === 0 && order.length === 3) break;
  }
  assert.deepEqual(order, ['web-2', 'web-1', 'web-0']);
  assert.ok(h.client.peekAll<Pod>(resources.pods).every((p) => p.spec?.containers[0]?.image === 'nginx:1.28'));
});
