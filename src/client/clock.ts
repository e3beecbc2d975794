/**
 * Time as the client-side machinery sees it. Every component that waits (work queue delays, informer
 * backoff, event aggregation windows) takes a `Clock` so tests can drive time with `FakeClock` instead of
 * sleeping.
 */

/** A cancellable timer handle. `cancel()` is idempotent and safe after the timer fired. */
export interface TimerHandle {
  cancel(): void;
  /** Lets the process exit while this timer is pending (best-effort work such as event retries). */
  unref?(): void;
}

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds (0 or less: on the next turn of the event loop). */
  setTimeout(fn: () => void, ms: number): TimerHandle;
}

/**
 * The wall clock and Node's timers. Timers keep the process alive (an agent whose only work is an informer
 * backing off must not exit); components cancel theirs in `stop()`.
 */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(t), unref: () => void t.unref() };
  },
};

interface FakeTimer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/**
 * A manual clock for tests (client-go's `testing/clock.FakeClock`). Time moves only through `step()`, which
 * fires every timer that falls due, in due-time order (ties in creation order), with `now()` set to each
 * timer's due time while it runs; timers created by a firing timer fire in the same `step()` if they fall due.
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: FakeTimer[] = [];

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: FakeTimer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Advances time by `ms`, firing due timers. */
  step(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      let next: FakeTimer | undefined;
      for (const t of this.timers) {
        if (t.at <= target && (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      }
      if (next === undefined) break;
      next.cancelled = true;
      this.current = Math.max(this.current, next.at);
      next.fn();
    }
    this.current = target;
  }

  /** Timers not yet fired or cancelled (tests assert that stop() cleaned up). */
  pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
}
