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
  done: boolean;
}

function earlier(a: FakeTimer, b: FakeTimer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/**
 * A manual clock for tests (client-go's `testing/clock.FakeClock`). Time moves only through `step()`, which
 * fires every timer that falls due, in due-time order (ties in creation order), with `now()` set to each
 * timer's due time while it runs; timers created by a firing timer fire in the same `step()` if they fall due.
 * Timers sit in a binary heap, so tests with tens of thousands of pending timers stay fast.
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private pending = 0;
  private readonly heap: FakeTimer[] = [];

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: FakeTimer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, done: false };
    this.push(timer);
    this.pending++;
    return {
      cancel: () => {
        if (timer.done) return;
        timer.done = true;
        this.pending--;
      },
    };
  }

  /** Advances time by `ms`, firing due timers. */
  step(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.heap[0];
      if (next === undefined || next.at > target) break;
      this.pop();
      if (next.done) continue;
      next.done = true;
      this.pending--;
      this.current = Math.max(this.current, next.at);
      next.fn();
    }
    this.current = target;
  }

  /** Timers not yet fired or cancelled (tests assert that stop() cleaned up). */
  pendingTimers(): number {
    return this.pending;
  }

  private push(t: FakeTimer): void {
    const h = this.heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = h[parent] as FakeTimer;
      if (!earlier(t, p)) break;
      h[i] = p;
      i = parent;
    }
    h[i] = t;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (last === undefined || h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let best = last;
      const lt = h[l];
      if (lt !== undefined && earlier(lt, best)) {
        m = l;
        best = lt;
      }
      const rt = h[r];
      if (rt !== undefined && earlier(rt, best)) m = r;
      if (m === i) break;
      h[i] = h[m] as FakeTimer;
      i = m;
    }
    h[i] = last;
  }
}
