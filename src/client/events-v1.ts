/**
 * events.k8s.io/v1 Events with client-go's `tools/events` behaviour: what kube-scheduler records
 * (`NewEventBroadcasterAdapter` takes this API when the server serves it), unlike the controllers and the
 * kubelet, which record core/v1 Events through `tools/record` (`events.ts`).
 *
 * - `eventf(regarding, related, type, reason, action, note)` (`recorderImpl.makeEvent`): an Event named
 *   `<regarding name>.<hex unix nanoseconds>` in the regarding object's namespace (`default` when it has
 *   none), with eventTime (a MicroTime), reportingController, reportingInstance (`<controller>-<hostname>`),
 *   action, reason, regarding, related, note and type. No source, first or last timestamp, or count: read
 *   as core/v1 it shows `source: {}` and null timestamps, and kubectl's SOURCE column shows
 *   `<controller>, <instance>`.
 * - Series (`eventBroadcasterImpl.recordToSink`): events are isomorphic when type, action, reason, reporting
 *   controller and instance, regarding (the whole reference: resourceVersion and fieldPath too) and related
 *   are the same; the note is not compared. The first is created. The second gives the first a series
 *   `{count: 2, lastObservedTime}` and PATCHes it (a strategic merge patch of `series`, created instead if
 *   the Event is gone); later ones only count, in memory. Every 6 minutes (`finishSeries`) a series last
 *   observed more than 6 minutes ago is written with its count and forgotten, and a single event older than
 *   that is forgotten; every 30 minutes (`refreshExistingEventSeries`) every series is written again.
 * - Each event is written at once, without a queue (upstream: a goroutine per event); writes of isomorphic
 *   events go in order. A write that does not reach the server is retried up to 12 times, 10 s (+ up to
 *   25%) apart; an API error drops it, except AlreadyExists when a series' Event was created again after
 *   its PATCH found it gone (it exists now: the PATCH is retried).
 */
import { hostname } from 'node:os';
import type { Event } from 'kubernetes-types/events/v1.js';
import { isAlreadyExists, isApiError, isNotFound } from '../api/errors.js';
import { resources } from '../api/resources.js';
import { microTime } from '../util/micro-time.js';
import type { Client, KubeObject } from './client.js';
import { realClock, type Clock, type TimerHandle } from './clock.js';
import { EventNamer, objectReference, RetryPauses } from './events.js';

export interface EventsV1Recorder {
  /** `Eventf`: records an event about `regarding` (which should carry apiVersion and kind); never throws. */
  eventf(regarding: KubeObject, related: KubeObject | undefined, type: 'Normal' | 'Warning', reason: string, action: string, note: string): void;
  /** Resolves once every event recorded so far has been written or given up on. */
  flush(): Promise<void>;
  /** Drops pending retries and the series timers; later events are ignored. Idempotent. */
  stop(): void;
}

export interface EventsV1RecorderOptions {
  /** `reportingController`, e.g. `default-scheduler`. */
  reportingController: string;
  /** `reportingInstance`; default `<reportingController>-<hostname>`, as `NewRecorder` sets it. */
  reportingInstance?: string;
  clock?: Clock;
  log?: (message: string, err?: unknown) => void;
}

const maxTriesPerEvent = 12;
const retrySleepMs = 10_000;
const finishMs = 6 * 60_000;
const refreshMs = 30 * 60_000;

export function createEventsV1Recorder(client: Client, opts: EventsV1RecorderOptions): EventsV1Recorder {
  return new EventsV1RecorderImpl(client, opts);
}

/** `getKey`: what makes two events isomorphic. */
function isomorphicKey(e: Event): string {
  const r = e.regarding ?? {};
  const l = e.related ?? {};
  return JSON.stringify([
    e.type, e.action, e.reason, e.reportingController, e.reportingInstance,
    r.kind, r.namespace, r.name, r.uid, r.apiVersion, r.resourceVersion, r.fieldPath,
    l.kind, l.namespace, l.name, l.uid, l.apiVersion, l.resourceVersion, l.fieldPath,
  ]);
}

class EventsV1RecorderImpl implements EventsV1Recorder {
  private readonly clock: Clock;
  private readonly names: EventNamer;
  private readonly instance: string;
  private readonly log: (message: string, err?: unknown) => void;
  /**
   * `eventCache`: the event of each isomorphic key (its series counted here) and when it was last seen:
   * its eventTime, or its series' lastObservedTime.
   */
  private readonly cache = new Map<string, { event: Event; seenMs: number }>();
  /** The last write of each isomorphic key, and every write not done yet. */
  private readonly lastByKey = new Map<string, Promise<void>>();
  private readonly writing = new Set<Promise<void>>();
  private readonly pauses: RetryPauses;
  private readonly timers = new Map<string, TimerHandle>();
  private stopped = false;

  constructor(
    private readonly client: Client,
    private readonly opts: EventsV1RecorderOptions,
  ) {
    this.clock = opts.clock ?? realClock;
    this.names = new EventNamer(this.clock);
    this.pauses = new RetryPauses(this.clock);
    this.instance = opts.reportingInstance ?? `${opts.reportingController}-${hostname()}`;
    this.log = opts.log ?? ((message, err) => console.error(`events ${opts.reportingController}: ${message}`, err ?? ''));
    this.every('finish', finishMs, () => this.finishSeries());
    this.every('refresh', refreshMs, () => this.refreshSeries());
  }

  eventf(regarding: KubeObject, related: KubeObject | undefined, type: 'Normal' | 'Warning', reason: string, action: string, note: string): void {
    if (this.stopped) return;
    try {
      const now = this.clock.now();
      const ref = objectReference(regarding);
      const event: Event = {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: this.names.next(ref.name ?? '', now), namespace: ref.namespace ?? 'default' },
        eventTime: microTime(now),
        reportingController: this.opts.reportingController,
        reportingInstance: this.instance,
        action,
        reason,
        regarding: ref,
        note,
        type,
      };
      if (related !== undefined) event.related = objectReference(related);
      this.recordToSink(event, now);
    } catch (err) {
      this.log('Could not construct event', err);
    }
  }

  /** `recordToSink`: a new event is written; the second of a key starts a series; later ones only count. */
  private recordToSink(event: Event, now: number): void {
    const key = isomorphicKey(event);
    const cached = this.cache.get(key);
    if (cached === undefined) {
      this.cache.set(key, { event, seenMs: now });
      this.write(key, { ...event });
      return;
    }
    const isomorphic = cached.event;
    cached.seenMs = now;
    if (isomorphic.series !== undefined) {
      isomorphic.series = { count: isomorphic.series.count + 1, lastObservedTime: microTime(now) };
      return;
    }
    isomorphic.series = { count: 2, lastObservedTime: microTime(now) };
    this.write(key, { ...isomorphic });
  }

  /** Writes after the key's previous write, alongside every other key's. */
  private write(key: string, event: Event): void {
    const done = (this.lastByKey.get(key) ?? Promise.resolve()).then(() => this.attemptRecording(event));
    this.lastByKey.set(key, done);
    this.writing.add(done);
    void done.finally(() => {
      this.writing.delete(done);
      if (this.lastByKey.get(key) === done) this.lastByKey.delete(key);
    });
  }

  private async attemptRecording(event: Event): Promise<void> {
    for (let tries = 1; !this.stopped; tries++) {
      if (await this.recordEvent(event)) return;
      if (tries >= maxTriesPerEvent) {
        this.log(`Unable to write event '${event.reason ?? ''}' (retry limit exceeded!)`);
        return;
      }
      // wait.Jitter(10s, 0.25): randomized so that many clients do not retry in lockstep.
      await this.pauses.sleep(retrySleepMs * (1 + 0.25 * Math.random()));
    }
  }

  /** `recordEvent`: true when done with the event (written, or rejected for good), false to retry. */
  private async recordEvent(event: Event): Promise<boolean> {
    const namespace = event.metadata?.namespace ?? 'default';
    const series = event.series;
    let err: unknown;
    if (series !== undefined) {
      try {
        // `createPatchBytesForSeries`: the two-way merge patch from the event without its series to it.
        await this.client.patch(resources.eventsV1, event.metadata?.name ?? '', 'strategic', { series }, { namespace, answer: 'none' });
      } catch (e) {
        err = e;
      }
    }
    if (series === undefined || isNotFound(err)) {
      err = undefined;
      const { resourceVersion: _rv, ...metadata } = event.metadata ?? {};
      try {
        await this.client.create(resources.eventsV1, { ...event, metadata }, { namespace, answer: 'none' });
      } catch (e) {
        err = e;
      }
    }
    if (err === undefined) return true;
    if (isApiError(err)) {
      if (isAlreadyExists(err)) return series === undefined;
      this.log(`Server rejected event '${event.reason ?? ''}' (will not retry!)`, err);
      return true;
    }
    this.log(`Unable to write event '${event.reason ?? ''}' (may retry after sleeping)`, err);
    return false;
  }

  /**
   * `finishSeries`: a series not seen for 6 minutes is written with its count and forgotten (a later
   * isomorphic event starts anew), and so is a single event of that age (without a write).
   */
  private finishSeries(): void {
    const before = this.clock.now() - finishMs;
    for (const [key, { event, seenMs }] of this.cache) {
      if (seenMs >= before) continue;
      this.cache.delete(key);
      if (event.series !== undefined) this.write(key, { ...event });
    }
  }

  /** `refreshExistingEventSeries`: every series is written again. */
  private refreshSeries(): void {
    for (const [key, { event }] of this.cache) if (event.series !== undefined) this.write(key, { ...event });
  }

  /** Runs `fn` every `ms` until `stop()`, without keeping the process alive. */
  private every(name: string, ms: number, fn: () => void): void {
    const timer = this.clock.setTimeout(() => {
      if (this.stopped) return;
      fn();
      this.every(name, ms, fn);
    }, ms);
    timer.unref?.();
    this.timers.set(name, timer);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) t.cancel();
    this.pauses.wakeAll();
  }

  async flush(): Promise<void> {
    while (this.writing.size > 0) await Promise.all(this.writing);
  }
}
