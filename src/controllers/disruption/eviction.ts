/**
 * The decision of the `pods/eviction` subresource (pkg/registry/core/pod/storage/eviction.go, v1.32), as a
 * pure function the API server calls: whether the pod may be deleted now, the error to answer otherwise,
 * and the PodDisruptionBudget status the eviction implies (disruptionsAllowed decremented, the pod added to
 * disruptedPods) which the API server must write (status subresource, optimistic concurrency) before it
 * deletes the pod.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { ApiError, apiErrors, StatusReason } from '../../api/errors.js';
import { labelSelectorAsSelector } from '../../api/labels.js';
import { isPodReady } from '../_pods.js';
import { microTimeless, updateDisruptionAllowedCondition } from './_pdb.js';
import { deepCopy } from '../../util/deep-copy.js';

/** `MaxDisruptedPodSize`. */
export const maxDisruptedPodSize = 2000;
/** `policyv1.DisruptionBudgetCause`. */
export const DisruptionBudgetCause = 'DisruptionBudget';
export const violationMessage = "Cannot evict pod as it would violate the pod's disruption budget.";
export const multiplePdbsMessage = 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';

export type EvictionDecision =
  | {
      allowed: true;
      /** The PodDisruptionBudget to write back (status) before deleting, when the eviction consumed a disruption. */
      pdbUpdate?: PodDisruptionBudget;
    }
  | { allowed: false; error: ApiError };

function tooManyRequests(cause: string, retryAfterSeconds: number): ApiError {
  const details: { retryAfterSeconds?: number; causes: { reason: string; message: string }[] } = { causes: [{ reason: DisruptionBudgetCause, message: cause }] };
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  return new ApiError(429, StatusReason.TooManyRequests, violationMessage, details);
}

/** PDBs in the pod's namespace whose selector matches the pod (policy/v1: an empty selector matches all). */
export function matchingPdbs(pod: Pod, pdbs: readonly PodDisruptionBudget[]): PodDisruptionBudget[] {
  return pdbs.filter((p) => {
    if (p.metadata?.namespace !== pod.metadata?.namespace) return false;
    try {
      return labelSelectorAsSelector(p.spec?.selector).matches(pod.metadata?.labels);
    } catch {
      return false;
    }
  });
}

/** `canIgnorePDB`: a pod that is done, Pending or already being deleted is evicted without its budgets. */
export function canIgnorePDB(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata?.deletionTimestamp !== undefined;
}

export interface CheckEvictionOptions {
  dryRun?: boolean;
}

/**
 * `checkEviction`: `now` is ms since epoch (the time recorded in disruptedPods). `pdbs` may be every PDB in
 * the namespace; the ones selecting the pod are picked here.
 */
export function checkEviction(pod: Pod, pdbs: readonly PodDisruptionBudget[], now: number, opts: CheckEvictionOptions = {}): EvictionDecision {
  if (canIgnorePDB(pod)) return { allowed: true };
  const mine = matchingPdbs(pod, pdbs);
  if (mine.length > 1) return { allowed: false, error: apiErrors.internal(multiplePdbsMessage) };
  const pdb0 = mine[0];
  if (pdb0 === undefined) return { allowed: true };
  const pdb = deepCopy(pdb0);
  const st = pdb.status ?? { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 };
  if (!isPodReady(pod)) {
    if (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return { allowed: true };
    if (st.currentHealthy >= st.desiredHealthy && st.desiredHealthy > 0) return { allowed: true };
  }
  const name = pdb.metadata?.name ?? '';
  if ((st.observedGeneration ?? 0) < (pdb.metadata?.generation ?? 0)) {
    return { allowed: false, error: tooManyRequests(`The disruption budget ${name} is still being processed by the server.`, 10) };
  }
  if (st.disruptionsAllowed < 0) {
    return { allowed: false, error: apiErrors.forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, 'pdb disruptions allowed is negative') };
  }
  if (Object.keys(st.disruptedPods ?? {}).length > maxDisruptedPodSize) {
    return {
      allowed: false,
      error: apiErrors.forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller'),
    };
  }
  if (st.disruptionsAllowed === 0) {
    return { allowed: false, error: tooManyRequests(`The disruption budget ${name} needs ${st.desiredHealthy} healthy pods and has ${st.currentHealthy} currently`, 0) };
  }
  const status = { ...st, disruptionsAllowed: st.disruptionsAllowed - 1 };
  const next: PodDisruptionBudget = { ...pdb, status };
  if (status.disruptionsAllowed === 0) updateDisruptionAllowedCondition(next, now);
  if (opts.dryRun === true) return { allowed: true };
  (next.status as { disruptedPods?: Record<string, string> }).disruptedPods = { ...(st.disruptedPods ?? {}), [pod.metadata?.name ?? '']: microTimeless(now) };
  return { allowed: true, pdbUpdate: next };
}
