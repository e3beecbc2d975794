/**
 * The deployment controller's pure rules (pkg/controller/deployment/util/deployment_util.go, rolling.go,
 * sync.go, progress.go; v1.32): template hashes, fenceposts, rolling-update arithmetic, proportional
 * scaling, revision annotations, status and conditions. No API calls here; the controller applies the
 * planned scale operations.
 */
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { parseTime, formatTime } from '../_pods.js';
import { omitZeros } from '../_status.js';
import { compareStrings } from '../../util/compare-strings.js';
import { deepCopy } from '../../util/deep-copy.js';

export const RevisionAnnotation = 'deployment.kubernetes.io/revision';
export const RevisionHistoryAnnotation = 'deployment.kubernetes.io/revision-history';
export const DesiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
export const MaxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';
export const ChangeCauseAnnotation = 'kubernetes.io/change-cause';
export const DefaultDeploymentUniqueLabelKey = 'pod-template-hash';
export const maxRevHistoryLengthInChars = 2000;

const annotationsToSkip = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  RevisionAnnotation,
  RevisionHistoryAnnotation,
  DesiredReplicasAnnotation,
  MaxReplicasAnnotation,
  'deprecated.deployment.rollback.to',
]);

/** Condition reasons (deployment_util.go). */
export const reasons = {
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  FailedRSCreate: 'ReplicaSetCreateError',
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  FoundNewReplicaSet: 'FoundNewReplicaSet',
  NewReplicaSetAvailable: 'NewReplicaSetAvailable',
  TimedOut: 'ProgressDeadlineExceeded',
  Paused: 'DeploymentPaused',
  Resumed: 'DeploymentResumed',
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

type IntOrString = number | string;

// ---- hashing ----------------------------------------------------------------------------------------

const alphanums = 'bcdfghjklmnpqrstvwxz2456789';

/** `rand.SafeEncodeString`: maps every byte onto an alphabet without vowels or look-alike characters. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += alphanums[s.charCodeAt(i) % alphanums.length] ?? '';
  return out;
}

function fnv32a(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => compareStrings(a, b));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
}

/**
 * `controller.ComputeHash`: fnv32a over the template, then the collision count as 4 little-endian bytes,
 * rendered as the decimal of the sum through SafeEncodeString. Upstream feeds the hasher a spew dump of the
 * Go struct; we feed canonical JSON, so values differ from a real cluster's but have the same shape and the
 * same stability (same template and count, same hash; a bumped count, a new hash).
 */
export function computeHash(template: PodTemplateSpec | undefined, collisionCount: number | undefined): string {
  let h = fnv32a(new TextEncoder().encode(canonicalJson(template ?? {})));
  if (collisionCount !== undefined) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(b, h);
  }
  return safeEncodeString(String(h));
}

/** `EqualIgnoreHash`: templates equal once the pod-template-hash label is dropped from both. */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  const strip = (t: PodTemplateSpec | undefined): string => {
    const c = deepCopy(t ?? {}) as { metadata?: { labels?: Record<string, string> } };
    if (c.metadata?.labels !== undefined) {
      delete c.metadata.labels[DefaultDeploymentUniqueLabelKey];
      if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels;
    }
    return canonicalJson(c);
  };
  return strip(a) === strip(b);
}

// ---- fenceposts ---------------------------------------------------------------------------------------

/** `intstr.GetScaledValueFromIntOrPercent`. Throws for a string that is not `<n>%`. */
export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  const m = /^(-?\d+)%$/.exec(v);
  if (m === null) {
    if (/^-?\d+$/.test(v)) throw new Error(`invalid type: string is not a percentage`);
    throw new Error(`invalid value for IntOrString: invalid value "${v}": strconv.Atoi: parsing "${v.replace(/%$/, '')}": invalid syntax`);
  }
  const pct = Number(m[1]);
  const x = (pct * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** `ResolveFenceposts`: surge rounds up, unavailable down; if both are 0, unavailable becomes 1. */
export function resolveFenceposts(
  maxSurge: IntOrString | undefined,
  maxUnavailable: IntOrString | undefined,
  desired: number,
): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function replicasOf(o: Deployment | ReplicaSet | undefined): number {
  return o?.spec?.replicas ?? 1;
}

export function isRollingUpdate(d: Deployment): boolean {
  return (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

function rollingParams(d: Deployment): { maxSurge: IntOrString | undefined; maxUnavailable: IntOrString | undefined } {
  const ru = d.spec?.strategy?.rollingUpdate;
  if (ru === undefined) return { maxSurge: '25%', maxUnavailable: '25%' };
  return { maxSurge: ru?.maxSurge, maxUnavailable: ru?.maxUnavailable };
}

/** `MaxSurge`: 0 unless rolling. */
export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const p = rollingParams(d);
  return resolveFenceposts(p.maxSurge, p.maxUnavailable, replicasOf(d)).surge;
}

/** `MaxUnavailable`: 0 unless rolling or with 0 replicas; never more than the replicas. */
export function maxUnavailable(d: Deployment): number {
  if (!isRollingUpdate(d) || replicasOf(d) === 0) return 0;
  const p = rollingParams(d);
  const u = resolveFenceposts(p.maxSurge, p.maxUnavailable, replicasOf(d)).unavailable;
  return Math.min(u, replicasOf(d));
}

// ---- replica set helpers ------------------------------------------------------------------------------

export const sumSpec = (rss: readonly (ReplicaSet | undefined)[]): number =>
  rss.reduce((n, rs) => n + (rs === undefined ? 0 : replicasOf(rs)), 0);
export const sumActual = (rss: readonly (ReplicaSet | undefined)[]): number =>
  rss.reduce((n, rs) => n + (rs?.status?.replicas ?? 0), 0);
export const sumReady = (rss: readonly (ReplicaSet | undefined)[]): number =>
  rss.reduce((n, rs) => n + (rs?.status?.readyReplicas ?? 0), 0);
export const sumAvailable = (rss: readonly (ReplicaSet | undefined)[]): number =>
  rss.reduce((n, rs) => n + (rs?.status?.availableReplicas ?? 0), 0);

export function filterActiveReplicaSets(rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return rss.filter((rs): rs is ReplicaSet => rs !== undefined && replicasOf(rs) > 0);
}

function created(rs: ReplicaSet): number {
  return parseTime(rs.metadata?.creationTimestamp) ?? 0;
}

/** `ReplicaSetsByCreationTimestamp`: older first, ties by name. */
export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  const d = created(a) - created(b);
  if (d !== 0) return d;
  return compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? '');
}

/** `ReplicaSetsBySizeOlder` (scale down) or `ReplicaSetsBySizeNewer` (scale up): larger first. */
function bySize(newer: boolean): (a: ReplicaSet, b: ReplicaSet) => number {
  return (a, b) => {
    if (replicasOf(a) !== replicasOf(b)) return replicasOf(b) - replicasOf(a);
    return newer ? byCreation(b, a) : byCreation(a, b);
  };
}

export function revisionOf(rs: ReplicaSet | Deployment): number | undefined {
  const v = rs.metadata?.annotations?.[RevisionAnnotation];
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  return Number(v);
}

/**
 * `SetDeploymentRevision`: sets the deployment's revision annotation; whether it changed (an absent
 * annotation counts as the empty revision). The controller writes it with the status update.
 */
export function setDeploymentRevision(d: Deployment, revision: string): boolean {
  const md = (d.metadata ??= {});
  const annotations = (md.annotations ??= {});
  if ((annotations[RevisionAnnotation] ?? '') === revision) return false;
  annotations[RevisionAnnotation] = revision;
  return true;
}

export function maxRevision(rss: readonly ReplicaSet[]): number {
  let m = 0;
  for (const rs of rss) m = Math.max(m, revisionOf(rs) ?? 0);
  return m;
}

/** `FindNewReplicaSet`: the oldest replica set whose template equals the deployment's (ignoring the hash). */
export function findNewReplicaSet(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

// ---- rolling update arithmetic ------------------------------------------------------------------------

/** `NewRSNewReplicas`: how many replicas the new replica set may have now. */
export function newRSNewReplicas(d: Deployment, allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet): number {
  if (!isRollingUpdate(d)) return replicasOf(d);
  const p = rollingParams(d);
  const surge = scaledValue(p.maxSurge ?? 0, replicasOf(d), true);
  const current = sumSpec(allRSs);
  const maxTotal = replicasOf(d) + surge;
  if (current >= maxTotal) return replicasOf(newRS);
  const up = Math.min(maxTotal - current, replicasOf(d) - replicasOf(newRS));
  return replicasOf(newRS) + up;
}

/** One planned `scaleReplicaSet` call. */
export interface ScaleOp {
  rs: ReplicaSet;
  to: number;
  /** `up`/`down` as upstream passes it (proportional scaling passes the deployment's direction). */
  operation: string;
}

function withReplicas(rs: ReplicaSet, n: number): ReplicaSet {
  return { ...rs, spec: { ...(rs.spec ?? { selector: {}, template: {} }), replicas: n } };
}

/** `reconcileNewReplicaSet`: the new replica set's target, or undefined when it stays. */
export function reconcileNewReplicaSet(d: Deployment, allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet): number | undefined {
  const want = replicasOf(d);
  if (replicasOf(newRS) === want) return undefined;
  if (replicasOf(newRS) > want) return want;
  const n = newRSNewReplicas(d, allRSs, newRS);
  return n === replicasOf(newRS) ? undefined : n;
}

/** `cleanupUnhealthyReplicas`: scales old replica sets down by their unavailable replicas, oldest first. */
export function cleanupUnhealthyReplicas(
  oldRSs: readonly ReplicaSet[],
  maxCleanupCount: number,
): { oldRSs: ReplicaSet[]; cleaned: number; ops: ScaleOp[] } {
  const sorted = [...oldRSs].sort(byCreation);
  const ops: ScaleOp[] = [];
  let total = 0;
  for (let i = 0; i < sorted.length; i++) {
    const rs = sorted[i];
    if (rs === undefined) continue;
    if (total >= maxCleanupCount) break;
    const spec = replicasOf(rs);
    const avail = rs.status?.availableReplicas ?? 0;
    if (spec === 0 || spec === avail) continue;
    const down = Math.min(maxCleanupCount - total, spec - avail);
    const to = spec - down;
    if (to > spec) throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata?.namespace ?? ''}/${rs.metadata?.name ?? ''} ${spec} -> ${to}`);
    ops.push({ rs, to, operation: 'down' });
    sorted[i] = withReplicas(rs, to);
    total += down;
  }
  return { oldRSs: sorted, cleaned: total, ops };
}

/** `scaleDownOldReplicaSetsForRollingUpdate`: scale old replica sets down while availability allows. */
export function scaleDownOldReplicaSetsForRollingUpdate(
  allRSs: readonly (ReplicaSet | undefined)[],
  oldRSs: readonly ReplicaSet[],
  d: Deployment,
): { scaled: number; ops: ScaleOp[] } {
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const available = sumAvailable(allRSs);
  if (available <= minAvailable) return { scaled: 0, ops: [] };
  const sorted = [...oldRSs].sort(byCreation);
  const want = available - minAvailable;
  let total = 0;
  const ops: ScaleOp[] = [];
  for (const rs of sorted) {
    if (total >= want) break;
    if (replicasOf(rs) === 0) continue;
    const down = Math.min(replicasOf(rs), want - total);
    ops.push({ rs, to: replicasOf(rs) - down, operation: 'down' });
    total += down;
  }
  return { scaled: total, ops };
}

/** `reconcileOldReplicaSets`: the scale operations of one rolling step on the old side. */
export function reconcileOldReplicaSets(
  allRSs: readonly (ReplicaSet | undefined)[],
  oldRSs: readonly ReplicaSet[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
): ScaleOp[] {
  const oldPods = sumSpec(oldRSs);
  if (oldPods === 0) return [];
  const allPods = sumSpec(allRSs);
  const minAvailable = replicasOf(d) - maxUnavailable(d);
  const newUnavailable = newRS === undefined ? 0 : replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = allPods - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return [];
  const cleanup = cleanupUnhealthyReplicas(oldRSs, maxScaledDown);
  const all = [...cleanup.oldRSs, newRS];
  const down = scaleDownOldReplicaSetsForRollingUpdate(all, cleanup.oldRSs, d);
  return [...cleanup.ops, ...down.ops];
}

// ---- proportional scaling (sync.go scale) -----------------------------------------------------------------

function intAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const v = rs.metadata?.annotations?.[key];
  if (v === undefined || !/^-?\d+$/.test(v)) return undefined;
  return Number(v);
}

/** Go's math.Round: half away from zero. */
function roundHalfAway(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  if (replicasOf(d) === 0) return -replicasOf(rs);
  const deploymentReplicas = replicasOf(d) + maxSurge(d);
  const annotated = intAnnotation(rs, MaxReplicasAnnotation) ?? d.status?.replicas ?? 0;
  const size = (replicasOf(rs) * deploymentReplicas) / annotated;
  return roundHalfAway(size) - replicasOf(rs);
}

function replicaSetProportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** `FindActiveOrLatest`. */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (newRS === undefined && oldRSs.length === 0) return undefined;
  const sortedOld = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = filterActiveReplicaSets([...sortedOld, newRS]);
  if (active.length === 0) return newRS ?? sortedOld[0];
  if (active.length === 1) return active[0];
  return undefined;
}

/** `IsSaturated`. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (rs === undefined) return false;
  const desired = intAnnotation(rs, DesiredReplicasAnnotation);
  return replicasOf(rs) === replicasOf(d) && desired === replicasOf(d) && (rs.status?.availableReplicas ?? 0) === replicasOf(d);
}

/** `scale`: the operations of a scaling event (proportional across active replica sets when rolling). */
export function planScale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ScaleOp[] {
  const want = replicasOf(d);
  const one = findActiveOrLatest(newRS, oldRSs);
  if (one !== undefined) {
    if (replicasOf(one) === want) return [];
    return [{ rs: one, to: want, operation: replicasOf(one) < want ? 'up' : 'down' }];
  }
  if (isSaturated(d, newRS)) {
    return filterActiveReplicaSets(oldRSs).map((rs) => ({ rs, to: 0, operation: 'down' }));
  }
  if (!isRollingUpdate(d)) return [];
  const all = filterActiveReplicaSets([...oldRSs, newRS]);
  const allReplicas = sumSpec(all);
  const allowed = want > 0 ? want + maxSurge(d) : 0;
  const toAdd = allowed - allReplicas;
  let operation = '';
  if (toAdd > 0) {
    all.sort(bySize(true));
    operation = 'up';
  } else if (toAdd < 0) {
    all.sort(bySize(false));
    operation = 'down';
  }
  let added = 0;
  const sizes = new Map<ReplicaSet, number>();
  for (const rs of all) {
    if (toAdd !== 0) {
      const p = replicaSetProportion(rs, d, toAdd, added);
      sizes.set(rs, replicasOf(rs) + p);
      added += p;
    } else sizes.set(rs, replicasOf(rs));
  }
  return all.map((rs, i) => {
    let to = sizes.get(rs) ?? replicasOf(rs);
    if (i === 0 && toAdd !== 0) to = Math.max(0, to + (toAdd - added));
    return { rs, to, operation };
  });
}

// ---- annotations ---------------------------------------------------------------------------------------

function mutableAnnotations(o: { metadata?: { annotations?: Record<string, string> } }): Record<string, string> {
  const m = (o.metadata ??= {});
  return (m.annotations ??= {});
}

/** `SetReplicasAnnotations`: desired and max replicas on a replica set; answers whether they changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = mutableAnnotations(rs);
  let changed = false;
  if (a[DesiredReplicasAnnotation] !== String(desired)) {
    a[DesiredReplicasAnnotation] = String(desired);
    changed = true;
  }
  if (a[MaxReplicasAnnotation] !== String(max)) {
    a[MaxReplicasAnnotation] = String(max);
    changed = true;
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = rs.metadata?.annotations ?? {};
  return a[DesiredReplicasAnnotation] !== String(desired) || a[MaxReplicasAnnotation] !== String(max);
}

/**
 * `SetNewReplicaSetAnnotations`: copies the deployment's annotations (change-cause included, the
 * skipped ones excluded), raises the revision, keeps the revision history on a rollback, and on creation
 * sets the replica annotations. Mutates `rs`; answers whether anything changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: string, exists: boolean): boolean {
  const a = mutableAnnotations(rs);
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (annotationsToSkip.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const oldRevision = a[RevisionAnnotation];
  let oldInt = 0;
  if (oldRevision !== undefined) {
    if (!/^\d+$/.test(oldRevision)) {
      if (oldRevision !== '') return false;
    } else oldInt = Number(oldRevision);
  }
  const newInt = Number(newRevision);
  if (oldInt < newInt) {
    a[RevisionAnnotation] = newRevision;
    changed = true;
  }
  if (oldRevision !== undefined && oldInt < newInt) {
    const history = a[RevisionHistoryAnnotation] ?? '';
    let old = history.split(',');
    if ((old[0] ?? '') === '') a[RevisionHistoryAnnotation] = oldRevision;
    else {
      let total = history.length + oldRevision.length + 1;
      let start = 0;
      while (total > maxRevHistoryLengthInChars && start < old.length) {
        total -= (old[start]?.length ?? 0) + 1;
        start++;
      }
      if (total <= maxRevHistoryLengthInChars) {
        old = [...old.slice(start), oldRevision];
        a[RevisionHistoryAnnotation] = old.join(',');
      }
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

// ---- status and conditions ---------------------------------------------------------------------------------

export function getCondition(s: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return s?.conditions?.find((c) => c.type === type);
}

export function newCondition(type: string, status: string, reason: string, message: string, now: number): DeploymentCondition {
  const t = formatTime(now);
  return { type, status, reason, message, lastUpdateTime: t, lastTransitionTime: t };
}

/** `SetDeploymentCondition`: no-op for the same status and reason; keeps lastTransitionTime on the same status. */
export function setCondition(s: DeploymentStatus, c: DeploymentCondition): void {
  const cur = getCondition(s, c.type);
  if (cur !== undefined && cur.status === c.status && cur.reason === c.reason) return;
  const next = { ...c };
  if (cur !== undefined && cur.status === c.status && cur.lastTransitionTime !== undefined) next.lastTransitionTime = cur.lastTransitionTime;
  s.conditions = [...(s.conditions ?? []).filter((x) => x.type !== c.type), next];
}

export function removeCondition(s: DeploymentStatus, type: string): void {
  const left = (s.conditions ?? []).filter((x) => x.type !== type);
  if (left.length > 0) s.conditions = left;
  else delete s.conditions;
}

export function hasProgressDeadline(d: Deployment): boolean {
  const p = d.spec?.progressDeadlineSeconds ?? 600;
  return p !== 2147483647;
}

/** `calculateStatus`. */
export function calculateStatus(allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment, now: number): DeploymentStatus {
  const available = sumAvailable(allRSs);
  const total = sumSpec(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata?.generation ?? 0,
    replicas: sumActual(allRSs),
    updatedReplicas: sumActual([newRS]),
    readyReplicas: sumReady(allRSs),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions !== undefined) status.conditions = d.status.conditions.map((c) => ({ ...c }));
  const compact = omitZeros(status, ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']);
  for (const k of Object.keys(status) as (keyof DeploymentStatus)[]) if (!(k in compact)) delete status[k];
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setCondition(status, newCondition('Available', 'True', reasons.MinimumReplicasAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition('Available', 'False', reasons.MinimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** `DeploymentComplete`. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const want = replicasOf(d);
  return (
    (s.updatedReplicas ?? 0) === want &&
    (s.replicas ?? 0) === want &&
    (s.availableReplicas ?? 0) === want &&
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0)
  );
}

/** `DeploymentProgressing`. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** `DeploymentTimedOut`. */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(s, 'Progressing');
  if (c === undefined) return false;
  if (c.reason === reasons.NewReplicaSetAvailable) return false;
  if (c.reason === reasons.TimedOut) return true;
  const from = parseTime(c.lastUpdateTime) ?? 0;
  return from + (d.spec?.progressDeadlineSeconds ?? 600) * 1000 < now;
}

/**
 * `syncRolloutStatus`'s condition logic: Progressing (complete, progressing, timed out) and ReplicaFailure
 * copied from the replica sets.
 */
export function rolloutStatus(
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
  now: number,
): DeploymentStatus {
  const s = calculateStatus(allRSs, newRS, d, now);
  if (!hasProgressDeadline(d)) removeCondition(s, 'Progressing');
  const cur = getCondition(d.status, 'Progressing');
  const isComplete = s.replicas === s.updatedReplicas && cur !== undefined && cur.reason === reasons.NewReplicaSetAvailable;
  if (hasProgressDeadline(d) && !isComplete) {
    const rsName = newRS?.metadata?.name;
    const dName = d.metadata?.name ?? '';
    if (deploymentComplete(d, s)) {
      const msg = rsName !== undefined ? `ReplicaSet "${rsName}" has successfully progressed.` : `Deployment "${dName}" has successfully progressed.`;
      setCondition(s, newCondition('Progressing', 'True', reasons.NewReplicaSetAvailable, msg, now));
    } else if (deploymentProgressing(d, s)) {
      const msg = rsName !== undefined ? `ReplicaSet "${rsName}" is progressing.` : `Deployment "${dName}" is progressing.`;
      const c = newCondition('Progressing', 'True', reasons.ReplicaSetUpdated, msg, now);
      if (cur !== undefined) {
        if (cur.status === 'True' && cur.lastTransitionTime !== undefined) c.lastTransitionTime = cur.lastTransitionTime;
        removeCondition(s, 'Progressing');
      }
      s.conditions = [...(s.conditions ?? []), c];
    } else if (deploymentTimedOut(d, s, now)) {
      const msg = rsName !== undefined ? `ReplicaSet "${rsName}" has timed out progressing.` : `Deployment "${dName}" has timed out progressing.`;
      setCondition(s, newCondition('Progressing', 'False', reasons.TimedOut, msg, now));
    }
  }
  const failure = [...allRSs, newRS]
    .filter((rs): rs is ReplicaSet => rs !== undefined)
    .flatMap((rs) => rs.status?.conditions ?? [])
    .find((c) => c.type === 'ReplicaFailure');
  if (failure !== undefined) {
    const c: DeploymentCondition = { type: 'ReplicaFailure', status: failure.status, reason: failure.reason ?? '', message: failure.message ?? '' };
    if (failure.lastTransitionTime !== undefined) {
      c.lastTransitionTime = failure.lastTransitionTime;
      c.lastUpdateTime = failure.lastTransitionTime;
    }
    setCondition(s, c);
  } else removeCondition(s, 'ReplicaFailure');
  return s;
}

/** `requeueStuckDeployment`: ms until the progress deadline should be checked, or undefined. */
export function stuckRequeueAfter(d: Deployment, s: DeploymentStatus, now: number): number | undefined {
  const c = getCondition(d.status, 'Progressing');
  if (c === undefined || !hasProgressDeadline(d) || deploymentComplete(d, s) || c.reason === reasons.TimedOut) return undefined;
  const after = (parseTime(c.lastUpdateTime) ?? now) + (d.spec?.progressDeadlineSeconds ?? 600) * 1000 - now;
  return after < 1000 ? 0 : after + 1000;
}

export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  const ra = revisionOf(a) ?? 0;
  const rb = revisionOf(b) ?? 0;
  return ra !== rb ? ra - rb : byCreation(a, b);
}
