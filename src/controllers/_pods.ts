/**
 * Pod helpers shared by the workload controllers, after upstream `pkg/api/v1/pod/util.go` and
 * `pkg/controller/controller_utils.go` (v1.32): readiness, availability, active pods, the deletion ranking
 * (`ActivePodsWithRanks`), pods from a template.
 */
import type { Pod, PodCondition, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { deepCopy } from '../util/deep-copy.js';

export function parseTime(t: string | undefined): number | undefined {
  if (t === undefined || t === '') return undefined;
  const v = Date.parse(t);
  return Number.isNaN(v) ? undefined : v;
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function podCondition(pod: Pod, type: string): PodCondition | undefined {
  // A loop, not `find`: controllers ask this of every pod of a DaemonSet or ReplicaSet at every sync.
  for (const c of pod.status?.conditions ?? []) if (c.type === type) return c;
  return undefined;
}

/** `podutil.IsPodReady`: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return podCondition(pod, 'Ready')?.status === 'True';
}

/**
 * `podutil.IsPodAvailable`: ready, and ready for at least `minReadySeconds` (strictly before `now` when
 * minReadySeconds > 0).
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const t = parseTime(podCondition(pod, 'Ready')?.lastTransitionTime);
  return t !== undefined && t + minReadySeconds * 1000 < now;
}

/** `controller.IsPodActive`: not Succeeded, not Failed, not being deleted. */
export function isPodActive(pod: Pod): boolean {
  return pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && pod.metadata?.deletionTimestamp === undefined;
}

export function filterActivePods(pods: readonly Pod[]): Pod[] {
  return pods.filter(isPodActive);
}

const podPhaseToOrdinal: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function phaseOrdinal(p: Pod): number {
  return podPhaseToOrdinal[p.status?.phase ?? ''] ?? 0;
}

function podReadyTime(p: Pod): number | undefined {
  if (!isPodReady(p)) return undefined;
  return parseTime(podCondition(p, 'Ready')?.lastTransitionTime);
}

/** `afterOrZero`: a zero time sorts first, otherwise the later time first. */
function afterOrZero(t1: number | undefined, t2: number | undefined): boolean {
  if (t1 === undefined || t2 === undefined) return t1 === undefined;
  return t1 > t2;
}

/** `logarithmicRankDiff`: compares floor(log2(age in ns)) of two times. */
function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  const d1 = (now - t1) * 1e6;
  const d2 = (now - t2) * 1e6;
  const r1 = d1 > 0 ? Math.floor(Math.log2(d1)) : -1;
  const r2 = d2 > 0 ? Math.floor(Math.log2(d2)) : -1;
  return r1 - r2;
}

function maxContainerRestarts(pod: Pod): { regular: number; sidecar: number } {
  let regular = 0;
  let sidecar = 0;
  for (const c of pod.status?.containerStatuses ?? []) regular = Math.max(regular, c.restartCount);
  const sidecars = new Set(
    (pod.spec?.initContainers ?? []).filter((c) => (c as { restartPolicy?: string }).restartPolicy === 'Always').map((c) => c.name),
  );
  for (const c of pod.status?.initContainerStatuses ?? []) if (sidecars.has(c.name)) sidecar = Math.max(sidecar, c.restartCount);
  return { regular, sidecar };
}

function compareMaxContainerRestarts(a: Pod, b: Pod): boolean | undefined {
  const ra = maxContainerRestarts(a);
  const rb = maxContainerRestarts(b);
  if (ra.regular !== rb.regular) return ra.regular > rb.regular;
  if (ra.sidecar !== rb.sidecar) return ra.sidecar > rb.sidecar;
  return undefined;
}

/** `controller.kubernetes.io/pod-deletion-cost`; invalid or missing is 0. */
export function podDeletionCost(p: Pod): number {
  const v = p.metadata?.annotations?.['controller.kubernetes.io/pod-deletion-cost'];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return 0;
  const n = Number(v);
  return n >= -2147483648 && n <= 2147483647 ? n : 0;
}

/** `ActivePods.Less`: which pod goes first when choosing pods to delete (used by the DaemonSet, Job...). */
export function activePodsLess(a: Pod, b: Pod): boolean {
  const na = a.spec?.nodeName ?? '';
  const nb = b.spec?.nodeName ?? '';
  if (na !== nb && (na === '' || nb === '')) return na === '';
  if (phaseOrdinal(a) !== phaseOrdinal(b)) return phaseOrdinal(a) < phaseOrdinal(b);
  if (isPodReady(a) !== isPodReady(b)) return !isPodReady(a);
  if (isPodReady(a) && isPodReady(b)) {
    const ra = podReadyTime(a);
    const rb = podReadyTime(b);
    if (ra !== rb) return afterOrZero(ra, rb);
  }
  const r = compareMaxContainerRestarts(a, b);
  if (r !== undefined) return r;
  const ca = parseTime(a.metadata?.creationTimestamp);
  const cb = parseTime(b.metadata?.creationTimestamp);
  if (ca !== cb) return afterOrZero(ca, cb);
  return false;
}

/**
 * `ActivePodsWithRanks.Less` with PodDeletionCost and LogarithmicScaleDown on (their 1.32 defaults):
 * unassigned < assigned; Pending < Unknown < Running; not ready < ready; lower deletion cost first; higher
 * rank (more related pods on the same node) first; ready for less time first (log2 buckets); more restarts
 * first; newer first (log2 buckets); ties by uid.
 */
export function activePodsWithRanksLess(a: Pod, rankA: number, b: Pod, rankB: number, now: number | undefined): boolean {
  const na = a.spec?.nodeName ?? '';
  const nb = b.spec?.nodeName ?? '';
  if (na !== nb && (na === '' || nb === '')) return na === '';
  if (phaseOrdinal(a) !== phaseOrdinal(b)) return phaseOrdinal(a) < phaseOrdinal(b);
  if (isPodReady(a) !== isPodReady(b)) return !isPodReady(a);
  const ca = podDeletionCost(a);
  const cb = podDeletionCost(b);
  if (ca !== cb) return ca < cb;
  if (rankA !== rankB) return rankA > rankB;
  const uidLess = (a.metadata?.uid ?? '') < (b.metadata?.uid ?? '');
  if (isPodReady(a) && isPodReady(b)) {
    const ra = podReadyTime(a);
    const rb = podReadyTime(b);
    if (ra !== rb) {
      if (now === undefined || ra === undefined || rb === undefined) return afterOrZero(ra, rb);
      const d = logarithmicRankDiff(ra, rb, now);
      return d === 0 ? uidLess : d < 0;
    }
  }
  const r = compareMaxContainerRestarts(a, b);
  if (r !== undefined) return r;
  const ta = parseTime(a.metadata?.creationTimestamp);
  const tb = parseTime(b.metadata?.creationTimestamp);
  if (ta !== tb) {
    if (now === undefined || ta === undefined || tb === undefined) return afterOrZero(ta, tb);
    const d = logarithmicRankDiff(ta, tb, now);
    return d === 0 ? uidLess : d < 0;
  }
  return false;
}

/** Stable sort by a Less function (Go's sort.Sort is not stable, but tests rely only on strict orders). */
export function sortByLess<T>(items: T[], less: (a: T, b: T) => boolean): T[] {
  return items.sort((a, b) => (less(a, b) ? -1 : less(b, a) ? 1 : 0));
}

/**
 * `getPodsRankedByRelatedPodsOnSameNode` + `getPodsToDelete`: the `diff` pods to delete, ranked by how many
 * related active pods share their node.
 */
export function podsToDelete(filteredPods: readonly Pod[], relatedPods: readonly Pod[], diff: number, now: number): Pod[] {
  if (diff >= filteredPods.length) return [...filteredPods];
  const onNode = new Map<string, number>();
  for (const p of relatedPods) {
    if (!isPodActive(p)) continue;
    const n = p.spec?.nodeName ?? '';
    onNode.set(n, (onNode.get(n) ?? 0) + 1);
  }
  const ranked = filteredPods.map((p) => ({ p, rank: onNode.get(p.spec?.nodeName ?? '') ?? 0 }));
  sortByLess(ranked, (x, y) => activePodsWithRanksLess(x.p, x.rank, y.p, y.rank, now));
  return ranked.slice(0, diff).map((x) => x.p);
}

/** `getPodsPrefix`: `<name>-` (upstream drops the dash only when that would make the name invalid). */
export function podsPrefix(controllerName: string): string {
  return `${controllerName}-`;
}

/** `GetPodFromTemplate`: a pod for `template` with the controller's ownerReference and generateName. */
export function podFromTemplate(template: PodTemplateSpec | undefined, namespace: string, owner: OwnerReference): Pod {
  const meta = template?.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: podsPrefix(owner.name),
      namespace,
      ownerReferences: [{ ...owner }],
    },
    spec: deepCopy(template?.spec ?? { containers: [] }),
  };
  const m = pod.metadata ?? {};
  if (meta.labels !== undefined) m.labels = { ...meta.labels };
  if (meta.annotations !== undefined) m.annotations = { ...meta.annotations };
  if (meta.finalizers !== undefined) m.finalizers = [...meta.finalizers];
  return pod;
}

/**
 * `slowStartBatch`: runs `fn` `count` times in batches of 1, 2, 4, ... (starting at `initialBatchSize`); stops
 * at the first batch with a failure. Answers the successes and the first error.
 */
export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: () => Promise<void>,
): Promise<{ successes: number; error: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initialBatchSize); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += batch - failed.length;
    if (failed[0] !== undefined) return { successes, error: failed[0].reason };
    remaining -= batch;
  }
  return { successes, error: undefined };
}
