/**
 * The in-process client's read-only lists and watches (what informers use): every such reader gets the
 * watch cache's one decoded object, frozen, so a reader that tries to change it fails instead of corrupting
 * the cache; ordinary lists and watches still get private copies the caller may change.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { resources } from '../../src/api/resources.js';
import type { Client, WatchEvent, WatchStream } from '../../src/client/client.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';
import { InProcessClient } from '../../src/apiserver/in-process-client.js';
import { objectOfStoredText } from '../../src/apiserver/storage/watch-cache.js';

async function first<T>(w: WatchStream<T>, want: (e: WatchEvent<T>) => boolean): Promise<WatchEvent<T>> {
  for await (const e of w) if (want(e)) return e;
  throw new Error('watch ended');
}

describe('in-process client: read-only lists and watches share frozen objects', () => {
  let srv: TestApiServer;
  let client: Client;
  before(async () => {
    srv = await startTestApiServer();
    client = srv.inProcess();
    await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } });
  });
  after(async () => {
    await srv.stop();
  });

  test('two read-only lists get the same frozen object; a plain list gets a private, changeable copy', async () => {
    const a = (await client.list<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true })).items[0];
    const b = (await client.list<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true })).items[0];
    assert.ok(a !== undefined && b !== undefined);
    assert.equal(a, b);
    assert.equal(Object.isFrozen(a), true);
    assert.equal(Object.isFrozen(a.data), true);
    assert.throws(() => {
      (a.data as Record<string, string>)['k'] = 'changed';
    }, TypeError);
    const mine = (await client.list<ConfigMap>(resources.configmaps, { namespace: 'default' })).items[0];
    assert.ok(mine !== undefined);
    assert.notEqual(mine, a);
    (mine.data as Record<string, string>)['k'] = 'mine';
    const again = await client.get<ConfigMap>(resources.configmaps, 'a', { namespace: 'default' });
    assert.deepEqual(again.data, { k: 'v' });
  });

  test('read-only watchers of one change receive one shared frozen object; plain watchers their own copies', async () => {
    const ro1 = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true });
    const ro2 = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default', readOnly: true });
    const plain = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default' });
    try {
      await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default' }, data: { x: '1' } });
      const isB = (e: WatchEvent<ConfigMap>): boolean => e.object.metadata?.name === 'b';
      const [e1, e2, e3] = await Promise.all([first(ro1, isB), first(ro2, isB), first(plain, isB)]);
      assert.equal(e1.object, e2.object);
      assert.equal(Object.isFrozen(e1.object.metadata), true);
      assert.notEqual(e3.object, e1.object);
      assert.equal(Object.isFrozen(e3.object), false);
      assert.deepEqual(e3.object, e1.object);
    } finally {
      ro1.close();
      ro2.close();
      plain.close();
    }
  });

  test('encoded watches carry a change as its stored text and revision, the initial state as JSON; both rebuild the same object', async () => {
    const inproc = client as InProcessClient;
    const enc = inproc.watchEncoded(resources.configmaps, { namespace: 'default' });
    const plain = client.watch<ConfigMap>(resources.configmaps, { namespace: 'default' });
    const encEvents = enc[Symbol.asyncIterator]();
    const nextEnc = async (want: (e: WatchEvent<{ json: string; storedRevision?: number }>) => boolean): Promise<WatchEvent<{ json: string; storedRevision?: number }>> => {
      for (;;) {
        const r = await encEvents.next();
        if (r.done === true) throw new Error('watch ended');
        if (want(r.value)) return r.value;
      }
    };
    try {
      const initial = await nextEnc((e) => e.type === 'ADDED');
      assert.equal(initial.object.storedRevision, undefined);
      const decoded = JSON.parse(initial.object.json) as ConfigMap;
      assert.ok((decoded.metadata?.resourceVersion ?? '') !== '');
      await client.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'enc', namespace: 'default' }, data: { a: 'b' } });
      const change = await nextEnc((e) => e.object.json.includes('"name":"enc"'));
      assert.equal(typeof change.object.storedRevision, 'number');
      assert.doesNotMatch(change.object.json, /resourceVersion/);
      const rebuilt = objectOfStoredText(change.object.json, change.object.storedRevision ?? 0);
      const seen = await first(plain, (e) => e.object.metadata?.name === 'enc');
      assert.equal(JSON.stringify(rebuilt), JSON.stringify(seen.object));
    } finally {
      enc.close();
      plain.close();
    }
  });

  test('a client whose inputs are handed over stores the same objects; every get belongs to its caller alone', async () => {
    const handing = new InProcessClient(srv.server, { user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] }, inputsOwned: true });
    const made = await handing.create<ConfigMap>(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'handed', namespace: 'default' }, data: { x: '1' } });
    const viaCopy = await client.create<ConfigMap>(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'copied', namespace: 'default' }, data: { x: '1' } });
    assert.deepEqual(made.data, viaCopy.data);
    assert.deepEqual(Object.keys(made.metadata ?? {}), Object.keys(viaCopy.metadata ?? {}));
    const a = await handing.get<ConfigMap>(resources.configmaps, 'handed', { namespace: 'default' });
    (a.data as Record<string, string>)['x'] = 'changed';
    const b = await handing.get<ConfigMap>(resources.configmaps, 'handed', { namespace: 'default' });
    assert.deepEqual(b.data, { x: '1' });
  });
});

describe('in-process client: subresource reads answer as the HTTP API does', () => {
  let srv: TestApiServer;
  before(async () => {
    srv = await startTestApiServer();
  });
  after(async () => {
    await srv.stop();
  });

  test("a GET of scale answers the Scale, over HTTPS and in process alike; a subresource the kind lacks is the router's 404", async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    await srv.inProcess().create(resources.deployments, deployment);
    const [viaHttp, inProcess] = await Promise.all([srv.http(), srv.inProcess()].map((c) => c.get(resources.deployments, 'web', { namespace: 'default', subresource: 'scale' })));
    assert.equal(inProcess?.kind, 'Scale');
    assert.deepEqual(inProcess, viaHttp);
    assert.deepEqual((inProcess as unknown as { spec: unknown; status: unknown }).spec, { replicas: 3 });
    await assert.rejects(srv.inProcess().get(resources.configmaps, 'x', { namespace: 'default', subresource: 'scale' }), { code: 404, message: 'the server could not find the requested resource' });
  });
});
