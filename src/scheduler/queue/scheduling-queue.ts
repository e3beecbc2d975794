/**
 * The scheduling queue (pkg/scheduler/backend/queue/scheduling_queue.go, 1.32 with queueing hints):
 * activeQ ordered by QueueSort (PrioritySort), backoffQ ordered by backoff expiry (1 s doubling to 10 s),
 * and the unschedulable pool that pods leave only when a cluster event's queueing hint says the event
 * may help one of the plugins that rejected them, or after 5 minutes. Events that arrive while a pod is
 * being scheduled are replayed against it when it comes back unschedulable, so none is lost.
 * Also the nominator: pods nominated to nodes by preemption.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clock, TimerHandle } from '../../client/clock.js';
import { eventMatches, type ClusterEvent, type QueueingHintFn } from '../framework/interfaces.js';
import type { Status } from '../framework/status.js';
import { PodInfo, podKey } from '../framework/types.js';
import { KeyedHeap } from './heap.js';

/** The answer for a node without nominated pods (shared, frozen). */
const noPods: readonly PodInfo[] = Object.freeze([]);

export const defaultPodInitialBackoffMs = 1000;
export const defaultPodMaxBackoffMs = 10_000;
export const defaultPodMaxInUnschedulablePodsDurationMs = 5 * 60_000;
/** How often the unschedulable pool is checked for leftovers (upstream: 30 s). */
export const unschedulableFlushIntervalMs = 30_000;
/** How often completed backoffs move to activeQ (upstream: 1 s). */
export const backoffFlushIntervalMs = 1000;

/** `framework.QueuedPodInfo`. */
export interface QueuedPodInfo {
  podInfo: PodInfo;
  /** When the pod was last added to the queue. */
  timestamp: number;
  initialAttemptTimestamp: number | undefined;
  attempts: number;
  unschedulablePlugins: Set<string>;
  pendingPlugins: Set<string>;
  /** Blocked by a PreEnqueue plugin (e.g. scheduling gates). */
  gated: boolean;
}

export interface RegisteredHint {
  event: ClusterEvent;
  pluginName: string;
  fn: QueueingHintFn | undefined;
}

export interface SchedulingQueueOptions {
  clock: Clock;
  /** QueueSort of the pod's profile. */
  less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  /** PreEnqueue of the pod's profile; a non-success keeps the pod gated in the unschedulable pool. */
  preEnqueue?: (pod: Pod) => Status;
  /** Queueing hints per scheduler name. */
  hints: Map<string, RegisteredHint[]>;
  podInitialBackoffMs?: number;
  podMaxBackoffMs?: number;
  podMaxInUnschedulablePodsDurationMs?: number;
}

type Strategy = 'skip' | 'afterBackoff' | 'immediately';

interface InFlightEvent {
  event: ClusterEvent;
  oldObj: unknown;
  newObj: unknown;
}

const schedulerNameOf = (p: Pod): string => p.spec?.schedulerName ?? 'default-scheduler';

export class SchedulingQueue {
  private readonly clock: Clock;
  private readonly activeQ: KeyedHeap<QueuedPodInfo>;
  private readonly backoffQ: KeyedHeap<QueuedPodInfo>;
  private readonly unschedulable = new Map<string, QueuedPodInfo>();
  private readonly inFlight = new Map<string, number>();
  private inFlightEvents: InFlightEvent[] = [];
  private inFlightEventsBase = 0;
  private readonly nominated = new Map<string, Map<string, PodInfo>>();
  private readonly nominatedNodeOf = new Map<string, string>();
  private readonly waiters: ((q: QueuedPodInfo | undefined) => void)[] = [];
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;
  private readonly maxInUnschedulable: number;
  private timers: TimerHandle[] = [];
  private closed = false;

  constructor(private readonly opts: SchedulingQueueOptions) {
    this.clock = opts.clock;
    this.activeQ = new KeyedHeap((q) => q.podInfo.uid, opts.less);
    this.backoffQ = new KeyedHeap(
      (q) => q.podInfo.uid,
      (a, b) => this.backoffTime(a) < this.backoffTime(b),
    );
    this.initialBackoff = opts.podInitialBackoffMs ?? defaultPodInitialBackoffMs;
    this.maxBackoff = opts.podMaxBackoffMs ?? defaultPodMaxBackoffMs;
    this.maxInUnschedulable = opts.podMaxInUnschedulablePodsDurationMs ?? defaultPodMaxInUnschedulablePodsDurationMs;
  }

  /** Starts the periodic flushes (backoffQ every second, unschedulable leftovers every 30 s). */
  run(): void {
    const every = (ms: number, fn: () => void): void => {
      const tick = (): void => {
        if (this.closed) return;
        fn();
        this.timers.push(this.clock.setTimeout(tick, ms));
      };
      this.timers.push(this.clock.setTimeout(tick, ms));
    };
    every(backoffFlushIntervalMs, () => this.flushBackoffQCompleted());
    every(unschedulableFlushIntervalMs, () => this.flushUnschedulablePodsLeftover());
  }

  /** Stops timers and wakes waiting pops with undefined. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) t.cancel();
    this.timers = [];
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  private newQueuedPodInfo(pod: Pod): QueuedPodInfo {
    const now = this.clock.now();
    return { podInfo: new PodInfo(pod), timestamp: now, initialAttemptTimestamp: undefined, attempts: 0, unschedulablePlugins: new Set(), pendingPlugins: new Set(), gated: false };
  }

  /** Runs PreEnqueue; gated pods wait in the unschedulable pool. */
  private moveToActiveQ(q: QueuedPodInfo): boolean {
    const s = this.opts.preEnqueue?.(q.podInfo.pod);
    const key = q.podInfo.uid;
    if (s !== undefined && !s.isSuccess()) {
      q.gated = true;
      this.unschedulable.set(key, q);
      return false;
    }
    q.gated = false;
    this.unschedulable.delete(key);
    this.backoffQ.delete(key);
    this.activeQ.addOrUpdate(q);
    this.wake();
    return true;
  }

  private wake(): void {
    while (this.waiters.length > 0 && this.activeQ.size > 0) {
      const w = this.waiters.shift();
      const q = this.popNow();
      w?.(q);
    }
  }

  /** A new unscheduled pod. */
  add(pod: Pod): void {
    const key = podKey(pod);
    if (this.activeQ.has(key) || this.backoffQ.has(key) || this.unschedulable.has(key) || this.inFlight.has(key)) return;
    const q = this.newQueuedPodInfo(pod);
    // A pod nominated before (e.g. by a previous scheduler instance) keeps its nomination.
    const nnn = pod.status?.nominatedNodeName ?? '';
    if (nnn !== '') this.addNominatedPod(q.podInfo, nnn);
    this.moveToActiveQ(q);
  }

  /** The unscheduled pod changed. A relevant change moves it out of the unschedulable pool. */
  update(oldPod: Pod, newPod: Pod): void {
    const key = podKey(newPod);
    for (const heap of [this.activeQ, this.backoffQ]) {
      const q = heap.get(key);
      if (q !== undefined) {
        q.podInfo = new PodInfo(newPod);
        heap.addOrUpdate(q);
        return;
      }
    }
    const q = this.unschedulable.get(key);
    if (q !== undefined) {
      q.podInfo = new PodInfo(newPod);
      if (!isPodUpdated(oldPod, newPod)) return;
      if (q.gated) {
        this.moveToActiveQ(q);
        return;
      }
      const event: ClusterEvent = { resource: 'UnscheduledPod', actionType: podUpdateActions(oldPod, newPod), label: 'UnscheduledPodUpdate' };
      const strategy = this.isPodWorthRequeuing(q, event, oldPod, newPod);
      if (strategy !== 'skip') this.requeue(q, strategy);
      return;
    }
    if (this.inFlight.has(key)) return;
    this.add(newPod);
  }

  delete(pod: Pod): void {
    const key = podKey(pod);
    this.activeQ.delete(key);
    this.backoffQ.delete(key);
    this.unschedulable.delete(key);
    this.deleteNominatedPodIfExists(pod);
  }

  /** Waits for the next pod; undefined once closed. Marks the pod in flight and counts the attempt. */
  pop(): Promise<QueuedPodInfo | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const q = this.popNow();
    if (q !== undefined) return Promise.resolve(q);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Pops without waiting (benchmarks and tests). */
  popNow(): QueuedPodInfo | undefined {
    const q = this.activeQ.pop();
    if (q === undefined) return undefined;
    q.attempts++;
    q.initialAttemptTimestamp ??= this.clock.now();
    this.inFlight.set(q.podInfo.uid, this.inFlightEventsBase + this.inFlightEvents.length);
    return q;
  }

  /** The pod's scheduling attempt ended (success or failure handled). */
  done(uid: string): void {
    this.inFlight.delete(uid);
    if (this.inFlight.size === 0) {
      this.inFlightEventsBase += this.inFlightEvents.length;
      this.inFlightEvents = [];
      return;
    }
    // Pods keep overlapping in flight under load (bindings): drop events older than every in-flight pod.
    if (this.inFlightEvents.length < 256) return;
    let oldest = Infinity;
    for (const start of this.inFlight.values()) if (start < oldest) oldest = start;
    const drop = oldest - this.inFlightEventsBase;
    if (drop > 0) {
      this.inFlightEvents.splice(0, drop);
      this.inFlightEventsBase = oldest;
    }
  }

  /** Events kept for in-flight pods (tests). */
  inFlightEventCount(): number {
    return this.inFlightEvents.length;
  }

  /**
   * `AddUnschedulableIfNotPresent`: back from a failed attempt. Events seen while it was in flight may
   * send it straight to backoff/active; otherwise it waits in the unschedulable pool.
   */
  addUnschedulableIfNotPresent(q: QueuedPodInfo): void {
    const key = q.podInfo.uid;
    if (this.activeQ.has(key) || this.backoffQ.has(key) || this.unschedulable.has(key)) return;
    q.timestamp = this.clock.now();
    let strategy: Strategy = 'skip';
    if (q.unschedulablePlugins.size === 0 && q.pendingPlugins.size === 0) {
      strategy = 'afterBackoff';
    } else {
      const start = this.inFlight.get(key) ?? this.inFlightEventsBase + this.inFlightEvents.length;
      for (let i = Math.max(0, start - this.inFlightEventsBase); i < this.inFlightEvents.length; i++) {
        const e = this.inFlightEvents[i] as InFlightEvent;
        const s = this.isPodWorthRequeuing(q, e.event, e.oldObj, e.newObj);
        if (s === 'immediately') {
          strategy = s;
          break;
        }
        if (s === 'afterBackoff') strategy = s;
      }
    }
    this.done(key);
    if (strategy === 'skip') {
      this.unschedulable.set(key, q);
      return;
    }
    this.requeue(q, strategy);
  }

  private requeue(q: QueuedPodInfo, strategy: Strategy): void {
    const key = q.podInfo.uid;
    if (strategy === 'afterBackoff' && this.isPodBackingOff(q)) {
      this.unschedulable.delete(key);
      this.backoffQ.addOrUpdate(q);
      return;
    }
    this.moveToActiveQ(q);
  }

  /** `calculateBackoffDuration`: initial doubling per attempt, capped. */
  backoffDuration(q: QueuedPodInfo): number {
    if (q.attempts === 0) return 0;
    let d = this.initialBackoff;
    for (let i = 1; i < q.attempts; i++) {
      if (d > this.maxBackoff - d) return this.maxBackoff;
      d += d;
    }
    return d;
  }

  private backoffTime(q: QueuedPodInfo): number {
    return q.timestamp + this.backoffDuration(q);
  }

  isPodBackingOff(q: QueuedPodInfo): boolean {
    if (q.gated) return false;
    return this.backoffTime(q) > this.clock.now();
  }

  /** `isPodWorthRequeuing`: ask the hints of the plugins that rejected the pod. */
  private isPodWorthRequeuing(q: QueuedPodInfo, event: ClusterEvent, oldObj: unknown, newObj: unknown): Strategy {
    const rejectors = new Set([...q.unschedulablePlugins, ...q.pendingPlugins]);
    if (rejectors.size === 0) return 'afterBackoff';
    if (event.resource === '*') return 'afterBackoff';
    const hints = this.opts.hints.get(schedulerNameOf(q.podInfo.pod));
    if (hints === undefined) return 'afterBackoff';
    let strategy: Strategy = 'skip';
    for (const h of hints) {
      if (!rejectors.has(h.pluginName) || !eventMatches(h.event, event)) continue;
      let hint: 'Queue' | 'QueueSkip' = 'Queue';
      if (h.fn !== undefined) {
        try {
          hint = h.fn(q.podInfo.pod, oldObj, newObj);
        } catch {
          hint = 'Queue';
        }
      }
      if (hint === 'QueueSkip') continue;
      if (q.pendingPlugins.has(h.pluginName)) return 'immediately';
      strategy = 'afterBackoff';
    }
    return strategy;
  }

  /** `MoveAllToActiveOrBackoffQueue`: a cluster event; unschedulable pods whose hints say Queue move. */
  moveAllToActiveOrBackoffQueue(event: ClusterEvent, oldObj: unknown, newObj: unknown, preCheck?: (pod: Pod) => boolean): void {
    if (this.inFlight.size > 0) this.inFlightEvents.push({ event, oldObj, newObj });
    for (const q of [...this.unschedulable.values()]) {
      if (q.gated) continue;
      if (preCheck !== undefined && !preCheck(q.podInfo.pod)) continue;
      const s = this.isPodWorthRequeuing(q, event, oldObj, newObj);
      if (s === 'skip') continue;
      this.requeue(q, s);
    }
  }

  /** `flushBackoffQCompleted`. */
  flushBackoffQCompleted(): void {
    for (;;) {
      const q = this.backoffQ.peek();
      if (q === undefined || this.isPodBackingOff(q)) return;
      this.backoffQ.pop();
      this.moveToActiveQ(q);
    }
  }

  /** `flushUnschedulablePodsLeftover`: pods unschedulable for longer than 5 minutes move. */
  flushUnschedulablePodsLeftover(): void {
    const now = this.clock.now();
    for (const q of [...this.unschedulable.values()]) {
      if (q.gated) continue;
      if (now - q.timestamp > this.maxInUnschedulable) this.requeue(q, 'afterBackoff');
    }
  }

  // ---- nominator ----

  /** Records (or clears, with an empty name) the node a pod is nominated to. */
  addNominatedPod(pi: PodInfo, nodeName: string): void {
    this.deleteNominatedPodIfExists(pi.pod);
    if (nodeName === '') return;
    let m = this.nominated.get(nodeName);
    if (m === undefined) this.nominated.set(nodeName, (m = new Map<string, PodInfo>()));
    m.set(pi.uid, pi);
    this.nominatedNodeOf.set(pi.uid, nodeName);
  }

  deleteNominatedPodIfExists(pod: Pod): void {
    const key = podKey(pod);
    const n = this.nominatedNodeOf.get(key);
    if (n === undefined) return;
    this.nominatedNodeOf.delete(key);
    const m = this.nominated.get(n);
    m?.delete(key);
    if (m !== undefined && m.size === 0) this.nominated.delete(n);
  }

  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    const m = this.nominated.get(nodeName);
    return m === undefined ? noPods : [...m.values()];
  }

  /** False when no pod is nominated anywhere (the filter loop then skips the per-node lookups). */
  hasNominatedPods(): boolean {
    return this.nominated.size > 0;
  }

  // ---- inspection ----

  /** Counts per sub-queue (tests, metrics). */
  stats(): { active: number; backoff: number; unschedulable: number; inFlight: number } {
    return { active: this.activeQ.size, backoff: this.backoffQ.size, unschedulable: this.unschedulable.size, inFlight: this.inFlight.size };
  }

  /** Where a pod is: 'active' | 'backoff' | 'unschedulable' | 'inFlight' | undefined. */
  whereIs(pod: Pod): 'active' | 'backoff' | 'unschedulable' | 'inFlight' | undefined {
    const k = podKey(pod);
    if (this.activeQ.has(k)) return 'active';
    if (this.backoffQ.has(k)) return 'backoff';
    if (this.unschedulable.has(k)) return 'unschedulable';
    if (this.inFlight.has(k)) return 'inFlight';
    return undefined;
  }
}

/** `isPodUpdated`: ignoring resourceVersion, generation, managedFields and status. */
export function isPodUpdated(oldPod: Pod, newPod: Pod): boolean {
  const strip = (p: Pod): string => {
    const { resourceVersion: _rv, generation: _g, managedFields: _mf, ...meta } = p.metadata ?? {};
    return JSON.stringify({ meta, spec: p.spec });
  };
  return strip(oldPod) !== strip(newPod);
}

/** Which update action types a change of an unscheduled pod represents. */
export function podUpdateActions(oldPod: Pod, newPod: Pod): number {
  let a = 0;
  if (JSON.stringify(oldPod.metadata?.labels ?? {}) !== JSON.stringify(newPod.metadata?.labels ?? {})) a |= 128;
  if (JSON.stringify(oldPod.spec?.tolerations ?? []) !== JSON.stringify(newPod.spec?.tolerations ?? [])) a |= 512;
  if ((oldPod.spec?.schedulingGates?.length ?? 0) > 0 && (newPod.spec?.schedulingGates?.length ?? 0) === 0) a |= 1024;
  return a === 0 ? 2048 : a;
}
