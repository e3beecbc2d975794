/**
 * Taint/toleration matching (`k8s.io/api/core/v1` `ToleratesTaint`, component-helpers
 * `FindMatchingUntoleratedTaint`) and `pkg/util/tolerations` (`MergeTolerations`, `isSuperset`), shared by
 * admission, the scheduler and the kubelet.
 */
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';

/**
 * `Toleration.ToleratesTaint` (v1.32): effect (empty matches all), key (empty matches all), then the
 * operator: `Exists` always, `Equal`/empty by exact value, anything else never.
 */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if ((t.effect ?? '') !== '' && t.effect !== taint.effect) return false;
  if ((t.key ?? '') !== '' && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** `TolerationsTolerateTaint`: any toleration tolerates the taint. */
export function tolerationsTolerateTaint(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => toleratesTaint(t, taint));
}

/** `FindMatchingUntoleratedTaint`: the first taint passing `filter` that no toleration tolerates. */
export function findMatchingUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  filter: (t: Taint) => boolean = () => true,
): Taint | undefined {
  for (const taint of taints ?? []) {
    if (!filter(taint)) continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}

/** `Taint.ToString`: `key=value:effect`, `key:effect`, `key=value`, or `key`. */
export function taintToString(t: Taint): string {
  const v = t.value ?? '';
  if (t.effect === '') return v === '' ? t.key : `${t.key}=${v}`;
  return v === '' ? `${t.key}:${t.effect}` : `${t.key}=${v}:${t.effect}`;
}

/** `Taint.MatchTaint`: same key and effect. */
export function matchTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

function tolerationsEqual(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.operator ?? '') === (b.operator ?? '') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '') &&
    a.tolerationSeconds === b.tolerationSeconds
  );
}

/**
 * `isSuperset(ss, t)`: every taint tolerated by `t` is tolerated by `ss`. Same key (or `ss` is an
 * empty-key `Exists`), same effect (or `ss` matches all effects), for `NoExecute` `ss` tolerates at least
 * as long, and `ss` is `Exists` or both are `Equal` with the same value.
 */
export function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (tolerationsEqual(ss, t)) return true;
  const ssKey = ss.key ?? '';
  const ssEffect = ss.effect ?? '';
  const ssOp = ss.operator ?? '';
  if ((t.key ?? '') !== ssKey && (ssKey !== '' || ssOp !== 'Exists')) return false;
  if ((t.effect ?? '') !== ssEffect && ssEffect !== '') return false;
  if (ssEffect === 'NoExecute' && ss.tolerationSeconds !== undefined) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (ssOp) {
    case '':
    case 'Equal':
      return t.operator === 'Equal' && (t.value ?? '') === (ss.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/**
 * `MergeTolerations(first, second)`: `first` then `second`, skipping each toleration that an already
 * kept one, or a later different one, is a superset of (of two equal tolerations the first is kept).
 */
export function mergeTolerations(first: readonly Toleration[] | undefined, second: readonly Toleration[] | undefined): Toleration[] {
  const all = [...(first ?? []), ...(second ?? [])];
  const merged: Toleration[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((later) => !tolerationsEqual(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}
