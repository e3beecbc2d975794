/**
 * DaemonSet rules (pkg/controller/daemon/daemon_controller.go, update.go, util/daemonset_util.go; v1.32):
 * which nodes run a daemon pod, the tolerations every daemon pod gets, the node pinning affinity, and
 * what "updated" means for a pod.
 */
import type { Affinity, Node, Pod, PodSpec, PodTemplateSpec, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { semanticEqual } from '../_context.js';
import { findMatchingUntoleratedTaint, requiredNodeAffinityMatches } from '../_scheduling.js';
import { compareStrings } from '../../util/compare-strings.js';
import { deepCopy } from '../../util/deep-copy.js';

export const DaemonSetTemplateGenerationKey = 'pod-template-generation';
export const ControllerRevisionHashLabelKey = 'controller-revision-hash';
export const TemplateGenerationAnnotation = 'deprecated.daemonset.template.generation';

function sameToleration(a: Toleration, b: Toleration): boolean {
  return (a.key ?? '') === (b.key ?? '') && (a.effect ?? '') === (b.effect ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '');
}

/** `AddOrUpdateTolerationInPodSpec`: replaces a toleration with the same key/operator/value/effect, else appends. */
export function addOrUpdateToleration(spec: PodSpec, tol: Toleration): boolean {
  const cur = spec.tolerations ?? [];
  let updated = false;
  const next: Toleration[] = [];
  for (const t of cur) {
    if (sameToleration(t, tol)) {
      if (semanticEqual(t, tol)) return false;
      next.push({ ...tol });
      updated = true;
      continue;
    }
    next.push(t);
  }
  if (!updated) next.push({ ...tol });
  (spec as { tolerations?: Toleration[] }).tolerations = next;
  return true;
}

/** `AddOrUpdateDaemonPodTolerations`: daemon pods survive node problems and cordons. */
export function addOrUpdateDaemonPodTolerations(spec: PodSpec): void {
  addOrUpdateToleration(spec, { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' });
  addOrUpdateToleration(spec, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' });
  addOrUpdateToleration(spec, { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' });
  addOrUpdateToleration(spec, { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' });
  addOrUpdateToleration(spec, { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' });
  addOrUpdateToleration(spec, { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' });
  if (spec.hostNetwork === true) {
    addOrUpdateToleration(spec, { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  }
}

/** `NewPod`: the pod the DaemonSet would run on `nodeName` (for the predicates). */
export function newDaemonPod(ds: DaemonSet, nodeName: string): Pod {
  const spec = deepCopy(ds.spec?.template.spec ?? { containers: [] });
  (spec as { nodeName?: string }).nodeName = nodeName;
  addOrUpdateDaemonPodTolerations(spec);
  return { metadata: { ...(ds.spec?.template.metadata ?? {}), namespace: ds.metadata?.namespace ?? 'default' }, spec };
}

/**
 * The scheduling fields of `NewPod` (node selector, affinity, the template's tolerations plus the daemon
 * ones), the same for every node: callers checking many nodes compute it once. A shallow copy: tolerations
 * are replaced, not edited, and the predicates read the node selector and affinity only.
 */
export function daemonPodSchedulingSpec(ds: DaemonSet): PodSpec {
  const spec: PodSpec = { ...(ds.spec?.template.spec ?? { containers: [] }) };
  addOrUpdateDaemonPodTolerations(spec);
  return spec;
}

export interface ShouldRunResult {
  shouldRun: boolean;
  shouldContinueRunning: boolean;
}

/**
 * `NodeShouldRunDaemonPod`: `shouldRun` when the node fits nodeName, node affinity/selector and taints
 * (NoSchedule and NoExecute); `shouldContinueRunning` when only NoSchedule taints are untolerated.
 * It reads the node's name, labels and taints only (see `daemonSchedulingInputsChanged`), and of the
 * DaemonSet the template fields in `daemonSchedulingKey`.
 */
export function nodeShouldRunDaemonPod(
  node: Node,
  ds: DaemonSet,
  spec: PodSpec = daemonPodSchedulingSpec(ds),
): ShouldRunResult {
  const tplNodeName = ds.spec?.template.spec?.nodeName ?? '';
  const nodeName = node.metadata?.name ?? '';
  if (tplNodeName !== '' && tplNodeName !== nodeName) return { shouldRun: false, shouldContinueRunning: false };
  const pod: Pod = { spec };
  const fitsAffinity = requiredNodeAffinityMatches(pod.spec, node);
  if (!fitsAffinity) return { shouldRun: false, shouldContinueRunning: false };
  const taints = node.spec?.taints;
  const untolerated = findMatchingUntoleratedTaint(taints, pod.spec?.tolerations, (t) => t.effect === 'NoExecute' || t.effect === 'NoSchedule');
  if (untolerated !== undefined) {
    const noExecute = findMatchingUntoleratedTaint(taints, pod.spec?.tolerations, (t) => t.effect === 'NoExecute');
    return { shouldRun: false, shouldContinueRunning: noExecute === undefined };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

/**
 * The template fields `NodeShouldRunDaemonPod` depends on (`nodeName`, node selector, affinity,
 * tolerations, and `hostNetwork`, which adds the network-unavailable toleration): two DaemonSets with the
 * same key get the same answer on every node.
 */
export function daemonSchedulingKey(ds: DaemonSet): string {
  const t = ds.spec?.template.spec;
  return JSON.stringify([t?.nodeName ?? '', t?.nodeSelector ?? null, t?.affinity ?? null, t?.tolerations ?? null, t?.hostNetwork === true]);
}

function sameStringMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (a === b) return true;
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  for (const k of ka) if (a?.[k] !== b?.[k]) return false;
  return true;
}

function sameTaints(a: readonly Taint[] | undefined, b: readonly Taint[] | undefined): boolean {
  if (a === b) return true;
  const la = a ?? [];
  const lb = b ?? [];
  if (la.length !== lb.length) return false;
  return la.every((t, i) => {
    const u = lb[i];
    return u !== undefined && t.key === u.key && (t.value ?? '') === (u.value ?? '') && t.effect === u.effect;
  });
}

/**
 * Whether a node update changed what `NodeShouldRunDaemonPod` reads: the name, the labels (node selector
 * and affinity terms) or the taints' key, value and effect (`timeAdded` plays no part in toleration).
 * When it did not, no DaemonSet's `shouldRun`/`shouldContinueRunning` can have changed, which is what
 * upstream's `updateNode` enqueues on.
 */
export function daemonSchedulingInputsChanged(oldNode: Node, curNode: Node): boolean {
  return (
    oldNode.metadata?.name !== curNode.metadata?.name ||
    !sameStringMap(oldNode.metadata?.labels, curNode.metadata?.labels) ||
    !sameTaints(oldNode.spec?.taints, curNode.spec?.taints)
  );
}

/** `ReplaceDaemonSetPodNodeNameNodeAffinity`: pins the pod with `matchFields metadata.name In [node]`. */
export function replaceDaemonSetPodNodeNameNodeAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  const a = deepCopy(affinity ?? {}) as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: unknown[] } } };
  a.nodeAffinity ??= {};
  a.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [term] };
  return a as Affinity;
}

export function templateGeneration(ds: DaemonSet): number | undefined {
  const v = ds.metadata?.annotations?.[TemplateGenerationAnnotation];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** `CreatePodTemplate`: the template with daemon tolerations and the generation and revision-hash labels. */
export function createPodTemplate(template: PodTemplateSpec | undefined, generation: number | undefined, hash: string): PodTemplateSpec {
  const t = deepCopy(template ?? {});
  const spec = (t.spec ??= { containers: [] });
  addOrUpdateDaemonPodTolerations(spec);
  const m = (t.metadata ??= {});
  const labels: Record<string, string> = { ...(m.labels ?? {}) };
  if (generation !== undefined) labels[DaemonSetTemplateGenerationKey] = String(generation);
  if (hash !== '') labels[ControllerRevisionHashLabelKey] = hash;
  m.labels = labels;
  return t;
}

/** `IsPodUpdated`: the revision hash matches, or the template generation does. */
export function isPodUpdated(pod: Pod, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  const templateMatches = generation !== undefined && labels[DaemonSetTemplateGenerationKey] === String(generation);
  const hashMatches = hash !== '' && labels[ControllerRevisionHashLabelKey] === hash;
  return hashMatches || templateMatches;
}

/** `podByCreationTimestampAndPhase`: scheduled first, then oldest, then by name. */
export function podByCreationTimestampAndPhase(a: Pod, b: Pod): number {
  const sa = (a.spec?.nodeName ?? '') !== '';
  const sb = (b.spec?.nodeName ?? '') !== '';
  if (sa !== sb) return sa ? -1 : 1;
  const ta = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
  if (ta === tb) return compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? '');
  return ta - tb;
}

/** `findUpdatedPodsOnNode`: at most one new and one old pod, else not ok. */
export function findUpdatedPodsOnNode(
  pods: readonly Pod[],
  hash: string,
  generation: number | undefined,
): { ok: boolean; newPod?: Pod; oldPod?: Pod } {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const p of pods) {
    if (p.metadata?.deletionTimestamp !== undefined) continue;
    if (isPodUpdated(p, hash, generation)) {
      if (newPod !== undefined) return { ok: false };
      newPod = p;
    } else {
      if (oldPod !== undefined) return { ok: false };
      oldPod = p;
    }
  }
  const r: { ok: boolean; newPod?: Pod; oldPod?: Pod } = { ok: true };
  if (newPod !== undefined) r.newPod = newPod;
  if (oldPod !== undefined) r.oldPod = oldPod;
  return r;
}
