import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { apiErrors } from '../api/errors.js';
import { resources } from '../api/resources.js';
import type { KubeList, KubeObject, ListOptions, WatchOptions } from './client.js';
import { FakeClock } from './clock.js';
import { FakeClient, settle, waitUntil } from './_fake-client.js';
import { createInformer, isNewerResourceVersion, objectKey, trimManagedFields, type Informer } from './informer.js';
import { createInformerFactory } from './informer-factory.js';

function pod(name: string, rv: string, nodeName = ''): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', resourceVersion: rv, uid: `uid-${name}` },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...(nodeName !== '' ? { nodeName } : {}) },
  };
}

function podList(items: Pod[], rv: string, cont?: string): KubeList<KubeObject> {
  return { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: rv, ...(cont !== undefined ? { continue: cont } : {}) }, items };
}

/** Records handler calls as strings: `add a@1`, `update a@1->a@2`, `delete a@2`. */
function recorder(inf: Informer<Pod>, log: string[], prefix = ''): void {
  const s = (p: Pod): string => `${p.metadata?.name ?? ''}@${p.metadata?.resourceVersion ?? ''}`;
  inf.addHandlers({
    onAdd: (p) => log.push(`${prefix}add ${s(p)}`),
    onUpdate: (o, n) => log.push(`${prefix}update ${s(o)}->${s(n)}`),
    onDelete: (p) => log.push(`${prefix}delete ${s(p)}`),
  });
}

function silent(): { log: (m: string, e?: unknown) => void; messages: string[] } {
  const messages: string[] = [];
  return { messages, log: (m) => messages.push(m) };
}

void describe('informer', () => {
  void test('objectKey is namespace/name, or name for cluster-scoped objects', () => {
    assert.equal(objectKey(pod('a', '1')), 'ns/a');
    assert.equal(objectKey({ metadata: { name: 'n1' } }), 'n1');
  });

  void test('resourceVersions compare as integers when both are integers', () => {
    assert.equal(isNewerResourceVersion('10', '9'), true);
    assert.equal(isNewerResourceVersion('9', '10'), false);
    assert.equal(isNewerResourceVersion('10', '10'), false);
    assert.equal(isNewerResourceVersion('abc', 'abd'), true);
    assert.equal(isNewerResourceVersion('abc', 'abc'), false);
    // Numbers of any size, leading zeros and all, as BigInt compares them.
    const numeric: Array<[string, string]> = [
      ['99999999999999999999999', '99999999999999999999998'],
      ['100000000000000000000000', '99999999999999999999999'],
      ['010', '9'],
      ['10', '0009'],
      ['0', '000'],
      ['007', '7'],
      ['1', '0'],
      ['123', '124'],
    ];
    for (const [a, b] of numeric) {
      assert.equal(isNewerResourceVersion(a, b), BigInt(a) > BigInt(b), `${a} > ${b}`);
      assert.equal(isNewerResourceVersion(b, a), BigInt(b) > BigInt(a), `${b} > ${a}`);
    }
    assert.equal(isNewerResourceVersion('12a', '12'), true);
    assert.equal(isNewerResourceVersion('-1', '-1'), false);
  });

  void test('lists in pages, then watches from the list resourceVersion with bookmarks', async (t) => {
    const client = new FakeClient();
    const pages: Record<string, KubeList<KubeObject>> = {
      '': podList([pod('a', '1'), pod('b', '2')], '10', 'c1'),
      c1: podList([pod('c', '3'), pod('d', '4')], '10', 'c2'),
      c2: podList([pod('e', '5')], '10'),
    };
    client.onList = (_res, opts: ListOptions) => Promise.resolve(pages[opts.continue ?? ''] ?? podList([], '10'));
    const inf = createInformer<Pod>(client, resources.pods, {
      namespace: 'ns',
      labelSelector: 'app=web',
      fieldSelector: 'spec.nodeName=n1',
      pageSize: 2,
      clock: new FakeClock(),
    });
    const log: string[] = [];
    recorder(inf, log);
    inf.start();
    t.after(() => inf.stop());
    await inf.waitForSync();
    assert.equal(inf.hasSynced(), true);
    assert.deepEqual(
      client.calls.filter((c) => c.verb === 'list').map((c) => c.opts),
      [
        { namespace: 'ns', labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1', limit: 2, resourceVersion: '0', readOnly: true },
        { namespace: 'ns', labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1', limit: 2, readOnly: true, continue: 'c1' },
        { namespace: 'ns', labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1', limit: 2, readOnly: true, continue: 'c2' },
      ],
    );
    assert.deepEqual(log, ['add a@1', 'add b@2', 'add c@3', 'add d@4', 'add e@5']);
    assert.deepEqual(
      inf.list().map((p) => p.metadata?.name),
      ['a', 'b', 'c', 'd', 'e'],
    );
    await waitUntil(() => client.watches.length === 1, 'the watch');
    const w = client.watches[0];
    assert.ok(w !== undefined);
    assert.equal(w.opts.resourceVersion, '10');
    assert.equal(w.opts.allowWatchBookmarks, true);
    assert.equal(w.opts.namespace, 'ns');
    assert.equal(w.opts.labelSelector, 'app=web');
    assert.equal(w.opts.fieldSelector, 'spec.nodeName=n1');
    assert.equal(w.opts.readOnly, true);
    assert.equal(inf.lastSyncResourceVersion(), '10');
  });

  void test('list items without apiVersion and kind get them from the resource type', async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([{ metadata: { name: 'x', namespace: 'ns', resourceVersion: '1' } }], '1'));
    const inf = createInformer<Pod>(client, resources.pods, { clock: new FakeClock() });
    inf.start();
    t.after(() => inf.stop());
    await inf.waitForSync();
    assert.equal(inf.get('ns/x')?.kind, 'Pod');
    assert.equal(inf.get('ns/x')?.apiVersion, 'v1');
  });

  void test('transform applies to listed and watched objects before caching', async (t) => {
    const client = new FakeClient();
    client.onList = () =>
      Promise.resolve(podList([{ ...pod('a', '1'), metadata: { ...pod('a', '1').metadata, managedFields: [{ manager: 'kubectl' }] } }], '1'));
    const inf = createInformer<Pod>(client, resources.pods, {
      clock: new FakeClock(),
      transform: (p) => {
        const { managedFields: _drop, ...metadata } = p.metadata ?? {};
        return { ...p, metadata };
      },
    });
    inf.start();
    t.after(() => inf.stop());
    await inf.waitForSync();
    assert.equal(inf.get('ns/a')?.metadata?.managedFields, undefined);
    await waitUntil(() => client.watches.length === 1, 'the watch');
    client.watches[0]?.send('MODIFIED', { ...pod('a', '2'), metadata: { ...pod('a', '2').metadata, managedFields: [{ manager: 'x' }] } });
    await waitUntil(() => inf.get('ns/a')?.metadata?.resourceVersion === '2', 'the update');
    assert.equal(inf.get('ns/a')?.metadata?.managedFields, undefined);
  });

  void test('trimManagedFields drops managedFields without touching a shared frozen object', () => {
    const shared = Object.freeze({ ...pod('a', '1'), metadata: Object.freeze({ ...pod('a', '1').metadata, managedFields: [{ manager: 'kubelet' }] }) });
    const trimmed = trimManagedFields(shared);
    assert.equal(trimmed.metadata?.managedFields, undefined);
    assert.equal(trimmed.metadata?.name, 'a');
    assert.deepEqual(trimmed.spec, shared.spec);
    assert.deepEqual(shared.metadata.managedFields, [{ manager: 'kubelet' }]);
    const plain = pod('b', '1');
    assert.equal(trimManagedFields(plain), plain, 'an object without managedFields is handed on as it is');
  });

  void test("a factory's transform applies to its informers that have none of their own", async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([{ ...pod('a', '1'), metadata: { ...pod('a', '1').metadata, managedFields: [{ manager: 'kubectl' }] } }], '1'));
    const factory = createInformerFactory(client, { clock: new FakeClock(), transform: trimManagedFields });
    const trimmed = factory.informerFor<Pod>(resources.pods);
    const own = factory.informerFor<Pod>(resources.pods, { namespace: 'ns', transform: (p) => ({ ...p, metadata: { ...p.metadata, labels: { own: 'yes' } } }) });
    factory.start();
    t.after(() => factory.stop());
    await factory.waitForSync();
    assert.equal(trimmed.get('ns/a')?.metadata?.managedFields, undefined);
    assert.deepEqual(own.get('ns/a')?.metadata?.labels, { own: 'yes' });
    assert.deepEqual(own.get('ns/a')?.metadata?.managedFields, [{ manager: 'kubectl' }]);
    // Only the informer that drops managedFields tells the server it will not read them.
    await waitUntil(() => client.watches.length === 2, 'the watches');
    const watchOpts = (namespace: string | undefined): WatchOptions | undefined =>
      client.calls.find((c) => c.verb === 'watch' && (c.opts as WatchOptions).namespace === namespace)?.opts as WatchOptions | undefined;
    assert.equal(watchOpts(undefined)?.managedFieldsUnread, true);
    assert.equal(watchOpts('ns')?.managedFieldsUnread, undefined);
  });

  void test('watch events reach every handler in order; stale events are ignored', async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([pod('a', '5')], '5'));
    const inf = createInformer<Pod>(client, resources.pods, { clock: new FakeClock() });
    const log: string[] = [];
    recorder(inf, log, '1:');
    recorder(inf, log, '2:');
    inf.start();
    t.after(() => inf.stop());
    await waitUntil(() => client.watches.length === 1, 'the watch');
    const w = client.watches[0];
    assert.ok(w !== undefined);
    w.send('ADDED', pod('b', '6'));
    w.send('MODIFIED', pod('a', '7'));
    w.send('MODIFIED', pod('a', '6')); // older than what the cache holds
    w.send('ADDED', pod('b', '6')); // a replay of what the cache holds
    w.send('DELETED', pod('b', '8'));
    w.send('DELETED', pod('zz', '9')); // never seen
    w.send('BOOKMARK', { metadata: { resourceVersion: '12' } });
    await waitUntil(() => inf.lastSyncResourceVersion() === '12', 'the bookmark');
    assert.deepEqual(log, [
      '1:add a@5',
      '2:add a@5',
      '1:add b@6',
      '2:add b@6',
      '1:update a@5->a@7',
      '2:update a@5->a@7',
      '1:delete b@8',
      '2:delete b@8',
    ]);
    assert.deepEqual(
      inf.list().map((p) => `${p.metadata?.name ?? ''}@${p.metadata?.resourceVersion ?? ''}`),
      ['a@7'],
    );
  });

  void test('when the server ends the watch it re-watches from the last resourceVersion seen', async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([], '5'));
    const clock = new FakeClock();
    const inf = createInformer<Pod>(client, resources.pods, { clock });
    inf.start();
    t.after(() => inf.stop());
    await waitUntil(() => client.watches.length === 1, 'the watch');
    client.watches[0]?.send('ADDED', pod('a', '9'));
    await waitUntil(() => inf.get('ns/a') !== undefined, 'the add');
    client.watches[0]?.end();
    await waitUntil(() => client.watches.length === 2, 'the second watch');
    assert.equal(client.watches[1]?.opts.resourceVersion, '9');
    assert.equal(client.calls.filter((c) => c.verb === 'list').length, 1, 'no relist');
  });

  void test('a watch that ends at once without events backs off before re-watching', async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([], '5'));
    const clock = new FakeClock();
    const inf = createInformer<Pod>(client, resources.pods, { clock });
    inf.start();
    t.after(() => inf.stop());
    await waitUntil(() => client.watches.length === 1, 'the watch');
    client.watches[0]?.end();
    await settle();
    assert.equal(client.watches.length, 1);
    clock.step(799);
    await settle();
    assert.equal(client.watches.length, 1);
    clock.step(1);
    await waitUntil(() => client.watches.length === 2, 'the second watch');
  });

  void test('a 410 ERROR event relists and turns the difference into updates, adds and deletes', async (t) => {
    const client = new FakeClient();
    let listed = 0;
    client.onList = () => {
      listed++;
      return Promise.resolve(
        listed === 1 ? podList([pod('a', '1'), pod('b', '2'), pod('c', '3')], '3') : podList([pod('a', '7'), pod('c', '3'), pod('d', '8')], '9'),
      );
    };
    const inf = createInformer<Pod>(client, resources.pods, { clock: new FakeClock() });
    const log: string[] = [];
    recorder(inf, log);
    inf.start();
    t.after(() => inf.stop());
    await waitUntil(() => client.watches.length === 1, 'the watch');
    log.length = 0;
    client.watches[0]?.send('ERROR', {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'too old resource version: 3 (5)',
      reason: 'Expired',
      code: 410,
    } as unknown as Pod);
    await waitUntil(() => client.watches.length === 2, 'the watch after the relist');
    assert.equal(listed, 2);
    // client-go's relistResourceVersion: "0" first (the watch cache answers), then the last one seen.
    assert.deepEqual(
      client.calls.filter((c) => c.verb === 'list').map((c) => (c.opts as ListOptions).resourceVersion),
      ['0', '3'],
    );
    assert.deepEqual(log, ['update a@1->a@7', 'add d@8', 'delete b@2']);
    assert.equal(client.watches[1]?.opts.resourceVersion, '9');
    assert.equal(client.watches[0]?.closed, true);
  });

  void test('a watch failing with an ApiError 410 relists too', async (t) => {
    const client = new FakeClient();
    let listed = 0;
    client.onList = () => {
      listed++;
      return Promise.resolve(podList([pod('a', String(listed))], String(listed)));
    };
    const inf = createInformer<Pod>(client, resources.pods, { clock: new FakeClock() });
    inf.start();
    t.after(() => inf.stop());
    await waitUntil(() => client.watches.length === 1, 'the watch');
    client.watches[0]?.fail(apiErrors.resourceExpired('too old resource version: 1 (4)'));
    await waitUntil(() => client.watches.length === 2, 'the watch after the relist');
    assert.equal(listed, 2);
    assert.equal(inf.get('ns/a')?.metadata?.resourceVersion, '2');
  });

  for (const [what, refusal] of [
    ['410 Expired', apiErrors.resourceExpired('too old resource version: 3 (5)')],
    ['504 ResourceVersionTooLarge', apiErrors.tooLargeResourceVersion(30, 9)],
  ] as const) {
    void test(`a list at the last resourceVersion answered ${what} is retried at once as a consistent read`, async (t) => {
      const client = new FakeClient();
      const asked: (string | undefined)[] = [];
      client.onList = (_res, opts: ListOptions) => {
        asked.push(opts.resourceVersion);
        if (asked.length === 2) return Promise.reject(refusal);
        return Promise.resolve(podList([pod('a', String(asked.length))], String(asked.length + 2)));
      };
      const clock = new FakeClock();
      const inf = createInformer<Pod>(client, resources.pods, { clock });
      inf.start();
      t.after(() => inf.stop());
      await waitUntil(() => client.watches.length === 1, 'the watch');
      client.watches[0]?.fail(apiErrors.resourceExpired('too old resource version: 3 (5)'));
      await waitUntil(() => client.watches.length === 2, 'the watch after the relist');
      assert.deepEqual(asked, ['0', '3', undefined]);
      assert.equal(inf.get('ns/a')?.metadata?.resourceVersion, '3');
      assert.equal(client.watches[1]?.opts.resourceVersion, '5');
      // Listed again, the informer goes back to asking for the last resourceVersion seen.
      client.watches[1]?.fail(apiErrors.resourceExpired('too old resource version: 5 (7)'));
      // (A second 410 without events between backs off first.)
      await settle();
      clock.step(800);
      await waitUntil(() => client.watches.length === 3, 'the third watch');
      assert.deepEqual(asked, ['0', '3', undefined, '5']);
    });
  }

  void test('list failures back off 800 ms doubling', async (t) => {
    const client = new FakeClient();
    let attempts = 0;
    client.onList = () => {
      attempts++;
      return attempts <= 3 ? Promise.reject(new Error('connection refused')) : Promise.resolve(podList([], '1'));
    };
    const clock = new FakeClock();
    const s = silent();
    const inf = createInformer<Pod>(client, resources.pods, { clock, log: s.log });
    inf.start();
    t.after(() => inf.stop());
    await settle();
    assert.equal(attempts, 1);
    clock.step(800);
    await settle();
    assert.equal(attempts, 2);
    clock.step(1599);
    await settle();
    assert.equal(attempts, 2, 'the second backoff is 1600 ms');
    clock.step(1);
    await settle();
    assert.equal(attempts, 3);
    clock.step(3200);
    await inf.waitForSync();
    assert.equal(attempts, 4);
    assert.deepEqual(s.messages, ['list failed', 'list failed', 'list failed']);
  });

  void test('watch failures back off and re-watch from the last resourceVersion without relisting', async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([], '4'));
    const clock = new FakeClock();
    const s = silent();
    const inf = createInformer<Pod>(client, resources.pods, { clock, log: s.log });
    inf.start();
    t.after(() => inf.stop());
    await waitUntil(() => client.watches.length === 1, 'the watch');
    client.watches[0]?.fail(apiErrors.internal('boom'));
    await settle();
    clock.step(800);
    await waitUntil(() => client.watches.length === 2, 'the second watch');
    assert.equal(client.watches[1]?.opts.resourceVersion, '4');
    assert.equal(client.calls.filter((c) => c.verb === 'list').length, 1);
    assert.deepEqual(s.messages, ['watch failed']);
  });

  void test('an ERROR event other than 410 backs off and re-watches from the last resourceVersion', async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([], '4'));
    const clock = new FakeClock();
    const s = silent();
    const inf = createInformer<Pod>(client, resources.pods, { clock, log: s.log });
    inf.start();
    t.after(() => inf.stop());
    await waitUntil(() => client.watches.length === 1, 'the watch');
    client.watches[0]?.send('MODIFIED', pod('a', '6'));
    client.watches[0]?.send('ERROR', apiErrors.internal('etcd is sad').toStatus());
    await waitUntil(() => s.messages.length === 1, 'the failure');
    assert.equal(client.watches[0]?.closed, true);
    clock.step(800);
    await waitUntil(() => client.watches.length === 2, 'the second watch');
    assert.equal(client.watches[1]?.opts.resourceVersion, '6');
    assert.equal(client.calls.filter((c) => c.verb === 'list').length, 1);
  });

  void test('the backoff is capped at 30 s', async (t) => {
    const client = new FakeClient();
    let attempts = 0;
    client.onList = () => {
      attempts++;
      return Promise.reject(new Error('down'));
    };
    const clock = new FakeClock();
    const inf = createInformer<Pod>(client, resources.pods, { clock, log: () => undefined });
    inf.start();
    t.after(() => inf.stop());
    await settle();
    for (const ms of [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]) {
      const before = attempts;
      clock.step(ms - 1);
      await settle();
      assert.equal(attempts, before, `not before ${ms} ms`);
      clock.step(1);
      await settle();
      assert.equal(attempts, before + 1, `after ${ms} ms`);
    }
  });

  void test('a handler that throws is logged and does not stop other handlers', async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([pod('a', '1')], '1'));
    const s = silent();
    const inf = createInformer<Pod>(client, resources.pods, { clock: new FakeClock(), log: s.log });
    inf.addHandlers({
      onAdd: () => {
        throw new Error('handler bug');
      },
    });
    const log: string[] = [];
    recorder(inf, log);
    inf.start();
    t.after(() => inf.stop());
    await inf.waitForSync();
    assert.deepEqual(log, ['add a@1']);
    assert.deepEqual(s.messages, ['event handler failed']);
  });

  void test('a handler added after sync first gets onAdd for every cached object', async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([pod('a', '1'), pod('b', '2')], '2'));
    const inf = createInformer<Pod>(client, resources.pods, { clock: new FakeClock() });
    inf.start();
    t.after(() => inf.stop());
    await inf.waitForSync();
    await waitUntil(() => client.watches.length === 1, 'the watch');
    const log: string[] = [];
    recorder(inf, log);
    assert.deepEqual(log, ['add a@1', 'add b@2']);
    client.watches[0]?.send('MODIFIED', pod('b', '3'));
    await waitUntil(() => log.length === 3, 'the update');
    assert.deepEqual(log[2], 'update b@2->b@3');
  });

  void test('indexers follow adds, updates and deletes', async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([pod('a', '1', 'n1'), pod('b', '2', 'n1'), pod('c', '3')], '3'));
    const inf = createInformer<Pod>(client, resources.pods, {
      clock: new FakeClock(),
      indexers: { nodeName: (p) => (p.spec?.nodeName !== undefined ? [p.spec.nodeName] : []) },
    });
    inf.start();
    t.after(() => inf.stop());
    await inf.waitForSync();
    const names = (v: string): string[] => inf.byIndex('nodeName', v).map((p) => p.metadata?.name ?? '').sort();
    assert.deepEqual(names('n1'), ['a', 'b']);
    await waitUntil(() => client.watches.length === 1, 'the watch');
    client.watches[0]?.send('MODIFIED', pod('b', '4', 'n2'));
    client.watches[0]?.send('MODIFIED', pod('c', '5', 'n2'));
    client.watches[0]?.send('DELETED', pod('a', '6', 'n1'));
    await waitUntil(() => inf.lastSyncResourceVersion() === '6', 'the events');
    assert.deepEqual(names('n1'), []);
    assert.deepEqual(names('n2'), ['b', 'c']);
    // An update that leaves the index value alone keeps the key there, with the new object.
    const running: Pod = { ...pod('b', '7', 'n2'), status: { phase: 'Running' } };
    client.watches[0]?.send('MODIFIED', running);
    await waitUntil(() => inf.lastSyncResourceVersion() === '7', 'the status update');
    assert.deepEqual(names('n2'), ['b', 'c']);
    assert.equal(inf.byIndex('nodeName', 'n2').find((p) => p.metadata?.name === 'b')?.status?.phase, 'Running');
    assert.throws(() => inf.byIndex('nope', 'x'), /Index with name nope does not exist/);
  });

  void test('stop closes the watch, cancels retries and is idempotent', async () => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([], '1'));
    const clock = new FakeClock();
    const inf = createInformer<Pod>(client, resources.pods, { clock });
    inf.start();
    await waitUntil(() => client.watches.length === 1, 'the watch');
    inf.stop();
    inf.stop();
    assert.equal(client.watches[0]?.closed, true);
    await settle();
    assert.equal(clock.pendingTimers(), 0);
    assert.equal(client.watches.length, 1);
  });

  void test('waitForSync rejects when stopped before sync or aborted', async () => {
    const client = new FakeClient();
    client.onList = () => new Promise(() => undefined);
    const inf = createInformer<Pod>(client, resources.pods, { clock: new FakeClock() });
    inf.start();
    const ac = new AbortController();
    const aborted = inf.waitForSync(ac.signal);
    ac.abort(new Error('test gave up'));
    await assert.rejects(aborted, /test gave up/);
    const pending = inf.waitForSync();
    inf.stop();
    await assert.rejects(pending, /informer for pods stopped before it synced/);
  });
});

void describe('informer factory', () => {
  void test('the same resource and selectors share one informer and one list+watch; indexers merge', async (t) => {
    const client = new FakeClient();
    client.onList = (_res, opts) =>
      Promise.resolve(opts.fieldSelector === undefined ? podList([pod('a', '1', 'n1'), pod('b', '2', 'n2')], '2') : podList([], '2'));
    const factory = createInformerFactory(client, { clock: new FakeClock() });
    t.after(() => factory.stop());
    const byNode = (p: Pod): string[] => (p.spec?.nodeName !== undefined ? [p.spec.nodeName] : []);
    const a = factory.informerFor<Pod>(resources.pods, { indexers: { nodeName: byNode } });
    const b = factory.informerFor<Pod>(resources.pods, { indexers: { nodeName: byNode, ns: (p) => [p.metadata?.namespace ?? ''] } });
    const other = factory.informerFor<Pod>(resources.pods, { fieldSelector: 'spec.nodeName=n1' });
    assert.equal(a, b);
    assert.notEqual(a, other);
    assert.throws(() => factory.informerFor<Pod>(resources.pods, { indexers: { nodeName: () => [] } }), /indexer conflict: nodeName/);
    factory.start();
    await factory.waitForSync();
    assert.equal(client.calls.filter((c) => c.verb === 'list').length, 2);
    assert.deepEqual(
      a.byIndex('nodeName', 'n2').map((p) => p.metadata?.name),
      ['b'],
    );
    assert.equal(a.byIndex('ns', 'ns').length, 2);
    const late = factory.informerFor<Pod>(resources.nodes);
    await late.waitForSync();
    assert.equal(late.hasSynced(), true, 'an informer handed out after start() starts at once');
  });

  void test('indexers added after sync index the cached objects', async (t) => {
    const client = new FakeClient();
    client.onList = () => Promise.resolve(podList([pod('a', '1', 'n1')], '1'));
    const inf = createInformer<Pod>(client, resources.pods, { clock: new FakeClock() });
    inf.start();
    t.after(() => inf.stop());
    await inf.waitForSync();
    inf.addIndexers({ nodeName: (p) => (p.spec?.nodeName !== undefined ? [p.spec.nodeName] : []) });
    assert.deepEqual(
      inf.byIndex('nodeName', 'n1').map((p) => p.metadata?.name),
      ['a'],
    );
  });
});
