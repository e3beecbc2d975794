/**
 * client-go `flowcontrol.Backoff` as the kubelet uses it for image pulls and container restarts:
 * per key, the delay starts at `initialMs`, doubles on every `next()` up to `maxMs`, and an entry not
 * updated for more than 2 x `maxMs` starts over.
 */
export class Backoff {
  private readonly entries = new Map<string, { delayMs: number; lastUpdateMs: number }>();

  constructor(readonly initialMs: number, readonly maxMs: number) {}

  private expired(nowMs: number, lastUpdateMs: number): boolean {
    return nowMs - lastUpdateMs > 2 * this.maxMs;
  }

  /** Records a failure at `nowMs` and returns the delay now in force. */
  next(key: string, nowMs: number): number {
    const e = this.entries.get(key);
    if (e === undefined || this.expired(nowMs, e.lastUpdateMs)) {
      this.entries.set(key, { delayMs: this.initialMs, lastUpdateMs: nowMs });
      return this.initialMs;
    }
    e.delayMs = Math.min(e.delayMs * 2, this.maxMs);
    e.lastUpdateMs = nowMs;
    return e.delayMs;
  }

  /** The delay in force for `key`, 0 if none. */
  get(key: string): number {
    return this.entries.get(key)?.delayMs ?? 0;
  }

  /** `IsInBackOffSinceUpdate`: less than the delay has passed since the last `next()`. */
  isInBackOffSinceUpdate(key: string, nowMs: number): boolean {
    const e = this.entries.get(key);
    if (e === undefined || this.expired(nowMs, e.lastUpdateMs)) return false;
    return nowMs - e.lastUpdateMs < e.delayMs;
  }

  /** `IsInBackOffSince`: less than the delay has passed since `eventMs` (a container's finish time). */
  isInBackOffSince(key: string, eventMs: number, nowMs: number): boolean {
    const e = this.entries.get(key);
    if (e === undefined || this.expired(eventMs, e.lastUpdateMs)) return false;
    return nowMs - eventMs < e.delayMs;
  }

  /** When the back-off of `key` ends (last update + delay), or undefined. */
  retryAtMs(key: string): number | undefined {
    const e = this.entries.get(key);
    return e === undefined ? undefined : e.lastUpdateMs + e.delayMs;
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  /** Drops entries idle for more than 2 x max. */
  gc(nowMs: number): void {
    for (const [k, e] of this.entries) if (this.expired(nowMs, e.lastUpdateMs)) this.entries.delete(k);
  }
}

/** Go's `time.Duration.String()` for whole milliseconds: `830ms`, `1.234s`, `1m20s`, `5m0s`. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(Math.round(ms));
  if (rest < 1000) return `${neg ? '-' : ''}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  const frac = rest - s * 1000;
  const secs = frac === 0 ? `${s}s` : `${s}.${String(frac).padStart(3, '0').replace(/0+$/, '')}s`;
  let out = secs;
  if (h > 0) out = `${h}h${m}m${secs}`;
  else if (m > 0) out = `${m}m${secs}`;
  return (neg ? '-' : '') + out;
}
