/**
 * Events have no watch cache (kube-apiserver's `DefaultWatchCacheSizes`: events and events.k8s.io/events
 * are 0): gets, lists and watches are served from storage, with the etcd3 watcher's meaning. Run over
 * HTTPS and in process, as kubectl and the components reach them.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from 'kubernetes-types/core/v1.js';
import { resources } from '../../src/api/resources.js';
import type { Client, KubeObject, WatchEvent, WatchStream } from '../../src/client/client.js';
import { isApiError } from '../../src/api/errors.js';
import { parseSelector } from '../../src/api/labels.js';
import { FieldSelector } from '../../src/api/fields.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';

function event(name: string, pod: string, labels?: Record<string, string>): Event {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default', ...(labels !== undefined ? { labels } : {}) },
    involvedObject: { apiVersion: 'v1', kind: 'Pod', name: pod, namespace: 'default' },
    reason: 'Scheduled',
    message: `Successfully assigned default/${pod} to n1`,
    type: 'Normal',
    source: { component: 'default-scheduler' },
    count: 1,
  };
}

/** A watch read a few events at a time, each as `TYPE name rv`. */
function reader<T extends KubeObject>(w: WatchStream<T>): (n: number) => Promise<string[]> {
  const it: AsyncIterator<WatchEvent<T>> = w[Symbol.asyncIterator]();
  return async (n) => {
    const out: string[] = [];
    while (out.length < n) {
      const r = await it.next();
      if (r.done === true) break;
      out.push(`${r.value.type} ${r.value.object.metadata?.name ?? ''} ${r.value.object.metadata?.resourceVersion ?? ''}`);
    }
    return out;
  };
}

describe('Events are served from storage, without a watch cache', () => {
  let srv: TestApiServer;
  let clients: [string, Client][];
  before(async () => {
    srv = await startTestApiServer();
    clients = [
      ['https', srv.http()],
      ['in-process', srv.inProcess()],
    ];
  });
  after(async () => {
    await srv.stop();
  });

  test('the store keeps no watch cache for events, core or events.k8s.io', () => {
    for (const [group, version] of [['', 'v1'], ['events.k8s.io', 'v1']] as const) {
      const def = srv.server.table.get(group, version, 'events');
      assert.ok(def !== undefined);
      assert.throws(() => srv.server.store.cache(def), /served from storage/);
    }
  });

  for (const which of ['https', 'in-process']) {
    test(`${which}: get (any resourceVersion), list with a field selector and a limit, and a watch's transitions`, async () => {
      const client = clients.find(([n]) => n === which)?.[1];
      assert.ok(client !== undefined);
      const p = which === 'https' ? 'h' : 'i';
      const first = await client.create<Event>(resources.events, event(`${p}-a`, `${p}-pod1`, { tier: 'web' }));
      await client.create<Event>(resources.events, event(`${p}-b`, `${p}-pod2`));
      const rvA = first.metadata?.resourceVersion ?? '';

      const def = srv.server.table.get('', 'v1', 'events');
      assert.ok(def !== undefined);
      assert.equal((await srv.server.store.get(def, 'default', `${p}-a`, '0'))['reason'], 'Scheduled');
      const byPod = await client.list<Event>(resources.events, { namespace: 'default', fieldSelector: `involvedObject.name=${p}-pod2` });
      assert.deepEqual(byPod.items.map((e) => e.metadata?.name), [`${p}-b`]);
      const page = await client.list<Event>(resources.events, { namespace: 'default', labelSelector: '', limit: 1, fieldSelector: `involvedObject.kind=Pod` });
      assert.equal(page.items.length, 1);
      assert.ok((page.metadata.continue ?? '') !== '', 'a cut list carries a continue token');

      // The current state first (as ADDED), then changes; a label selector turns entering and leaving into ADDED and DELETED.
      const all = client.watch<Event>(resources.events, { namespace: 'default', fieldSelector: `involvedObject.name=${p}-pod1` });
      const web = client.watch<Event>(resources.events, { namespace: 'default', labelSelector: 'tier=web', resourceVersion: rvA });
      const takeAll = reader(all);
      const takeWeb = reader(web);
      try {
        assert.deepEqual(await takeAll(1), [`ADDED ${p}-a ${rvA}`]);
        const counted = await client.patch<Event>(resources.events, `${p}-a`, 'merge', { count: 2 }, { namespace: 'default' });
        const relabelled = await client.patch<Event>(resources.events, `${p}-a`, 'merge', { metadata: { labels: { tier: 'db' } } }, { namespace: 'default' });
        const back = await client.patch<Event>(resources.events, `${p}-a`, 'merge', { metadata: { labels: { tier: 'web' } } }, { namespace: 'default' });
        await client.delete(resources.events, `${p}-a`, { namespace: 'default' });
        const rv = (e: Event): string => e.metadata?.resourceVersion ?? '';
        const watched = await takeAll(4);
        assert.deepEqual(watched.slice(0, 3), [`MODIFIED ${p}-a ${rv(counted)}`, `MODIFIED ${p}-a ${rv(relabelled)}`, `MODIFIED ${p}-a ${rv(back)}`]);
        // A deleted object carries the revision of its delete, above the last write's.
        const [type, name, deletedRv] = (watched[3] ?? '').split(' ');
        assert.deepEqual([type, name], ['DELETED', `${p}-a`]);
        assert.ok(Number(deletedRv) > Number(rv(back)));
        const webSeen = await takeWeb(4);
        assert.deepEqual(webSeen.map((s) => s.split(' ').slice(0, 2).join(' ')), [`MODIFIED ${p}-a`, `DELETED ${p}-a`, `ADDED ${p}-a`, `DELETED ${p}-a`]);
        assert.equal(webSeen[1], `DELETED ${p}-a ${rv(relabelled)}`, 'an object leaving the selector is sent as it was, at the revision of the change');
      } finally {
        all.close();
        web.close();
      }
      await client.delete(resources.events, `${p}-b`, { namespace: 'default' });
    });
  }

  test('a watch from a past resourceVersion replays storage history; one below the compacted revision is 410 Expired', async () => {
    const client = srv.http();
    const one = await client.create<Event>(resources.events, event('r-1', 'r-pod'));
    await client.create<Event>(resources.events, event('r-2', 'r-pod'));
    await client.create<Event>(resources.events, event('r-3', 'r-pod'));
    const from = client.watch<Event>(resources.events, { namespace: 'default', resourceVersion: one.metadata?.resourceVersion ?? '', fieldSelector: 'involvedObject.name=r-pod' });
    try {
      assert.deepEqual((await reader(from)(2)).map((s) => s.split(' ').slice(0, 2).join(' ')), ['ADDED r-2', 'ADDED r-3']);
    } finally {
      from.close();
    }

    await srv.backend.compact(await srv.backend.currentRevision());
    const old = client.watch<Event>(resources.events, { namespace: 'default', resourceVersion: one.metadata?.resourceVersion ?? '' });
    try {
      for await (const e of old) {
        assert.equal(e.type, 'ERROR');
        assert.deepEqual(e.object, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: mvcc: required revision has been compacted', reason: 'Expired', code: 410 });
        break;
      }
    } finally {
      old.close();
    }
    const def = srv.server.table.get('', 'v1', 'events');
    assert.ok(def !== undefined);
    await assert.rejects(
      srv.server.store.watch(def, { labelSelector: parseSelector(''), fieldSelector: FieldSelector.everything(), resourceVersion: one.metadata?.resourceVersion ?? '' }, { push: () => undefined, close: () => undefined }),
      (e: unknown) => isApiError(e) && e.code === 410,
    );
  });

  test('events.k8s.io/v1 watches and lists the same storage in its own form', async () => {
    const client = srv.http();
    const w = client.watch<KubeObject & { regarding?: { name?: string }; note?: string }>(resources.eventsV1, { namespace: 'default', fieldSelector: 'regarding.name=v-pod' });
    try {
      await client.create<Event>(resources.events, event('v-1', 'v-pod'));
      for await (const e of w) {
        assert.equal(e.type, 'ADDED');
        assert.equal(e.object.apiVersion, 'events.k8s.io/v1');
        assert.equal(e.object.regarding?.name, 'v-pod');
        assert.equal(e.object.note, 'Successfully assigned default/v-pod to n1');
        break;
      }
    } finally {
      w.close();
    }
    const listed = await client.list<KubeObject>(resources.eventsV1, { namespace: 'default', fieldSelector: 'regarding.name=v-pod' });
    assert.deepEqual(listed.items.map((e) => e.metadata?.name), ['v-1']);
  });
});
