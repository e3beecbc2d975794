// Event recording against a fake Client; the correlator scenarios are client-go's TestEventCorrelator
// (tools/record/events_cache_test.go), played through the recorder so the writes themselves are checked.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import { apiErrors } from '../api/errors.js';
import { resources } from '../api/resources.js';
import { FakeClock } from './clock.js';
import { createEventRecorder } from './events.js';
import { createEventsV1Recorder } from './events-v1.js';
import { FakeClient, settle, waitUntil, type RecordedCall } from './_fake-client.js';

const start = Date.UTC(2026, 0, 2, 3, 4, 5);

function myPod(): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'my-pod', namespace: 'my-ns', uid: 'uid-1', resourceVersion: '42' } };
}

/** A client that answers creates like an API server (adds a resourceVersion) and patches by merging. */
function serverLike(): FakeClient {
  const client = new FakeClient();
  const stored = new Map<string, Event>();
  let rv = 100;
  client.onCreate = (_res, obj) => {
    const e = obj as Event;
    const created: Event = { ...e, metadata: { ...e.metadata, resourceVersion: String(++rv) } };
    stored.set(e.metadata.name ?? '', created);
    return Promise.resolve(created);
  };
  client.onPatch = (_res, name, _type, patch) => {
    const old = stored.get(name);
    if (old === undefined) return Promise.reject(apiErrors.notFound({ group: '', resource: 'events' }, name));
    const patched: Event = { ...old, ...(patch as Partial<Event>), metadata: { ...old.metadata, resourceVersion: String(++rv) } };
    stored.set(name, patched);
    return Promise.resolve(patched);
  };
  return client;
}

function writes(client: FakeClient): RecordedCall[] {
  return client.calls.filter((c) => c.verb === 'create' || c.verb === 'patch');
}

function lastWrite(client: FakeClient): { verb: string; count: number | undefined; message: string | undefined } {
  const c = writes(client).at(-1);
  assert.ok(c !== undefined, 'something was written');
  const body = c.body as Partial<Event>;
  return { verb: c.verb, count: body.count, message: body.message };
}

/** A scheduler records the same event three times, 5 s apart; answers the writes that made. */
async function recordThreeTimes(client: FakeClient): Promise<RecordedCall[]> {
  const clock = new FakeClock(start);
  const rec = createEventRecorder(client, { component: 'default-scheduler', clock });
  rec.event(myPod(), 'Warning', 'FailedScheduling', 'no nodes');
  clock.step(5_000);
  rec.event(myPod(), 'Warning', 'FailedScheduling', 'no nodes');
  clock.step(5_000);
  rec.event(myPod(), 'Warning', 'FailedScheduling', 'no nodes');
  await rec.flush();
  return writes(client);
}

void describe('event recorder', () => {
  void test('the first event creates a core/v1 Event shaped like client-go makes it', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const rec = createEventRecorder(client, { component: 'default-scheduler', host: 'node-1', clock });
    rec.event(myPod(), 'Warning', 'FailedScheduling', '0/3 nodes are available.');
    await rec.flush();
    const [call] = writes(client);
    assert.ok(call !== undefined);
    assert.equal(call.verb, 'create');
    assert.equal(call.res, resources.events);
    assert.deepEqual(call.opts, { namespace: 'my-ns', answer: 'none' });
    // The name is `<object>.<hex nanoseconds>`: the clock's millisecond plus a random sub-millisecond part.
    const name = (call.body as Event).metadata.name ?? '';
    const nanos = BigInt(`0x${name.slice('my-pod.'.length)}`);
    assert.ok(name.startsWith('my-pod.') && nanos >= BigInt(start) * 1_000_000n && nanos < (BigInt(start) + 1n) * 1_000_000n, name);
    assert.deepEqual(call.body, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: 'my-ns' },
      involvedObject: { kind: 'Pod', namespace: 'my-ns', name: 'my-pod', uid: 'uid-1', apiVersion: 'v1', resourceVersion: '42' },
      reason: 'FailedScheduling',
      message: '0/3 nodes are available.',
      firstTimestamp: '2026-01-02T03:04:05Z',
      lastTimestamp: '2026-01-02T03:04:05Z',
      count: 1,
      type: 'Warning',
      source: { component: 'default-scheduler', host: 'node-1' },
      reportingComponent: 'default-scheduler',
      reportingInstance: 'node-1',
    });
  });

  void test('events about cluster-scoped objects go to the default namespace', async () => {
    const client = serverLike();
    const rec = createEventRecorder(client, { component: 'kubelet', clock: new FakeClock(start) });
    rec.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'n1' } }, 'Normal', 'NodeReady', 'Node n1 status is now: NodeReady');
    await rec.flush();
    const body = writes(client)[0]?.body as Event;
    assert.equal(body.metadata.namespace, 'default');
    assert.deepEqual(body.involvedObject, { kind: 'Node', name: 'n1', uid: 'n1', apiVersion: 'v1' });
    assert.deepEqual(body.source, { component: 'kubelet' });
    assert.equal(body.reportingInstance, undefined);
  });

  void test('a repeated event patches count, lastTimestamp and message of the first one', async () => {
    const client = serverLike();
    const w = await recordThreeTimes(client);
    assert.deepEqual(
      w.map((c) => c.verb),
      ['create', 'patch', 'patch'],
    );
    const firstName = (w[0]?.body as Event).metadata.name;
    assert.equal(w[1]?.name, firstName);
    assert.equal(w[1]?.patchType, 'strategic');
    assert.deepEqual(w[1]?.opts, { namespace: 'my-ns', answer: 'none' });
    assert.deepEqual(w[1]?.body, { count: 2, lastTimestamp: '2026-01-02T03:04:10Z', message: 'no nodes' });
    assert.deepEqual(w[2]?.body, { count: 3, lastTimestamp: '2026-01-02T03:04:15Z', message: 'no nodes' });
  });

  void test('a client that leaves answers unread (another thread) still has repeats patch the written event', async () => {
    const client = serverLike();
    const answer = { create: client.onCreate, patch: client.onPatch };
    // As the components channel does for answer: 'none': the write happens, nothing comes back.
    client.onCreate = async (...args) => {
      await answer.create(...args);
      return undefined as unknown as Event;
    };
    client.onPatch = async (...args) => {
      await answer.patch(...args);
      return undefined as unknown as Event;
    };
    const w = await recordThreeTimes(client);
    assert.deepEqual(
      w.map((c) => [c.verb, (c.body as Partial<Event>).count]),
      [
        ['create', 1],
        ['patch', 2],
        ['patch', 3],
      ],
    );
    assert.equal(w[1]?.name, (w[0]?.body as Event).metadata.name);
    assert.equal(w[2]?.name, (w[0]?.body as Event).metadata.name);
  });

  void test('a server without strategic merge patch (415) gets the same patch as a merge patch', async () => {
    const client = serverLike();
    const serverPatch = client.onPatch;
    client.onPatch = (res, name, type, patch, opts) =>
      type === 'strategic' ? Promise.reject(apiErrors.unsupportedMediaType('application/strategic-merge-patch+json')) : serverPatch(res, name, type, patch, opts);
    const clock = new FakeClock(start);
    const rec = createEventRecorder(client, { component: 'c', clock });
    rec.event(myPod(), 'Normal', 'Pulled', 'done');
    clock.step(1_000);
    rec.event(myPod(), 'Normal', 'Pulled', 'done');
    await rec.flush();
    const w = writes(client);
    assert.deepEqual(
      w.map((c) => `${c.verb}${c.patchType !== undefined ? `:${c.patchType}` : ''}`),
      ['create', 'patch:strategic', 'patch:merge'],
    );
    assert.deepEqual(w[2]?.body, { count: 2, lastTimestamp: '2026-01-02T03:04:06Z', message: 'done' });
  });

  void test('an event whose Event object is gone is created again', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const rec = createEventRecorder(client, { component: 'c', clock });
    rec.event(myPod(), 'Normal', 'Pulled', 'done');
    await rec.flush();
    client.onPatch = (_res, name) => Promise.reject(apiErrors.notFound({ group: '', resource: 'events' }, name));
    rec.event(myPod(), 'Normal', 'Pulled', 'done');
    await rec.flush();
    const w = writes(client);
    assert.deepEqual(
      w.map((c) => c.verb),
      ['create', 'patch', 'create'],
    );
    const recreated = w[2]?.body as Event;
    assert.equal(recreated.count, 2);
    assert.equal(recreated.metadata.name, (w[0]?.body as Event).metadata.name);
    assert.equal(recreated.metadata.resourceVersion, undefined, 'resourceVersion is cleared for a create');
  });

  void test('events-from-different-containers-do-not-aggregate: fieldPath is part of the identity', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const rec = createEventRecorder(client, { component: 'kubelet', host: 'node1', clock });
    rec.event(myPod(), 'Normal', 'similar', 'similar message', { fieldPath: 'spec.containers{container2}' });
    clock.step(5_000);
    rec.event(myPod(), 'Normal', 'similar', 'similar message', { fieldPath: 'spec.containers{container1}' });
    await rec.flush();
    const w = writes(client);
    assert.deepEqual(
      w.map((c) => c.verb),
      ['create', 'create'],
    );
    assert.equal((w[1]?.body as Event).involvedObject.fieldPath, 'spec.containers{container1}');
  });

  void test('different messages are different events', async () => {
    const client = serverLike();
    const rec = createEventRecorder(client, { component: 'c', clock: new FakeClock(start) });
    rec.event(myPod(), 'Normal', 'Pulling', 'Pulling image "a"');
    rec.event(myPod(), 'Normal', 'Pulling', 'Pulling image "b"');
    await rec.flush();
    const w = writes(client);
    assert.deepEqual(
      w.map((c) => c.verb),
      ['create', 'create'],
    );
    assert.notEqual((w[0]?.body as Event).metadata.name, (w[1]?.body as Event).metadata.name, 'names stay unique within one millisecond');
  });

  // client-go TestEventCorrelator: previous events are recorded `intervalSeconds` apart, then the new one.
  const similar = (i: number): [string, string] => ['similar', `similar message${i}`];
  const cases: {
    name: string;
    previous: [string, string][];
    next: [string, string];
    intervalSeconds: number;
    /** The object of previous event i (default: my-pod in my-ns). */
    previousObject?: (i: number) => Pod;
    want: { verb: string; count: number; message: string } | 'skip';
  }[] = [
    { name: 'create-a-single-event', previous: [], next: ['first', 'i am first'], intervalSeconds: 5, want: { verb: 'create', count: 1, message: 'i am first' } },
    {
      name: 'the-same-event-should-just-count',
      previous: [['duplicate', 'me again']],
      next: ['duplicate', 'me again'],
      intervalSeconds: 5,
      want: { verb: 'patch', count: 2, message: 'me again' },
    },
    {
      name: 'the-same-event-should-just-count-even-if-more-than-aggregate',
      previous: Array.from({ length: 10 }, () => ['duplicate', 'me again'] as [string, string]),
      next: ['duplicate', 'me again'],
      intervalSeconds: 30,
      want: { verb: 'patch', count: 11, message: 'me again' },
    },
    {
      name: 'the-same-event-is-spam-if-happens-too-frequently',
      previous: Array.from({ length: 26 }, () => ['duplicate', 'me again'] as [string, string]),
      next: ['duplicate', 'me again'],
      intervalSeconds: 1,
      want: 'skip',
    },
    {
      name: 'create-many-unique-events',
      previous: Array.from({ length: 30 }, (_, i) => [`reason-${i}`, `message-${i}`] as [string, string]),
      previousObject: (i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `pod-${i}`, namespace: `ns-${i}`, uid: 'C934D34AFB20242' } }),
      next: ['unique', 'snowflake'],
      intervalSeconds: 5,
      want: { verb: 'create', count: 1, message: 'snowflake' },
    },
    {
      name: 'similar-events-should-aggregate-event',
      previous: Array.from({ length: 9 }, (_, i) => similar(i)),
      next: ['similar', 'similar message'],
      intervalSeconds: 5,
      want: { verb: 'create', count: 1, message: '(combined from similar events): similar message' },
    },
    {
      name: 'similar-events-many-times-should-count-the-aggregate',
      previous: Array.from({ length: 10 }, (_, i) => similar(i)),
      next: ['similar', 'similar message'],
      intervalSeconds: 5,
      want: { verb: 'patch', count: 2, message: '(combined from similar events): similar message' },
    },
    {
      name: 'similar-events-whose-interval-is-greater-than-aggregate-interval-do-not-aggregate',
      previous: Array.from({ length: 9 }, (_, i) => similar(i)),
      next: ['similar', 'similar message'],
      // Upstream steps its interval clock 600 s on every Now() call, so the gap is always more than 600 s.
      intervalSeconds: 601,
      want: { verb: 'create', count: 1, message: 'similar message' },
    },
  ];
  for (const tc of cases) {
    void test(tc.name, async () => {
      const client = serverLike();
      const clock = new FakeClock(start);
      const rec = createEventRecorder(client, { component: 'kubelet', host: 'kublet.node1', clock });
      for (const [i, [reason, message]] of tc.previous.entries()) {
        rec.event(tc.previousObject?.(i) ?? myPod(), 'Normal', reason, message);
        clock.step(tc.intervalSeconds * 1000);
      }
      await rec.flush();
      const before = writes(client).length;
      rec.event(myPod(), 'Normal', tc.next[0], tc.next[1]);
      await rec.flush();
      if (tc.want === 'skip') {
        assert.equal(writes(client).length, before, 'the event was dropped by the spam filter');
        return;
      }
      assert.deepEqual(lastWrite(client), tc.want);
    });
  }

  void test('the same object is spam after 25 events whatever their reasons, unless the filter is off', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const rec = createEventRecorder(client, { component: 'kubelet', clock });
    for (let i = 0; i < 30; i++) rec.event(myPod(), 'Normal', `unique${i}`, `snowflake${i}`);
    await rec.flush();
    assert.equal(writes(client).length, 25);
    clock.step(300_000);
    rec.event(myPod(), 'Normal', 'later', 'one token refilled after 5 minutes');
    rec.event(myPod(), 'Normal', 'later2', 'but only one');
    await rec.flush();
    assert.equal(writes(client).length, 26);
  });

  void test('create-many-unique-events without the spam filter creates the 31st event', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const rec = createEventRecorder(client, { component: 'kubelet', clock, spamFilter: false });
    for (let i = 0; i < 30; i++) {
      rec.event(myPod(), 'Normal', `unique${i}`, `snowflake${i}`);
      clock.step(5_000);
    }
    rec.event(myPod(), 'Normal', 'unique', 'snowflake');
    await rec.flush();
    assert.equal(writes(client).length, 31);
    assert.deepEqual(lastWrite(client), { verb: 'create', count: 1, message: 'snowflake' });
  });

  void test('transport failures are retried 10 s apart; API errors drop the event', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const messages: string[] = [];
    const rec = createEventRecorder(client, { component: 'c', clock, log: (m) => messages.push(m) });
    const serverCreate = client.onCreate;
    let failures = 2;
    client.onCreate = (res, obj, opts) => (failures-- > 0 ? Promise.reject(new Error('ECONNREFUSED')) : serverCreate(res, obj, opts));
    rec.event(myPod(), 'Normal', 'Started', 'Started container c');
    await waitUntil(() => writes(client).length === 1, 'the first try');
    await settle();
    clock.step(10_000); // the first retry is jittered within 10 s
    await waitUntil(() => writes(client).length === 2, 'the second try');
    await settle();
    clock.step(10_000);
    await rec.flush();
    assert.equal(writes(client).length, 3);
    assert.equal(messages.filter((m) => m.includes('may retry')).length, 2);

    client.onCreate = () => Promise.reject(apiErrors.forbidden({ group: '', resource: 'events' }, '', 'no'));
    rec.event(myPod(), 'Normal', 'Other', 'x');
    await rec.flush();
    assert.equal(writes(client).length, 4, 'no retry after an API error');
    assert.equal(messages.filter((m) => m.includes('will not retry')).length, 1);
  });

  void test('stop() ends pending retries and ignores later events', async () => {
    const client = serverLike();
    const clock = new FakeClock(start);
    const rec = createEventRecorder(client, { component: 'c', clock, log: () => undefined });
    client.onCreate = () => Promise.reject(new Error('ECONNREFUSED'));
    rec.event(myPod(), 'Normal', 'Started', 'x');
    await waitUntil(() => writes(client).length === 1, 'the first try');
    await settle();
    assert.equal(clock.pendingTimers(), 1, 'a retry is scheduled');
    rec.stop();
    await rec.flush();
    assert.equal(clock.pendingTimers(), 0);
    rec.event(myPod(), 'Normal', 'Started', 'y');
    await rec.flush();
    assert.equal(writes(client).length, 1);
  });

  void test('event never throws, even for an object without metadata', async () => {
    const client = serverLike();
    const rec = createEventRecorder(client, { component: 'c', clock: new FakeClock(start) });
    assert.doesNotThrow(() => rec.event({}, 'Normal', 'R', 'm'));
    await rec.flush();
    assert.equal((writes(client)[0]?.body as Event).metadata.namespace, 'default');
  });

  /** A server-like client whose creates wait until `release` is called. */
  function heldCreates(): { client: FakeClient; inFlight: () => number; release: () => void } {
    const client = serverLike();
    const answer = client.onCreate;
    const held: (() => void)[] = [];
    let inFlight = 0;
    client.onCreate = (res, obj, opts) => {
      inFlight++;
      return new Promise<void>((resolve) => held.push(resolve)).then(() => {
        inFlight--;
        return answer(res, obj, opts);
      });
    };
    return { client, inFlight: () => inFlight, release: () => held.splice(0).forEach((r) => r()) };
  }

  const podNamed = (i: number): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'ns', uid: `u${i}` } });

  void test('one write at a time; beyond 1000 queued events, an event is dropped silently (DropIfChannelFull)', async () => {
    const { client, inFlight, release } = heldCreates();
    const messages: string[] = [];
    const rec = createEventRecorder(client, { component: 'replicaset-controller', clock: new FakeClock(start), log: (m) => messages.push(m) });
    for (let i = 0; i < 1003; i++) rec.event(podNamed(i), 'Normal', 'SuccessfulCreate', `Created pod: p${i}`);
    await settle();
    assert.equal(inFlight(), 1);
    assert.deepEqual(messages, []);
    while (writes(client).length < 1000 || inFlight() > 0) {
      release();
      await settle();
    }
    await rec.flush();
    assert.equal(writes(client).length, 1000);
    assert.equal((writes(client).at(-1)?.body as Event | undefined)?.involvedObject.name, 'p999');
  });
});

void test('on the wall clock, event names of one millisecond sort in the order the events happened, across recorders', async () => {
  const client = serverLike();
  const scheduler = createEventsV1Recorder(client, { reportingController: 'default-scheduler', reportingInstance: 'default-scheduler-host' });
  const kubelet = createEventRecorder(client, { component: 'kubelet', host: 'n1' });
  const spin = (us: number): void => {
    const until = performance.now() + us / 1000;
    while (performance.now() < until);
  };
  for (let i = 0; i < 20; i++) {
    const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'ns', uid: `u${i}` } };
    scheduler.eventf(pod, undefined, 'Normal', 'Scheduled', 'Binding', `Successfully assigned ns/p${i} to n1`);
    spin(20);
    kubelet.event(pod, 'Normal', 'Pulled', 'Container image "registry.k8s.io/pause:3.10" already present on machine');
    spin(20);
  }
  await scheduler.flush();
  scheduler.stop();
  await kubelet.flush();
  const nanosOf = (e: Event): bigint => BigInt(`0x${(e.metadata.name ?? '').split('.')[1] ?? '0'}`);
  const events = writes(client)
    .filter((c) => c.verb === 'create')
    .map((c) => c.body as Event)
    .sort((a, b) => (nanosOf(a) < nanosOf(b) ? -1 : 1));
  // Each Scheduled sorts before the Pulled recorded 20 µs after it, and after the previous pair.
  assert.deepEqual(events.map((e) => e.reason), Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 'Scheduled' : 'Pulled')));
});
