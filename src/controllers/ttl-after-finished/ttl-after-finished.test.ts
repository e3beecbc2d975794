import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { startController } from '../_testing/fakes.js';
import { formatTime } from '../_pods.js';
import { create, timeLeft } from './ttl-after-finished.js';

function job(ttl: number | undefined, finishedAt?: string): Job {
  const j: Job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'default' }, spec: { template: {} } };
  if (ttl !== undefined && j.spec !== undefined) j.spec.ttlSecondsAfterFinished = ttl;
  if (finishedAt !== undefined) j.status = { completionTime: finishedAt, conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: finishedAt }] };
  return j;
}

void test('timeLeft', () => {
  const now = Date.parse('2025-01-01T00:01:00Z');
  assert.equal(timeLeft(job(undefined, '2025-01-01T00:00:00Z'), now), undefined, 'no TTL');
  assert.equal(timeLeft(job(100), now), undefined, 'not finished');
  assert.equal(timeLeft(job(100, '2025-01-01T00:00:00Z'), now), 40_000);
  assert.equal(timeLeft(job(0, '2025-01-01T00:00:00Z'), now), -60_000);
});

void test('a finished Job is deleted in the foreground once its TTL passes', async (t) => {
  const client = new FakeClient();
  const ctx = await startController(t, client, create);
  const created = await client.create(resources.jobs, job(30));
  await client.update(resources.jobs, { ...created, status: job(30, formatTime(ctx.clock.now())).status }, { subresource: 'status' });
  await ctx.settle();
  ctx.clock.step(29_000);
  await ctx.settle();
  assert.ok(client.peek(resources.jobs, 'j', 'default') !== undefined);
  ctx.clock.step(1000);
  await ctx.settle();
  const gone = client.peek<Job>(resources.jobs, 'j', 'default');
  assert.deepEqual(gone?.metadata?.finalizers, ['foregroundDeletion'], 'deleted with propagationPolicy Foreground');
});
