/**
 * The Job controller (pkg/controller/job/job_controller.go, v1.32): runs pods to `completions` with at most
 * `parallelism` active (NonIndexed or Indexed), counts finished pods through the
 * `batch.kubernetes.io/job-tracking` finalizer and `uncountedTerminatedPods`, recreates failed pods with
 * exponential backoff (10 s doubling to 6 min; per index with `backoffLimitPerIndex`) until `backoffLimit`,
 * applies `podFailurePolicy` (FailJob, FailIndex, Ignore, Count), `successPolicy` and
 * `podReplacementPolicy`, honours `activeDeadlineSeconds` and `suspend`, leaves Jobs with a foreign
 * `spec.managedBy` alone, and finishes with the interim SuccessCriteriaMet/FailureTarget condition followed
 * by Complete/Failed once no pod is left terminating.
 */
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { Job, JobCondition, JobStatus } from 'kubernetes-types/batch/v1.js';
import { isNotFound } from '../../api/errors.js';
import { labelSelectorAsSelector, Selector } from '../../api/labels.js';
import { resources } from '../../api/resources.js';
import { semanticEqual, NamespaceIndex, asError, errorMessage, objectKey, runWorkers, type Controller, type ControllerContext, type EventRecorder, type Informer, type WorkQueue } from '../_context.js';
import { Expectations } from '../_expectations.js';
import { claimObjects, controllerRef, newControllerRef, recheckOwner } from '../_owner.js';
import { activePodsLess, formatTime, isPodActive, isPodReady, parseTime, podFromTemplate, slowStartBatch, sortByLess } from '../_pods.js';
import { eventComponents, names } from '../names.js';
import { omitZeros } from '../_status.js';
import { BackoffStore, getFinishedTime, remainingTime, remainingTimePerIndex, type BackoffRecord } from './_backoff.js';
import {
  JobCompletionIndexAnnotation,
  JobIndexFailureCountAnnotation,
  JobIndexIgnoredFailureCountAnnotation,
  OrderedIntervals,
  calculateFailedIndexes,
  calculateSucceededIndexes,
  duplicatedIndexPodsForRemoval,
  firstPendingIndexes,
  getCompletionIndex,
  getIndexAbsoluteFailureCount,
  hasBackoffLimitPerIndex,
  hasJobTrackingFinalizer,
  isIndexedJob,
  isPodFailed,
  isTerminating,
  newIndexFailureCounts,
  onlyReplaceFailedPods,
  unknownCompletionIndex,
} from './_indexed.js';
import { matchPodFailurePolicy } from './_pod-failure-policy.js';
import { matchSuccessPolicy } from './_success-policy.js';
import { deepCopy } from '../../util/deep-copy.js';

export { JobCompletionIndexAnnotation, JobIndexFailureCountAnnotation, JobIndexIgnoredFailureCountAnnotation } from './_indexed.js';
export { backoffBaseMs, backoffMaxMs } from './_backoff.js';

export const JobTrackingFinalizer = 'batch.kubernetes.io/job-tracking';
export const ControllerUidLabel = 'batch.kubernetes.io/controller-uid';
export const JobNameLabel = 'batch.kubernetes.io/job-name';
export const LegacyControllerUidLabel = 'controller-uid';
export const LegacyJobNameLabel = 'job-name';
/** `batch.JobControllerName`: the `spec.managedBy` value of Jobs this controller syncs (also when unset). */
export const JobControllerName = 'kubernetes.io/job-controller';

/** `MaxUncountedPods` and `MaxPodCreateDeletePerSync`. */
const maxUncountedPods = 500;
const maxPodCreateDeletePerSync = 500;
const maxInt32 = 2147483647;

/** The `batch.JobReason*` condition reasons. */
export const reasons = {
  podFailurePolicy: 'PodFailurePolicy',
  backoffLimitExceeded: 'BackoffLimitExceeded',
  deadlineExceeded: 'DeadlineExceeded',
  maxFailedIndexesExceeded: 'MaxFailedIndexesExceeded',
  failedIndexes: 'FailedIndexes',
  successPolicy: 'SuccessPolicy',
  completionsReached: 'CompletionsReached',
} as const;

export const messages = {
  completionsReached: 'Reached expected number of succeeded pods',
  backoffLimitExceeded: 'Job has reached the specified backoff limit',
  deadlineExceeded: 'Job was active longer than specified deadline',
  maxFailedIndexesExceeded: 'Job has exceeded the specified maximal number of failed indexes',
  failedIndexes: 'Job has failed indexes',
} as const;

function findCondition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type);
}

function isConditionTrue(job: Job, type: string): boolean {
  return findCondition(job, type)?.status === 'True';
}

/** `util.IsJobFinished`: Complete or Failed is True. */
export function isJobFinished(job: Job): boolean {
  return isConditionTrue(job, 'Complete') || isConditionTrue(job, 'Failed');
}

/** `managedByExternalController`: the foreign `spec.managedBy`, undefined for Jobs this controller syncs. */
export function managedByExternalController(job: Job): string | undefined {
  const m = job.spec?.managedBy;
  return m !== undefined && m !== null && m !== JobControllerName ? m : undefined;
}

function newCondition(type: string, status: string, reason: string, message: string, now: number): JobCondition {
  const t = formatTime(now);
  return { type, status, reason, message, lastProbeTime: t, lastTransitionTime: t };
}

/** `ensureJobConditionStatus`: updates or appends (never appends a False condition); answers whether it changed. */
function ensureJobConditionStatus(status: JobStatus, type: string, value: string, reason: string, message: string, now: number): boolean {
  const conds = status.conditions ?? [];
  const i = conds.findIndex((c) => c.type === type);
  if (i >= 0) {
    const c = conds[i] as JobCondition;
    if (c.status === value && c.reason === reason && c.message === message) return false;
    status.conditions = conds.map((x, j) => (j === i ? newCondition(type, value, reason, message, now) : x));
    return true;
  }
  if (value === 'False') return false;
  status.conditions = [...conds, newCondition(type, value, reason, message, now)];
  return true;
}

function isJobSuspended(job: Job): boolean {
  return job.spec?.suspend === true;
}

/** `syncJobCtx`: what one sync knows about a Job and its pods. */
interface SyncCtx {
  key: string;
  job: Job;
  pods: Pod[];
  activePods: Pod[];
  ready: number;
  terminating: number;
  succeeded: number;
  failed: number;
  uncounted: { succeeded: Set<string>; failed: Set<string> };
  expectedRmFinalizers: ReadonlySet<string>;
  newBackoffRecord: BackoffRecord;
  finishedCondition: JobCondition | undefined;
  prevSucceededIndexes: OrderedIntervals;
  succeededIndexes: OrderedIntervals;
  failedIndexes: OrderedIntervals | undefined;
  podsWithDelayedDeletionPerIndex: Map<number, Pod>;
}

const orphanPrefix = 'orphan-pod:';

export class JobController implements Controller {
  readonly name = names.Job;
  private readonly queue: WorkQueue<string>;
  private readonly jobInformer: Informer<Job>;
  private readonly podInformer: Informer<Pod>;
  private readonly recorder: EventRecorder;
  /** Pod creations and deletions the informer has not shown yet (`ControllerExpectations`). */
  readonly expectations: Expectations;
  /**
   * UIDs of pods whose finalizer removal the informer has not shown yet (upstream's finalizer
   * expectations): they must not be counted twice.
   */
  private readonly expectedRmFinalizers = new Set<string>();
  private readonly backoff = new BackoffStore();

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.jobInformer = ctx.informer<Job>(resources.jobs);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.recorder = ctx.recorder(eventComponents.job);
    this.expectations = new Expectations(ctx.clock);
  }

  start(): void {
    this.jobInformer.addHandlers({
      onAdd: (j) => this.queue.add(objectKey(j)),
      onUpdate: (_o, j) => this.queue.add(objectKey(j)),
      onDelete: (j) => {
        this.queue.add(objectKey(j));
        for (const p of this.podInformer.byIndex(NamespaceIndex, j.metadata?.namespace ?? '')) {
          if (controllerRef(p.metadata)?.uid === j.metadata?.uid && hasJobTrackingFinalizer(p)) this.queue.add(orphanPrefix + objectKey(p));
        }
      },
    });
    const onPod = (p: Pod, event: 'add' | 'update' | 'delete'): void => {
      if (!hasJobTrackingFinalizer(p) || event === 'delete') this.expectedRmFinalizers.delete(p.metadata?.uid ?? '');
      const ref = controllerRef(p.metadata);
      if (ref?.kind !== 'Job') {
        if (event !== 'delete' && hasJobTrackingFinalizer(p)) this.queue.add(orphanPrefix + objectKey(p));
        return;
      }
      const key = `${p.metadata?.namespace ?? ''}/${ref.name}`;
      const job = this.jobInformer.get(key);
      if (job === undefined || job.metadata?.uid !== ref.uid) {
        if (event !== 'delete' && hasJobTrackingFinalizer(p)) this.queue.add(orphanPrefix + objectKey(p));
        return;
      }
      if (isJobFinished(job) && event !== 'delete' && hasJobTrackingFinalizer(p)) this.queue.add(orphanPrefix + objectKey(p));
      if (event === 'delete' || p.metadata?.deletionTimestamp !== undefined) this.expectations.deletionObserved(key, objectKey(p));
      else if (event === 'add') this.expectations.creationObserved(key);
      this.queue.add(key);
    };
    this.podInformer.addHandlers({
      onAdd: (p) => onPod(p, 'add'),
      onUpdate: (_o, p) => onPod(p, 'update'),
      onDelete: (p) => onPod(p, 'delete'),
    });
    void runWorkers(this.queue, (k) => (k.startsWith(orphanPrefix) ? this.syncOrphanPod(k.slice(orphanPrefix.length)) : this.sync(k)), 5);
  }

  stop(): void {
    this.queue.shutDown();
  }

  /**
   * `syncOrphanPod`: drops the tracking finalizer of a pod whose Job is gone or finished (not of pods of a
   * Job managed by another controller, nor of pods a non-Job controller owns).
   */
  private async syncOrphanPod(key: string): Promise<void> {
    const pod = this.podInformer.get(key);
    if (pod === undefined || !hasJobTrackingFinalizer(pod)) return;
    const ref = controllerRef(pod.metadata);
    if (ref !== undefined) {
      if (ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return;
      const job = this.jobInformer.get(`${pod.metadata?.namespace ?? ''}/${ref.name}`);
      const same = job !== undefined && job.metadata?.uid === ref.uid ? job : undefined;
      if (same !== undefined && managedByExternalController(same) !== undefined) return;
      if (same !== undefined && !isJobFinished(same)) return;
    }
    await this.removeTrackingFinalizers([pod]);
  }

  private selector(job: Job): Selector {
    try {
      if (job.spec?.selector !== undefined) return labelSelectorAsSelector(job.spec.selector);
    } catch {
      return Selector.nothing();
    }
    return labelSelectorAsSelector({ matchLabels: { [ControllerUidLabel]: job.metadata?.uid ?? '' } });
  }

  /** The pod template with the job labels (the API server adds them to the template on create) and the finalizer. */
  private podTemplate(job: Job): PodTemplateSpec {
    const t = deepCopy(job.spec?.template ?? {});
    const m = (t.metadata ??= {});
    const uid = job.metadata?.uid ?? '';
    const name = job.metadata?.name ?? '';
    m.labels = { [ControllerUidLabel]: uid, [JobNameLabel]: name, [LegacyControllerUidLabel]: uid, [LegacyJobNameLabel]: name, ...(m.labels ?? {}) };
    if (!(m.finalizers ?? []).includes(JobTrackingFinalizer)) m.finalizers = [...(m.finalizers ?? []), JobTrackingFinalizer];
    if (isIndexedJob(job)) {
      const spec = (t.spec ??= { containers: [] });
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        if ((c.env ?? []).some((e) => e.name === 'JOB_COMPLETION_INDEX')) continue;
        c.env = [...(c.env ?? []), { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${JobCompletionIndexAnnotation}']` } } }];
      }
    }
    return t;
  }

  /**
   * `removeTrackingFinalizerFromPods`: answers, per pod, whether its finalizer is gone (a pod already deleted
   * counts as done), and the first error.
   */
  private async removeTrackingFinalizers(pods: readonly Pod[]): Promise<{ done: boolean[]; error: unknown }> {
    for (const p of pods) this.expectedRmFinalizers.add(p.metadata?.uid ?? '');
    let error: unknown;
    const done = await Promise.all(
      pods.map(async (p) => {
        const finalizers = (p.metadata?.finalizers ?? []).filter((f) => f !== JobTrackingFinalizer);
        try {
          await this.ctx.client.patch(resources.pods, p.metadata?.name ?? '', 'merge', { metadata: { finalizers: finalizers.length > 0 ? finalizers : null } }, { namespace: p.metadata?.namespace ?? 'default' });
          return true;
        } catch (e) {
          this.expectedRmFinalizers.delete(p.metadata?.uid ?? '');
          if (isNotFound(e)) return true;
          error ??= e;
          return false;
        }
      }),
    );
    return { done, error };
  }

  private async updateStatus(job: Job): Promise<Job> {
    const status = omitZeros(job.status ?? {}, ['active', 'succeeded', 'failed']);
    const u = status.uncountedTerminatedPods ?? {};
    status.uncountedTerminatedPods = {};
    if (u.succeeded !== undefined && u.succeeded.length > 0) status.uncountedTerminatedPods.succeeded = u.succeeded;
    if (u.failed !== undefined && u.failed.length > 0) status.uncountedTerminatedPods.failed = u.failed;
    const cached = this.jobInformer.get(objectKey(job));
    if (cached !== undefined && cached.metadata?.resourceVersion === job.metadata?.resourceVersion && semanticEqual(status, cached.status ?? {})) return job;
    const updated = await this.ctx.client.update<Job>(resources.jobs, { ...job, status }, { subresource: 'status', namespace: job.metadata?.namespace ?? 'default' });
    // Continue from what the server stored, with the zero counters restored for the next steps.
    return { ...updated, status: { ...(updated.status ?? {}), active: updated.status?.active ?? 0, succeeded: updated.status?.succeeded ?? 0, failed: updated.status?.failed ?? 0 } };
  }

  private async deletePod(job: Job, p: Pod): Promise<void> {
    await this.ctx.client.delete(resources.pods, p.metadata?.name ?? '', { namespace: p.metadata?.namespace ?? 'default' });
    this.recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata?.name ?? ''}`);
  }

  /** `deleteActivePods`: deletes the active pods of a finishing Job, keeping their finalizers. */
  private async deleteActivePods(job: Job, pods: readonly Pod[]): Promise<{ deletedReady: number; deleted: number; error: unknown }> {
    let deleted = 0;
    let deletedReady = 0;
    let error: unknown;
    await Promise.all(
      pods.map(async (p) => {
        try {
          await this.deletePod(job, p);
          deleted++;
        } catch (e) {
          if (isNotFound(e)) deleted++;
          else error ??= e;
        }
        if (isPodReady(p)) deletedReady++;
      }),
    );
    return { deletedReady, deleted, error };
  }

  /** `deleteJobPods`: removes the finalizer of each pod, then deletes it. */
  private async deleteJobPods(job: Job, key: string, pods: readonly Pod[]): Promise<{ removedReady: number; removed: number; error: unknown }> {
    let removed = 0;
    let removedReady = 0;
    let error: unknown;
    await Promise.all(
      pods.map(async (p) => {
        const fail = (e: unknown): void => {
          this.expectations.deletionObserved(key, objectKey(p));
          if (!isNotFound(e)) error ??= e;
          else removed++;
        };
        if (hasJobTrackingFinalizer(p)) {
          const { error: e } = await this.removeTrackingFinalizers([p]);
          if (e !== undefined) {
            fail(new Error(`removing completion finalizer: ${errorMessage(e)}`));
            return;
          }
        }
        try {
          await this.deletePod(job, p);
          removed++;
        } catch (e) {
          fail(e);
        }
        if (isPodReady(p)) removedReady++;
      }),
    );
    return { removedReady, removed, error };
  }

  /** `syncJob`. Not called concurrently for one key (the work queue guarantees it). */
  async sync(key: string): Promise<void> {
    const shared = this.jobInformer.get(key);
    if (shared === undefined) {
      this.expectations.delete(key);
      this.backoff.remove(key);
      return;
    }
    // Jobs managed by another controller are skipped here too: a queued key may now name such a Job.
    if (managedByExternalController(shared) !== undefined) return;
    const job = deepCopy(shared);
    if (isJobFinished(job)) {
      this.backoff.remove(key);
      return;
    }
    const mode = job.spec?.completionMode;
    if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed') {
      this.recorder.event(job, 'Warning', 'UnknownCompletionMode', 'Skipped Job sync because completion mode is unknown');
      return;
    }
    const now = this.ctx.clock.now();
    const status: JobStatus = (job.status ??= {});
    status.active ??= 0;
    status.succeeded ??= 0;
    status.failed ??= 0;
    status.uncountedTerminatedPods ??= {};
    const satisfiedExpectations = this.expectations.satisfied(key);
    const ns = job.metadata?.namespace ?? 'default';
    const pods = await claimObjects(this.podInformer.byIndex(NamespaceIndex, ns), {
      client: this.ctx.client,
      res: resources.pods,
      owner: job,
      ownerApiVersion: 'batch/v1',
      ownerKind: 'Job',
      selector: this.selector(job),
      canAdopt: recheckOwner(this.ctx.client, resources.jobs, job),
    });
    const activePods = pods.filter(isPodActive);
    const jc: SyncCtx = {
      key,
      job,
      pods,
      activePods,
      ready: activePods.filter(isPodReady).length,
      terminating: pods.filter(isTerminating).length,
      succeeded: 0,
      failed: 0,
      uncounted: { succeeded: new Set(status.uncountedTerminatedPods.succeeded ?? []), failed: new Set(status.uncountedTerminatedPods.failed ?? []) },
      expectedRmFinalizers: this.expectedRmFinalizers,
      newBackoffRecord: { key, failuresAfterLastSuccess: 0, lastFailureTime: undefined },
      finishedCondition: undefined,
      prevSucceededIndexes: new OrderedIntervals(),
      succeededIndexes: new OrderedIntervals(),
      failedIndexes: undefined,
      podsWithDelayedDeletionPerIndex: new Map(),
    };
    let active = activePods.length;
    const newSucceeded = this.validPods(jc, jc.uncounted.succeeded, (p) => p.status?.phase === 'Succeeded');
    const newFailed = this.validPods(jc, jc.uncounted.failed, (p) => isPodFailed(p, job));
    jc.succeeded = (status.succeeded ?? 0) + newSucceeded.length + jc.uncounted.succeeded.size;
    jc.failed = (status.failed ?? 0) + nonIgnoredFailedPodsCount(job, newFailed) + jc.uncounted.failed.size;
    if (status.startTime === undefined && !isJobSuspended(job)) status.startTime = formatTime(now);
    jc.newBackoffRecord = this.backoff.newRecord(key, newSucceeded, newFailed);

    const backoffLimit = job.spec?.backoffLimit ?? (hasBackoffLimitPerIndex(job) ? maxInt32 : 6);
    const exceedsBackoffLimit = jc.failed > backoffLimit;
    const successCriteriaMet = findCondition(job, 'SuccessCriteriaMet');
    jc.finishedCondition = successCriteriaMet?.status === 'True' ? successCriteriaMet : undefined;
    // With SuccessCriteriaMet already recorded, the podFailurePolicy is not evaluated any more.
    if (jc.finishedCondition === undefined) {
      const failureTarget = findCondition(job, 'FailureTarget');
      if (failureTarget?.status === 'True') {
        jc.finishedCondition = newCondition('Failed', 'True', failureTarget.reason ?? '', failureTarget.message ?? '', now);
      } else {
        const msg = failJobMessage(job, pods);
        if (msg !== undefined) jc.finishedCondition = newCondition('FailureTarget', 'True', reasons.podFailurePolicy, msg, now);
      }
    }
    if (jc.finishedCondition === undefined) {
      if (exceedsBackoffLimit || pastBackoffLimitOnFailure(job, pods, backoffLimit)) {
        jc.finishedCondition = newCondition('FailureTarget', 'True', reasons.backoffLimitExceeded, messages.backoffLimitExceeded, now);
      } else if (this.pastActiveDeadline(job, now)) {
        jc.finishedCondition = newCondition('FailureTarget', 'True', reasons.deadlineExceeded, messages.deadlineExceeded, now);
      } else if (job.spec?.activeDeadlineSeconds !== undefined && !isJobSuspended(job)) {
        const start = parseTime(status.startTime) ?? now;
        this.queue.addAfter(key, Math.max(0, job.spec.activeDeadlineSeconds * 1000 - (now - start)));
      }
    }
    if (isIndexedJob(job)) {
      const { prev, all } = calculateSucceededIndexes(job, pods);
      jc.prevSucceededIndexes = prev;
      jc.succeededIndexes = all;
      jc.succeeded = all.total();
      if (hasBackoffLimitPerIndex(job)) {
        jc.failedIndexes = calculateFailedIndexes(job, pods);
        if (jc.finishedCondition === undefined) {
          const maxFailed = job.spec?.maxFailedIndexes;
          if (maxFailed !== undefined && maxFailed !== null && jc.failedIndexes.total() > maxFailed) {
            jc.finishedCondition = newCondition('FailureTarget', 'True', reasons.maxFailedIndexesExceeded, messages.maxFailedIndexesExceeded, now);
          } else if (jc.failedIndexes.total() > 0 && jc.failedIndexes.total() + jc.succeededIndexes.total() >= (job.spec?.completions ?? 0)) {
            jc.finishedCondition = newCondition('FailureTarget', 'True', reasons.failedIndexes, messages.failedIndexes, now);
          }
        }
        jc.podsWithDelayedDeletionPerIndex = this.podsWithDelayedDeletionPerIndex(jc);
      }
      if (jc.finishedCondition === undefined) {
        const msg = matchSuccessPolicy(job.spec?.successPolicy, job.spec?.completions ?? 0, jc.succeededIndexes);
        if (msg !== undefined) jc.finishedCondition = newCondition('SuccessCriteriaMet', 'True', reasons.successPolicy, msg, now);
      }
    }

    let manageJobErr: unknown;
    if (jc.finishedCondition !== undefined) {
      const { deletedReady, deleted, error } = await this.deleteActivePods(job, jc.activePods);
      // Not finished yet while pods may remain or the informer may not show every pod yet.
      if (deleted !== active || !satisfiedExpectations) jc.finishedCondition = undefined;
      active -= deleted;
      jc.terminating += deleted;
      jc.ready -= deletedReady;
      manageJobErr = error;
    } else {
      let manageJobCalled = false;
      if (satisfiedExpectations && job.metadata?.deletionTimestamp === undefined) {
        const r = await this.manageJob(job, jc, now);
        active = r.active;
        manageJobErr = r.error;
        manageJobCalled = true;
      }
      const completions = job.spec?.completions;
      const complete = completions === undefined || completions === null ? jc.succeeded > 0 && active === 0 : jc.succeeded >= completions && active === 0;
      if (complete) {
        jc.finishedCondition = newCondition('SuccessCriteriaMet', 'True', reasons.completionsReached, messages.completionsReached, now);
      } else if (manageJobCalled) {
        if (isJobSuspended(job)) {
          if (ensureJobConditionStatus(status, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)) {
            this.recorder.event(job, 'Normal', 'Suspended', 'Job suspended');
          }
        } else if (ensureJobConditionStatus(status, 'Suspended', 'False', 'JobResumed', 'Job resumed', now)) {
          this.recorder.event(job, 'Normal', 'Resumed', 'Job resumed');
          // activeDeadlineSeconds counts the time the Job is continuously active.
          status.startTime = formatTime(now);
        }
      }
    }
    status.active = active;
    status.ready = jc.ready;
    status.terminating = jc.terminating;
    await this.trackJobStatusAndRemoveFinalizers(jc, now);
    if (manageJobErr !== undefined) throw asError(manageJobErr);
  }

  private pastActiveDeadline(job: Job, now: number): boolean {
    const ads = job.spec?.activeDeadlineSeconds;
    const start = parseTime(job.status?.startTime);
    if (ads === undefined || ads === null || start === undefined || isJobSuspended(job)) return false;
    return now - start >= ads * 1000;
  }

  /**
   * `getValidPodsWithFilter`: pods still holding the finalizer, not in `uncounted`, whose finalizer removal
   * is not pending, with a valid completion index for Indexed Jobs, that pass `filter`.
   */
  private validPods(jc: SyncCtx, uncounted: ReadonlySet<string> | undefined, filter: (p: Pod) => boolean): Pod[] {
    const completions = jc.job.spec?.completions ?? 0;
    return jc.pods.filter((p) => {
      const uid = p.metadata?.uid ?? '';
      if (!hasJobTrackingFinalizer(p) || uncounted?.has(uid) === true || jc.expectedRmFinalizers.has(uid)) return false;
      if (isIndexedJob(jc.job)) {
        const ix = getCompletionIndex(p);
        if (ix === unknownCompletionIndex || ix >= completions) return false;
      }
      return filter(p);
    });
  }

  /**
   * `getPodsWithDelayedDeletionPerIndex`: per index without an active pod (nor succeeded or failed), the
   * failed pod whose finalizer is kept until its replacement exists, so that the replacement inherits its
   * failure counts.
   */
  private podsWithDelayedDeletionPerIndex(jc: SyncCtx): Map<number, Pod> {
    const activeIndexes = new Set(jc.activePods.map(getCompletionIndex));
    const out = new Map<number, Pod>();
    for (const p of this.validPods(jc, undefined, (x) => isPodFailed(x, jc.job))) {
      const ix = getCompletionIndex(p);
      if (jc.succeededIndexes.has(ix) || jc.failedIndexes?.has(ix) === true || activeIndexes.has(ix)) continue;
      const last = out.get(ix);
      if (last === undefined || (getIndexAbsoluteFailureCount(last) <= getIndexAbsoluteFailureCount(p) && getFinishedTime(p) >= getFinishedTime(last))) out.set(ix, p);
    }
    return out;
  }

  /** `activePodsForRemoval`: repeated or invalid indexes first, then the lowest-ranked pods. */
  private activePodsForRemoval(job: Job, pods: readonly Pod[], rmAtLeast: number): Pod[] {
    let rm: Pod[] = [];
    let left: Pod[] = [...pods];
    if (isIndexedJob(job)) ({ rm, left } = duplicatedIndexPodsForRemoval(pods, job.spec?.completions ?? 0));
    if (rm.length < rmAtLeast) rm = [...rm, ...sortByLess(left, activePodsLess).slice(0, rmAtLeast - rm.length)];
    return rm;
  }

  /**
   * `manageJob`: deletes all pods of a suspended Job; otherwise creates or deletes pods toward the wanted
   * number of active ones, respecting the failure backoff. Answers the new number of active pods.
   */
  private async manageJob(job: Job, jc: SyncCtx, now: number): Promise<{ active: number; error: unknown }> {
    const key = jc.key;
    const active = jc.activePods.length;
    const parallelism = job.spec?.parallelism ?? 1;
    if (isJobSuspended(job)) {
      const toDelete = this.activePodsForRemoval(job, jc.activePods, active);
      this.expectations.expectDeletions(key, toDelete.map(objectKey));
      const { removedReady, removed, error } = await this.deleteJobPods(job, key, toDelete);
      jc.terminating += removed;
      jc.ready -= removedReady;
      return { active: active - removed, error };
    }
    const completions = job.spec?.completions;
    let wantActive: number;
    if (completions === undefined || completions === null) wantActive = jc.succeeded > 0 ? active : parallelism;
    else wantActive = Math.max(0, Math.min(parallelism, completions - jc.succeeded));
    const rmAtLeast = Math.max(0, active - wantActive);
    const toDelete = this.activePodsForRemoval(job, jc.activePods, rmAtLeast).slice(0, maxPodCreateDeletePerSync);
    if (toDelete.length > 0) {
      // Either deletions or creations in one sync; deletions first (e.g. repeated indexes).
      this.expectations.expectDeletions(key, toDelete.map(objectKey));
      const { removedReady, removed, error } = await this.deleteJobPods(job, key, toDelete);
      jc.terminating += removed;
      jc.ready -= removedReady;
      return { active: active - removed, error };
    }
    const terminating = onlyReplaceFailedPods(job) ? jc.terminating : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return { active, error: undefined };
    if (!hasBackoffLimitPerIndex(job)) {
      const wait = remainingTime(jc.newBackoffRecord, now);
      if (wait > 0) {
        this.queue.addAfter(key, wait);
        return { active, error: undefined };
      }
    }
    diff = Math.min(diff, maxPodCreateDeletePerSync);
    let indexes: number[] = [];
    if (isIndexedJob(job)) {
      indexes = firstPendingIndexes(jc, diff, completions ?? 0);
      if (hasBackoffLimitPerIndex(job)) {
        const r = this.indexesToCreateNow(indexes, jc.podsWithDelayedDeletionPerIndex, now);
        if (r.wait > 0) {
          this.queue.addAfter(key, r.wait);
          return { active, error: undefined };
        }
        indexes = r.indexes;
      }
      diff = indexes.length;
    }
    if (diff === 0) return { active, error: undefined };
    this.expectations.expectCreations(key, diff);
    const ref = newControllerRef(job, 'batch/v1', 'Job');
    const template = this.podTemplate(job);
    const ns = job.metadata?.namespace ?? 'default';
    let next = 0;
    const { successes, error } = await slowStartBatch(diff, 1, async () => {
      const index = isIndexedJob(job) ? indexes[next++] : undefined;
      const pod = podFromTemplate(template, ns, ref);
      const m = pod.metadata ?? {};
      if (index !== undefined) {
        m.annotations = { ...(m.annotations ?? {}), [JobCompletionIndexAnnotation]: String(index) };
        m.labels = { ...(m.labels ?? {}), [JobCompletionIndexAnnotation]: String(index) };
        if (pod.spec !== undefined) pod.spec.hostname = `${job.metadata?.name ?? ''}-${index}`;
        m.generateName = `${job.metadata?.name ?? ''}-${index}-`;
        if (hasBackoffLimitPerIndex(job)) {
          const { failures, ignored } = newIndexFailureCounts(job, jc.podsWithDelayedDeletionPerIndex.get(index));
          m.annotations[JobIndexFailureCountAnnotation] = String(failures);
          if (ignored > 0) m.annotations[JobIndexIgnoredFailureCountAnnotation] = String(ignored);
        }
      }
      try {
        const created = await this.ctx.client.create<Pod>(resources.pods, pod, { namespace: ns, answer: 'metadata' });
        this.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name ?? ''}`);
      } catch (e) {
        this.expectations.lowerCreations(key, 1);
        this.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(e)}`);
        throw e;
      }
    });
    // Creations never attempted after a failed batch are not expected either.
    const attempted = Math.min(diff, next === 0 ? successes : next);
    if (error !== undefined && diff > attempted) this.expectations.lowerCreations(key, diff - attempted);
    return { active: active + successes, error };
  }

  /** `getPodCreationInfoForIndependentIndexes`: the indexes out of backoff, or the shortest wait. */
  private indexesToCreateNow(indexes: readonly number[], delayed: ReadonlyMap<number, Pod>, now: number): { indexes: number[]; wait: number } {
    const ready: number[] = [];
    let minWait: number | undefined;
    for (const ix of indexes) {
      const wait = remainingTimePerIndex(now, delayed.get(ix));
      if (wait === 0) ready.push(ix);
      else if (minWait === undefined || wait < minWait) minWait = wait;
    }
    return ready.length > 0 ? { indexes: ready, wait: 0 } : { indexes: [], wait: minWait ?? 0 };
  }

  /**
   * `trackJobStatusAndRemoveFinalizers`: records newly finished pods in `uncountedTerminatedPods`, removes
   * their finalizers, folds them into the counters, then writes the interim and final conditions.
   */
  private async trackJobStatusAndRemoveFinalizers(jc: SyncCtx, now: number): Promise<void> {
    const job = jc.job;
    const status = job.status ?? {};
    const indexed = isIndexedJob(job);
    const completions = job.spec?.completions ?? 0;
    const pods = indexed ? [...jc.pods].sort((a, b) => getCompletionIndex(a) - getCompletionIndex(b)) : jc.pods;
    const uidsWithFinalizer = new Set<string>();
    for (const p of pods) if (hasJobTrackingFinalizer(p) && !jc.expectedRmFinalizers.has(p.metadata?.uid ?? '')) uidsWithFinalizer.add(p.metadata?.uid ?? '');
    cleanUncountedPodsWithoutFinalizers(status, uidsWithFinalizer);
    const uncounted = status.uncountedTerminatedPods ?? {};
    uncounted.succeeded = [...(uncounted.succeeded ?? [])];
    uncounted.failed = [...(uncounted.failed ?? [])];
    status.uncountedTerminatedPods = uncounted;
    const podsToRemoveFinalizer: Pod[] = [];
    const newSucceededIndexes: number[] = [];
    let reachedMaxUncountedPods = false;
    for (const pod of pods) {
      const uid = pod.metadata?.uid ?? '';
      if (!hasJobTrackingFinalizer(pod) || jc.expectedRmFinalizers.has(uid)) continue;
      const considerPodFailed = isPodFailed(pod, job);
      if (!canRemoveFinalizer(jc, pod, considerPodFailed)) continue;
      podsToRemoveFinalizer.push(pod);
      if (pod.status?.phase === 'Succeeded' && !jc.uncounted.failed.has(uid)) {
        if (indexed) {
          const ix = getCompletionIndex(pod);
          if (ix !== unknownCompletionIndex && ix < completions && !jc.prevSucceededIndexes.has(ix)) newSucceededIndexes.push(ix);
        } else if (!jc.uncounted.succeeded.has(uid)) uncounted.succeeded.push(uid);
      } else if (considerPodFailed || (jc.finishedCondition !== undefined && jc.finishedCondition.type !== 'SuccessCriteriaMet')) {
        // Once the Job is finishing every pod that has not succeeded counts as failed.
        const ix = getCompletionIndex(pod);
        if (!jc.uncounted.failed.has(uid) && (!indexed || (ix !== unknownCompletionIndex && ix < completions))) {
          if (job.spec?.podFailurePolicy === undefined || matchPodFailurePolicy(job.spec.podFailurePolicy, pod).countFailed) uncounted.failed.push(uid);
        }
      }
      if (newSucceededIndexes.length + uncounted.succeeded.length + uncounted.failed.length >= maxUncountedPods) {
        // Counted in later syncs, so that the status stays small and other Jobs are not starved.
        reachedMaxUncountedPods = true;
        break;
      }
    }
    if (indexed) {
      jc.succeededIndexes = jc.succeededIndexes.withOrderedIndexes([...new Set(newSucceededIndexes)].sort((a, b) => a - b));
      status.succeeded = jc.succeededIndexes.total();
      status.completedIndexes = jc.succeededIndexes.toString();
      if (status.completedIndexes === '') delete status.completedIndexes;
      if (jc.failedIndexes !== undefined) status.failedIndexes = jc.failedIndexes.toString();
      else delete status.failedIndexes;
    }
    if (jc.finishedCondition?.type === 'FailureTarget') {
      status.conditions = [...(status.conditions ?? []), jc.finishedCondition];
      jc.finishedCondition = newCondition('Failed', 'True', jc.finishedCondition.reason ?? '', jc.finishedCondition.message ?? '', now);
    }
    if (jc.finishedCondition?.type === 'SuccessCriteriaMet' && jc.finishedCondition.status === 'True') {
      if (!isConditionTrue(job, 'SuccessCriteriaMet')) status.conditions = [...(status.conditions ?? []), jc.finishedCondition];
      jc.finishedCondition = newCondition('Complete', 'True', jc.finishedCondition.reason ?? '', jc.finishedCondition.message ?? '', now);
    }
    // Flush the uncounted pods (and interim conditions) before the finalizers go.
    jc.job = await this.updateStatus(job);
    this.backoff.update(jc.newBackoffRecord);
    let rmError: unknown;
    if (podsToRemoveFinalizer.length > 0) {
      const { done, error } = await this.removeTrackingFinalizers(podsToRemoveFinalizer);
      podsToRemoveFinalizer.forEach((p, i) => {
        if (done[i] === true) uidsWithFinalizer.delete(p.metadata?.uid ?? '');
      });
      rmError = error;
    }
    const st = (jc.job.status ??= {});
    st.uncountedTerminatedPods ??= {};
    cleanUncountedPodsWithoutFinalizers(st, uidsWithFinalizer);
    if (rmError !== undefined) {
      jc.job = await this.updateStatus(jc.job);
      throw asError(rmError);
    }
    const finished = !reachedMaxUncountedPods && this.enactJobFinished(jc, now);
    jc.job = await this.updateStatus(jc.job);
    if (finished && jc.finishedCondition !== undefined) this.recordJobFinished(jc.job, jc.finishedCondition);
  }

  /** `enactJobFinished`: sets Complete or Failed once no pod is uncounted or terminating. */
  private enactJobFinished(jc: SyncCtx, now: number): boolean {
    const c = jc.finishedCondition;
    if (c === undefined) return false;
    const status = jc.job.status ?? {};
    if ((status.uncountedTerminatedPods?.succeeded?.length ?? 0) + (status.uncountedTerminatedPods?.failed?.length ?? 0) > 0) return false;
    if (jc.terminating > 0) return false;
    ensureJobConditionStatus(status, c.type, c.status, c.reason ?? '', c.message ?? '', now);
    if (c.type === 'Complete') status.completionTime = c.lastTransitionTime ?? formatTime(now);
    return true;
  }

  private recordJobFinished(job: Job, c: JobCondition): void {
    if (c.type === 'Complete') {
      const completions = job.spec?.completions;
      if (completions !== undefined && completions !== null && (job.status?.succeeded ?? 0) > completions) {
        this.recorder.event(job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
      }
      this.recorder.event(job, 'Normal', 'Completed', 'Job completed');
    } else this.recorder.event(job, 'Warning', c.reason ?? '', c.message ?? '');
  }
}

/** `nonIgnoredFailedPodsCount`: failed pods that no Ignore rule matched. */
function nonIgnoredFailedPodsCount(job: Job, failed: readonly Pod[]): number {
  const policy = job.spec?.podFailurePolicy;
  if (policy === undefined) return failed.length;
  return failed.filter((p) => matchPodFailurePolicy(policy, p).countFailed).length;
}

/** `getFailJobMessage`: the message of the first failed pod that matched a FailJob rule. */
function failJobMessage(job: Job, pods: readonly Pod[]): string | undefined {
  const policy = job.spec?.podFailurePolicy;
  if (policy === undefined) return undefined;
  for (const p of pods) {
    if (!isPodFailed(p, job)) continue;
    const m = matchPodFailurePolicy(policy, p).failJobMessage;
    if (m !== undefined) return m;
  }
  return undefined;
}

/** `pastBackoffLimitOnFailure`: with restartPolicy OnFailure, container restarts of running pods reach the limit. */
function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[], backoffLimit: number): boolean {
  if (job.spec?.template.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of pods) {
    if (p.status?.phase !== 'Running' && p.status?.phase !== 'Pending') continue;
    for (const c of [...(p.status.initContainerStatuses ?? []), ...(p.status.containerStatuses ?? [])]) restarts += c.restartCount;
  }
  return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit;
}

/**
 * `canRemoveFinalizer`: when the Job is deleted or finishing, the pod succeeded, or it failed and is not
 * the failed pod of an index kept until its replacement exists.
 */
function canRemoveFinalizer(jc: SyncCtx, pod: Pod, considerPodFailed: boolean): boolean {
  if (jc.job.metadata?.deletionTimestamp !== undefined || jc.finishedCondition !== undefined || pod.status?.phase === 'Succeeded') return true;
  if (!considerPodFailed) return false;
  if (hasBackoffLimitPerIndex(jc.job)) {
    const ix = getCompletionIndex(pod);
    if (ix !== unknownCompletionIndex && jc.podsWithDelayedDeletionPerIndex.get(ix)?.metadata?.uid === pod.metadata?.uid) return false;
  }
  return true;
}

/** `cleanUncountedPodsWithoutFinalizers`: moves uncounted pods whose finalizer is gone into the counters. */
function cleanUncountedPodsWithoutFinalizers(status: JobStatus, uidsWithFinalizer: ReadonlySet<string>): void {
  const u = (status.uncountedTerminatedPods ??= {});
  const succeeded = (u.succeeded ?? []).filter((uid) => uidsWithFinalizer.has(uid));
  status.succeeded = (status.succeeded ?? 0) + (u.succeeded ?? []).length - succeeded.length;
  const failed = (u.failed ?? []).filter((uid) => uidsWithFinalizer.has(uid));
  status.failed = (status.failed ?? 0) + (u.failed ?? []).length - failed.length;
  status.uncountedTerminatedPods = {};
  if (succeeded.length > 0) status.uncountedTerminatedPods.succeeded = succeeded;
  if (failed.length > 0) status.uncountedTerminatedPods.failed = failed;
}

export function create(ctx: ControllerContext): JobController {
  return new JobController(ctx);
}
