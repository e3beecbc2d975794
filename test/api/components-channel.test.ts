/**
 * The components' client across a message channel (src/components/channel.ts) against a real API server:
 * every verb answers as the in-process client does, API errors keep their code, reason and message, each
 * call is authorized as the component's user, and watches deliver, end and close.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import { resources } from '../../src/api/resources.js';
import { isApiError, isConflict, isForbidden, isNotFound } from '../../src/api/errors.js';
import type { Client, WatchEvent, WatchStream } from '../../src/client/client.js';
import { CallLatency } from '../../src/apiserver/call-latency.js';
import { InProcessClient } from '../../src/apiserver/in-process-client.js';
import { PortConnection, serveClients, type Port } from '../../src/components/channel.js';
import { objectOfStoredText } from '../../src/apiserver/storage/watch-cache.js';
import { FlowDispatcher } from '../../src/apiserver/flow-control.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';

/**
 * Runs `body` with a connection to its own server side of the channel, whose every reply is also kept in
 * `replies` (what crossed to the components' thread), and closes both ends afterwards.
 */
async function withRecordedReplies(server: () => TestApiServer, body: (c: PortConnection, replies: unknown[]) => Promise<void>): Promise<void> {
  const ch = new MessageChannel();
  const replies: unknown[] = [];
  const recording: Port = {
    postMessage: (m) => {
      replies.push(m);
      ch.port1.postMessage(m);
    },
    on: (e, l) => ch.port1.on(e, l),
    off: (e, l) => ch.port1.off(e, l),
  };
  const stop = serveClients(recording, (user) => new InProcessClient(server().server, { user }));
  const c = new PortConnection(ch.port2);
  try {
    await body(c, replies);
  } finally {
    c.close();
    stop();
    ch.port1.close();
    ch.port2.close();
  }
}

const admin = { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
const nobody = { username: 'nobody', groups: ['system:authenticated'] };

async function next<T>(w: WatchStream<T>, want: (e: WatchEvent<T>) => boolean): Promise<WatchEvent<T>> {
  for await (const e of w) if (want(e)) return e;
  throw new Error('watch ended');
}

describe('components channel: a Client across a MessagePort', () => {
  let srv: TestApiServer;
  let channel: MessageChannel;
  let stopServing: () => void;
  let conn: PortConnection;
  let client: Client;
  before(async () => {
    srv = await startTestApiServer();
    channel = new MessageChannel();
    stopServing = serveClients(channel.port1, (user) => new InProcessClient(srv.server, { user }));
    conn = new PortConnection(channel.port2);
    client = conn.client(admin);
  });
  after(async () => {
    conn.close();
    stopServing();
    channel.port1.close();
    channel.port2.close();
    await srv.stop();
  });

  test('create, get, list, update, patch and delete answer as the API server does', async () => {
    const cm: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } };
    const created = await client.create(resources.configmaps, cm);
    assert.equal(created.metadata?.name, 'a');
    assert.ok((created.metadata?.uid ?? '') !== '');
    const got = await client.get<ConfigMap>(resources.configmaps, 'a', { namespace: 'default' });
    assert.deepEqual(got, created);
    const listed = await client.list<ConfigMap>(resources.configmaps, { namespace: 'default' });
    assert.equal(listed.kind, 'ConfigMapList');
    assert.deepEqual(listed.items.map((x) => x.metadata?.name), ['a']);
    const updated = await client.update<ConfigMap>(resources.configmaps, { ...got, data: { k: 'w' } });
    assert.deepEqual(updated.data, { k: 'w' });
    const patched = await client.patch<ConfigMap>(resources.configmaps, 'a', 'merge', { data: { j: 'x' } }, { namespace: 'default' });
    assert.deepEqual(patched.data, { k: 'w', j: 'x' });
    const status = await client.delete(resources.configmaps, 'a', { namespace: 'default' });
    assert.equal((status as { kind?: string }).kind, 'Status');
  });

  test('every patch type crosses as text and is decoded by the server as an HTTP body would be', async () => {
    await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kinds', namespace: 'default' }, data: { k: 'v' } });
    const ns = { namespace: 'default' };
    assert.deepEqual((await client.patch<ConfigMap>(resources.configmaps, 'kinds', 'strategic', { data: { s: '1' } }, ns)).data, { k: 'v', s: '1' });
    assert.deepEqual((await client.patch<ConfigMap>(resources.configmaps, 'kinds', 'json', [{ op: 'remove', path: '/data/k' }], ns)).data, { s: '1' });
    const applied = await client.patch<ConfigMap>(resources.configmaps, 'kinds', 'apply', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kinds' }, data: { a: '2' } }, { ...ns, fieldManager: 'tester', force: true });
    assert.deepEqual(applied.data, { s: '1', a: '2' });
    assert.ok(applied.metadata?.managedFields?.some((e) => e.manager === 'tester' && e.operation === 'Apply'));
    // The server's own decoding errors come back as they do over HTTP.
    await assert.rejects(client.patch(resources.configmaps, 'kinds', 'json', { op: 'remove' }, ns), (e: unknown) => isApiError(e) && e.code === 400);
  });

  test('a write answers with the text it stored; converted kinds and unchanged objects answer as objects', async () => {
    const direct = new InProcessClient(srv.server, { user: admin });
    const created = await direct.create<ConfigMap>(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'enc', namespace: 'default' }, data: { k: 'v' } });
    const enc = direct.encodedWrite(created);
    assert.ok(enc !== undefined && enc.rv === Number(created.metadata?.resourceVersion));
    assert.deepEqual(objectOfStoredText(enc.text, enc.rv), JSON.parse(JSON.stringify(created)));
    // Modified after the write (another revision): no longer the stored text.
    assert.equal(direct.encodedWrite({ ...created, metadata: { ...created.metadata, resourceVersion: '1' } }), undefined);
    const same = await direct.update<ConfigMap>(resources.configmaps, created);
    assert.equal(direct.encodedWrite(same), undefined, 'an unchanged update stores nothing');
    const ev = await direct.create(resources.eventsV1, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e1', namespace: 'default' }, eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'x', reportingInstance: 'y', action: 'A', reason: 'R', regarding: { kind: 'Pod', name: 'p', namespace: 'default' } });
    assert.equal(direct.encodedWrite(ev), undefined, 'events.k8s.io answers are converted from the stored core Event');
    // Through the channel both kinds arrive as the API server answered them.
    const viaChannel = await client.patch<ConfigMap>(resources.configmaps, 'enc', 'merge', { data: { j: 'x' } }, { namespace: 'default' });
    assert.deepEqual(viaChannel, await direct.get(resources.configmaps, 'enc', { namespace: 'default' }));
    const evViaChannel = await client.create<EventsV1Event>(resources.eventsV1, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e2', namespace: 'default' }, eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'x', reportingInstance: 'y', action: 'A', reason: 'R', regarding: { kind: 'Pod', name: 'p', namespace: 'default' } });
    assert.equal(evViaChannel.kind, 'Event');
    assert.deepEqual(evViaChannel.regarding, { kind: 'Pod', name: 'p', namespace: 'default' });
  });

  test('a write whose caller leaves the answer unread is stored and answered without the object', async () => {
    await withRecordedReplies(() => srv, async (c, replies) => {
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unread', namespace: 'default' }, data: { k: 'v' } };
      const created: unknown = await c.client(admin).create(resources.configmaps, cm, { answer: 'none' });
      assert.equal(created, undefined);
      const patched: unknown = await c.client(admin).patch(resources.configmaps, 'unread', 'merge', { data: { j: 'x' } }, { namespace: 'default', answer: 'none' });
      assert.equal(patched, undefined);
      const stored = await c.client(admin).get<ConfigMap>(resources.configmaps, 'unread', { namespace: 'default' });
      assert.deepEqual(stored.data, { k: 'v', j: 'x' });
      // The two writes were answered with nothing; the get with the object.
      assert.deepEqual(replies.slice(0, 2), [
        { t: 'result', id: 1, value: undefined },
        { t: 'result', id: 2, value: undefined },
      ]);
      assert.equal(replies.length, 3);
      // Without the option the same write answers with the object.
      const answered = await c.client(admin).patch<ConfigMap>(resources.configmaps, 'unread', 'merge', { data: { l: 'y' } }, { namespace: 'default' });
      assert.deepEqual(answered.data, { k: 'v', j: 'x', l: 'y' });
    });
  });

  test('a write whose caller reads only the metadata is answered with apiVersion, kind and metadata without managedFields', async () => {
    await withRecordedReplies(() => srv, async (c, replies) => {
      const cm: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'named-', namespace: 'default', labels: { a: 'b' } }, data: { k: 'v' } };
      const created = await c.client(admin).create<ConfigMap>(resources.configmaps, cm, { answer: 'metadata' });
      assert.deepEqual(Object.keys(created).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.equal(created.kind, 'ConfigMap');
      assert.equal(created.metadata?.managedFields, undefined);
      assert.deepEqual(created.metadata?.labels, { a: 'b' });
      const name = created.metadata?.name ?? '';
      assert.match(name, /^named-[a-z0-9]{5}$/);
      // The name the answer gave is the stored object's, which has its data and managed fields.
      const stored = await c.client(admin).get<ConfigMap>(resources.configmaps, name, { namespace: 'default' });
      assert.deepEqual(stored.data, { k: 'v' });
      assert.equal(stored.metadata?.uid, created.metadata?.uid);
      assert.equal(stored.metadata?.resourceVersion, created.metadata?.resourceVersion);
      assert.equal(stored.metadata?.managedFields?.length, 1);
      const reply = replies[0] as { t: string; value: unknown };
      assert.equal(reply.t, 'result');
      assert.deepEqual(reply.value, created);
    });
  });

  test('API errors cross with their code, reason and message', async () => {
    await assert.rejects(client.get(resources.configmaps, 'missing', { namespace: 'default' }), (e: unknown) => {
      assert.ok(isNotFound(e) && isApiError(e));
      assert.equal(e.code, 404);
      assert.equal(e.message, 'configmaps "missing" not found');
      return true;
    });
    const cm = await client.create<ConfigMap>(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default' } });
    await client.patch(resources.configmaps, 'b', 'merge', { data: { x: '1' } }, { namespace: 'default' });
    await assert.rejects(client.update(resources.configmaps, { ...cm, data: { y: '2' } }), (e: unknown) => {
      assert.ok(isConflict(e) && isApiError(e));
      assert.equal(e.message, 'Operation cannot be fulfilled on configmaps "b": the object has been modified; please apply your changes to the latest version and try again');
      return true;
    });
  });

  test('each call is authorized as the user of its client', async () => {
    await assert.rejects(conn.client(nobody).list(resources.secrets, { namespace: 'default' }), (e: unknown) => {
      assert.ok(isForbidden(e) && isApiError(e));
      assert.equal(e.message, 'secrets is forbidden: User "nobody" cannot list resource "secrets" in API group "" in the namespace "default"');
      return true;
    });
  });

  test('subresources: a binding places a pod', async () => {
    // No controller manager here to make the namespace's default service account.
    await client.create(resources.serviceaccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
    await client.create<Pod>(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await client.createSubresource(resources.pods, 'p', 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } }, { namespace: 'default' });
    const p = await client.get<Pod>(resources.pods, 'p', { namespace: 'default' });
    assert.equal(p.spec?.nodeName, 'n1');
  });

  test('a list crosses as its items\' texts: pods as stored, with their resourceVersion; other kinds as JSON', async () => {
    const direct = new InProcessClient(srv.server, { user: admin });
    // No controller manager here to make the namespace's default service account.
    await direct.create(resources.serviceaccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } }).catch((e: unknown) => {
      if (!isApiError(e) || e.code !== 409) throw e;
    });
    await client.create<Pod>(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'listed', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'listed', namespace: 'default' }, data: { k: 'v' } });
    const componentstatuses = { group: '', version: 'v1', resource: 'componentstatuses', kind: 'ComponentStatus', namespaced: false };
    type ListReply = { t: string; items?: string[]; rvs?: (number | undefined)[] };
    await withRecordedReplies(() => srv, async (c, replies) => {
      for (const [res, opts] of [
        [resources.pods, { namespace: 'default' }],
        [resources.configmaps, { namespace: 'default' }],
        [componentstatuses, {}],
      ] as const) {
        replies.length = 0;
        const got = await c.client(admin).list(res, opts);
        assert.deepEqual(got, await direct.list(res, opts), res.resource);
        assert.ok(got.items.length > 0, res.resource);
        const sent = (replies as { t: string; items?: unknown[] }[]).flatMap((r) => (r.t === 'batch' ? (r.items as ListReply[]) : [r as ListReply]));
        const reply = sent.find((r) => r.t === 'result');
        const items = reply?.items ?? [];
        assert.ok(items.length === got.items.length && items.every((t) => typeof t === 'string'), `${res.resource}: items cross as text`);
        // Each item is its stored text (without a resourceVersion) with the revision to stamp, or its JSON.
        items.forEach((text, i) => {
          const rv = reply?.rvs?.[i];
          const item = got.items[i] as { metadata?: { resourceVersion?: string } };
          const parsed = JSON.parse(text) as { metadata?: { resourceVersion?: string } };
          if (rv !== undefined) {
            assert.equal(rv, Number(item.metadata?.resourceVersion));
            assert.equal(parsed.metadata?.resourceVersion, undefined);
          } else assert.deepEqual(parsed, item);
        });
        // Pods, which the cache holds as stored bytes, are not serialised again; componentstatuses are built.
        if (res === resources.pods) assert.ok(reply?.rvs?.every((rv) => rv !== undefined), 'pods cross as their stored texts');
        if (res === componentstatuses) assert.ok(reply?.rvs?.every((rv) => rv === undefined), 'componentstatuses cross as JSON');
      }
    });
    // The tests after this one count the namespace's config maps.
    await client.delete(resources.configmaps, 'listed', { namespace: 'default' });
    await client.delete(resources.pods, 'listed', { namespace: 'default', gracePeriodSeconds: 0 });
  });

  test('watches deliver events in order, and close stops them', async () => {
    const w = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true });
    try {
      await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1', namespace: 'default' } });
      await client.patch(resources.configmaps, 'w1', 'merge', { data: { a: '1' } }, { namespace: 'default' });
      const added = await next(w, (e) => e.object.metadata?.name === 'w1');
      assert.equal(added.type, 'ADDED');
      const modified = await next(w, (e) => e.object.metadata?.name === 'w1');
      assert.equal(modified.type, 'MODIFIED');
      assert.deepEqual(modified.object.data, { a: '1' });
    } finally {
      w.close();
    }
    const after = await w[Symbol.asyncIterator]().next();
    assert.equal(after.done, true);
  });

  test('read-only watches of one change share the object parsed for it; a plain watch gets its own', async () => {
    const ro1 = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true });
    const ro2 = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true });
    const plain = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default' });
    try {
      await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', namespace: 'default' } });
      const isShared = (e: WatchEvent<ConfigMap>): boolean => e.object.metadata?.name === 'shared';
      const [a, b, c] = await Promise.all([next(ro1, isShared), next(ro2, isShared), next(plain, isShared)]);
      assert.equal(a.object, b.object);
      assert.notEqual(c.object, a.object);
      assert.deepEqual(c.object, a.object);
    } finally {
      ro1.close();
      ro2.close();
      plain.close();
    }
  });

  test('read-only watches get a change with what it left as it was taken from the version before; a plain watch gets its own', async () => {
    const ro = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true });
    const plain = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default' });
    try {
      await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'versions', namespace: 'default', labels: { a: 'b' } }, data: { k: 'v' } });
      await client.patch(resources.configmaps, 'versions', 'merge', { data: { k: 'w' } }, { namespace: 'default' });
      const isVersions = (e: WatchEvent<ConfigMap>): boolean => e.object.metadata?.name === 'versions';
      const [added, plainAdded] = await Promise.all([next(ro, isVersions), next(plain, isVersions)]);
      const [modified, plainModified] = await Promise.all([next(ro, isVersions), next(plain, isVersions)]);
      assert.deepEqual(modified.object, plainModified.object);
      assert.deepEqual(modified.object.data, { k: 'w' });
      assert.notEqual(modified.object.metadata, added.object.metadata);
      assert.equal(modified.object.metadata?.labels, added.object.metadata?.labels);
      assert.notEqual(plainModified.object.metadata?.labels, plainAdded.object.metadata?.labels);
      assert.deepEqual(added.object.data, { k: 'v' }, 'the earlier version is left as it was');
    } finally {
      ro.close();
      plain.close();
    }
  });

  test('once no read-only watch is left, versions seen before are forgotten', async () => {
    const first = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true });
    const isForgotten = (e: WatchEvent<ConfigMap>): boolean => e.object.metadata?.name === 'forgotten';
    await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'forgotten', namespace: 'default', labels: { a: 'b' } } });
    const added = await next(first, isForgotten);
    first.close();
    const second = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true });
    try {
      await client.patch(resources.configmaps, 'forgotten', 'merge', { data: { k: 'w' } }, { namespace: 'default' });
      const modified = await next(second, isForgotten);
      assert.deepEqual(modified.object.metadata?.labels, added.object.metadata?.labels);
      assert.notEqual(modified.object.metadata?.labels, added.object.metadata?.labels);
    } finally {
      second.close();
    }
  });

  test('watches that drop managedFields get changes without them, the object otherwise the same', async () => {
    const trimmed1 = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true, managedFieldsUnread: true });
    const trimmed2 = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true, managedFieldsUnread: true });
    const full = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true });
    try {
      await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mf', namespace: 'default', labels: { a: 'b' } }, data: { k: 'v' } });
      await client.patch(resources.configmaps, 'mf', 'merge', { data: { k: 'w' } }, { namespace: 'default', fieldManager: 'other' });
      const isMf = (e: WatchEvent<ConfigMap>): boolean => e.object.metadata?.name === 'mf';
      for (const type of ['ADDED', 'MODIFIED']) {
        const [a, b, c] = await Promise.all([next(trimmed1, isMf), next(trimmed2, isMf), next(full, isMf)]);
        assert.deepEqual([a.type, b.type, c.type], [type, type, type]);
        assert.ok((c.object.metadata?.managedFields ?? []).length > 0, 'the server records managedFields');
        assert.equal(a.object.metadata?.managedFields, undefined);
        assert.equal(a.object, b.object, 'cut once and parsed once for both');
        const { managedFields: _, ...rest } = c.object.metadata ?? {};
        assert.deepEqual(a.object, { ...c.object, metadata: rest });
      }
    } finally {
      trimmed1.close();
      trimmed2.close();
      full.close();
    }
  });

  test('many calls and events of one turn travel batched, each answered, in order', async () => {
    const w = client.watch<ConfigMap>(resources.configmaps, { namespace: 'batch', readOnly: true });
    try {
      await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'batch' } });
      const names = Array.from({ length: 50 }, (_, i) => `c${i}`);
      const created = await Promise.all(names.map((n) => client.create<ConfigMap>(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, namespace: 'batch' } })));
      assert.deepEqual(created.map((c) => c.metadata?.name), names);
      const seen: number[] = [];
      for await (const e of w) {
        seen.push(Number(e.object.metadata?.resourceVersion));
        if (seen.length === names.length) break;
      }
      assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
    } finally {
      w.close();
    }
  });

  test('a turn with more messages than one batch holds splits them, and every watch still gets each change', { timeout: 30_000 }, async () => {
    await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'big' } });
    // Three watches of 300 changes made in one turn: 900 events (two of each change refer to the first) and
    // 300 replies, several full batches, so references to a change's text must stay within its batch.
    const watches = [0, 1, 2].map(() => client.watch<ConfigMap>(resources.configmaps, { namespace: 'big', readOnly: true }));
    try {
      const names = Array.from({ length: 300 }, (_, i) => `m${i}`);
      await Promise.all(names.map((n) => client.create<ConfigMap>(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, namespace: 'big' }, data: { name: n } })));
      const seen = await Promise.all(
        watches.map(async (w) => {
          const got: string[] = [];
          for await (const e of w) {
            assert.equal(e.object.data?.['name'], e.object.metadata?.name, 'each event carries its own change');
            got.push(e.object.metadata?.name ?? '');
            if (got.length === names.length) break;
          }
          return got;
        }),
      );
      assert.deepEqual([...(seen[0] ?? [])].sort(), [...names].sort());
      assert.deepEqual(seen[1], seen[0]);
      assert.deepEqual(seen[2], seen[0]);
    } finally {
      for (const w of watches) w.close();
    }
  });

  test('many requests arriving at once are started a few to a turn, in order, and all answered', async () => {
    const ch = new MessageChannel();
    const started: string[] = [];
    let startedWhenLoopRan: number | undefined;
    // A stand-in for the API server's client: records each start; the first schedules a look at the event loop.
    const stub = {
      get: (_res: unknown, name: string) => {
        if (started.length === 0) setImmediate(() => (startedWhenLoopRan = started.length));
        started.push(name);
        return Promise.resolve({ metadata: { name } });
      },
      encodedWrite: () => undefined,
    };
    const stop = serveClients(ch.port1, () => stub as unknown as InProcessClient);
    const c2 = new PortConnection(ch.port2);
    try {
      const names = Array.from({ length: 500 }, (_, i) => `c${i}`);
      const got = await Promise.all(names.map((n) => c2.client(admin).get<ConfigMap>(resources.configmaps, n, { namespace: 'default' })));
      assert.deepEqual(got.map((g) => g.metadata?.name), names);
      assert.deepEqual(started, names);
      assert.ok(startedWhenLoopRan !== undefined && startedWhenLoopRan < names.length, `the event loop ran after ${String(startedWhenLoopRan)} starts`);
    } finally {
      c2.close();
      stop();
      ch.port1.close();
      ch.port2.close();
    }
  });

  test('a call holds its seat in flow control until it is answered', async () => {
    const ch = new MessageChannel();
    const started: string[] = [];
    const answers = new Map<string, () => void>();
    // A stand-in for the API server's client whose answers come when the test gives them.
    const stub = {
      get: (_res: unknown, name: string) => {
        started.push(name);
        return new Promise((resolve) => answers.set(name, () => resolve({ metadata: { name } })));
      },
      encodedWrite: () => undefined,
    };
    const flowControl = new FlowDispatcher(128, 2);
    const stop = serveClients(ch.port1, () => stub as unknown as InProcessClient, { flowControl });
    const c2 = new PortConnection(ch.port2);
    const scheduler = { username: 'system:kube-scheduler', groups: ['system:authenticated'] };
    const turns = async (): Promise<void> => {
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    };
    try {
      const calls = ['a', 'b', 'c'].map((n) => c2.client(scheduler).get<ConfigMap>(resources.configmaps, n, { namespace: 'default' }));
      await turns();
      assert.deepEqual(started, ['a', 'b']);
      assert.equal(flowControl.inFlight, 2);
      answers.get('a')?.();
      assert.equal((await calls[0])?.metadata?.name, 'a');
      await turns();
      assert.deepEqual(started, ['a', 'b', 'c']);
      answers.get('b')?.();
      answers.get('c')?.();
      assert.deepEqual((await Promise.all(calls)).map((g) => g.metadata?.name), ['a', 'b', 'c']);
      await turns();
      assert.equal(flowControl.inFlight, 0);
    } finally {
      c2.close();
      stop();
      ch.port1.close();
      ch.port2.close();
    }
  });

  test('a closed connection fails calls at once and ends its watches', async () => {
    const ch = new MessageChannel();
    const stop = serveClients(ch.port1, (user) => new InProcessClient(srv.server, { user }));
    const c2 = new PortConnection(ch.port2);
    try {
      const w = c2.client(admin).watch<ConfigMap>(resources.configmaps, { namespace: 'default' });
      await next(w, (e) => e.type === 'ADDED');
      c2.close();
      // Events already received are still read; then the iteration ends.
      let left = 0;
      for await (const e of w) left += e.type === 'ADDED' ? 1 : 0;
      assert.ok(left < 10);
      await assert.rejects(c2.client(admin).list(resources.configmaps), /the API server connection is closed/);
    } finally {
      stop();
      ch.port1.close();
      ch.port2.close();
    }
  });
});

describe('components channel: call latency', () => {

  test('latency is reported per verb and resource, with the subresource', async () => {
    const srv = await startTestApiServer();
    const latency = new CallLatency();
    const seen: string[] = [];
    latency.observe((verb, resource) => seen.push(`${verb} ${resource}`));
    const ch = new MessageChannel();
    const stopServing = serveClients(ch.port1, (user) => new InProcessClient(srv.server, { user }), { latency });
    const conn = new PortConnection(ch.port2);
    try {
      const client = conn.client(admin);
      await srv.inProcess().create(resources.serviceaccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
      await client.create(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
      await client.patch(resources.pods, 'p', 'merge', { status: { message: 'm' } }, { namespace: 'default', subresource: 'status' });
      await client.createSubresource(resources.pods, 'p', 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } }, { namespace: 'default' });
      await client.get(resources.pods, 'p', { namespace: 'default' });
      assert.deepEqual(seen, ['create pods', 'patch pods/status', 'createSubresource pods/binding', 'get pods']);
    } finally {
      conn.close();
      stopServing();
      ch.port1.close();
      ch.port2.close();
      await srv.stop();
    }
  });
});
