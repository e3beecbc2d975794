// events.k8s.io/v1 recording against a fake Client: the cases of client-go's tools/events
// TestRecordEventToSink, TestRefreshExistingEventSeries and TestFinishSeries, played through the recorder
// so the writes themselves are checked.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Event } from 'kubernetes-types/events/v1.js';
import { apiErrors } from '../api/errors.js';
import { resources } from '../api/resources.js';
import { FakeClock } from './clock.js';
import { createEventsV1Recorder } from './events-v1.js';
import { FakeClient, settle, waitUntil, type RecordedCall } from './_fake-client.js';

const start = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const startMicro = '2026-01-02T03:04:05.678000Z';

function pod(rv = '42'): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'my-pod', namespace: 'my-ns', uid: 'uid-1', resourceVersion: rv } };
}

/** A client that keeps created Events and answers a patch of a missing one with NotFound. */
function serverLike(): FakeClient {
  const client = new FakeClient();
  const stored = new Set<string>();
  client.onCreate = (_res, obj) => {
    stored.add(obj.metadata?.name ?? '');
    return Promise.resolve(obj);
  };
  client.onPatch = (_res, name) => (stored.has(name) ? Promise.resolve({}) : Promise.reject(apiErrors.notFound({ group: 'events.k8s.io', resource: 'events' }, name)));
  return client;
}

function writes(client: FakeClient): RecordedCall[] {
  return client.calls.filter((c) => c.verb === 'create' || c.verb === 'patch');
}

/** Each write as verb and, for a patch, the series it sends (a create: the series of its body, if any). */
function summary(client: FakeClient): { verb: string; series: unknown }[] {
  return writes(client).map((c) => ({ verb: c.verb, series: c.verb === 'patch' ? (c.body as { series: unknown }).series : (c.body as Event).series }));
}

void describe('events.k8s.io/v1 recorder', () => {
  void test('an event is created as tools/events makes it', async () => {
    const client = serverLike();
    const rec = createEventsV1Recorder(client, { reportingController: 'default-scheduler', clock: new FakeClock(start) });
    rec.eventf(pod(), undefined, 'Normal', 'Scheduled', 'Binding', 'Successfully assigned my-ns/my-pod to n1');
    await rec.flush();
    const [call] = writes(client);
    assert.ok(call !== undefined);
    assert.equal(call.verb, 'create');
    assert.equal(call.res, resources.eventsV1);
    assert.deepEqual(call.opts, { namespace: 'my-ns', answer: 'none' });
    const body = call.body as Event;
    const name = body.metadata?.name ?? '';
    const nanos = BigInt(`0x${name.slice('my-pod.'.length)}`);
    assert.ok(name.startsWith('my-pod.') && nanos >= BigInt(start) * 1_000_000n && nanos < (BigInt(start) + 1n) * 1_000_000n, name);
    assert.deepEqual(body, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace: 'my-ns' },
      eventTime: startMicro,
      reportingController: 'default-scheduler',
      reportingInstance: `default-scheduler-${hostname()}`,
      action: 'Binding',
      reason: 'Scheduled',
      regarding: { kind: 'Pod', namespace: 'my-ns', name: 'my-pod', uid: 'uid-1', apiVersion: 'v1', resourceVersion: '42' },
      note: 'Successfully assigned my-ns/my-pod to n1',
      type: 'Normal',
    });
  });

  void test('related is the second object; a cluster-scoped object reports in default', async () => {
    const client = serverLike();
    const rec = createEventsV1Recorder(client, { reportingController: 'c', reportingInstance: 'c-host', clock: new FakeClock(start) });
    const preemptor: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'high', namespace: 'my-ns', uid: 'uid-2', resourceVersion: '7' } };
    rec.eventf(pod(), preemptor, 'Normal', 'Preempted', 'Preempting', 'Preempted by pod uid-2 on node n1');
    rec.eventf({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'n1' } }, undefined, 'Warning', 'R', 'A', 'm');
    await rec.flush();
    const [first, second] = writes(client).map((c) => c.body as Event);
    assert.deepEqual(first?.related, { kind: 'Pod', namespace: 'my-ns', name: 'high', uid: 'uid-2', apiVersion: 'v1', resourceVersion: '7' });
    assert.equal(first?.reportingInstance, 'c-host');
    assert.equal(second?.metadata?.namespace, 'default');
    assert.equal(second?.related, undefined);
  });

  // TestRecordEventToSink: the second isomorphic event starts a series (a PATCH), later ones only count.
  void test('isomorphic events: create, then a series patch of count 2, then nothing until the series ends', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const rec = createEventsV1Recorder(client, { reportingController: 'c', reportingInstance: 'i', clock });
    rec.eventf(pod(), undefined, 'Warning', 'FailedScheduling', 'Scheduling', 'no nodes');
    clock.step(1_000);
    // The note is not part of what makes events isomorphic.
    rec.eventf(pod(), undefined, 'Warning', 'FailedScheduling', 'Scheduling', '0/1 nodes are available');
    clock.step(1_000);
    rec.eventf(pod(), undefined, 'Warning', 'FailedScheduling', 'Scheduling', 'no nodes');
    await rec.flush();
    assert.deepEqual(summary(client), [
      { verb: 'create', series: undefined },
      { verb: 'patch', series: { count: 2, lastObservedTime: '2026-01-02T03:04:06.678000Z' } },
    ]);
    const [create, patch] = writes(client);
    assert.equal(patch?.name, (create?.body as Event).metadata?.name);
    assert.equal(patch?.patchType, 'strategic');
    assert.deepEqual(patch?.opts, { namespace: 'my-ns', answer: 'none' });
    assert.deepEqual(patch?.body, { series: { count: 2, lastObservedTime: '2026-01-02T03:04:06.678000Z' } });
  });

  void test('another resourceVersion, reason, action, type or related object is another event', async () => {
    const client = serverLike();
    const rec = createEventsV1Recorder(client, { reportingController: 'c', reportingInstance: 'i', clock: new FakeClock(start) });
    rec.eventf(pod('1'), undefined, 'Warning', 'R', 'A', 'm');
    rec.eventf(pod('2'), undefined, 'Warning', 'R', 'A', 'm');
    rec.eventf(pod('2'), undefined, 'Warning', 'R2', 'A', 'm');
    rec.eventf(pod('2'), undefined, 'Warning', 'R', 'A2', 'm');
    rec.eventf(pod('2'), undefined, 'Normal', 'R', 'A', 'm');
    rec.eventf(pod('2'), pod('3'), 'Normal', 'R', 'A', 'm');
    await rec.flush();
    assert.deepEqual(
      writes(client).map((c) => c.verb),
      ['create', 'create', 'create', 'create', 'create', 'create'],
    );
  });

  // TestFinishSeries: a series not seen for 6 minutes is written with its count; a single event is forgotten.
  void test('after 6 minutes unseen a series is written with its final count, and both kinds are forgotten', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const rec = createEventsV1Recorder(client, { reportingController: 'c', reportingInstance: 'i', clock });
    rec.eventf(pod(), undefined, 'Warning', 'FailedScheduling', 'Scheduling', 'm');
    rec.eventf(pod(), undefined, 'Warning', 'FailedScheduling', 'Scheduling', 'm');
    rec.eventf(pod(), undefined, 'Warning', 'FailedScheduling', 'Scheduling', 'm');
    rec.eventf(pod(), undefined, 'Normal', 'Scheduled', 'Binding', 'once');
    await rec.flush();
    assert.equal(writes(client).length, 3);
    clock.step(6 * 60_000); // the check runs; nothing is older than 6 minutes yet
    await rec.flush();
    assert.equal(writes(client).length, 3);
    clock.step(6 * 60_000);
    await rec.flush();
    assert.deepEqual(summary(client).slice(3), [{ verb: 'patch', series: { count: 3, lastObservedTime: startMicro } }]);
    // Forgotten: the same events start anew.
    rec.eventf(pod(), undefined, 'Warning', 'FailedScheduling', 'Scheduling', 'm');
    rec.eventf(pod(), undefined, 'Normal', 'Scheduled', 'Binding', 'once');
    await rec.flush();
    assert.deepEqual(
      writes(client).slice(4).map((c) => c.verb),
      ['create', 'create'],
    );
    rec.stop();
  });

  // TestRefreshExistingEventSeries: every 30 minutes each series is written again.
  void test('every 30 minutes every series still observed is written again', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const rec = createEventsV1Recorder(client, { reportingController: 'c', reportingInstance: 'i', clock });
    rec.eventf(pod(), undefined, 'Warning', 'FailedScheduling', 'Scheduling', 'm');
    for (let minute = 0; minute < 30; minute++) {
      clock.step(60_000);
      rec.eventf(pod(), undefined, 'Warning', 'FailedScheduling', 'Scheduling', 'm');
      await rec.flush();
    }
    const series = summary(client).slice(1);
    assert.deepEqual(series[0], { verb: 'patch', series: { count: 2, lastObservedTime: '2026-01-02T03:05:05.678000Z' } });
    assert.deepEqual(series.at(-1), { verb: 'patch', series: { count: 30, lastObservedTime: '2026-01-02T03:33:05.678000Z' } });
    assert.equal(series.length, 2, 'the refresh at 30 minutes ran before the 30th event counted');
    rec.stop();
  });

  void test("a series whose Event is gone is created again, with its series", async () => {
    const client = serverLike();
    const rec = createEventsV1Recorder(client, { reportingController: 'c', reportingInstance: 'i', clock: new FakeClock(start) });
    rec.eventf(pod(), undefined, 'Warning', 'R', 'A', 'm');
    await rec.flush();
    client.onPatch = (_res, name) => Promise.reject(apiErrors.notFound({ group: 'events.k8s.io', resource: 'events' }, name));
    rec.eventf(pod(), undefined, 'Warning', 'R', 'A', 'm');
    await rec.flush();
    assert.deepEqual(summary(client), [
      { verb: 'create', series: undefined },
      { verb: 'patch', series: { count: 2, lastObservedTime: startMicro } },
      { verb: 'create', series: { count: 2, lastObservedTime: startMicro } },
    ]);
  });

  void test('transport failures are retried 10-12.5 s apart; API errors drop the event', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const messages: string[] = [];
    const rec = createEventsV1Recorder(client, { reportingController: 'c', reportingInstance: 'i', clock, log: (m) => messages.push(m) });
    const serverCreate = client.onCreate;
    let failures = 2;
    client.onCreate = (res, obj, opts) => (failures-- > 0 ? Promise.reject(new Error('ECONNREFUSED')) : serverCreate(res, obj, opts));
    rec.eventf(pod(), undefined, 'Normal', 'Scheduled', 'Binding', 'm');
    await waitUntil(() => writes(client).length === 1, 'the first try');
    await settle();
    clock.step(9_999);
    await settle();
    assert.equal(writes(client).length, 1, 'not before 10 s');
    clock.step(2_501);
    await waitUntil(() => writes(client).length === 2, 'the second try');
    await settle();
    clock.step(12_500);
    await rec.flush();
    assert.equal(writes(client).length, 3);
    assert.equal(messages.filter((m) => m.includes('may retry')).length, 2);

    client.onCreate = () => Promise.reject(apiErrors.forbidden({ group: 'events.k8s.io', resource: 'events' }, '', 'no'));
    rec.eventf(pod(), undefined, 'Normal', 'Other', 'A', 'x');
    await rec.flush();
    assert.equal(writes(client).length, 4, 'no retry after an API error');
    assert.equal(messages.filter((m) => m.includes('will not retry')).length, 1);
    rec.stop();
  });

  void test('stop() ends retries and the series timers, and ignores later events', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const rec = createEventsV1Recorder(client, { reportingController: 'c', reportingInstance: 'i', clock, log: () => undefined });
    assert.equal(clock.pendingTimers(), 2, 'finishSeries and refreshExistingEventSeries');
    client.onCreate = () => Promise.reject(new Error('ECONNREFUSED'));
    rec.eventf(pod(), undefined, 'Normal', 'Scheduled', 'Binding', 'm');
    await waitUntil(() => writes(client).length === 1, 'the first try');
    await settle();
    assert.equal(clock.pendingTimers(), 3, 'a retry is scheduled');
    rec.stop();
    await rec.flush();
    assert.equal(clock.pendingTimers(), 0);
    rec.eventf(pod(), undefined, 'Normal', 'Scheduled', 'Binding', 'again');
    await rec.flush();
    assert.equal(writes(client).length, 1);
  });

  void test('eventf never throws, even for an object without metadata', async () => {
    const client = serverLike();
    const rec = createEventsV1Recorder(client, { reportingController: 'c', reportingInstance: 'i', clock: new FakeClock(start) });
    assert.doesNotThrow(() => rec.eventf({}, undefined, 'Normal', 'R', 'A', 'm'));
    await rec.flush();
    assert.equal((writes(client)[0]?.body as Event).metadata?.namespace, 'default');
    rec.stop();
  });
});
