import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { FakeClock, TestContext, startController } from '../_testing/fakes.js';
import { formatTime } from '../_pods.js';
import { parseSchedule } from './_cron.js';
import { create, jobName, mostRecentScheduleTime, rfc3339In } from './cronjob.js';

const T = (s: string): number => Date.parse(s);

void test('cron activation (robfig TestActivation cases)', async (t) => {
  const cases: [string, string, boolean][] = [
    ['Mon Jul 9 15:00 2012', '0/15 * * * *', true],
    ['Mon Jul 9 15:45 2012', '0/15 * * * *', true],
    ['Mon Jul 9 15:40 2012', '0/15 * * * *', false],
    ['Mon Jul 9 15:05 2012', '5/15 * * * *', true],
    ['Mon Jul 9 15:20 2012', '5/15 * * * *', true],
    ['Mon Jul 9 15:50 2012', '5/15 * * * *', true],
    ['Sun Jul 15 15:00 2012', '0/15 * * Jul *', true],
    ['Sun Jul 15 15:00 2012', '0/15 * * Jun *', false],
    ['Sun Jul 15 08:30 2012', '30 08 ? Jul Sun', true],
    ['Sun Jul 15 08:30 2012', '30 08 15 Jul ?', true],
    ['Mon Jul 16 08:30 2012', '30 08 ? Jul Sun', false],
    ['Mon Jul 16 08:30 2012', '30 08 15 Jul ?', false],
    ['Sun Jul 15 00:00 2012', '@weekly', true],
    ['Sun Jul 8 00:00 2012', '@weekly', true],
    ['Sun Jul 8 01:00 2012', '@weekly', false],
    ['Sun Jul 8 00:00 2012', '@daily', true],
    ['Sun Jul 8 00:00 2012', '@monthly', false],
    ['Sun Jul 1 00:00 2012', '@monthly', true],
    ['Sun Jul 15 00:00 2012', '* * 1,15 * Sun', true],
    ['Fri Jun 15 00:00 2012', '* * 1,15 * Sun', true],
    ['Wed Aug 1 00:00 2012', '* * 1,15 * Sun', true],
    ['Sun Jul 15 00:00 2012', '* * */10 * Sun', true],
    ['Tue Jul 17 00:00 2012', '* * 1,15 * Sun', false],
  ];
  for (const [when, spec, want] of cases) {
    await t.test(`${spec} at ${when}`, () => {
      const at = Date.parse(`${when} UTC`);
      const next = parseSchedule(spec).next(at - 60_000);
      assert.equal(next === at, want);
    });
  }
  await t.test('invalid schedules', () => {
    for (const bad of ['* * * *', '60 * * * *', '* * * 13 *', 'TZ=UTC * * * * *', '@often', '*/0 * * * *']) assert.throws(() => parseSchedule(bad), Error, bad);
  });
  await t.test('time zones', () => {
    const s = parseSchedule('0 9 * * *', 'America/New_York');
    assert.equal(s.next(T('2025-01-15T00:00:00Z')), T('2025-01-15T14:00:00Z'));
    assert.equal(s.next(T('2025-07-15T00:00:00Z')), T('2025-07-15T13:00:00Z'));
    assert.equal(rfc3339In(T('2025-07-15T13:00:00Z'), 'America/New_York'), '2025-07-15T09:00:00-04:00');
    assert.equal(rfc3339In(T('2025-07-15T13:00:00Z'), undefined), '2025-07-15T13:00:00Z');
  });
});

void test('mostRecentScheduleTime', async (t) => {
  const cj = (created: string, last?: string, deadline?: number): CronJob => ({
    metadata: { name: 'c', creationTimestamp: created },
    spec: { schedule: '0 * * * *', jobTemplate: {}, ...(deadline !== undefined ? { startingDeadlineSeconds: deadline } : {}) },
    ...(last !== undefined ? { status: { lastScheduleTime: last } } : {}),
  });
  const hourly = parseSchedule('0 * * * *');
  await t.test('no schedule yet', () => {
    assert.deepEqual(mostRecentScheduleTime(cj('2025-01-01T10:10:00Z'), T('2025-01-01T10:50:00Z'), hourly, true).mostRecent, undefined);
  });
  await t.test('one missed', () => {
    const r = mostRecentScheduleTime(cj('2025-01-01T10:10:00Z'), T('2025-01-01T11:05:00Z'), hourly, true);
    assert.deepEqual([r.mostRecent, r.missed], [T('2025-01-01T11:00:00Z'), 1]);
  });
  await t.test('many missed returns the latest', () => {
    const r = mostRecentScheduleTime(cj('2025-01-01T10:10:00Z', '2025-01-01T11:00:00Z'), T('2025-01-01T15:30:00Z'), hourly, true);
    assert.deepEqual([r.mostRecent, r.missed], [T('2025-01-01T15:00:00Z'), 4]);
  });
  await t.test('startingDeadlineSeconds bounds the look-back', () => {
    const r = mostRecentScheduleTime(cj('2020-01-01T00:00:00Z', undefined, 600), T('2025-01-01T15:05:00Z'), hourly, true);
    assert.deepEqual([r.mostRecent, r.missed], [T('2025-01-01T15:00:00Z'), 1]);
  });
});

interface H {
  client: FakeClient;
  ctx: TestContext;
}

async function setup(t: { after(fn: () => void): void }, start: string): Promise<H> {
  const clock = new FakeClock(T(start));
  const client = new FakeClient({ now: () => clock.now() });
  const ctx = await startController(t, client, create, clock);
  return { client, ctx };
}

function cronJob(policy: 'Allow' | 'Forbid' | 'Replace' = 'Allow'): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'hello', namespace: 'default' },
    spec: {
      schedule: '*/1 * * * *',
      concurrencyPolicy: policy,
      successfulJobsHistoryLimit: 2,
      jobTemplate: { metadata: { labels: { app: 'hello' } }, spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } },
    },
  };
}

async function tick(h: H, ms: number): Promise<void> {
  h.ctx.clock.step(ms);
  await h.ctx.settle();
}

async function complete(h: H): Promise<void> {
  for (const j of h.client.peekAll<Job>(resources.jobs)) {
    if (j.status?.conditions !== undefined) continue;
    const now = formatTime(h.ctx.clock.now());
    await h.client.update(resources.jobs, { ...j, status: { startTime: now, completionTime: now, succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] } }, { subresource: 'status' });
  }
  await h.ctx.settle();
}

void test('creates <cronjob>-<minutes> Jobs on schedule, tracks them and trims history', async (t) => {
  const h = await setup(t, '2025-01-01T00:00:30Z');
  await h.client.create(resources.cronjobs, cronJob());
  await h.ctx.settle();
  assert.equal(h.client.peekAll(resources.jobs).length, 0);
  await tick(h, 31_000);
  const jobs = h.client.peekAll<Job>(resources.jobs);
  assert.deepEqual(jobs.map((j) => j.metadata?.name), [`hello-${T('2025-01-01T00:01:00Z') / 60_000}`]);
  assert.equal(jobName({ metadata: { name: 'hello' } }, T('2025-01-01T00:01:00Z')), 'hello-28928161');
  const j = jobs[0];
  assert.equal(j?.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2025-01-01T00:01:00Z');
  assert.deepEqual(j?.metadata?.labels, { app: 'hello' });
  assert.equal(j?.metadata?.ownerReferences?.[0]?.kind, 'CronJob');
  const cj = h.client.peek<CronJob>(resources.cronjobs, 'hello', 'default');
  assert.equal(cj?.status?.lastScheduleTime, '2025-01-01T00:01:00Z');
  assert.equal(cj?.status?.active?.[0]?.name, j?.metadata?.name);
  assert.ok(h.ctx.events.some((e) => e.reason === 'SuccessfulCreate' && e.message === `Created job ${j?.metadata?.name ?? ''}`));
  await complete(h);
  assert.ok(h.ctx.events.some((e) => e.reason === 'SawCompletedJob' && e.message === `Saw completed job: ${j?.metadata?.name ?? ''}, status: Complete`));
  for (let i = 0; i < 3; i++) {
    await tick(h, 60_000);
    await complete(h);
  }
  await h.ctx.settle();
  assert.equal(h.client.peekAll(resources.jobs).length, 2, 'successfulJobsHistoryLimit 2');
  assert.ok(h.ctx.events.some((e) => e.reason === 'SuccessfulDelete'));
  assert.equal(h.client.peek<CronJob>(resources.cronjobs, 'hello', 'default')?.status?.active, undefined);
});

void test('Forbid skips a run while one is active; Replace deletes the active Job', async (t) => {
  const h = await setup(t, '2025-01-01T00:00:30Z');
  await h.client.create(resources.cronjobs, cronJob('Forbid'));
  await tick(h, 31_000);
  await tick(h, 60_000);
  assert.equal(h.client.peekAll(resources.jobs).length, 1);
  assert.ok(h.ctx.events.some((e) => e.reason === 'JobAlreadyActive' && e.message === 'Not starting job because prior execution is running and concurrency policy is Forbid'));
  const cur = h.client.peek<CronJob>(resources.cronjobs, 'hello', 'default') as CronJob;
  await h.client.update(resources.cronjobs, { ...cur, spec: { ...(cur.spec as NonNullable<CronJob['spec']>), concurrencyPolicy: 'Replace' } });
  await tick(h, 60_000);
  const names = h.client.peekAll<Job>(resources.jobs).map((j) => j.metadata?.name);
  assert.deepEqual(names, [`hello-${T('2025-01-01T00:03:00Z') / 60_000}`]);
});

void test('suspend stops new runs', async (t) => {
  const h = await setup(t, '2025-01-01T00:00:30Z');
  const cj = cronJob();
  (cj.spec as { suspend?: boolean }).suspend = true;
  await h.client.create(resources.cronjobs, cj);
  await tick(h, 120_000);
  assert.equal(h.client.peekAll(resources.jobs).length, 0);
});
