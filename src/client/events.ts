/**
 * core/v1 Events with client-go's `tools/record` behaviour (`EventCorrelator` in events_cache.go):
 *
 * - Dedup (`eventLogger`): an event identical to one recorded before (same source, involved object, type,
 *   reason and message) PATCHes the existing Event (strategic merge of `count`, `lastTimestamp`, `message`)
 *   instead of creating one; if that Event is gone (NotFound) it is created again.
 * - Aggregation (`EventAggregator`): when 10 events about one object share type and reason but differ in
 *   message within 10 minutes, further ones become one Event "(combined from similar events): <message>".
 * - Spam filter (`EventSourceObjectSpamFilter`): per source and object a token bucket of 25 events refilled
 *   with one every 5 minutes; events beyond it are dropped.
 *
 * Writes are fire-and-forget through one sequential internal queue: the sink's watcher channel of the
 * broadcaster (`NewLongQueueBroadcaster(1000, DropIfChannelFull)`), so with 1000 pending a new event is
 * dropped silently; transport failures are retried up to 12 times, 10 s apart; API errors drop the event.
 * (kube-scheduler records events.k8s.io/v1 Events through `tools/events` instead: `events-v1.ts`.)
 */
import type { Event, ObjectReference } from 'kubernetes-types/core/v1.js';
import { isAlreadyExists, isApiError, isNotFound } from '../api/errors.js';
import { resources } from '../api/resources.js';
import type { Client, KubeObject, WriteOptions } from './client.js';
import { realClock, type Clock, type TimerHandle } from './clock.js';
import { Lru } from '../util/lru.js';
import { metav1Time } from '../util/metav1-time.js';

/** Optional parts of an event beyond the contract's four arguments. */
export interface EventOptions {
  /** `involvedObject.fieldPath`, e.g. `spec.containers{app}` for the kubelet's container events. */
  fieldPath?: string;
}

export interface EventRecorder {
  /** Records an event about `obj` (which should carry apiVersion and kind); never throws. */
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, opts?: EventOptions): void;
  /** Resolves once every event recorded so far has been written or given up on. */
  flush(): Promise<void>;
  /** Drops queued events and pending retries; later events are ignored. Idempotent. */
  stop(): void;
}

export interface EventRecorderOptions {
  /** `source.component` and `reportingComponent`, e.g. `default-scheduler`, `kubelet`. */
  component: string;
  /** `source.host` and `reportingInstance`, e.g. the node name. */
  host?: string;
  clock?: Clock;
  /** Turn client-go's per-object spam filter off (default on). */
  spamFilter?: boolean;
  log?: (message: string, err?: unknown) => void;
}

const maxLruCacheEntries = 4096;
const defaultAggregateMaxEvents = 10;
const defaultAggregateIntervalMs = 600_000;
const defaultSpamBurst = 25;
const defaultSpamQps = 1 / 300;
const maxQueuedEvents = 1000;
const maxTriesPerEvent = 12;
const retrySleepMs = 10_000;

export function createEventRecorder(client: Client, opts: EventRecorderOptions): EventRecorder {
  return new Recorder(client, opts);
}

interface AggregateRecord {
  /**
   * The distinct messages seen (upstream's `localKeys` set). Most objects only ever get one message per
   * reason, so one message is kept as itself, and a Set is made for the second.
   */
  localKeys: string | Set<string>;
  lastTimestamp: number;
}

/** Adds `message` to a record's messages; answers how many distinct ones it now holds. */
function addLocalKey(record: AggregateRecord, message: string): number {
  const keys = record.localKeys;
  if (typeof keys !== 'string') return keys.add(message).size;
  if (keys === message) return 1;
  record.localKeys = new Set([keys, message]);
  return 2;
}

interface EventLog {
  count: number;
  firstTimestamp: string;
  name: string;
  resourceVersion: string;
}
interface SpamRecord {
  tokens: number;
  last: number;
}

/*
 * The correlator's cache keys. Upstream's join the event's source (component and host) and, for
 * aggregation, its reportingComponent and reportingInstance with the fields below. A recorder gives every
 * event it makes (and every combined event) the same source and reporting fields, so within one
 * recorder's caches those parts are the same in every key: they are left out, and each cached key is that
 * much shorter (a node host keeps thousands of kubelets' caches).
 */

/** `getEventKey`, without the recorder's source. */
function getEventKey(e: Event): string {
  const o = e.involvedObject;
  return [o.kind ?? '', o.namespace ?? '', o.name ?? '', o.fieldPath ?? '', o.uid ?? '', o.apiVersion ?? '', e.type ?? '', e.reason ?? '', e.message ?? ''].join('');
}

/** `getSpamKey`, without the recorder's source. */
function getSpamKey(e: Event): string {
  const o = e.involvedObject;
  return [o.kind ?? '', o.namespace ?? '', o.name ?? '', o.uid ?? '', o.apiVersion ?? ''].join('');
}

/** `EventAggregatorByReasonFunc`'s aggregate key, without the recorder's source and reporting fields. */
function aggregateKeyOf(e: Event): string {
  const o = e.involvedObject;
  return [o.kind ?? '', o.namespace ?? '', o.name ?? '', o.uid ?? '', o.apiVersion ?? '', e.type ?? '', e.reason ?? ''].join('');
}

/** `reference.GetReference` of an object (which should carry apiVersion and kind), with `fieldPath`. */
export function objectReference(obj: KubeObject, fieldPath?: string): ObjectReference {
  const m = obj.metadata ?? {};
  const ref: ObjectReference = {};
  if (obj.kind !== undefined) ref.kind = obj.kind;
  if (m.namespace !== undefined && m.namespace !== '') ref.namespace = m.namespace;
  if (m.name !== undefined) ref.name = m.name;
  if (m.uid !== undefined) ref.uid = m.uid;
  if (obj.apiVersion !== undefined) ref.apiVersion = obj.apiVersion;
  if (m.resourceVersion !== undefined) ref.resourceVersion = m.resourceVersion;
  if (fieldPath !== undefined) ref.fieldPath = fieldPath;
  return ref;
}

/** Event names: `<name>.<hex unix nanoseconds>`, strictly increasing for one namer. */
export class EventNamer {
  private lastNanos = 0n;

  constructor(private readonly clock: Clock) {}

  /** Kept strictly increasing since our clock only has milliseconds. */
  next(name: string, nowMs: number): string {
    // Several recorders (scheduler, kubelet, in different threads) write about the same object in the same
    // millisecond: their names must not collide, and should sort as they happened, as upstream's
    // nanosecond names do (kubectl describe lists events of one second in name order). On the wall clock
    // the time comes from the high-resolution clock, to the microsecond, whatever the thread did between
    // reading the clock and naming; below that (and on a fake clock, below the millisecond) the digits
    // are random.
    let nanos =
      this.clock === realClock
        ? BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000)) * 1000n + BigInt(Math.floor(Math.random() * 1000))
        : BigInt(Math.floor(nowMs)) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000));
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    return `${name}.${nanos.toString(16)}`;
  }
}

/** Retry pauses that do not keep the process alive and end at once on `wakeAll()` (a recorder's stop). */
export class RetryPauses {
  private readonly sleeping = new Set<{ timer: TimerHandle; wake: () => void }>();

  constructor(private readonly clock: Clock) {}

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: this.clock.setTimeout(() => {
          this.sleeping.delete(entry);
          resolve();
        }, ms),
        wake: resolve,
      };
      entry.timer.unref?.();
      this.sleeping.add(entry);
    });
  }

  wakeAll(): void {
    for (const s of this.sleeping) {
      s.timer.cancel();
      s.wake();
    }
    this.sleeping.clear();
  }
}

class Recorder implements EventRecorder {
  private readonly clock: Clock;
  private readonly names: EventNamer;
  private readonly log: (message: string, err?: unknown) => void;
  private readonly aggregates = new Lru<AggregateRecord>(maxLruCacheEntries);
  private readonly logs = new Lru<EventLog>(maxLruCacheEntries);
  private readonly spam = new Lru<SpamRecord>(maxLruCacheEntries);
  private queued = 0;
  private tail: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly pauses: RetryPauses;

  constructor(
    private readonly client: Client,
    private readonly opts: EventRecorderOptions,
  ) {
    this.clock = opts.clock ?? realClock;
    this.names = new EventNamer(this.clock);
    this.pauses = new RetryPauses(this.clock);
    this.log = opts.log ?? ((message, err) => console.error(`events ${opts.component}: ${message}`, err ?? ''));
  }

  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, opts: EventOptions = {}): void {
    if (this.stopped) return;
    try {
      // The sink's watcher channel is full: the broadcaster (DropIfChannelFull) skips it without a word.
      // (client-go's "too many queued events" is for its incoming channel, which never fills: the
      // distributing goroutine does not wait for a full watcher.)
      if (this.queued >= maxQueuedEvents) return;
      const event = this.makeEvent(obj, type, reason, message, opts);
      const now = this.clock.now();
      const write = async (): Promise<void> => {
        try {
          await this.recordToSink(event, now);
        } catch (err) {
          this.log('Unable to write event', err);
        }
      };
      this.queued++;
      this.tail = this.tail.then(write).finally(() => this.queued--);
    } catch (err) {
      this.log('Could not construct event', err);
    }
  }

  stop(): void {
    this.stopped = true;
    this.pauses.wakeAll();
  }

  async flush(): Promise<void> {
    for (;;) {
      const tail = this.tail;
      await tail;
      if (tail === this.tail) return;
    }
  }

  private makeEvent(obj: KubeObject, type: string, reason: string, message: string, opts: EventOptions): Event {
    const ref = objectReference(obj, opts.fieldPath);
    const now = this.clock.now();
    const t = metav1Time(now);
    const event: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: this.names.next(ref.name ?? '', now), namespace: ref.namespace ?? 'default' },
      involvedObject: ref,
      reason,
      message,
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
      type,
      source: this.opts.host !== undefined ? { component: this.opts.component, host: this.opts.host } : { component: this.opts.component },
      reportingComponent: this.opts.component,
    };
    if (this.opts.host !== undefined) event.reportingInstance = this.opts.host;
    return event;
  }

  /** client-go's `recordToSink`: correlate, then write, retrying transport failures. */
  private async recordToSink(event: Event, now: number): Promise<void> {
    if (this.stopped) return;
    const result = this.correlate(event, now);
    if (result === undefined) return;
    for (let tries = 1; ; tries++) {
      if (await this.recordEvent(result.event, result.patch)) return;
      if (this.stopped) return;
      if (tries >= maxTriesPerEvent) {
        this.log(`Unable to write event '${event.reason ?? ''}' (retry limit exceeded!)`);
        return;
      }
      // The first retry is jittered so that many recorders do not retry in lockstep.
      await this.pauses.sleep(tries === 1 ? retrySleepMs * Math.random() : retrySleepMs);
      if (this.stopped) return;
    }
  }

  /**
   * Answers true when done with the event (written or rejected by the server), false to retry. The server
   * stores the event as sent (name, count, firstTimestamp), so the correlator's state is taken from what
   * was written and the answer is left unread: a recorder in another thread than the API server then gets
   * no copy of each event back to decode.
   */
  private async recordEvent(event: Event, patch: Record<string, unknown> | undefined): Promise<boolean> {
    const namespace = event.metadata.namespace ?? 'default';
    const opts: WriteOptions = { namespace, answer: 'none' };
    let err: unknown;
    if (patch !== undefined) {
      const name = event.metadata.name ?? '';
      try {
        await this.client.patch<Event>(resources.events, name, 'strategic', patch, opts);
      } catch (e) {
        err = e;
      }
      // The patch has no lists, so a JSON merge patch means the same to a server without strategic merge.
      if (isApiError(err) && err.code === 415) {
        err = undefined;
        try {
          await this.client.patch<Event>(resources.events, name, 'merge', patch, opts);
        } catch (e) {
          err = e;
        }
      }
    }
    if (patch === undefined || isNotFound(err)) {
      err = undefined;
      const { resourceVersion: _rv, ...metadata } = event.metadata;
      try {
        await this.client.create<Event>(resources.events, { ...event, metadata }, opts);
      } catch (e) {
        err = e;
      }
    }
    if (err === undefined) {
      this.updateState(event);
      return true;
    }
    if (isApiError(err)) {
      if (!isAlreadyExists(err)) this.log(`Server rejected event '${event.reason ?? ''}' (will not retry!)`, err);
      return true;
    }
    this.log(`Unable to write event '${event.reason ?? ''}' (may retry after sleeping)`, err);
    return false;
  }

  /** `EventCorrelator.EventCorrelate`: aggregate, observe, then filter. Undefined means skip. */
  private correlate(newEvent: Event, now: number): { event: Event; patch: Record<string, unknown> | undefined } | undefined {
    const { event: aggregated, key } = this.aggregate(newEvent, now);
    const observed = this.observe(aggregated, key);
    if (this.opts.spamFilter !== false && this.filtered(observed.event, now)) return undefined;
    return observed;
  }

  private aggregate(newEvent: Event, now: number): { event: Event; key: string } {
    const eventKey = getEventKey(newEvent);
    const aggregateKey = aggregateKeyOf(newEvent);
    const message = newEvent.message ?? '';
    let record = this.aggregates.get(aggregateKey);
    let size: number;
    if (record === undefined || now - record.lastTimestamp > defaultAggregateIntervalMs) {
      record = { localKeys: message, lastTimestamp: now };
      size = 1;
    } else {
      size = addLocalKey(record, message);
      record.lastTimestamp = now;
    }
    this.aggregates.set(aggregateKey, record);
    if (size < defaultAggregateMaxEvents) return { event: newEvent, key: eventKey };
    // At the limit the messages are a Set (the limit is above one): one goes, as upstream's PopAny.
    const keys = record.localKeys;
    if (typeof keys !== 'string') {
      const first = keys.values().next();
      if (first.done !== true) keys.delete(first.value);
    }
    const t = metav1Time(now);
    const combined: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: this.names.next(newEvent.involvedObject.name ?? '', now),
        namespace: newEvent.metadata.namespace ?? 'default',
      },
      count: 1,
      firstTimestamp: t,
      involvedObject: newEvent.involvedObject,
      lastTimestamp: t,
      message: `(combined from similar events): ${newEvent.message ?? ''}`,
      reason: newEvent.reason ?? '',
      type: newEvent.type ?? '',
    };
    if (newEvent.source !== undefined) combined.source = newEvent.source;
    return { event: combined, key: aggregateKey };
  }

  private observe(newEvent: Event, key: string): { event: Event; patch: Record<string, unknown> | undefined } {
    let event: Event = { ...newEvent, metadata: { ...newEvent.metadata } };
    const last = this.logs.get(key);
    let patch: Record<string, unknown> | undefined;
    if (last !== undefined && last.count > 0) {
      const metadata = { ...event.metadata, name: last.name };
      event = { ...event, metadata: last.resourceVersion !== '' ? { ...metadata, resourceVersion: last.resourceVersion } : metadata };
      event.firstTimestamp = last.firstTimestamp;
      event.count = last.count + 1;
      patch = { count: event.count, lastTimestamp: event.lastTimestamp };
      if ((event.message ?? '') !== '') patch['message'] = event.message;
    }
    this.logs.set(key, {
      count: event.count ?? 1,
      firstTimestamp: event.firstTimestamp ?? '',
      name: event.metadata.name ?? '',
      resourceVersion: event.metadata.resourceVersion ?? '',
    });
    return { event, patch };
  }

  private updateState(event: Event): void {
    this.logs.set(getEventKey(event), {
      count: event.count ?? 1,
      firstTimestamp: event.firstTimestamp ?? '',
      name: event.metadata.name ?? '',
      resourceVersion: event.metadata.resourceVersion ?? '',
    });
  }

  private filtered(event: Event, now: number): boolean {
    const key = getSpamKey(event);
    const record = this.spam.get(key) ?? { tokens: defaultSpamBurst, last: now };
    record.tokens = Math.min(defaultSpamBurst, record.tokens + (Math.max(0, now - record.last) / 1000) * defaultSpamQps);
    record.last = now;
    const accepted = record.tokens >= 1;
    if (accepted) record.tokens -= 1;
    this.spam.set(key, record);
    return !accepted;
  }

}
