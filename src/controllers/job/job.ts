/**
 * The Job controller (pkg/controller/job/job_controller.go, v1.32): runs pods to `completions` with at most
 * `parallelism` active (NonIndexed or Indexed), counts finished pods through the
 * `batch.kubernetes.io/job-tracking` finalizer and `uncountedTerminatedPods`, recreates failed pods with
 * exponential backoff (10 s doubling to 6 min) until `backoffLimit`, honours `activeDeadlineSeconds` and
 * `suspend`, and finishes with the interim SuccessCriteriaMet/FailureTarget condition followed by
 * Complete/Failed once no pod is left running.
 */
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { Job, JobCondition, JobStatus } from 'kubernetes-types/batch/v1.js';
import { isNotFound } from '../../api/errors.js';
import { labelSelectorAsSelector, Selector } from '../../api/labels.js';
import { resources } from '../../api/resources.js';
import { semanticEqual, NamespaceIndex, asError, errorMessage, objectKey, runWorkers, type Controller, type ControllerContext, type EventRecorder, type Informer, type WorkQueue } from '../_context.js';
import { claimObjects, controllerRef, newControllerRef, recheckOwner } from '../_owner.js';
import { activePodsLess, formatTime, isPodReady, parseTime, podFromTemplate, slowStartBatch, sortByLess } from '../_pods.js';
import { eventComponents, names } from '../names.js';
import { omitZeros } from '../_status.js';

export const JobTrackingFinalizer = 'batch.kubernetes.io/job-tracking';
export const JobCompletionIndexAnnotation = 'batch.kubernetes.io/job-completion-index';
export const ControllerUidLabel = 'batch.kubernetes.io/controller-uid';
export const JobNameLabel = 'batch.kubernetes.io/job-name';
export const LegacyControllerUidLabel = 'controller-uid';
export const LegacyJobNameLabel = 'job-name';

/** `DefaultJobPodFailureBackOff` and `MaxJobPodFailureBackOff`. */
export const backoffBaseMs = 10_000;
export const backoffMaxMs = 360_000;

export const messages = {
  completionsReached: 'Reached expected number of succeeded pods',
  backoffLimitExceeded: 'Job has reached the specified backoff limit',
  deadlineExceeded: 'Job was active longer than specified deadline',
} as const;

/** Pod failure backoff: 10 s, 20 s, 40 s, ... capped at 6 min, after the n-th consecutive failure. */
export function failureBackoffMs(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(backoffMaxMs, backoffBaseMs * 2 ** (failures - 1));
}

/** `succeededIndexes.String()`: sorted intervals, `0-2,4`. */
export function formatIndexes(indexes: Iterable<number>): string {
  const xs = [...new Set(indexes)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < xs.length; ) {
    let j = i;
    while (j + 1 < xs.length && (xs[j + 1] ?? 0) === (xs[j] ?? 0) + 1) j++;
    out.push(i === j ? String(xs[i]) : `${xs[i] ?? 0}-${xs[j] ?? 0}`);
    i = j + 1;
  }
  return out.join(',');
}

export function podIndex(p: Pod): number | undefined {
  const v = p.metadata?.annotations?.[JobCompletionIndexAnnotation] ?? p.metadata?.labels?.[JobCompletionIndexAnnotation];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

function finishedAt(p: Pod): number {
  let t = 0;
  for (const c of p.status?.containerStatuses ?? []) t = Math.max(t, parseTime(c.state?.terminated?.finishedAt) ?? 0);
  if (t > 0) return t;
  return parseTime(p.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime) ?? parseTime(p.metadata?.creationTimestamp) ?? 0;
}

function condition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

function isFinished(job: Job): boolean {
  return condition(job, 'Complete') !== undefined || condition(job, 'Failed') !== undefined;
}

function newCondition(type: string, status: string, reason: string, message: string, now: number): JobCondition {
  const t = formatTime(now);
  return { type, status, reason, message, lastProbeTime: t, lastTransitionTime: t };
}

function setCondition(status: JobStatus, c: JobCondition): void {
  const conds = status.conditions ?? [];
  const cur = conds.find((x) => x.type === c.type);
  if (cur !== undefined && cur.status === c.status && cur.reason === c.reason && cur.message === c.message) return;
  status.conditions = cur === undefined ? [...conds, c] : conds.map((x) => (x.type === c.type ? c : x));
}

export class JobController implements Controller {
  readonly name = names.Job;
  private readonly queue: WorkQueue<string>;
  private readonly jobInformer: Informer<Job>;
  private readonly podInformer: Informer<Pod>;
  private readonly recorder: EventRecorder;
  /**
   * Pods counted whose finalizer removal the informer has not shown yet (upstream's finalizer
   * expectations): they must not be counted twice.
   */
  private readonly counted = new Set<string>();

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.jobInformer = ctx.informer<Job>(resources.jobs);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.recorder = ctx.recorder(eventComponents.job);
  }

  start(): void {
    this.jobInformer.addHandlers({ onAdd: (j) => this.queue.add(objectKey(j)), onUpdate: (_o, j) => this.queue.add(objectKey(j)) });
    const onPod = (p: Pod): void => {
      if (!(p.metadata?.finalizers ?? []).includes(JobTrackingFinalizer)) this.counted.delete(p.metadata?.uid ?? '');
      const ref = controllerRef(p.metadata);
      if (ref?.kind === 'Job') this.queue.add(`${p.metadata?.namespace ?? ''}/${ref.name}`);
    };
    this.podInformer.addHandlers({
      onAdd: onPod,
      onUpdate: (_o, p) => onPod(p),
      onDelete: (p) => {
        this.counted.delete(p.metadata?.uid ?? '');
        onPod(p);
      },
    });
    void runWorkers(this.queue, (k) => this.sync(k), 5);
  }

  stop(): void {
    this.queue.shutDown();
  }

  private selector(job: Job): Selector {
    try {
      if (job.spec?.selector !== undefined) return labelSelectorAsSelector(job.spec.selector);
    } catch {
      return Selector.nothing();
    }
    return labelSelectorAsSelector({ matchLabels: { [ControllerUidLabel]: job.metadata?.uid ?? '' } });
  }

  /** The pod template with the job labels (the API server adds them to the template on create). */
  private podTemplate(job: Job, index: number | undefined): PodTemplateSpec {
    const t = structuredClone(job.spec?.template ?? {});
    const m = (t.metadata ??= {});
    const uid = job.metadata?.uid ?? '';
    const name = job.metadata?.name ?? '';
    m.labels = { [ControllerUidLabel]: uid, [JobNameLabel]: name, [LegacyControllerUidLabel]: uid, [LegacyJobNameLabel]: name, ...(m.labels ?? {}) };
    m.finalizers = [...(m.finalizers ?? []), JobTrackingFinalizer];
    if (index !== undefined) {
      m.annotations = { ...(m.annotations ?? {}), [JobCompletionIndexAnnotation]: String(index) };
      m.labels[JobCompletionIndexAnnotation] = String(index);
      const spec = (t.spec ??= { containers: [] });
      (spec as { hostname?: string }).hostname = `${name}-${index}`;
      for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
        const env = (c.env ?? []).filter((e) => e.name !== 'JOB_COMPLETION_INDEX');
        env.push({ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${JobCompletionIndexAnnotation}']` } } });
        (c as { env?: unknown[] }).env = env;
      }
    }
    return t;
  }

  private async removeFinalizers(pods: readonly Pod[]): Promise<void> {
    await Promise.all(
      pods.map(async (p) => {
        const finalizers = (p.metadata?.finalizers ?? []).filter((f) => f !== JobTrackingFinalizer);
        try {
          await this.ctx.client.patch(resources.pods, p.metadata?.name ?? '', 'merge', { metadata: { finalizers: finalizers.length > 0 ? finalizers : null } }, { namespace: p.metadata?.namespace ?? 'default' });
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
      }),
    );
  }

  private async writeStatus(job: Job, status: JobStatus): Promise<Job> {
    if (semanticEqual(status, job.status ?? {})) return job;
    return this.ctx.client.update<Job>(resources.jobs, { ...job, status }, { subresource: 'status', namespace: job.metadata?.namespace ?? 'default' });
  }

  private async deletePods(job: Job, pods: readonly Pod[]): Promise<void> {
    await Promise.all(
      pods.map(async (p) => {
        try {
          await this.ctx.client.delete(resources.pods, p.metadata?.name ?? '', { namespace: p.metadata?.namespace ?? 'default' });
          this.recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata?.name ?? ''}`);
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
      }),
    );
  }

  /** `syncJob`. */
  async sync(key: string): Promise<void> {
    const cached = this.jobInformer.get(key);
    if (cached === undefined) return;
    let job = structuredClone(cached);
    const ns = job.metadata?.namespace ?? 'default';
    const now = this.ctx.clock.now();
    const pods = await claimObjects(
      this.podInformer.byIndex(NamespaceIndex, ns),
      {
        client: this.ctx.client,
        res: resources.pods,
        owner: job,
        ownerApiVersion: 'batch/v1',
        ownerKind: 'Job',
        selector: this.selector(job),
        canAdopt: recheckOwner(this.ctx.client, resources.jobs, job),
      },
    );
    const tracked = (p: Pod): boolean => (p.metadata?.finalizers ?? []).includes(JobTrackingFinalizer);
    const terminal = (p: Pod): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
    if (isFinished(job)) {
      await this.removeFinalizers(pods.filter(tracked));
      return;
    }
    // Count finished pods: record them as uncounted, drop their finalizers, then fold them into the counts.
    const status: JobStatus = structuredClone(job.status ?? {});
    const uncounted = { succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? [])], failed: [...(status.uncountedTerminatedPods?.failed ?? [])] };
    const newlyFinished = pods.filter((p) => terminal(p) && tracked(p) && !this.counted.has(p.metadata?.uid ?? ''));
    for (const p of newlyFinished) {
      const uid = p.metadata?.uid ?? '';
      const list = p.status?.phase === 'Succeeded' ? uncounted.succeeded : uncounted.failed;
      if (!list.includes(uid)) list.push(uid);
    }
    if (newlyFinished.length > 0) {
      status.uncountedTerminatedPods = uncounted;
      job = await this.writeStatus(job, status);
      await this.removeFinalizers(newlyFinished);
      for (const p of newlyFinished) this.counted.add(p.metadata?.uid ?? '');
    }
    status.succeeded = (status.succeeded ?? 0) + uncounted.succeeded.length;
    status.failed = (status.failed ?? 0) + uncounted.failed.length;
    status.uncountedTerminatedPods = {};
    const indexed = job.spec?.completionMode === 'Indexed';
    if (indexed) {
      const done = new Set<number>();
      for (const x of (status.completedIndexes ?? '').split(',').filter((s) => s !== '')) {
        const [a, b] = x.split('-').map(Number);
        for (let i = a ?? 0; i <= (b ?? a ?? 0); i++) done.add(i);
      }
      for (const p of pods) if (p.status?.phase === 'Succeeded') {
        const i = podIndex(p);
        if (i !== undefined && i < (job.spec?.completions ?? 0)) done.add(i);
      }
      status.completedIndexes = formatIndexes(done);
      status.succeeded = done.size;
    }
    let active = pods.filter((p) => !terminal(p) && p.metadata?.deletionTimestamp === undefined);
    const terminating = pods.filter((p) => !terminal(p) && p.metadata?.deletionTimestamp !== undefined);
    if (status.startTime === undefined && job.spec?.suspend !== true) status.startTime = formatTime(now);

    const completions = job.spec?.completions;
    const backoffLimit = job.spec?.backoffLimit ?? 6;
    const succeeded = status.succeeded ?? 0;
    const failed = status.failed ?? 0;
    let finishReason: { type: 'SuccessCriteriaMet' | 'FailureTarget'; reason: string; message: string } | undefined;
    const interimSuccess = condition(job, 'SuccessCriteriaMet');
    const interimFailure = condition(job, 'FailureTarget');
    if (interimFailure !== undefined) finishReason = { type: 'FailureTarget', reason: interimFailure.reason ?? '', message: interimFailure.message ?? '' };
    else if (interimSuccess !== undefined) finishReason = { type: 'SuccessCriteriaMet', reason: interimSuccess.reason ?? '', message: interimSuccess.message ?? '' };
    else if (failed > backoffLimit) finishReason = { type: 'FailureTarget', reason: 'BackoffLimitExceeded', message: messages.backoffLimitExceeded };
    else if (job.spec?.activeDeadlineSeconds !== undefined && status.startTime !== undefined && (parseTime(status.startTime) ?? now) + job.spec.activeDeadlineSeconds * 1000 <= now) {
      finishReason = { type: 'FailureTarget', reason: 'DeadlineExceeded', message: messages.deadlineExceeded };
    } else if (completions !== undefined && completions !== null ? succeeded >= completions : succeeded > 0 && active.length === 0) {
      finishReason = { type: 'SuccessCriteriaMet', reason: 'CompletionsReached', message: messages.completionsReached };
    } else if (completions === undefined && succeeded > 0) {
      // Work-queue Jobs: once one pod succeeded no new pods start; the Job completes when the rest finish.
      finishReason = undefined;
    }

    if (finishReason !== undefined) {
      setCondition(status, newCondition(finishReason.type, 'True', finishReason.reason, finishReason.message, now));
      if (active.length > 0) await this.deletePods(job, active);
      if (active.length === 0 && terminating.length === 0) {
        if (finishReason.type === 'SuccessCriteriaMet') {
          setCondition(status, newCondition('Complete', 'True', finishReason.reason, finishReason.message, now));
          status.completionTime = formatTime(now);
          this.recorder.event(job, 'Normal', 'Completed', 'Job completed');
        } else {
          setCondition(status, newCondition('Failed', 'True', finishReason.reason, finishReason.message, now));
          this.recorder.event(job, 'Warning', finishReason.reason, finishReason.message);
        }
      }
      active = [];
    } else if (job.spec?.suspend === true) {
      if (active.length > 0) await this.deletePods(job, active);
      if (condition(job, 'Suspended') === undefined) {
        setCondition(status, newCondition('Suspended', 'True', 'JobSuspended', 'Job suspended', now));
        this.recorder.event(job, 'Normal', 'Suspended', 'Job suspended');
      }
      delete status.startTime;
      active = [];
    } else {
      if (condition(job, 'Suspended') !== undefined) {
        setCondition(status, newCondition('Suspended', 'False', 'JobResumed', 'Job resumed', now));
        this.recorder.event(job, 'Normal', 'Resumed', 'Job resumed');
      }
      active = await this.manageActive(job, status, active, pods, now);
    }
    if (finishReason === undefined && job.spec?.activeDeadlineSeconds !== undefined && status.startTime !== undefined) {
      const left = (parseTime(status.startTime) ?? now) + job.spec.activeDeadlineSeconds * 1000 - now;
      this.queue.addAfter(key, Math.max(0, left));
    }
    status.active = active.length;
    status.ready = active.filter(isPodReady).length;
    status.terminating = terminating.length;
    await this.writeStatus(job, omitZeros(status, ['active', 'succeeded', 'failed']));
  }

  /** `manageJob`: creates or deletes pods toward the wanted number of active pods. */
  private async manageActive(job: Job, status: JobStatus, active: Pod[], pods: readonly Pod[], now: number): Promise<Pod[]> {
    const key = objectKey(job);
    const ns = job.metadata?.namespace ?? 'default';
    const completions = job.spec?.completions;
    const parallelism = job.spec?.parallelism ?? 1;
    const succeeded = status.succeeded ?? 0;
    let want = parallelism;
    if (completions !== undefined && completions !== null) want = Math.min(parallelism, Math.max(0, completions - succeeded));
    else if (succeeded > 0) want = active.length;
    if (active.length > want) {
      const extra = sortByLess([...active], activePodsLess).slice(0, active.length - want);
      await this.deletePods(job, extra);
      return active.filter((p) => !extra.includes(p));
    }
    if (active.length === want) return active;
    // Back off after failures: 10 s doubling per failure since the last success (capped at 6 min).
    const failedPods = pods.filter((p) => p.status?.phase === 'Failed');
    const failures = status.failed ?? 0;
    if (failures > 0 && failedPods.length > 0) {
      const last = Math.max(...failedPods.map(finishedAt));
      const wait = last + failureBackoffMs(failures) - now;
      if (wait > 0) {
        this.queue.addAfter(key, wait);
        return active;
      }
    }
    const indexed = job.spec?.completionMode === 'Indexed';
    const toCreate: (number | undefined)[] = [];
    if (indexed) {
      const busy = new Set(active.map(podIndex));
      const done = new Set<number>();
      for (const x of (status.completedIndexes ?? '').split(',').filter((s) => s !== '')) {
        const [a, b] = x.split('-').map(Number);
        for (let i = a ?? 0; i <= (b ?? a ?? 0); i++) done.add(i);
      }
      for (let i = 0; i < (completions ?? 0) && toCreate.length < want - active.length; i++) if (!busy.has(i) && !done.has(i)) toCreate.push(i);
    } else for (let i = 0; i < want - active.length; i++) toCreate.push(undefined);
    const ref = newControllerRef(job, 'batch/v1', 'Job');
    let next = 0;
    const { error } = await slowStartBatch(toCreate.length, 1, async () => {
      const index = toCreate[next++];
      const pod = podFromTemplate(this.podTemplate(job, index), ns, ref);
      if (index !== undefined) (pod.metadata as { generateName?: string }).generateName = `${job.metadata?.name ?? ''}-${index}-`;
      try {
        const created = await this.ctx.client.create<Pod>(resources.pods, pod, { namespace: ns });
        active.push(created);
        this.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name ?? ''}`);
      } catch (e) {
        this.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(e)}`);
        throw e;
      }
    });
    if (error !== undefined) throw asError(error);
    return active;
  }
}

export function create(ctx: ControllerContext): JobController {
  return new JobController(ctx);
}
