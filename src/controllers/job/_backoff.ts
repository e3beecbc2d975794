/**
 * Pod failure backoff (pkg/controller/job/backoff_utils.go, v1.32): per Job, the failures since the last
 * success and when the last one happened; a new pod waits 10 s after the first failure, doubling per
 * further failure, capped at 6 min. With backoffLimitPerIndex the backoff is per index instead, from the
 * index's failure-count annotations.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseTime } from '../_pods.js';
import { getIndexAbsoluteFailureCount } from './_indexed.js';

/** `DefaultJobPodFailureBackOff` and `MaxJobPodFailureBackOff`. */
export const backoffBaseMs = 10_000;
export const backoffMaxMs = 360_000;

export interface BackoffRecord {
  key: string;
  failuresAfterLastSuccess: number;
  lastFailureTime: number | undefined;
}

/**
 * `getFinishedTime`: the latest container finish time when every container terminated; else the time the
 * pod became not Ready; else its deletion timestamp less the grace period; else its creation time.
 */
export function getFinishedTime(p: Pod): number {
  let t: number | undefined;
  let allTerminated = (p.status?.containerStatuses ?? []).length > 0;
  for (const c of p.status?.containerStatuses ?? []) {
    const f = parseTime(c.state?.terminated?.finishedAt);
    if (c.state?.terminated === undefined || f === undefined) allTerminated = false;
    else t = Math.max(t ?? 0, f);
  }
  if (allTerminated && t !== undefined) return t;
  const ready = p.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'False');
  const readyAt = parseTime(ready?.lastTransitionTime);
  if (readyAt !== undefined) return readyAt;
  const deletedAt = parseTime(p.metadata?.deletionTimestamp);
  if (deletedAt !== undefined) return deletedAt - (p.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
  return parseTime(p.metadata?.creationTimestamp) ?? 0;
}

function byFinishedTime(pods: readonly Pod[]): Pod[] {
  return [...pods].sort((a, b) => getFinishedTime(a) - getFinishedTime(b));
}

/** `getRemainingTimeForFailuresCount`. */
export function remainingTimeForFailures(now: number, failures: number, lastFailureTime: number | undefined): number {
  if (failures === 0 || lastFailureTime === undefined) return 0;
  let backoff = backoffBaseMs;
  for (let i = 1; i < failures; i++) {
    backoff *= 2;
    if (backoff >= backoffMaxMs) {
      backoff = backoffMaxMs;
      break;
    }
  }
  const elapsed = now - lastFailureTime;
  return backoff < elapsed ? 0 : backoff - elapsed;
}

/** `getRemainingTimePerIndex`: the wait before replacing `lastFailedPod` of an index. */
export function remainingTimePerIndex(now: number, lastFailedPod: Pod | undefined): number {
  if (lastFailedPod === undefined) return 0;
  return remainingTimeForFailures(now, getIndexAbsoluteFailureCount(lastFailedPod) + 1, getFinishedTime(lastFailedPod));
}

/** `backoffStore`: the records of Jobs being synced, dropped when a Job finishes or is deleted. */
export class BackoffStore {
  private readonly records = new Map<string, BackoffRecord>();

  /** `newBackoffRecord`: the record as it would be after counting these newly finished pods. */
  newRecord(key: string, newSucceeded: readonly Pod[], newFailed: readonly Pod[]): BackoffRecord {
    const cur = this.records.get(key);
    const r: BackoffRecord = cur === undefined ? { key, failuresAfterLastSuccess: 0, lastFailureTime: undefined } : { ...cur };
    const succeeded = byFinishedTime(newSucceeded);
    const failed = byFinishedTime(newFailed);
    if (succeeded.length === 0) {
      if (failed.length === 0) return r;
      r.failuresAfterLastSuccess += failed.length;
      r.lastFailureTime = getFinishedTime(failed[failed.length - 1] as Pod);
      return r;
    }
    r.failuresAfterLastSuccess = 0;
    r.lastFailureTime = undefined;
    const lastSuccess = getFinishedTime(succeeded[succeeded.length - 1] as Pod);
    for (let i = failed.length - 1; i >= 0; i--) {
      const t = getFinishedTime(failed[i] as Pod);
      if (t <= lastSuccess) break;
      r.lastFailureTime ??= t;
      r.failuresAfterLastSuccess++;
    }
    return r;
  }

  update(r: BackoffRecord): void {
    this.records.set(r.key, r);
  }

  remove(key: string): void {
    this.records.delete(key);
  }
}

/** `backoffRecord.getRemainingTime`. */
export function remainingTime(r: BackoffRecord, now: number): number {
  return remainingTimeForFailures(now, r.failuresAfterLastSuccess, r.lastFailureTime);
}
