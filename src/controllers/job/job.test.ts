import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { TestContext, startController } from '../_testing/fakes.js';
import { formatTime } from '../_pods.js';
import { create, failureBackoffMs, formatIndexes } from './job.js';

void test('pod failure backoff doubles from 10 s and caps at 6 min', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 10].map(failureBackoffMs), [10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 360_000, 360_000]);
});

void test('completedIndexes intervals', () => {
  assert.equal(formatIndexes([0, 1, 2, 4, 6, 7]), '0-2,4,6-7');
  assert.equal(formatIndexes([]), '');
  assert.equal(formatIndexes([3]), '3');
});

function job(spec: Partial<NonNullable<Job['spec']>>): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'pi', namespace: 'default' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } }, ...spec },
  };
}

interface H {
  client: FakeClient;
  ctx: TestContext;
}

async function setup(t: { after(fn: () => void): void }): Promise<H> {
  const client = new FakeClient();
  const ctx = await startController(t, client, create);
  return { client, ctx };
}

async function finish(h: H, phase: 'Succeeded' | 'Failed', n = Infinity): Promise<number> {
  let done = 0;
  for (const p of h.client.peekAll<Pod>(resources.pods)) {
    if (done >= n) break;
    if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
    const at = formatTime(h.ctx.clock.now());
    await h.client.update(
      resources.pods,
      { ...p, status: { phase, containerStatuses: [{ name: 'pi', image: 'perl', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: phase === 'Succeeded' ? 0 : 1, finishedAt: at } } }] } },
      { subresource: 'status' },
    );
    done++;
  }
  return done;
}

function getJob(h: H): Job | undefined {
  return h.client.peek<Job>(resources.jobs, 'pi', 'default');
}

void test('runs completions with parallelism, counts through the tracking finalizer and completes', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ completions: 3, parallelism: 2 }));
  await h.ctx.settle();
  let pods = h.client.peekAll<Pod>(resources.pods);
  assert.equal(pods.length, 2);
  for (const p of pods) {
    assert.match(p.metadata?.name ?? '', /^pi-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(p.metadata?.finalizers, ['batch.kubernetes.io/job-tracking']);
    assert.equal(p.metadata?.labels?.['batch.kubernetes.io/job-name'], 'pi');
    assert.equal(p.metadata?.labels?.['job-name'], 'pi');
  }
  assert.equal(getJob(h)?.status?.active, 2);
  await finish(h, 'Succeeded');
  await h.ctx.settle();
  pods = h.client.peekAll<Pod>(resources.pods);
  assert.equal(pods.length, 3, 'one more pod for the last completion');
  assert.ok(pods.filter((p) => p.status?.phase === 'Succeeded').every((p) => p.metadata?.finalizers === undefined));
  assert.equal(getJob(h)?.status?.succeeded, 2);
  await finish(h, 'Succeeded');
  await h.ctx.settle();
  const j = getJob(h);
  assert.equal(j?.status?.succeeded, 3);
  assert.equal(j?.status?.active, undefined);
  assert.ok(j?.status?.completionTime !== undefined);
  assert.deepEqual(
    j?.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
      ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ],
  );
  assert.ok(h.ctx.events.some((e) => e.reason === 'Completed' && e.message === 'Job completed'));
  assert.equal(h.ctx.events.filter((e) => e.reason === 'SuccessfulCreate').length, 3);
});

void test('failed pods are replaced after backoff until backoffLimit, then the Job fails', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ backoffLimit: 1 }));
  await h.ctx.settle();
  await finish(h, 'Failed');
  await h.ctx.settle();
  assert.equal(getJob(h)?.status?.failed, 1);
  assert.equal(h.client.peekAll<Pod>(resources.pods).length, 1, 'no replacement before the 10 s backoff');
  h.ctx.clock.step(10_000);
  await h.ctx.settle();
  assert.equal(h.client.peekAll<Pod>(resources.pods).length, 2);
  await finish(h, 'Failed');
  await h.ctx.settle();
  const j = getJob(h);
  assert.equal(j?.status?.failed, 2);
  assert.deepEqual(
    j?.status?.conditions?.map((c) => [c.type, c.reason, c.message]),
    [
      ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ],
  );
  assert.ok(h.ctx.events.some((e) => e.type === 'Warning' && e.reason === 'BackoffLimitExceeded'));
});

void test('Indexed jobs run one pod per index with the completion index annotation, label and hostname', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ completions: 3, parallelism: 3, completionMode: 'Indexed' }));
  await h.ctx.settle();
  const pods = h.client.peekAll<Pod>(resources.pods).sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  assert.deepEqual(
    pods.map((p) => [p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'], p.spec?.hostname, /^pi-\d-[a-z0-9]{5}$/.test(p.metadata?.name ?? '')]),
    [
      ['0', 'pi-0', true],
      ['1', 'pi-1', true],
      ['2', 'pi-2', true],
    ],
  );
  assert.deepEqual(pods[0]?.spec?.containers[0]?.env, [
    { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } } },
  ]);
  await finish(h, 'Succeeded');
  await h.ctx.settle();
  assert.equal(getJob(h)?.status?.completedIndexes, '0-2');
  assert.ok(getJob(h)?.status?.conditions?.some((c) => c.type === 'Complete'));
});

void test('activeDeadlineSeconds fails the Job and deletes its pods', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ activeDeadlineSeconds: 30 }));
  await h.ctx.settle();
  assert.equal(h.client.peekAll<Pod>(resources.pods).length, 1);
  h.ctx.clock.step(30_000);
  await h.ctx.settle();
  const [pod] = h.client.peekAll<Pod>(resources.pods);
  assert.ok(pod?.metadata?.deletionTimestamp !== undefined, 'the active pod is deleted at the deadline');
  assert.equal(getJob(h)?.status?.conditions?.find((c) => c.type === 'FailureTarget')?.reason, 'DeadlineExceeded');
  // The kubelet stops the pod; the controller counts it and lets it go.
  await finish(h, 'Failed');
  await h.ctx.settle();
  assert.equal(h.client.peekAll<Pod>(resources.pods).length, 0);
  assert.equal(getJob(h)?.status?.conditions?.find((c) => c.type === 'Failed')?.reason, 'DeadlineExceeded');
});
