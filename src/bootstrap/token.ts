/**
 * Bootstrap tokens (k8s.io/cluster-bootstrap/token/api and util, kubeadm's bootstraptoken/v1): the
 * `<id>.<secret>` format, the Secret `kube-system/bootstrap-token-<id>` that stores one, and its
 * expiration and usages.
 */
import { randomInt } from 'node:crypto';
import type { Secret } from 'kubernetes-types/core/v1.js';

export const bootstrapTokenSecretPrefix = 'bootstrap-token-';
export const secretTypeBootstrapToken = 'bootstrap.kubernetes.io/token';
export const bootstrapUserPrefix = 'system:bootstrap:';
export const bootstrapDefaultGroup = 'system:bootstrappers';
/** kubeadm's default extra group (`system:bootstrappers:kubeadm:default-node-token`). */
export const kubeadmDefaultNodeTokenGroup = 'system:bootstrappers:kubeadm:default-node-token';
/** kubeadm's `DefaultTokenDuration`. */
export const defaultTokenTtlMs = 24 * 3600 * 1000;
export const defaultTokenUsages = ['signing', 'authentication'] as const;

export const keys = {
  tokenId: 'token-id',
  tokenSecret: 'token-secret',
  expiration: 'expiration',
  description: 'description',
  extraGroups: 'auth-extra-groups',
  usagePrefix: 'usage-bootstrap-',
} as const;

export const bootstrapTokenPattern = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const bootstrapTokenIdPattern = /^[a-z0-9]{6}$/;
export const bootstrapGroupPattern = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

export interface BootstrapToken {
  id: string;
  secret: string;
}

export function parseToken(token: string): BootstrapToken | undefined {
  const m = bootstrapTokenPattern.exec(token);
  if (m === null) return undefined;
  return { id: m[1] ?? '', secret: m[2] ?? '' };
}

export function formatToken(t: BootstrapToken): string {
  return `${t.id}.${t.secret}`;
}

const tokenChars = '0123456789abcdefghijklmnopqrstuvwxyz';

function randomString(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += tokenChars[randomInt(tokenChars.length)] ?? '0';
  return s;
}

/** A fresh random token (`GenerateBootstrapToken`). */
export function generateToken(): BootstrapToken {
  return { id: randomString(6), secret: randomString(16) };
}

export function secretName(id: string): string {
  return `${bootstrapTokenSecretPrefix}${id}`;
}

/** RFC 3339 without fractional seconds, as Go's `time.RFC3339` prints UTC times. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface TokenSecretOptions {
  token: BootstrapToken;
  /** Milliseconds to live; 0 means never expires. */
  ttlMs?: number;
  description?: string;
  usages?: readonly string[];
  groups?: readonly string[];
  now?: Date;
}

/** The Secret kubeadm writes for a token (`BootstrapToken.ToSecret`). */
export function tokenSecret(o: TokenSecretOptions): Secret {
  const data: Record<string, string> = {
    [keys.tokenId]: o.token.id,
    [keys.tokenSecret]: o.token.secret,
  };
  const ttl = o.ttlMs ?? defaultTokenTtlMs;
  if (ttl > 0) data[keys.expiration] = rfc3339(new Date((o.now ?? new Date()).getTime() + ttl));
  if (o.description !== undefined && o.description !== '') data[keys.description] = o.description;
  for (const u of o.usages ?? defaultTokenUsages) data[`${keys.usagePrefix}${u}`] = 'true';
  const groups = o.groups ?? [kubeadmDefaultNodeTokenGroup];
  if (groups.length > 0) data[keys.extraGroups] = groups.join(',');
  const b64: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) b64[k] = Buffer.from(v).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secretName(o.token.id), namespace: 'kube-system' },
    type: secretTypeBootstrapToken,
    data: b64,
  };
}

/** A Secret's value (`data` base64, or `stringData`), undefined when absent. */
export function secretValue(s: Secret, key: string): string | undefined {
  const d = s.data?.[key];
  if (d !== undefined) return Buffer.from(d, 'base64').toString('utf8');
  return s.stringData?.[key];
}

/** Whether a token Secret's `expiration` has passed (`HasExpired`; unparsable counts as expired). */
export function hasExpired(s: Secret, now: Date): boolean {
  const exp = secretValue(s, keys.expiration);
  if (exp === undefined || exp === '') return false;
  const t = Date.parse(exp);
  if (Number.isNaN(t)) return true;
  return now.getTime() > t;
}

/** The Secret's usages (`signing`, `authentication`), in key order. */
export function secretUsages(s: Secret): string[] {
  const out: string[] = [];
  for (const k of Object.keys({ ...(s.data ?? {}), ...(s.stringData ?? {}) }).sort()) {
    if (k.startsWith(keys.usagePrefix) && secretValue(s, k) === 'true') out.push(k.slice(keys.usagePrefix.length));
  }
  return out;
}

export function secretGroups(s: Secret): string[] {
  const g = secretValue(s, keys.extraGroups);
  if (g === undefined || g === '') return [];
  return g.split(',').map((x) => x.trim()).filter((x) => x !== '');
}

/** Parses kubeadm's `--ttl` (Go durations: `24h`, `1h30m`, `90s`, `0`). */
export function parseDuration(s: string): number | undefined {
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * (unit[m[2] ?? ''] ?? 0);
    matched = re.lastIndex;
  }
  return matched === s.length && s.length > 0 ? total : undefined;
}
