/**
 * The CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go, v1.32): at each scheduled time
 * creates the Job `<cronjob>-<scheduled time in minutes since the epoch>` from the jobTemplate (owned by the
 * CronJob, annotated with `batch.kubernetes.io/cronjob-scheduled-timestamp`), honouring suspend,
 * startingDeadlineSeconds and concurrencyPolicy (Allow, Forbid, Replace); tracks active Jobs,
 * lastScheduleTime and lastSuccessfulTime; trims finished Jobs to the history limits.
 */
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import type { CronJob, CronJobStatus, Job } from 'kubernetes-types/batch/v1.js';
import { isAlreadyExists, isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { semanticEqual, NamespaceIndex, errorMessage, objectKey, runWorkers, type Controller, type ControllerContext, type EventRecorder, type Informer, type WorkQueue } from '../_context.js';
import { controllerRef, newControllerRef } from '../_owner.js';
import { formatTime, parseTime } from '../_pods.js';
import { eventComponents, names } from '../names.js';
import { CronParseError, parseSchedule, validTimeZone, type Schedule } from './_cron.js';
import { deepCopy } from '../../util/deep-copy.js';

export const CronJobScheduledTimestampAnnotation = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** `nextScheduleDelta`. */
export const nextScheduleDeltaMs = 100;

/** `getJobName`: `<cronjob>-<scheduled time / 60 s>`. */
export function jobName(cj: CronJob, scheduledTime: number): string {
  return `${cj.metadata?.name ?? ''}-${Math.floor(scheduledTime / 60_000)}`;
}

/** RFC 3339 in the CronJob's zone (Go's `time.Format(time.RFC3339)`: `Z` for UTC, else `+hh:mm`). */
export function rfc3339In(t: number, tz: string | undefined): string {
  if (tz === undefined || tz === 'UTC' || tz === 'Etc/UTC' || tz === '') return formatTime(t);
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(t));
  const g = (type: string): string => parts.find((p) => p.type === type)?.value ?? '00';
  const local = Date.UTC(Number(g('year')), Number(g('month')) - 1, Number(g('day')), Number(g('hour')) % 24, Number(g('minute')), Number(g('second')));
  const off = Math.round((local - Math.floor(t / 1000) * 1000) / 60_000);
  if (off === 0) return `${g('year')}-${g('month')}-${g('day')}T${String(Number(g('hour')) % 24).padStart(2, '0')}:${g('minute')}:${g('second')}Z`;
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${g('year')}-${g('month')}-${g('day')}T${String(Number(g('hour')) % 24).padStart(2, '0')}:${g('minute')}:${g('second')}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** `mostRecentScheduleTime`. */
export function mostRecentScheduleTime(
  cj: CronJob,
  now: number,
  schedule: Schedule,
  includeStartingDeadlineSeconds: boolean,
): { earliest: number; mostRecent: number | undefined; missed: number } {
  let earliest = parseTime(cj.status?.lastScheduleTime) ?? parseTime(cj.metadata?.creationTimestamp) ?? now;
  const deadline = cj.spec?.startingDeadlineSeconds;
  if (includeStartingDeadlineSeconds && deadline !== undefined && deadline !== null) {
    const schedulingDeadline = now - deadline * 1000;
    if (schedulingDeadline > earliest) earliest = schedulingDeadline;
  }
  const t1 = schedule.next(earliest);
  if (t1 === undefined || now < t1) return { earliest, mostRecent: undefined, missed: 0 };
  const t2 = schedule.next(t1);
  if (t2 === undefined || now < t2) return { earliest, mostRecent: t1, missed: 1 };
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) return { earliest, mostRecent: undefined, missed: 0 };
  const elapsed = Math.floor((now - t1) / 1000);
  const missed = Math.floor(elapsed / between) + 1;
  let mostRecent: number | undefined;
  const potentialEarliest = t1 + (missed - 2) * between * 1000;
  for (let t = schedule.next(potentialEarliest); t !== undefined && t <= now; t = schedule.next(t)) mostRecent = t;
  return { earliest, mostRecent, missed };
}

function finishedType(j: Job): 'Complete' | 'Failed' | undefined {
  for (const c of j.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  }
  return undefined;
}

export class CronJobController implements Controller {
  readonly name = names.CronJob;
  private readonly queue: WorkQueue<string>;
  private readonly cjInformer: Informer<CronJob>;
  private readonly jobInformer: Informer<Job>;
  private readonly recorder: EventRecorder;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.cjInformer = ctx.informer<CronJob>(resources.cronjobs);
    this.jobInformer = ctx.informer<Job>(resources.jobs);
    this.recorder = ctx.recorder(eventComponents.cronJob);
  }

  start(): void {
    this.cjInformer.addHandlers({ onAdd: (c) => this.queue.add(objectKey(c)), onUpdate: (_o, c) => this.queue.add(objectKey(c)) });
    const onJob = (j: Job): void => {
      const ref = controllerRef(j.metadata);
      if (ref?.kind === 'CronJob') this.queue.add(`${j.metadata?.namespace ?? ''}/${ref.name}`);
    };
    this.jobInformer.addHandlers({ onAdd: onJob, onUpdate: (_o, j) => onJob(j), onDelete: onJob });
    void runWorkers(this.queue, (k) => this.sync(k), 5);
  }

  stop(): void {
    this.queue.shutDown();
  }

  private async deleteJob(cj: CronJob, j: Job): Promise<void> {
    try {
      await this.ctx.client.delete(resources.jobs, j.metadata?.name ?? '', { namespace: j.metadata?.namespace ?? 'default', propagationPolicy: 'Background' });
      this.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata?.name ?? ''}`);
    } catch (e) {
      if (!isNotFound(e)) {
        this.recorder.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${errorMessage(e)}`);
        throw e;
      }
    }
  }

  /** `sync` + `syncCronJob` + `cleanupFinishedJobs`. */
  async sync(key: string): Promise<void> {
    const cached = this.cjInformer.get(key);
    if (cached === undefined) return;
    const cj = deepCopy(cached);
    const ns = cj.metadata?.namespace ?? 'default';
    const now = this.ctx.clock.now();
    const children = this.jobInformer.byIndex(NamespaceIndex, ns).filter((j) => controllerRef(j.metadata)?.uid === cj.metadata?.uid);
    const status: CronJobStatus = deepCopy(cj.status ?? {});
    let active = [...(status.active ?? [])];
    for (const j of children) {
      const inActive = active.some((a) => a.uid === j.metadata?.uid);
      const fin = finishedType(j);
      if (!inActive && fin === undefined) {
        this.recorder.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${j.metadata?.name ?? ''}`);
      } else if (inActive && fin !== undefined) {
        active = active.filter((a) => a.uid !== j.metadata?.uid);
        this.recorder.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata?.name ?? ''}, status: ${fin}`);
        const done = parseTime(j.status?.completionTime);
        if (fin === 'Complete' && done !== undefined && (parseTime(status.lastSuccessfulTime) ?? -Infinity) < done) status.lastSuccessfulTime = j.status?.completionTime ?? '';
      }
    }
    for (const a of [...active]) {
      if (children.some((j) => j.metadata?.uid === a.uid)) continue;
      try {
        await this.ctx.client.get<Job>(resources.jobs, a.name ?? '', { namespace: ns });
      } catch (e) {
        if (!isNotFound(e)) throw e;
        this.recorder.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${a.name ?? ''}`);
        active = active.filter((x) => x.uid !== a.uid);
      }
    }
    let requeueAfter: number | undefined;
    const tz = cj.spec?.timeZone ?? undefined;
    if (cj.spec?.suspend !== true && cj.metadata?.deletionTimestamp === undefined) {
      let schedule: Schedule | undefined;
      if (tz !== undefined && !validTimeZone(tz)) {
        this.recorder.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: "${tz}": unknown time zone ${tz}`);
      } else {
        try {
          schedule = parseSchedule(cj.spec?.schedule ?? '', tz);
        } catch (e) {
          if (!(e instanceof CronParseError)) throw e;
          this.recorder.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: "${cj.spec?.schedule ?? ''}" : ${e.message}`);
        }
      }
      if (schedule !== undefined) {
        const { mostRecent, missed } = mostRecentScheduleTime({ ...cj, status }, now, schedule, true);
        if (mostRecent !== undefined && missed > 100) {
          this.recorder.event(cj, 'Warning', 'TooManyMissedTimes', `too many missed start times: ${missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
        }
        const scheduled = mostRecent !== undefined && mostRecent <= now ? mostRecent : undefined;
        if (scheduled !== undefined) active = await this.maybeStart(cj, status, active, scheduled, now);
        const r = mostRecentScheduleTime({ ...cj, status }, now, schedule, false);
        const base = r.mostRecent ?? r.earliest;
        const next = schedule.next(base);
        if (next !== undefined) requeueAfter = next + nextScheduleDeltaMs - now;
      }
    }
    if (active.length > 0) status.active = active;
    else delete status.active;
    if (!semanticEqual(status, cj.status ?? {})) {
      try {
        await this.ctx.client.update(resources.cronjobs, { ...cj, status }, { subresource: 'status', namespace: ns });
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
    }
    await this.cleanupFinishedJobs(cj, children);
    if (requeueAfter !== undefined) this.queue.addAfter(key, Math.max(0, requeueAfter));
  }

  private async maybeStart(cj: CronJob, status: CronJobStatus, active: ObjectReference[], scheduled: number, now: number): Promise<ObjectReference[]> {
    const ns = cj.metadata?.namespace ?? 'default';
    const deadline = cj.spec?.startingDeadlineSeconds;
    if (deadline !== undefined && deadline !== null && scheduled + deadline * 1000 < now) {
      this.recorder.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${new Date(scheduled).toUTCString().replace('GMT', '+0000')}`);
      return active;
    }
    const name = jobName(cj, scheduled);
    if (active.some((a) => a.name === name) || parseTime(status.lastScheduleTime) === scheduled) return active;
    const policy = cj.spec?.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && active.length > 0) {
      this.recorder.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return active;
    }
    if (policy === 'Replace') {
      for (const a of active) {
        const j = this.jobInformer.get(`${ns}/${a.name ?? ''}`);
        if (j === undefined) continue;
        await this.deleteJob(cj, j);
      }
      active = [];
    }
    const tpl = cj.spec?.jobTemplate;
    const annotations: Record<string, string> = { ...(tpl?.metadata?.annotations ?? {}), [CronJobScheduledTimestampAnnotation]: rfc3339In(scheduled, cj.spec?.timeZone ?? undefined) };
    const job: Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace: ns,
        ...(tpl?.metadata?.labels !== undefined ? { labels: { ...tpl.metadata.labels } } : {}),
        annotations,
        ownerReferences: [newControllerRef(cj, 'batch/v1', 'CronJob')],
      },
      spec: deepCopy(tpl?.spec ?? { template: {} }),
    };
    let created: Job;
    try {
      created = await this.ctx.client.create<Job>(resources.jobs, job, { namespace: ns });
    } catch (e) {
      if (isAlreadyExists(e)) return active;
      this.recorder.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${errorMessage(e)}`);
      throw e;
    }
    this.recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata?.name ?? ''}`);
    active = [
      ...active,
      { kind: 'Job', namespace: ns, name: created.metadata?.name ?? '', uid: created.metadata?.uid ?? '', apiVersion: 'batch/v1', resourceVersion: created.metadata?.resourceVersion ?? '' },
    ];
    status.lastScheduleTime = formatTime(scheduled);
    return active;
  }

  /** `cleanupFinishedJobs` / `removeOldestJobs`: oldest by start time first. */
  private async cleanupFinishedJobs(cj: CronJob, children: Job[]): Promise<void> {
    const byStart = (a: Job, b: Job): number => (parseTime(a.status?.startTime) ?? Infinity) - (parseTime(b.status?.startTime) ?? Infinity) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
    const limits: ['Complete' | 'Failed', number][] = [
      ['Complete', cj.spec?.successfulJobsHistoryLimit ?? 3],
      ['Failed', cj.spec?.failedJobsHistoryLimit ?? 1],
    ];
    for (const [type, limit] of limits) {
      const finished = children.filter((j) => finishedType(j) === type && j.metadata?.deletionTimestamp === undefined).sort(byStart);
      for (const j of finished.slice(0, Math.max(0, finished.length - limit))) await this.deleteJob(cj, j);
    }
  }
}

export function create(ctx: ControllerContext): CronJobController {
  return new CronJobController(ctx);
}
