/**
 * Which class is the cluster's default when several are marked: the newest by creationTimestamp (to the
 * nanosecond, `Time.UnixNano`), then the first by name. StorageClasses (`GetDefaultClass` of
 * pkg/volume/util/storageclass.go) and IngressClasses (the DefaultIngressClass admission plugin) are picked
 * the same way; several defaults are not an error.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** The zero time: a missing or malformed timestamp is older than any other. */
const zeroTime = -(2n ** 63n);

/** A creationTimestamp in nanoseconds since the epoch, fractional seconds included. */
function unixNano(ts: string | undefined): bigint {
  if (ts === undefined) return zeroTime;
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(ts);
  const ms = Date.parse(m === null ? ts : `${m[1] ?? ''}${m[3] ?? ''}`);
  if (!Number.isFinite(ms)) return zeroTime;
  return BigInt(ms) * 1_000_000n + BigInt((m?.[2] ?? '').padEnd(9, '0'));
}

/** The newest of the classes `isDefault` accepts, ties broken by ascending name; `undefined` without one. */
export function newestDefault<T extends { metadata?: ObjectMeta }>(classes: readonly T[], isDefault: (c: T) => boolean): T | undefined {
  const defaults = classes.filter(isDefault);
  defaults.sort((a, b) => {
    const ta = unixNano(a.metadata?.creationTimestamp);
    const tb = unixNano(b.metadata?.creationTimestamp);
    if (ta !== tb) return ta > tb ? -1 : 1;
    const na = a.metadata?.name ?? '';
    const nb = b.metadata?.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
  return defaults[0];
}
