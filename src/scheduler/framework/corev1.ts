/**
 * Helpers from k8s.io/component-helpers/scheduling/corev1 and k8s.io/api/core/v1: taint/toleration
 * matching and required/preferred node affinity (semantics.md sections 1 and 2).
 */
import type { Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod, PreferredSchedulingTerm, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { requirementMatches, type Labels, type Operator, type Requirement } from '../../api/labels.js';

/** `Toleration.ToleratesTaint`: effect, then key, then operator. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
  if (t.key !== undefined && t.key !== '' && t.key !== taint.key) return false;
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
export function tolerationsTolerateTaint(tols: readonly Toleration[] | undefined, taint: Taint): boolean {
  if (tols === undefined) return false;
  for (const t of tols) if (toleratesTaint(t, taint)) return true;
  return false;
}

/** `helper.DoNotScheduleTaintsFilterFunc`: NoSchedule and NoExecute taints. */
export function doNotScheduleTaint(t: Taint): boolean {
  return t.effect === 'NoSchedule' || t.effect === 'NoExecute';
}

/** `FindMatchingUntoleratedTaint`: the first taint passing `filter` that no toleration tolerates. */
export function findMatchingUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tols: readonly Toleration[] | undefined,
  filter: (t: Taint) => boolean,
): Taint | undefined {
  if (taints === undefined) return undefined;
  for (const taint of taints) {
    if (!filter(taint)) continue;
    if (!tolerationsTolerateTaint(tols, taint)) return taint;
  }
  return undefined;
}

/** `corev1helpers.PodPriority`: nil counts as 0. */
export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

// ---- node affinity (nodeaffinity package) ----

const labelOperators: ReadonlySet<string> = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']);

/** A parsed `NodeSelectorTerm`; `undefined` label/field parts impose nothing. */
export interface ParsedNodeSelectorTerm {
  readonly labelReqs: readonly Requirement[] | undefined;
  readonly fieldReqs: readonly Requirement[] | undefined;
}

const labelValuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** `validation.IsValidLabelValue`. */
export function isValidLabelValue(v: string): boolean {
  return v.length <= 63 && labelValuePattern.test(v);
}

/** `labels.NewRequirement`'s checks for node selector requirements. */
function parseLabelRequirement(r: NodeSelectorRequirement): Requirement | undefined {
  const values = r.values ?? [];
  if (!labelOperators.has(r.operator)) return undefined;
  if ((r.operator === 'In' || r.operator === 'NotIn') && !values.every(isValidLabelValue)) return undefined;
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) return undefined;
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) return undefined;
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1 || !/^[+-]?\d+$/.test(values[0] ?? '')) return undefined;
      break;
  }
  return { key: r.key, operator: r.operator as Operator, values };
}

function parseFieldRequirement(r: NodeSelectorRequirement): Requirement | undefined {
  const values = r.values ?? [];
  if (r.key !== 'metadata.name') return undefined;
  if ((r.operator === 'In' || r.operator === 'NotIn') && values.length === 1) return { key: r.key, operator: r.operator, values };
  return undefined;
}

function isEmptyTerm(t: NodeSelectorTerm | undefined): boolean {
  return t === undefined || ((t.matchExpressions?.length ?? 0) === 0 && (t.matchFields?.length ?? 0) === 0);
}

/** `newNodeSelectorTerm`; undefined when the term does not parse (such a term matches nothing). */
export function parseNodeSelectorTerm(t: NodeSelectorTerm): ParsedNodeSelectorTerm | undefined {
  let labelReqs: Requirement[] | undefined;
  let fieldReqs: Requirement[] | undefined;
  if ((t.matchExpressions?.length ?? 0) > 0) {
    labelReqs = [];
    for (const e of t.matchExpressions ?? []) {
      const r = parseLabelRequirement(e);
      if (r === undefined) return undefined;
      labelReqs.push(r);
    }
  }
  if ((t.matchFields?.length ?? 0) > 0) {
    fieldReqs = [];
    for (const e of t.matchFields ?? []) {
      const r = parseFieldRequirement(e);
      if (r === undefined) return undefined;
      fieldReqs.push(r);
    }
  }
  return { labelReqs, fieldReqs };
}

export function termMatches(t: ParsedNodeSelectorTerm, labels: Labels, nodeName: string): boolean {
  if (t.labelReqs !== undefined) for (const r of t.labelReqs) if (!requirementMatches(r, labels)) return false;
  if (t.fieldReqs !== undefined) {
    const fields = { 'metadata.name': nodeName };
    for (const r of t.fieldReqs) if (!requirementMatches(r, fields)) return false;
  }
  return true;
}

/** `LazyErrorNodeSelector`: terms ORed; empty and unparseable terms are dropped. */
export class NodeSelectorMatcher {
  private readonly terms: ParsedNodeSelectorTerm[] = [];
  constructor(ns: NodeSelector) {
    for (const t of ns.nodeSelectorTerms) {
      if (isEmptyTerm(t)) continue;
      const p = parseNodeSelectorTerm(t);
      if (p !== undefined) this.terms.push(p);
    }
  }
  matches(labels: Labels, nodeName: string): boolean {
    for (const t of this.terms) if (termMatches(t, labels, nodeName)) return true;
    return false;
  }
}

/** `nodeaffinity.RequiredNodeAffinity`: the pod's nodeSelector AND its required node affinity. */
export class RequiredNodeAffinity {
  private readonly selector: readonly [string, string][] | undefined;
  private readonly nodeSelector: NodeSelectorMatcher | undefined;
  constructor(pod: Pod) {
    const sel = pod.spec?.nodeSelector;
    this.selector = sel !== undefined && Object.keys(sel).length > 0 ? Object.entries(sel) : undefined;
    const req = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    this.nodeSelector = req !== undefined ? new NodeSelectorMatcher(req) : undefined;
  }
  /** Parse errors are ignored: an unparseable term simply does not match. */
  match(node: Node): boolean {
    return this.matchLabels(node.metadata?.labels, node.metadata?.name ?? '');
  }
  matchLabels(labels: Labels, nodeName: string): boolean {
    if (this.selector !== undefined) {
      if (labels === undefined) return false;
      for (const [k, v] of this.selector) if (labels[k] !== v) return false;
    }
    if (this.nodeSelector !== undefined) return this.nodeSelector.matches(labels, nodeName);
    return true;
  }
}

/** `nodeaffinity.PreferredSchedulingTerms`: weighted terms; zero weights and empty terms ignored. */
export class PreferredSchedulingTerms {
  private readonly terms: { term: ParsedNodeSelectorTerm; weight: number }[] = [];
  constructor(terms: readonly PreferredSchedulingTerm[]) {
    for (const t of terms) {
      if (t.weight === 0) continue;
      const p = parseNodeSelectorTerm(t.preference);
      if (p === undefined) continue;
      if (p.labelReqs === undefined && p.fieldReqs === undefined) continue;
      this.terms.push({ term: p, weight: t.weight });
    }
  }
  score(labels: Labels, nodeName: string): number {
    let s = 0;
    for (const t of this.terms) if (termMatches(t.term, labels, nodeName)) s += t.weight;
    return s;
  }
}
