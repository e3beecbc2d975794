import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WatchEvent } from '../../storage/backend.js';
import { ResourceCache, type CachedObject, type CacheEventType, type ObjectAttrs, type StoredObject } from './watch-cache.js';

const prefix = '/registry/pods/';
let revision = 0;

function put(name: string, nodeName: string, phase = 'Pending'): WatchEvent {
  const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', labels: { app: 'a' } }, spec: { nodeName }, status: { phase } };
  const rv = ++revision;
  return { type: 'put', kv: { key: `${prefix}ns/${name}`, value: Buffer.from(JSON.stringify(obj)), createRevision: rv, modRevision: rv }, revision: rv };
}

function podAttrs(counter: { calls: number }): (obj: StoredObject) => ObjectAttrs {
  return (obj) => {
    counter.calls++;
    const spec = obj['spec'] as { nodeName?: string };
    const status = obj['status'] as { phase?: string };
    return { labels: obj.metadata?.labels, fields: { 'metadata.name': obj.metadata?.name ?? '', 'spec.nodeName': spec.nodeName ?? '', 'status.phase': status.phase ?? '' } };
  };
}

function recorder(): { seen: [CacheEventType, string][]; sink: { push: (t: CacheEventType, c: CachedObject) => void; close: () => void } } {
  const seen: [CacheEventType, string][] = [];
  return { seen, sink: { push: (t, c) => seen.push([t, `${c.obj.metadata?.name ?? ''}@${String((c.obj['spec'] as { nodeName: string }).nodeName)}`]), close: () => undefined } };
}

test('watch cache: filters read the labels and fields computed once per version, never the previous version decoded again', () => {
  const counter = { calls: 0 };
  const cache = new ResourceCache(prefix, 0, { indexNodeName: true, attrsOf: podAttrs(counter), keepDecoded: false });
  const onN1 = recorder();
  const running = recorder();
  cache.watch({ nodeName: 'n1', matches: () => true }, onN1.sink, 0);
  cache.watch({ matches: (a) => a.fields['status.phase'] === 'Running' }, running.sink, 0);

  cache.apply(put('p', 'n1'));
  cache.apply(put('p', 'n1', 'Running'));
  cache.apply(put('p', 'n2', 'Running'));

  // The node watcher sees the pod leave its node as DELETED; the phase watcher sees it enter as ADDED.
  assert.deepEqual(onN1.seen, [['ADDED', 'p@n1'], ['MODIFIED', 'p@n1'], ['DELETED', 'p@n2']]);
  assert.deepEqual(running.seen, [['ADDED', 'p@n1'], ['MODIFIED', 'p@n2']]);
  assert.equal(counter.calls, 3, 'attributes are computed once per version');
  assert.deepEqual(cache.list({ nodeName: 'n2', matches: () => true }).map((c) => c.key), [`${prefix}ns/p`]);
  assert.deepEqual(cache.list({ nodeName: 'n1', matches: () => true }), []);
  assert.equal(counter.calls, 3, 'lists filter on the kept attributes');
});

test('watch cache: without keepDecoded an object is one tree while its change is dispatched and decoded afresh afterwards', () => {
  for (const keepDecoded of [false, true]) {
    const cache = new ResourceCache(prefix, 0, { indexNodeName: true, attrsOf: podAttrs({ calls: 0 }), keepDecoded });
    const during: boolean[] = [];
    cache.watch({ matches: () => true }, { push: (_t, c) => during.push(c.obj === c.obj), close: () => undefined }, 0);
    cache.apply(put('q', 'n1'));
    assert.deepEqual(during, [true]);
    const c = cache.get(`${prefix}ns/q`);
    assert.ok(c !== undefined);
    assert.equal(c.obj === c.obj, keepDecoded, `keepDecoded ${String(keepDecoded)}`);
    assert.deepEqual(c.obj, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q', namespace: 'ns', labels: { app: 'a' }, resourceVersion: String(c.rv) }, spec: { nodeName: 'n1' }, status: { phase: 'Pending' } });
  }
});
