/** Cases of pkg/controller/resourcequota/resource_quota_controller_test.go (TestSyncResourceQuota, v1.32). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, ResourceQuota } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { startController, type TestContext } from '../_testing/fakes.js';
import { makePod } from '../_testing/builders.js';
import { create, fullResyncPeriodMs } from './resourcequota.js';

/** `newTestPodsWithPriorityClasses`-style pods: one container with requests and limits. */
function pod(name: string, phase: string, cpu: [string, string], memory: [string, string], extra: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  const p = makePod(name, 'testing').phase(phase).obj();
  p.spec = { containers: [{ name: 'ctr', image: 'image', resources: { requests: { cpu: cpu[0], memory: memory[0] }, limits: { cpu: cpu[1], memory: memory[1] } } }], ...extra };
  return p;
}

function rq(hard: Record<string, string>, spec: Partial<NonNullable<ResourceQuota['spec']>> = {}, status?: ResourceQuota['status']): ResourceQuota {
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'quota', namespace: 'testing' }, spec: { hard, ...spec }, ...(status !== undefined ? { status } : {}) };
}

async function run(t: { after(fn: () => void): void }, objs: { pods?: Pod[]; quota: ResourceQuota }): Promise<{ client: FakeClient; ctx: TestContext; status: () => ResourceQuota['status'] }> {
  const client = new FakeClient();
  for (const p of objs.pods ?? []) await client.create(resources.pods, p, { namespace: 'testing' });
  await client.create(resources.resourcequotas, objs.quota, { namespace: 'testing' });
  const ctx = await startController(t, client, (c) => create(c));
  await ctx.settle();
  return { client, ctx, status: () => client.peek<ResourceQuota>(resources.resourcequotas, 'quota', 'testing')?.status };
}

const running = (): Pod[] => [
  pod('pod-running', 'Running', ['100m', '200m'], ['1Gi', '2Gi']),
  pod('pod-running-2', 'Running', ['100m', '200m'], ['1Gi', '2Gi']),
  pod('pod-failed', 'Failed', ['100m', '200m'], ['1Gi', '2Gi']),
];

void test('pods: terminal pods are not charged', async (t) => {
  const { status } = await run(t, { pods: running(), quota: rq({ cpu: '3', memory: '100Gi', pods: '5' }) });
  assert.deepEqual(status(), { hard: { cpu: '3', memory: '100Gi', pods: '5' }, used: { cpu: '200m', memory: '2Gi', pods: '2' } });
});

void test('quota-spec-hard-updated: status.hard follows spec.hard', async (t) => {
  const { status } = await run(t, {
    quota: rq({ 'requests.cpu': '4' }, {}, { hard: { 'requests.cpu': '3' }, used: { 'requests.cpu': '0' } }),
  });
  assert.deepEqual(status(), { hard: { 'requests.cpu': '4' }, used: { 'requests.cpu': '0' } });
});

void test('quota-unchanged: nothing is written when status is current', async (t) => {
  const { client } = await run(t, { quota: rq({ 'requests.cpu': '4' }, {}, { hard: { 'requests.cpu': '4' }, used: { 'requests.cpu': '0' } }) });
  assert.equal(client.actions.filter((a) => a.verb === 'update').length, 0);
});

void test('pods-with-scopes: BestEffort counts only best-effort pods; Terminating only pods with a deadline', async (t) => {
  const pods = [
    ...running(),
    { ...makePod('best-effort', 'testing').phase('Running').obj() },
    pod('deadline', 'Running', ['1', '1'], ['1Gi', '1Gi'], { activeDeadlineSeconds: 30 }),
  ];
  const be = await run(t, { pods, quota: rq({ pods: '5' }, { scopes: ['BestEffort'] }) });
  assert.deepEqual(be.status()?.used, { pods: '1' });
  const term = await run(t, { pods, quota: rq({ pods: '5', 'limits.cpu': '4' }, { scopes: ['Terminating'] }) });
  assert.deepEqual(term.status()?.used, { 'limits.cpu': '1', pods: '1' });
});

void test('priority class scope selector: In matches the pods of that class', async (t) => {
  const pods = [pod('high', 'Running', ['1', '1'], ['1Gi', '1Gi'], { priorityClassName: 'high' }), pod('low', 'Running', ['1', '1'], ['1Gi', '1Gi'], { priorityClassName: 'low' })];
  const { status } = await run(t, {
    pods,
    quota: rq({ pods: '5', 'requests.cpu': '4' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }),
  });
  assert.deepEqual(status()?.used, { pods: '1', 'requests.cpu': '1' });
});

void test('object counts: count/pods counts every pod, configmaps by the legacy name', async (t) => {
  const client = new FakeClient();
  for (const p of running()) await client.create(resources.pods, p, { namespace: 'testing' });
  await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'testing' } }, { namespace: 'testing' });
  await client.create(resources.resourcequotas, rq({ 'count/pods': '10', configmaps: '10', 'count/deployments.apps': '2' }), { namespace: 'testing' });
  const ctx = await startController(t, client, (c) => create(c));
  await ctx.settle();
  assert.deepEqual(client.peek<ResourceQuota>(resources.resourcequotas, 'quota', 'testing')?.status?.used, { configmaps: '1', 'count/deployments.apps': '0', 'count/pods': '3' });
});

void test('replenishment: a deleted pod and a pod turned Failed release their usage', async (t) => {
  const { client, ctx, status } = await run(t, { pods: running(), quota: rq({ pods: '5' }) });
  assert.deepEqual(status()?.used, { pods: '2' });
  await client.delete(resources.pods, 'pod-running', { namespace: 'testing' });
  await ctx.settle();
  assert.deepEqual(status()?.used, { pods: '1' });
  const p = client.peek<Pod>(resources.pods, 'pod-running-2', 'testing');
  await client.update(resources.pods, { ...p, status: { phase: 'Failed' } }, { namespace: 'testing', subresource: 'status' });
  await ctx.settle();
  assert.deepEqual(status()?.used, { pods: '0' });
});

void test('full resync: usage that changed without an event is corrected within the sync period', async (t) => {
  const { client, ctx, status } = await run(t, { quota: rq({ configmaps: '5' }) });
  assert.deepEqual(status()?.used, { configmaps: '0' });
  await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'testing' } }, { namespace: 'testing' });
  ctx.clock.step(fullResyncPeriodMs);
  await ctx.settle();
  assert.deepEqual(status()?.used, { configmaps: '1' });
});
