/**
 * The watch cache takes the labels and fields of this server's own writes from the writer instead of
 * decoding the stored value (`CacheDispatcher.noteWrite`): what the store notes must be exactly what
 * decoding the stored object gives, for every kind of pod write.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { resources } from '../../src/api/resources.js';
import type { Client } from '../../src/client/client.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';
import { objectAttrs } from '../../src/apiserver/registry/strategy.js';
import { CacheDispatcher, storedTextOf, type ObjectAttrs } from '../../src/apiserver/storage/watch-cache.js';
import { openSqliteBackend } from '../../src/storage/sqlite/sqlite-backend.js';

describe('watch cache: attributes of a write come from its writer', () => {
  let srv: TestApiServer;
  let client: Client;
  before(async () => {
    srv = await startTestApiServer();
    client = srv.inProcess();
    // No service account controller runs here: the pod's service account must exist for admission.
    await client.create(resources.serviceaccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
  });
  after(async () => {
    await srv.stop();
  });

  test('after a create, label patch, binding, status update and graceful delete the noted attributes equal the decoded ones', async () => {
    const def = srv.server.table.get('', 'v1', 'pods');
    assert.ok(def !== undefined);
    const cache = await srv.server.store.cache(def);
    const key = `${def.keyPrefix}default/p`;
    const check = (step: string): void => {
      const c = cache.get(key);
      assert.ok(c !== undefined, step);
      assert.deepEqual(c.attrs, objectAttrs(def, c.obj), step);
    };
    await client.create<Pod>(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'pause' }] } });
    check('create');
    await client.patch(resources.pods, 'p', 'merge', { metadata: { labels: { tier: 'web' } } }, { namespace: 'default' });
    check('label patch');
    await client.createSubresource(resources.pods, 'p', 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p', namespace: 'default' }, target: { kind: 'Node', name: 'n1' } }, { namespace: 'default' });
    check('binding');
    assert.equal(cache.get(key)?.attrs?.fields['spec.nodeName'], 'n1');
    await client.patch(resources.pods, 'p', 'merge', { status: { phase: 'Running', podIP: '10.0.0.9' } }, { namespace: 'default', subresource: 'status' });
    check('status');
    assert.equal(cache.get(key)?.attrs?.fields['status.phase'], 'Running');
    await client.delete(resources.pods, 'p', { namespace: 'default' });
    check('graceful delete');
  });
});

test('watch cache: a change whose bytes were noted carries the noted attributes and text; other changes are decoded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubemix-attrs-'));
  const backend = openSqliteBackend({ dataDir: dir, compaction: false });
  const dispatcher = new CacheDispatcher(backend);
  try {
    await dispatcher.start();
    const decoded: string[] = [];
    const cache = await dispatcher.cacheFor('/registry/things/', {
      indexNodeName: false,
      attrsOf: (obj) => {
        decoded.push(obj.metadata?.name ?? '');
        return { labels: obj.metadata?.labels, fields: { 'metadata.name': obj.metadata?.name ?? '' } };
      },
    });
    const dispatched = new Map<string, string | undefined>();
    cache.watch({ matches: () => true }, { push: (_t, c) => dispatched.set(c.key, storedTextOf(c)), close: () => undefined }, 0);
    const noted: ObjectAttrs = { labels: { from: 'writer' }, fields: { 'metadata.name': 'a' } };
    const text = JSON.stringify({ metadata: { name: 'a' } });
    const bytes = Buffer.from(text);
    // The writer's text, told apart from the bytes' own decoding by its spacing: what watchers get.
    const writerText = JSON.stringify({ metadata: { name: 'a' } }, null, 1);
    dispatcher.noteWrite('/registry/things/a', bytes, noted, writerText);
    const rev = await backend.create('/registry/things/a', bytes);
    const textB = JSON.stringify({ metadata: { name: 'b', labels: { x: 'y' } } });
    await backend.create('/registry/things/b', Buffer.from(textB));
    await dispatcher.waitForRevision(rev + 1);
    const a = cache.get('/registry/things/a');
    const b = cache.get('/registry/things/b');
    assert.ok(a !== undefined && b !== undefined);
    assert.equal(cache.attrs(a), noted);
    assert.deepEqual(cache.attrs(b), { labels: { x: 'y' }, fields: { 'metadata.name': 'b' } });
    assert.deepEqual(decoded, ['b']);
    assert.deepEqual(dispatched, new Map([['/registry/things/a', writerText], ['/registry/things/b', textB]]));
    // The note is taken once: the text is not kept with the cached bytes after the dispatch.
    assert.equal(a.obj.metadata?.name, 'a');
    assert.equal(storedTextOf(a), undefined);
  } finally {
    await dispatcher.stop();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
});
