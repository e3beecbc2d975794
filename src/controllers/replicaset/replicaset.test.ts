import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { TestContext, waitFor, startControllers } from '../_testing/fakes.js';
import { makePod, replicaSet } from '../_testing/builders.js';
import { activePodsLess, podsToDelete, slowStartBatch, sortByLess } from '../_pods.js';
import { calculateReplicaSetStatus, create, type ReplicaSetController } from './replicaset.js';

async function setup(
  t: { after(fn: () => void): void },
  beforeStart: (c: ReplicaSetController) => void = () => undefined,
): Promise<{ client: FakeClient; ctx: TestContext; controller: ReplicaSetController }> {
  const client = new FakeClient();
  const ctx = new TestContext(client);
  const c = create(ctx);
  beforeStart(c);
  await startControllers(t, ctx, c);
  return { client, ctx, controller: c };
}

void test('slowStartBatch', async (t) => {
  const cases = [
    { name: 'callback function succeeds', count: 10, failAfter: Infinity, wantSuccesses: 10, wantErr: false, wantCalls: 10 },
    { name: 'callback function fails', count: 10, failAfter: 0, wantSuccesses: 0, wantErr: true, wantCalls: 1 },
    { name: 'callback function fails after 5 calls', count: 10, failAfter: 5, wantSuccesses: 5, wantErr: true, wantCalls: 7 },
  ];
  for (const tc of cases) {
    await t.test(tc.name, async () => {
      let calls = 0;
      const r = await slowStartBatch(tc.count, 1, async () => {
        calls++;
        if (calls > tc.failAfter) throw new Error('fake error');
      });
      assert.equal(r.successes, tc.wantSuccesses);
      assert.equal(r.error !== undefined, tc.wantErr);
      assert.equal(calls, tc.wantCalls);
    });
  }
});

void test('ActivePods ordering: unassigned < assigned, pending < unknown < running, not ready < ready, more restarts, newer first', () => {
  const t0 = '2025-01-01T00:00:00Z';
  const t1 = '2025-01-01T00:01:00Z';
  const pods = [
    makePod('ready-old').node('n').phase('Running').ready(t0).created(t0).obj(),
    makePod('running-notready').node('n').phase('Running').created(t0).obj(),
    makePod('unknown').node('n').phase('Unknown').created(t0).obj(),
    makePod('pending').node('n').phase('Pending').created(t0).obj(),
    makePod('unassigned').phase('Pending').created(t0).obj(),
    makePod('ready-new').node('n').phase('Running').ready(t1).created(t0).obj(),
  ];
  const sorted = sortByLess([...pods], activePodsLess).map((p) => p.metadata?.name);
  assert.deepEqual(sorted, ['unassigned', 'pending', 'unknown', 'running-notready', 'ready-new', 'ready-old']);
  const restarts = sortByLess(
    [makePod('few').node('n').phase('Running').restarts(1).obj(), makePod('many').node('n').phase('Running').restarts(5).obj()],
    activePodsLess,
  ).map((p) => p.metadata?.name);
  assert.deepEqual(restarts, ['many', 'few']);
});

void test('getPodsToDelete ranks doubled-up pods and lower deletion cost first', () => {
  const now = Date.parse('2025-01-01T01:00:00Z');
  const t0 = '2025-01-01T00:00:00Z';
  const a = makePod('a').node('n1').phase('Running').ready(t0).created(t0).uid('1').obj();
  const b = makePod('b').node('n2').phase('Running').ready(t0).created(t0).uid('2').obj();
  const c = makePod('c').node('n2').phase('Running').ready(t0).created(t0).uid('3').obj();
  const victims = podsToDelete([a, b, c], [a, b, c], 1, now).map((p) => p.metadata?.name);
  assert.ok(victims[0] === 'b' || victims[0] === 'c', `doubled-up pod first, got ${victims[0] ?? ''}`);
  const cheap = makePod('cheap').node('n2').phase('Running').ready(t0).created(t0).uid('4').annotate('controller.kubernetes.io/pod-deletion-cost', '-10').obj();
  assert.deepEqual(podsToDelete([a, b, cheap], [a, b, cheap], 1, now).map((p) => p.metadata?.name), ['cheap']);
  assert.equal(podsToDelete([a, b], [a, b], 5, now).length, 2);
});

void test('calculateStatus counts fully labeled, ready and available pods (minReadySeconds)', () => {
  const rs = replicaSet('web', 3);
  (rs.spec as { minReadySeconds?: number }).minReadySeconds = 10;
  const now = Date.parse('2025-01-01T00:00:30Z');
  const pods: Pod[] = [
    makePod('a').labels({ app: 'web' }).phase('Running').ready('2025-01-01T00:00:00Z').obj(),
    makePod('b').labels({ app: 'web' }).phase('Running').ready('2025-01-01T00:00:25Z').obj(),
    makePod('c').labels({ other: 'x' }).phase('Pending').obj(),
  ];
  const s = calculateReplicaSetStatus(rs, pods, undefined, now);
  assert.equal(s.replicas, 3);
  assert.equal(s.fullyLabeledReplicas, 2);
  assert.equal(s.readyReplicas, 2);
  assert.equal(s.availableReplicas, 1);
  const failed = calculateReplicaSetStatus(rs, [], new Error('quota exceeded'), now);
  assert.deepEqual(
    failed.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
    [['ReplicaFailure', 'True', 'FailedCreate', 'quota exceeded']],
  );
});

void test('creates pods named <rs>-<5 chars> with a controller reference, events and status', async (t) => {
  const { client, ctx } = await setup(t);
  await client.create(resources.replicasets, replicaSet('web', 3));
  await waitFor(() => (client.peek<ReplicaSet>(resources.replicasets, 'web', 'default')?.status?.replicas ?? 0) === 3);
  await ctx.settle();
  const pods = client.peekAll<Pod>(resources.pods, 'default');
  assert.equal(pods.length, 3);
  const rs = client.peek<ReplicaSet>(resources.replicasets, 'web', 'default');
  for (const p of pods) {
    assert.match(p.metadata?.name ?? '', /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(p.metadata?.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs?.metadata?.uid, controller: true, blockOwnerDeletion: true },
    ]);
    assert.deepEqual(p.metadata?.labels, { app: 'web' });
  }
  const created = ctx.events.filter((e) => e.reason === 'SuccessfulCreate');
  assert.equal(created.length, 3);
  assert.match(created[0]?.message ?? '', /^Created pod: web-/);
  assert.equal(created[0]?.component, 'replicaset-controller');
  assert.equal(rs?.status?.observedGeneration, 1);
  assert.equal(client.actions.filter((a) => a.verb === 'create' && a.resource === 'pods').length, 3, 'never creates twice');
});

void test('scales down by deleting the lowest-ranked pods first', async (t) => {
  const { client, ctx } = await setup(t);
  await client.create(resources.replicasets, replicaSet('web', 3));
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 3);
  await ctx.settle();
  const pods = client.peekAll<Pod>(resources.pods);
  const [p0, p1] = pods;
  // Two pods become Running and Ready; the third stays Pending and must be deleted first.
  for (const p of [p0, p1]) {
    await client.update(resources.pods, { ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
  }
  const rs = client.peek<ReplicaSet>(resources.replicasets, 'web', 'default');
  await client.update(resources.replicasets, { ...rs, spec: { ...rs?.spec, replicas: 2 } });
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 2);
  await ctx.settle();
  const left = client.peekAll<Pod>(resources.pods).map((p) => p.metadata?.name).sort();
  assert.deepEqual(left, [p0?.metadata?.name, p1?.metadata?.name].sort());
  const del = ctx.events.filter((e) => e.reason === 'SuccessfulDelete');
  assert.equal(del.length, 1);
  assert.match(del[0]?.message ?? '', /^Deleted pod: web-/);
});

void test('adopts matching orphans and releases pods whose labels stop matching', async (t) => {
  const { client, ctx } = await setup(t);
  await client.create(resources.pods, makePod('orphan').labels({ app: 'web' }).obj());
  await client.create(resources.replicasets, replicaSet('web', 1));
  await ctx.settle();
  await waitFor(() => client.peek<Pod>(resources.pods, 'orphan', 'default')?.metadata?.ownerReferences !== undefined);
  await ctx.settle();
  assert.equal(client.peekAll<Pod>(resources.pods).length, 1, 'the orphan counts; nothing is created');
  const orphan = client.peek<Pod>(resources.pods, 'orphan', 'default');
  await client.patch(resources.pods, 'orphan', 'merge', { metadata: { labels: { app: 'other' } } }, { namespace: 'default' });
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 2);
  await ctx.settle();
  const released = client.peek<Pod>(resources.pods, 'orphan', 'default');
  assert.deepEqual(released?.metadata?.ownerReferences, []);
  assert.equal(orphan?.metadata?.ownerReferences?.[0]?.controller, true);
});

void test("a matching pod of another controller is neither counted nor adopted, and its release makes it an orphan to adopt", async (t) => {
  const { client, ctx } = await setup(t);
  const foreign = makePod('foreign').labels({ app: 'web' }).obj();
  foreign.metadata = { ...foreign.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'other', uid: 'uid-other', controller: true }] };
  await client.create(resources.pods, foreign);
  await client.create(resources.replicasets, replicaSet('web', 1));
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 2);
  await ctx.settle();
  assert.equal(client.peek<Pod>(resources.pods, 'foreign', 'default')?.metadata?.ownerReferences?.[0]?.uid, 'uid-other');
  // Scaled to 2: the foreign pod, once released by its controller, is the orphan the ReplicaSet adopts.
  await client.patch(resources.pods, 'foreign', 'merge', { metadata: { ownerReferences: [] } }, { namespace: 'default' });
  const rs = client.peek<ReplicaSet>(resources.replicasets, 'web', 'default');
  await client.update(resources.replicasets, { ...rs, spec: { ...rs?.spec, replicas: 2 } });
  await waitFor(() => client.peek<Pod>(resources.pods, 'foreign', 'default')?.metadata?.ownerReferences?.[0]?.uid === rs?.metadata?.uid);
  await ctx.settle();
  assert.equal(client.peekAll<Pod>(resources.pods).length, 2, 'the adopted pod counts; nothing more is created');
});

void test('a failed create records FailedCreate and the ReplicaFailure condition', async (t) => {
  const { client, ctx } = await setup(t);
  client.failures.set('create pods', new Error('pods "web-" is forbidden: exceeded quota'));
  await client.create(resources.replicasets, replicaSet('web', 2));
  await waitFor(() => ctx.events.some((e) => e.reason === 'FailedCreate'));
  await waitFor(() => client.peek<ReplicaSet>(resources.replicasets, 'web', 'default')?.status?.conditions !== undefined);
  const ev = ctx.events.find((e) => e.reason === 'FailedCreate');
  assert.equal(ev?.type, 'Warning');
  assert.equal(ev?.message, 'Error creating: pods "web-" is forbidden: exceeded quota');
  const cond = client.peek<ReplicaSet>(resources.replicasets, 'web', 'default')?.status?.conditions?.[0];
  assert.equal(cond?.reason, 'FailedCreate');
  client.failures.delete('create pods');
  ctx.clock.step(1000);
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 2);
  await waitFor(() => client.peek<ReplicaSet>(resources.replicasets, 'web', 'default')?.status?.conditions === undefined);
});

void test('a pod update a sync would not act on (binding, a status before Running) syncs only while creations are awaited', async (t) => {
  const synced: string[] = [];
  const { client, ctx, controller: c } = await setup(t, (rsc) => {
    const sync = rsc.sync.bind(rsc);
    rsc.sync = (key: string) => {
      synced.push(key);
      return sync(key);
    };
  });
  await client.create(resources.replicasets, replicaSet('web', 1));
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 1);
  await waitFor(() => client.peek<ReplicaSet>(resources.replicasets, 'web', 'default')?.status?.replicas === 1);
  await ctx.settle();
  const pod = client.peekAll<Pod>(resources.pods)[0] as Pod;
  const name = pod.metadata?.name ?? '';
  const before = synced.length;
  const t0 = '2025-01-01T00:00:00Z';
  const assigned = await client.update<Pod>(resources.pods, { ...pod, spec: { ...(pod.spec as PodSpec), nodeName: 'n1' } });
  const bound = await client.update<Pod>(resources.pods, { ...assigned, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: t0 }] } }, { subresource: 'status' });
  const creating = await client.update<Pod>(resources.pods, { ...bound, status: { ...bound.status, conditions: [...(bound.status?.conditions ?? []), { type: 'Ready', status: 'False', lastTransitionTime: t0 }] } }, { subresource: 'status' });
  await ctx.settle();
  assert.equal(synced.length, before, 'the binding and a Pending status change nothing a sync reads');

  const running = await client.update<Pod>(resources.pods, { ...creating, status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: t0 }, { type: 'Ready', status: 'True', lastTransitionTime: '2025-01-01T00:00:05Z' }] } }, { subresource: 'status' });
  await waitFor(() => client.peek<ReplicaSet>(resources.replicasets, 'web', 'default')?.status?.readyReplicas === 1);
  assert.ok(synced.length > before, 'Running and Ready: synced');

  // While a creation is awaited (it may expire), every update syncs, as upstream.
  c.expectations.expectCreations('default/web', 1);
  const n = synced.length;
  await client.update<Pod>(resources.pods, { ...running, metadata: { ...running.metadata, annotations: { touched: 'yes' } } });
  await waitFor(() => synced.length > n);
  assert.equal(client.peek<Pod>(resources.pods, name, 'default')?.metadata?.annotations?.['touched'], 'yes');
});
