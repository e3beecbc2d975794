/** PodDisruptionBudget status helpers (pkg/apis/policy/helper, staging pdb helpers; v1.32). */
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { Condition } from 'kubernetes-types/meta/v1.js';
import { formatTime } from '../_pods.js';

export const DisruptionAllowedCondition = 'DisruptionAllowed';
export const SufficientPodsReason = 'SufficientPods';
export const InsufficientPodsReason = 'InsufficientPods';
export const SyncFailedReason = 'SyncFailed';

/** metav1.Time as disruptedPods stores it (second precision). */
export function microTimeless(ms: number): string {
  return formatTime(ms);
}

/** `apimeta.SetStatusCondition`: lastTransitionTime moves only when the status changes. */
export function setStatusCondition(conds: Condition[], c: Omit<Condition, 'lastTransitionTime'>, now: number): Condition[] {
  const cur = conds.find((x) => x.type === c.type);
  if (cur === undefined) return [...conds, { ...c, lastTransitionTime: formatTime(now) }];
  const next: Condition = { ...cur, reason: c.reason, message: c.message, status: c.status };
  if (c.observedGeneration !== undefined) next.observedGeneration = c.observedGeneration;
  if (cur.status !== c.status) next.lastTransitionTime = formatTime(now);
  return conds.map((x) => (x.type === c.type ? next : x));
}

/** `UpdateDisruptionAllowedCondition`. */
export function updateDisruptionAllowedCondition(pdb: PodDisruptionBudget, now: number): void {
  const st = pdb.status;
  if (st === undefined) return;
  const allowed = st.disruptionsAllowed > 0;
  const c: Omit<Condition, 'lastTransitionTime'> = {
    type: DisruptionAllowedCondition,
    status: allowed ? 'True' : 'False',
    reason: allowed ? SufficientPodsReason : InsufficientPodsReason,
    message: '',
  };
  if (st.observedGeneration !== undefined) c.observedGeneration = st.observedGeneration;
  (st as { conditions?: Condition[] }).conditions = setStatusCondition(st.conditions ?? [], c, now);
}
