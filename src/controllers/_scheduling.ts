/**
 * Scheduling predicates the controllers need (semantics.md sections 1 and 2): toleration matching
 * (`ToleratesTaint`, `FindMatchingUntoleratedTaint`) and required node affinity (`nodeSelector` plus
 * `requiredDuringSchedulingIgnoredDuringExecution`, `matchFields` on `metadata.name`).
 */
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, PodSpec, Taint, Toleration } from 'kubernetes-types/core/v1.js';

/** `Toleration.ToleratesTaint`. */
export function toleratesTaint(tol: Toleration, taint: Taint): boolean {
  if (tol.effect !== undefined && tol.effect !== '' && tol.effect !== taint.effect) return false;
  if (tol.key !== undefined && tol.key !== '' && tol.key !== taint.key) return false;
  switch (tol.operator ?? '') {
    case '':
    case 'Equal':
      return (tol.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tols: readonly Toleration[] | undefined, taint: Taint): boolean {
  return (tols ?? []).some((t) => toleratesTaint(t, taint));
}

/** `FindMatchingUntoleratedTaint`: the first taint passing `filter` that no toleration tolerates. */
export function findMatchingUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tols: readonly Toleration[] | undefined,
  filter: (t: Taint) => boolean,
): Taint | undefined {
  return (taints ?? []).filter(filter).find((t) => !tolerationsTolerateTaint(tols, t));
}

function requirementMatches(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1 || !/^[+-]?\d+$/.test(value) || !/^[+-]?\d+$/.test(values[0] ?? '')) return false;
      const a = BigInt(value);
      const b = BigInt(values[0] ?? '0');
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  for (const e of exprs) if (!requirementMatches(e, labels[e.key])) return false;
  for (const f of fields) {
    if (f.key !== 'metadata.name' || (f.operator !== 'In' && f.operator !== 'NotIn') || (f.values ?? []).length !== 1) return false;
    if (!requirementMatches(f, node.metadata?.name ?? '')) return false;
  }
  return true;
}

/** `GetRequiredNodeAffinity(pod).Match(node)`: nodeSelector AND (any required term). */
export function requiredNodeAffinityMatches(spec: PodSpec | undefined, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required === undefined) return true;
  return required.nodeSelectorTerms.some((t) => termMatches(t, node));
}

/** The node a pod is bound or pinned to: `spec.nodeName`, else a `matchFields metadata.name In [x]` term. */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName !== undefined && pod.spec.nodeName !== '') return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const t of terms) {
    for (const f of t.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}
