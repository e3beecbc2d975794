/**
 * Indexed Job helpers (pkg/controller/job/indexed_job_utils.go, v1.32): completion indexes as ordered
 * intervals (`status.completedIndexes`, `status.failedIndexes`), the per-index failure counts that
 * `backoffLimitPerIndex` keeps in pod annotations, and the choice of indexes to (re)create.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { activePodsLess, sortByLess } from '../_pods.js';
import { matchPodFailurePolicy } from './_pod-failure-policy.js';

export const JobCompletionIndexAnnotation = 'batch.kubernetes.io/job-completion-index';
export const JobIndexFailureCountAnnotation = 'batch.kubernetes.io/job-index-failure-count';
export const JobIndexIgnoredFailureCountAnnotation = 'batch.kubernetes.io/job-index-ignored-failure-count';
export const unknownCompletionIndex = -1;

export interface Interval {
  first: number;
  last: number;
}

/** `orderedIntervals`: sorted, non-overlapping, non-adjacent intervals of indexes. */
export class OrderedIntervals {
  constructor(readonly intervals: readonly Interval[] = []) {}

  /** `withOrderedIndexes`: a new list that also holds `indexes` (given in increasing order). */
  withOrderedIndexes(indexes: readonly number[]): OrderedIntervals {
    return this.merge(new OrderedIntervals(indexes.map((i) => ({ first: i, last: i }))));
  }

  merge(other: OrderedIntervals): OrderedIntervals {
    const out: Interval[] = [];
    const push = (iv: Interval): void => {
      const last = out[out.length - 1];
      if (last === undefined || iv.first > last.last + 1) out.push({ ...iv });
      else if (last.last < iv.last) last.last = iv.last;
    };
    const a = this.intervals;
    const b = other.intervals;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const x = a[i] as Interval;
      const y = b[j] as Interval;
      if (x.first < y.first) {
        push(x);
        i++;
      } else {
        push(y);
        j++;
      }
    }
    for (; i < a.length; i++) push(a[i] as Interval);
    for (; j < b.length; j++) push(b[j] as Interval);
    return new OrderedIntervals(out);
  }

  total(): number {
    return this.intervals.reduce((n, iv) => n + iv.last - iv.first + 1, 0);
  }

  has(ix: number): boolean {
    return this.intervals.some((iv) => iv.first <= ix && ix <= iv.last);
  }

  /** Upstream's `String()`: `0-2,4` but `5,6` for a two-index interval. */
  toString(): string {
    return this.intervals
      .map((iv) => (iv.last > iv.first ? `${iv.first}${iv.last === iv.first + 1 ? ',' : '-'}${iv.last}` : String(iv.first)))
      .join(',');
  }
}

/** `parseIndexesFromString`: corrupt intervals are skipped; indexes at or above `completions` are dropped. */
export function parseIndexesFromString(s: string | undefined, completions: number): OrderedIntervals {
  if (s === undefined || s === '') return new OrderedIntervals();
  const out: Interval[] = [];
  for (const part of s.split(',')) {
    const limits = part.split('-');
    const first = atoi(limits[0] ?? '');
    if (first === undefined) continue;
    if (first >= completions) break;
    let last = first;
    if (limits.length > 1) {
      const l = atoi(limits[1] ?? '');
      if (l === undefined) continue;
      last = Math.min(l, completions - 1);
    }
    const prev = out[out.length - 1];
    if (prev !== undefined && prev.last === first - 1) prev.last = last;
    else out.push({ first, last });
  }
  return new OrderedIntervals(out);
}

function atoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number.parseInt(s, 10) : undefined;
}

export function isIndexedJob(job: Job): boolean {
  return job.spec?.completionMode === 'Indexed';
}

export function hasBackoffLimitPerIndex(job: Job): boolean {
  return job.spec?.backoffLimitPerIndex !== undefined && job.spec.backoffLimitPerIndex !== null;
}

/** `getCompletionIndex`: the index annotation, or -1 when missing, malformed or negative. */
export function getCompletionIndex(p: Pod): number {
  const v = p.metadata?.annotations?.[JobCompletionIndexAnnotation];
  if (v === undefined) return unknownCompletionIndex;
  const i = atoi(v);
  return i === undefined || i < 0 ? unknownCompletionIndex : i;
}

/** `parseInt32` of an annotation: 0 when missing, malformed, negative or above MaxInt32. */
function annotationCount(p: Pod, key: string): number {
  const v = p.metadata?.annotations?.[key];
  if (v === undefined) return 0;
  const n = atoi(v);
  return n === undefined || n < 0 || n > 2147483647 ? 0 : n;
}

export function getIndexFailureCount(p: Pod): number {
  return annotationCount(p, JobIndexFailureCountAnnotation);
}

export function getIndexAbsoluteFailureCount(p: Pod): number {
  return annotationCount(p, JobIndexFailureCountAnnotation) + annotationCount(p, JobIndexIgnoredFailureCountAnnotation);
}

export function hasJobTrackingFinalizer(p: Pod): boolean {
  return (p.metadata?.finalizers ?? []).includes('batch.kubernetes.io/job-tracking');
}

/** `isPodFailed`: Failed phase; or, unless only failed pods are replaced, deleted and not succeeded. */
export function isPodFailed(p: Pod, job: Job): boolean {
  if (p.status?.phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return p.metadata?.deletionTimestamp !== undefined && p.status?.phase !== 'Succeeded';
}

/** `onlyReplaceFailedPods`: podReplacementPolicy Failed, which a podFailurePolicy implies. */
export function onlyReplaceFailedPods(job: Job): boolean {
  if (job.spec?.podReplacementPolicy === 'Failed') return true;
  return job.spec?.podFailurePolicy !== undefined && job.spec.podFailurePolicy !== null;
}

/** `calculateSucceededIndexes`: the indexes of `status.completedIndexes`, and those plus newly succeeded pods. */
export function calculateSucceededIndexes(job: Job, pods: readonly Pod[]): { prev: OrderedIntervals; all: OrderedIntervals } {
  const completions = job.spec?.completions ?? 0;
  const prev = parseIndexesFromString(job.status?.completedIndexes, completions);
  const fresh = new Set<number>();
  for (const p of pods) {
    const ix = getCompletionIndex(p);
    if (p.status?.phase === 'Succeeded' && ix !== unknownCompletionIndex && ix < completions && hasJobTrackingFinalizer(p)) fresh.add(ix);
  }
  return { prev, all: prev.withOrderedIndexes([...fresh].sort((a, b) => a - b)) };
}

/** `calculateFailedIndexes`: `status.failedIndexes` plus the indexes whose pods just used up their backoff. */
export function calculateFailedIndexes(job: Job, pods: readonly Pod[]): OrderedIntervals {
  const completions = job.spec?.completions ?? 0;
  const prev = job.status?.failedIndexes !== undefined ? parseIndexesFromString(job.status.failedIndexes, completions) : new OrderedIntervals();
  const fresh = new Set<number>();
  for (const p of pods) {
    const ix = getCompletionIndex(p);
    if (ix !== unknownCompletionIndex && ix < completions && hasJobTrackingFinalizer(p) && isIndexFailed(job, p)) fresh.add(ix);
  }
  return prev.withOrderedIndexes([...fresh].sort((a, b) => a - b));
}

/** `isIndexFailed`: the pod matched a FailIndex rule, or its counted failures reached backoffLimitPerIndex. */
export function isIndexFailed(job: Job, p: Pod): boolean {
  let counted = false;
  if (isPodFailed(p, job)) {
    if (job.spec?.podFailurePolicy !== undefined) {
      const m = matchPodFailurePolicy(job.spec.podFailurePolicy, p);
      if (m.action === 'FailIndex') return true;
      counted = m.countFailed;
    } else counted = true;
  }
  return counted && getIndexFailureCount(p) >= (job.spec?.backoffLimitPerIndex ?? 0);
}

function indexesOf(pods: readonly Pod[]): number[] {
  const out = new Set<number>();
  for (const p of pods) {
    const ix = getCompletionIndex(p);
    if (ix !== unknownCompletionIndex) out.add(ix);
  }
  return [...out].sort((a, b) => a - b);
}

/** `controller.FilterTerminatingPods`: deleted pods that are not terminal yet. */
export function isTerminating(p: Pod): boolean {
  return p.metadata?.deletionTimestamp !== undefined && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded';
}

/**
 * `firstPendingIndexes`: up to `count` indexes below `completions` with no active pod, not succeeded and
 * not failed (nor terminating when only failed pods are replaced).
 */
export function firstPendingIndexes(
  opts: { job: Job; pods: readonly Pod[]; activePods: readonly Pod[]; succeededIndexes: OrderedIntervals; failedIndexes: OrderedIntervals | undefined },
  count: number,
  completions: number,
): number[] {
  if (count === 0) return [];
  let nonPending = opts.succeededIndexes.withOrderedIndexes(indexesOf(opts.activePods));
  if (onlyReplaceFailedPods(opts.job)) nonPending = nonPending.withOrderedIndexes(indexesOf(opts.pods.filter(isTerminating)));
  if (opts.failedIndexes !== undefined) nonPending = nonPending.merge(opts.failedIndexes);
  const out: number[] = [];
  let candidate = 0;
  for (const iv of nonPending.intervals) {
    for (; candidate < completions && out.length < count && candidate < iv.first; candidate++) out.push(candidate);
    if (candidate < iv.last + 1) candidate = iv.last + 1;
  }
  for (; candidate < completions && out.length < count; candidate++) out.push(candidate);
  return out;
}

/**
 * `appendDuplicatedIndexPodsForRemoval`: of active pods, those without a valid index, with an index at or
 * above `completions`, and all but the best-ranked pod of each repeated index.
 */
export function duplicatedIndexPodsForRemoval(pods: readonly Pod[], completions: number): { rm: Pod[]; left: Pod[] } {
  const rm: Pod[] = [];
  const left: Pod[] = [];
  const byIndex = new Map<number, Pod[]>();
  for (const p of pods) {
    const ix = getCompletionIndex(p);
    if (ix === unknownCompletionIndex || ix >= completions) rm.push(p);
    else byIndex.set(ix, [...(byIndex.get(ix) ?? []), p]);
  }
  for (const ix of [...byIndex.keys()].sort((a, b) => a - b)) {
    const same = byIndex.get(ix) ?? [];
    if (same.length === 1) {
      left.push(same[0] as Pod);
      continue;
    }
    const sorted = sortByLess([...same], activePodsLess);
    rm.push(...sorted.slice(0, -1));
    left.push(sorted[sorted.length - 1] as Pod);
  }
  return { rm, left };
}

/**
 * `getNewIndexFailureCounts`: the failure-count annotations of the pod that replaces `replaced` (the failed
 * pod of the index kept until its replacement exists); a failure an Ignore rule matched is counted apart.
 */
export function newIndexFailureCounts(job: Job, replaced: Pod | undefined): { failures: number; ignored: number } {
  if (replaced === undefined) return { failures: 0, ignored: 0 };
  let failures = annotationCount(replaced, JobIndexFailureCountAnnotation);
  let ignored = annotationCount(replaced, JobIndexIgnoredFailureCountAnnotation);
  if (job.spec?.podFailurePolicy !== undefined) {
    if (matchPodFailurePolicy(job.spec.podFailurePolicy, replaced).countFailed) failures++;
    else ignored++;
  } else failures++;
  return { failures, ignored };
}
