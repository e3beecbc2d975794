import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { FakeClock, TestContext, startController } from '../_testing/fakes.js';
import { formatTime } from '../_pods.js';
import { create } from './job.js';
import { remainingTimeForFailures } from './_backoff.js';
import { OrderedIntervals } from './_indexed.js';

void test('pod failure backoff doubles from 10 s and caps at 6 min', () => {
  // The wait right after the n-th consecutive failure.
  const failureBackoffMs = (failures: number): number => remainingTimeForFailures(0, failures, 0);
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 10].map(failureBackoffMs), [10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 360_000, 360_000]);
});

void test('completedIndexes intervals', () => {
  const formatIndexes = (indexes: number[]): string => new OrderedIntervals().withOrderedIndexes(indexes).toString();
  assert.equal(formatIndexes([0, 1, 2, 4, 6, 7]), '0-2,4,6,7');
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
  const clock = new FakeClock();
  // Timestamps the API sets (deletionTimestamp) follow the controller's clock.
  const client = new FakeClient({ now: () => clock.now() });
  const ctx = await startController(t, client, create, clock);
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
  // The finishing Job counts the pod as failed and drops its finalizer as it deletes it (the fake client
  // deletes at once: there is no grace period without a kubelet).
  assert.equal(h.client.peekAll<Pod>(resources.pods).length, 0);
  assert.ok(h.ctx.events.some((e) => e.reason === 'SuccessfulDelete'));
  const j = getJob(h);
  assert.equal(j?.status?.failed, 1);
  assert.deepEqual(
    j?.status?.conditions?.map((c) => [c.type, c.reason, c.message]),
    [
      ['FailureTarget', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
      ['Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
    ],
  );
  assert.ok(h.ctx.events.some((e) => e.type === 'Warning' && e.reason === 'DeadlineExceeded' && e.message === 'Job was active longer than specified deadline'));
});

// ---- podFailurePolicy, backoffLimitPerIndex, successPolicy, podReplacementPolicy, managedBy ----
// Scenarios of upstream's TestSyncJobWithJobPodFailurePolicy, TestSyncJobWithJobBackoffLimitPerIndex,
// TestSyncJobWithJobSuccessPolicy, TestJobPodReplacementPolicy and TestManagedBy (job_controller_test.go,
// v1.32), driven through the fake API rather than a hand-built pod list.

interface EndOpts {
  exitCode?: number;
  container?: string;
  conditions?: { type: string; status: string }[];
  index?: number;
}

/** Ends the first active pod (of `index`, when given) with the phase, exit code and conditions. */
async function endPod(h: H, phase: 'Succeeded' | 'Failed', o: EndOpts = {}): Promise<Pod> {
  const p = h.client
    .peekAll<Pod>(resources.pods)
    .find((x) => x.status?.phase !== 'Succeeded' && x.status?.phase !== 'Failed' && (o.index === undefined || x.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'] === String(o.index)));
  assert.ok(p !== undefined, 'an active pod to end');
  const at = formatTime(h.ctx.clock.now());
  const exitCode = o.exitCode ?? (phase === 'Succeeded' ? 0 : 1);
  await h.client.update(
    resources.pods,
    {
      ...p,
      status: {
        phase,
        conditions: (o.conditions ?? []).map((c) => ({ ...c, lastTransitionTime: at })),
        containerStatuses: [{ name: o.container ?? 'pi', image: 'perl', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, finishedAt: at } } }],
      },
    },
    { subresource: 'status' },
  );
  await h.ctx.settle();
  return p;
}

function conditionsOf(h: H): string[][] {
  return (getJob(h)?.status?.conditions ?? []).map((c) => [c.type, c.status, c.reason ?? '', c.message ?? '']);
}

function activePods(h: H): Pod[] {
  return h.client.peekAll<Pod>(resources.pods).filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && p.metadata?.deletionTimestamp === undefined);
}

const failJobOn42 = { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'main-container', operator: 'In', values: [5, 6, 42] } }] };

void test('podFailurePolicy: a FailJob rule on exit code 42 fails the Job with the PodFailurePolicy reason', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ completions: 2, parallelism: 2, podFailurePolicy: failJobOn42, podReplacementPolicy: 'Failed' }));
  await h.ctx.settle();
  const failed = await endPod(h, 'Failed', { exitCode: 42, container: 'main-container' });
  const msg = `Container main-container for pod default/${failed.metadata?.name ?? ''} failed with exit code 42 matching FailJob rule at index 0`;
  // The other pod is deleted; the fake API drops it at once, as its finalizer goes with the count.
  assert.equal(activePods(h).length, 0);
  assert.deepEqual(conditionsOf(h), [
    ['FailureTarget', 'True', 'PodFailurePolicy', msg],
    ['Failed', 'True', 'PodFailurePolicy', msg],
  ]);
  assert.equal(getJob(h)?.status?.failed, 2, 'the failed pod and the deleted one');
  assert.ok(h.ctx.events.some((e) => e.type === 'Warning' && e.reason === 'PodFailurePolicy' && e.message === msg));
});

void test('podFailurePolicy: a FailJob rule on a pod condition names the condition', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ podFailurePolicy: { rules: [{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] } }));
  await h.ctx.settle();
  const p = await endPod(h, 'Failed', { conditions: [{ type: 'DisruptionTarget', status: 'True' }] });
  const msg = `Pod default/${p.metadata?.name ?? ''} has condition DisruptionTarget matching FailJob rule at index 0`;
  assert.deepEqual(conditionsOf(h).map((c) => c.slice(0, 4)), [
    ['FailureTarget', 'True', 'PodFailurePolicy', msg],
    ['Failed', 'True', 'PodFailurePolicy', msg],
  ]);
});

void test('podFailurePolicy: an Ignore rule does not count the failure towards backoffLimit', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ backoffLimit: 0, podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] } }));
  await h.ctx.settle();
  await endPod(h, 'Failed', { conditions: [{ type: 'DisruptionTarget', status: 'True' }] });
  assert.equal(getJob(h)?.status?.failed, undefined);
  assert.deepEqual(conditionsOf(h), []);
  h.ctx.clock.step(10_000);
  await h.ctx.settle();
  assert.equal(activePods(h).length, 1, 'a replacement pod after the backoff');
  // A failure no rule matches counts: backoffLimit 0 is exceeded.
  await endPod(h, 'Failed', { exitCode: 3 });
  assert.equal(getJob(h)?.status?.failed, 1);
  assert.deepEqual(conditionsOf(h).map((c) => c[2]), ['BackoffLimitExceeded', 'BackoffLimitExceeded']);
});

void test('podFailurePolicy: a Count rule and a non-matching exit code count as usual; exit code 0 never matches NotIn', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ backoffLimit: 1, podFailurePolicy: { rules: [{ action: 'Count', onExitCodes: { operator: 'NotIn', values: [1] } }, { action: 'FailJob', onExitCodes: { operator: 'NotIn', values: [7] } }] } }));
  await h.ctx.settle();
  await endPod(h, 'Failed', { exitCode: 2 });
  assert.equal(getJob(h)?.status?.failed, 1);
  assert.deepEqual(conditionsOf(h), [], 'the Count rule at index 0 wins over the FailJob rule');
});

void test('backoffLimitPerIndex: a failing index is retried with the failure count annotation, then marked failed', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 1 }));
  await h.ctx.settle();
  assert.deepEqual(
    h.client.peekAll<Pod>(resources.pods).map((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count']),
    ['0', '0'],
  );
  await endPod(h, 'Succeeded', { index: 1 });
  const first = await endPod(h, 'Failed', { index: 0 });
  assert.ok(h.client.peek<Pod>(resources.pods, first.metadata?.name ?? '', 'default')?.metadata?.finalizers?.includes('batch.kubernetes.io/job-tracking'), 'the failed pod keeps its finalizer until replaced');
  assert.equal(getJob(h)?.status?.failedIndexes, '');
  h.ctx.clock.step(10_000);
  await h.ctx.settle();
  const [replacement] = activePods(h);
  assert.equal(replacement?.metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count'], '1');
  assert.equal(replacement?.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'], '0');
  await endPod(h, 'Failed', { index: 0 });
  const j = getJob(h);
  assert.equal(j?.status?.failedIndexes, '0');
  assert.equal(j?.status?.completedIndexes, '1');
  assert.equal(j?.status?.failed, 2);
  assert.deepEqual(conditionsOf(h), [
    ['FailureTarget', 'True', 'FailedIndexes', 'Job has failed indexes'],
    ['Failed', 'True', 'FailedIndexes', 'Job has failed indexes'],
  ]);
});

void test('backoffLimitPerIndex: more failed indexes than maxFailedIndexes fail the Job', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ completions: 3, parallelism: 3, completionMode: 'Indexed', backoffLimitPerIndex: 0, maxFailedIndexes: 0 }));
  await h.ctx.settle();
  await endPod(h, 'Failed', { index: 1 });
  assert.equal(getJob(h)?.status?.failedIndexes, '1');
  assert.deepEqual(conditionsOf(h), [
    ['FailureTarget', 'True', 'MaxFailedIndexesExceeded', 'Job has exceeded the specified maximal number of failed indexes'],
    ['Failed', 'True', 'MaxFailedIndexesExceeded', 'Job has exceeded the specified maximal number of failed indexes'],
  ]);
});

void test('backoffLimitPerIndex: a FailIndex rule fails the index at once', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 3, podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [3] } }] } }));
  await h.ctx.settle();
  await endPod(h, 'Failed', { index: 0, exitCode: 3 });
  assert.equal(getJob(h)?.status?.failedIndexes, '0');
  assert.equal(activePods(h).length, 1, 'index 0 is not retried');
  await endPod(h, 'Succeeded', { index: 1 });
  assert.deepEqual(conditionsOf(h).map((c) => c[2]), ['FailedIndexes', 'FailedIndexes']);
});

void test('successPolicy: meeting a rule sets SuccessCriteriaMet, removes the other pods, then Complete', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ completions: 3, parallelism: 3, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0,1', succeededCount: 1 }] } }));
  await h.ctx.settle();
  await endPod(h, 'Succeeded', { index: 1 });
  assert.equal(activePods(h).length, 0);
  const j = getJob(h);
  assert.equal(j?.status?.completedIndexes, '1');
  assert.equal(j?.status?.succeeded, 1);
  assert.ok(j?.status?.completionTime !== undefined);
  assert.deepEqual(conditionsOf(h), [
    ['SuccessCriteriaMet', 'True', 'SuccessPolicy', 'Matched rules at index 0'],
    ['Complete', 'True', 'SuccessPolicy', 'Matched rules at index 0'],
  ]);
  assert.ok(h.ctx.events.some((e) => e.reason === 'Completed'));
});

void test('successPolicy: a rule not met leaves the Job running', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ completions: 3, parallelism: 3, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0-1' }] } }));
  await h.ctx.settle();
  await endPod(h, 'Succeeded', { index: 0 });
  assert.equal(activePods(h).length, 2);
  assert.deepEqual(conditionsOf(h), []);
});

void test('podReplacementPolicy Failed: a terminating pod is counted in status.terminating and replaced only once it failed', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ podReplacementPolicy: 'Failed' }));
  await h.ctx.settle();
  const [p] = h.client.peekAll<Pod>(resources.pods);
  await h.client.delete(resources.pods, p?.metadata?.name ?? '', { namespace: 'default' });
  await h.ctx.settle();
  assert.equal(getJob(h)?.status?.terminating, 1);
  assert.equal(getJob(h)?.status?.active, undefined);
  assert.equal(h.client.peekAll<Pod>(resources.pods).length, 1, 'no replacement while the pod terminates');
  h.ctx.clock.step(60_000);
  await h.ctx.settle();
  assert.equal(h.client.peekAll<Pod>(resources.pods).length, 1);
  await h.client.update(resources.pods, { ...h.client.peek<Pod>(resources.pods, p?.metadata?.name ?? '', 'default'), status: { phase: 'Failed' } }, { subresource: 'status' });
  await h.ctx.settle();
  h.ctx.clock.step(10_000);
  await h.ctx.settle();
  assert.equal(getJob(h)?.status?.failed, 1);
  assert.equal(getJob(h)?.status?.terminating, 0);
  assert.equal(activePods(h).length, 1, 'replaced after it failed and the backoff');
});

void test('podReplacementPolicy TerminatingOrFailed: a deleted pod counts as failed and is replaced without waiting for it', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ podReplacementPolicy: 'TerminatingOrFailed' }));
  await h.ctx.settle();
  const [p] = h.client.peekAll<Pod>(resources.pods);
  await h.client.delete(resources.pods, p?.metadata?.name ?? '', { namespace: 'default' });
  await h.ctx.settle();
  assert.equal(getJob(h)?.status?.failed, 1);
  h.ctx.clock.step(10_000);
  await h.ctx.settle();
  assert.equal(activePods(h).length, 1);
});

void test('managedBy: a Job managed by another controller is left alone; kubernetes.io/job-controller is ours', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.jobs, job({ managedBy: 'example.com/custom-controller' }));
  await h.ctx.settle();
  assert.equal(h.client.peekAll<Pod>(resources.pods).length, 0);
  assert.equal(getJob(h)?.status, undefined);
  await h.client.create(resources.jobs, { ...job({ managedBy: 'kubernetes.io/job-controller' }), metadata: { name: 'ours', namespace: 'default' } });
  await h.ctx.settle();
  assert.equal(h.client.peekAll<Pod>(resources.pods).length, 1);
});
