/**
 * `framework.Status`: the outcome of running a plugin, as a value. Codes and their meaning follow
 * kube-scheduler (pkg/scheduler/framework/interface.go); throwing is reserved for bugs.
 */

export const Code = {
  Success: 0,
  /** An internal error; the pod is retried with backoff and reported as `SchedulerError`. */
  Error: 1,
  /** The pod does not fit now; preemption may help. */
  Unschedulable: 2,
  /** The pod does not fit and preemption cannot help on this node. */
  UnschedulableAndUnresolvable: 3,
  /** Permit: the pod waits. */
  Wait: 4,
  /** PreFilter/PreScore: the plugin has nothing to do for this pod; its Filter/Score are skipped. */
  Skip: 5,
  /** The pod waits for something outside the scheduler (e.g. a pending resource claim). */
  Pending: 6,
} as const;
export type Code = (typeof Code)[keyof typeof Code];

const codeNames: Record<Code, string> = {
  0: 'Success',
  1: 'Error',
  2: 'Unschedulable',
  3: 'UnschedulableAndUnresolvable',
  4: 'Wait',
  5: 'Skip',
  6: 'Pending',
};

export function codeName(c: Code): string {
  return codeNames[c];
}

/** An error carried by a status: an `Error`, or a `FitError` whose message is computed. */
export interface ErrorLike {
  readonly name: string;
  readonly message: string;
}

export class Status {
  private plugin = '';
  /** The last `withPlugin` copy: statuses are immutable, so a plugin's constant status is copied once. */
  private pluginCopy: Status | undefined;
  constructor(
    readonly code: Code,
    private readonly reasonList: readonly string[] = [],
    /** Set for `Error` statuses created from an exception or a FitError. */
    readonly err?: ErrorLike,
  ) {}

  static success(): Status {
    return successStatus;
  }

  /** `framework.AsStatus(err)`. */
  static asStatus(err: ErrorLike): Status {
    return new Status(Code.Error, [], err);
  }

  static error(message: string): Status {
    return new Status(Code.Error, [], new Error(message));
  }

  /** Reasons; an attached error's message comes first (upstream `Status.Reasons`). Do not mutate. */
  reasons(): readonly string[] {
    if (this.err !== undefined) return [this.err.message, ...this.reasonList];
    return this.reasonList;
  }

  /** The reasons joined with `", "`. */
  message(): string {
    return this.reasons().join(', ');
  }

  /** `WithError`: a copy carrying `err` (used for FitError and `no nodes available`). */
  withError(err: ErrorLike): Status {
    const s = new Status(this.code, this.reasonList, err);
    s.plugin = this.plugin;
    return s;
  }

  /** The plugin that produced this status (upstream `FailedPlugin`). */
  failedPlugin(): string {
    return this.plugin;
  }

  /** Returns a status naming the failed plugin; never mutates the shared success status. */
  withPlugin(name: string): Status {
    if (this === successStatus || this.plugin === name) return this;
    if (this.pluginCopy !== undefined && this.pluginCopy.plugin === name) return this.pluginCopy;
    const s = new Status(this.code, this.reasonList, this.err);
    s.plugin = name;
    this.pluginCopy = s;
    return s;
  }

  isSuccess(): boolean {
    return this.code === Code.Success;
  }
  isWait(): boolean {
    return this.code === Code.Wait;
  }
  isSkip(): boolean {
    return this.code === Code.Skip;
  }
  /** `Unschedulable`, `UnschedulableAndUnresolvable` or `Pending`. */
  isRejected(): boolean {
    return this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable || this.code === Code.Pending;
  }

  /** `Status.AsError`: undefined for success/skip. */
  asError(): ErrorLike | undefined {
    if (this.isSuccess() || this.isSkip()) return undefined;
    return this.err ?? new Error(this.message());
  }

  toString(): string {
    return `${codeName(this.code)}: ${this.message()}`;
  }
}

const successStatus = new Status(Code.Success);

/** `framework.NewStatus(code, reasons...)`. */
export function newStatus(code: Code, ...reasons: string[]): Status {
  if (code === Code.Success && reasons.length === 0) return successStatus;
  return new Status(code, reasons);
}

/**
 * What a plugin's `scoreValue` throws where its Score would return a failed status (its PreScore state is
 * missing): the runtime reports `status` exactly as it reports a failed Score.
 */
export class ScoreFailure extends Error {
  constructor(readonly status: Status) {
    super(status.message());
  }
}

/** Score's result from a `scoreValue` computation: its value, or the status of the `ScoreFailure` it threw. */
export function scoreResult(value: () => number): { score: number; status: Status } {
  try {
    return { score: value(), status: Status.success() };
  } catch (e) {
    if (e instanceof ScoreFailure) return { score: 0, status: e.status };
    throw e;
  }
}
