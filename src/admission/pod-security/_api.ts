/**
 * Pod Security levels, versions and the namespace labels that select them (`k8s.io/pod-security-admission/api`:
 * constants.go, helpers.go).
 */
import { fieldErrors, Path, type FieldError } from '../../api/field-errors.js';

export const Level = { Privileged: 'privileged', Baseline: 'baseline', Restricted: 'restricted' } as const;
export type Level = (typeof Level)[keyof typeof Level];
const validLevels: readonly Level[] = [Level.Privileged, Level.Baseline, Level.Restricted];

export const labelPrefix = 'pod-security.kubernetes.io/';
export const EnforceLevelLabel = `${labelPrefix}enforce`;
export const EnforceVersionLabel = `${labelPrefix}enforce-version`;
export const AuditLevelLabel = `${labelPrefix}audit`;
export const AuditVersionLabel = `${labelPrefix}audit-version`;
export const WarnLevelLabel = `${labelPrefix}warn`;
export const WarnVersionLabel = `${labelPrefix}warn-version`;

/** A policy version: `latest` or `v1.<minor>` (upstream assumes one major version). */
export type Version = { readonly latest: true } | { readonly latest: false; readonly minor: number };

export const latestVersion: Version = { latest: true };
export const minorVersion = (minor: number): Version => ({ latest: false, minor });

export function versionString(v: Version): string {
  return v.latest ? 'latest' : `v1.${v.minor}`;
}

/** `Version.Older`: latest is newer than every numbered version. */
export function olderThan(v: Version, other: Version): boolean {
  if (v.latest) return false;
  if (other.latest) return true;
  return v.minor < other.minor;
}

export interface LevelVersion {
  level: Level;
  version: Version;
}

/** `LevelVersion.String()`: `restricted:latest`, `baseline:v1.25`. */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return levelVersionString(a) === levelVersionString(b);
}

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

/** `ParseLevel`: an unknown level reads as restricted, with an error. */
export function parseLevel(level: string): { level: Level; error?: string } {
  if ((validLevels as readonly string[]).includes(level)) return { level: level as Level };
  return { level: Level.Restricted, error: `must be one of ${validLevels.join(', ')}` };
}

const versionRegexp = /^v1\.([0-9]|[1-9][0-9]*)$/;

/** `ParseVersion`: `latest` or `v1.x`; anything else reads as latest, with an error. */
export function parseVersion(version: string): { version: Version; error?: string } {
  if (version === 'latest') return { version: latestVersion };
  const m = versionRegexp.exec(version);
  const n = m?.[1] !== undefined ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(n)) return { version: latestVersion, error: 'must be "latest" or "v1.x"' };
  return { version: minorVersion(n) };
}

const labelsPath = Path.root('metadata').child('labels');

/**
 * `PolicyToEvaluate`: the namespace labels over the defaults. A usable policy always comes back; a bad enforce
 * level reads as restricted (fail closed), a bad audit or warn level as privileged (fail open), a bad version
 * as latest, each with a `metadata.labels[...]` field error.
 */
export function policyToEvaluate(labels: Record<string, string> | undefined, defaults: Policy): { policy: Policy; errors: FieldError[] } {
  const p: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: FieldError[] = [];
  if (labels === undefined) return { policy: p, errors };
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(labels, k);
  const note = (label: string, value: string, error: string | undefined): void => {
    if (error !== undefined) errors.push(fieldErrors.invalid(labelsPath.key(label), value, error));
  };
  const levelLabel = (mode: keyof Policy, label: string, failOpen: boolean): void => {
    if (!has(label)) return;
    const value = labels[label] ?? '';
    const r = parseLevel(value);
    p[mode].level = r.error !== undefined && failOpen ? Level.Privileged : r.level;
    note(label, value, r.error);
  };
  const versionLabel = (mode: keyof Policy, label: string): void => {
    if (!has(label)) return;
    const value = labels[label] ?? '';
    const r = parseVersion(value);
    p[mode].version = r.version;
    note(label, value, r.error);
  };
  levelLabel('enforce', EnforceLevelLabel, false);
  versionLabel('enforce', EnforceVersionLabel);
  levelLabel('audit', AuditLevelLabel, true);
  versionLabel('audit', AuditVersionLabel);
  levelLabel('warn', WarnLevelLabel, true);
  versionLabel('warn', WarnVersionLabel);
  return { policy: p, errors };
}

/** `CompareLevels`: 0 when equal, -1 when `a` is less strict than `b`, +1 when stricter. */
export function compareLevels(a: Level, b: Level): number {
  if (a === b) return 0;
  if (a === Level.Privileged) return -1;
  if (a === Level.Restricted) return 1;
  if (b === Level.Privileged) return 1;
  if (b === Level.Restricted) return -1;
  return 0;
}
