/**
 * The Pod Security Standards' check framework (`k8s.io/pod-security-admission/policy`: checks.go, registry.go,
 * helpers.go, visitor.go): versioned checks, their aggregation into one message, and the evaluator that picks
 * the checks of a level and version.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Container, EphemeralContainer, PodSpec } from 'kubernetes-types/core/v1.js';
import { Level, minorVersion, olderThan, type LevelVersion, type Version } from './_api.js';

/**
 * One check's outcome. `forbiddenReason` is short and always shown; `forbiddenDetail` (optional) names the
 * offending containers or values and is shown when a single object is checked.
 */
export interface CheckResult {
  allowed: boolean;
  forbiddenReason?: string;
  forbiddenDetail?: string;
}

export type CheckPodFn = (podMetadata: ObjectMeta, podSpec: PodSpec) => CheckResult;

export interface VersionedCheck {
  /** The first policy version this revision applies to (never latest). */
  minimumVersion: Version;
  checkPod: CheckPodFn;
  /** Baseline checks this (restricted) check replaces at this version. */
  overrideCheckIDs?: readonly string[];
}

export interface Check {
  id: string;
  level: typeof Level.Baseline | typeof Level.Restricted;
  /** Strictly increasing minimum versions. */
  versions: readonly VersionedCheck[];
}

export const allowed: CheckResult = { allowed: true };

/** `UnknownForbiddenReason`. */
export const unknownForbiddenReason = 'unknown forbidden reason';

export interface AggregateCheckResult {
  allowed: boolean;
  forbiddenReasons: string[];
  forbiddenDetails: string[];
}

/** `AggregateCheckResults`. */
export function aggregateCheckResults(results: readonly CheckResult[]): AggregateCheckResult {
  const forbiddenReasons: string[] = [];
  const forbiddenDetails: string[] = [];
  for (const r of results) {
    if (r.allowed) continue;
    forbiddenReasons.push(r.forbiddenReason !== undefined && r.forbiddenReason !== '' ? r.forbiddenReason : unknownForbiddenReason);
    forbiddenDetails.push(r.forbiddenDetail ?? '');
  }
  return { allowed: forbiddenReasons.length === 0, forbiddenReasons, forbiddenDetails };
}

/** `AggregateCheckResult.ForbiddenReason()`: `host ports, privileged`. */
export function forbiddenReason(a: AggregateCheckResult): string {
  return a.forbiddenReasons.join(', ');
}

/** `AggregateCheckResult.ForbiddenDetail()`: `host ports (8080, 9090), privileged`. */
export function forbiddenDetail(a: AggregateCheckResult): string {
  return a.forbiddenReasons.map((r, i) => (a.forbiddenDetails[i] ? `${r} (${a.forbiddenDetails[i]})` : r)).join(', ');
}

/** `joinQuote`: `"a", "b"` (no escaping, as upstream). */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** A Go `sets.String`'s sorted `List()`. */
export function sortedSet(s: Iterable<string>): string[] {
  return [...new Set(s)].sort();
}

type AnyContainer = Container | EphemeralContainer;

/** `visitContainers`: init containers, then containers, then ephemeral containers. */
export function visitContainers(podSpec: PodSpec, visitor: (c: AnyContainer) => void): void {
  for (const c of podSpec.initContainers ?? []) visitor(c);
  for (const c of podSpec.containers ?? []) visitor(c);
  for (const c of podSpec.ephemeralContainers ?? []) visitor(c);
}

/** Whether `spec.os.name` says Windows (the 1.25+ restricted checks exempt such pods from Linux-only fields). */
export function isWindowsPod(podSpec: PodSpec): boolean {
  return podSpec.os?.name === 'windows';
}

/** Evaluates a pod against the checks of a level and version (`policy.Evaluator`). */
export interface Evaluator {
  evaluatePod(lv: LevelVersion, podMetadata: ObjectMeta, podSpec: PodSpec): CheckResult[];
}

/**
 * `NewEvaluator`: for every minor version up to the newest check revision, the baseline checks (sorted by ID)
 * and, for restricted, the baseline checks no restricted check overrides followed by the restricted checks
 * (each sorted by ID). A version newer than all revisions (and `latest`) uses the newest set.
 */
export function newEvaluator(checks: readonly Check[]): Evaluator {
  validateChecks(checks);
  let maxMinor = 0;
  for (const c of checks) {
    const last = c.versions[c.versions.length - 1]?.minimumVersion;
    if (last !== undefined && !last.latest) maxMinor = Math.max(maxMinor, last.minor);
  }
  const revisionAt = (c: Check, minor: number): VersionedCheck | undefined => {
    let found: VersionedCheck | undefined;
    for (const v of c.versions) if (!v.minimumVersion.latest && v.minimumVersion.minor <= minor) found = v;
    return found;
  };
  const byId = (a: Check, b: Check): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const baseline = checks.filter((c) => c.level === Level.Baseline).sort(byId);
  const restricted = checks.filter((c) => c.level === Level.Restricted).sort(byId);
  const baselineChecks: CheckPodFn[][] = [];
  const restrictedChecks: CheckPodFn[][] = [];
  for (let minor = 0; minor <= maxMinor; minor++) {
    const b: CheckPodFn[] = [];
    for (const c of baseline) {
      const v = revisionAt(c, minor);
      if (v !== undefined) b.push(v.checkPod);
    }
    baselineChecks.push(b);
    const overridden = new Set<string>();
    const r: CheckPodFn[] = [];
    for (const c of restricted) {
      const v = revisionAt(c, minor);
      if (v === undefined) continue;
      for (const id of v.overrideCheckIDs ?? []) overridden.add(id);
      r.push(v.checkPod);
    }
    const rb: CheckPodFn[] = [];
    for (const c of baseline) {
      const v = revisionAt(c, minor);
      if (v !== undefined && !overridden.has(c.id)) rb.push(v.checkPod);
    }
    restrictedChecks.push([...rb, ...r]);
  }
  const max = minorVersion(maxMinor);
  return {
    evaluatePod(lv, podMetadata, podSpec) {
      if (lv.level === Level.Privileged) return [];
      const version = olderThan(max, lv.version) ? max : lv.version;
      const minor = version.latest ? maxMinor : version.minor;
      const set = (lv.level === Level.Baseline ? baselineChecks : restrictedChecks)[minor] ?? [];
      return set.map((check) => check(podMetadata, podSpec));
    },
  };
}

function validateChecks(checks: readonly Check[]): void {
  const ids = new Set<string>();
  for (const c of checks) {
    if (ids.has(c.id)) throw new Error(`multiple checks registered for ID ${c.id}`);
    ids.add(c.id);
    if (c.versions.length === 0) throw new Error(`check ${c.id}: empty`);
    let prev = -1;
    for (const v of c.versions) {
      if (v.minimumVersion.latest) throw new Error(`check ${c.id}: version cannot be 'latest'`);
      if (v.minimumVersion.minor <= prev) throw new Error(`check ${c.id}: versions must be strictly increasing`);
      prev = v.minimumVersion.minor;
    }
  }
}
