import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer } from 'node:net';
import { Etcd3 } from 'etcd3';
import { registerBackendConformance, takeEvents } from '../conformance/suite.js';
import { Compacted } from '../backend.js';
import { openEtcdBackend, prefixRangeEnd, type EtcdBackend } from './etcd-backend.js';
import { startTestEtcd, type TestEtcd } from './_test-etcd.js';

let etcd: TestEtcd | undefined;
let stores = 0;

before(async () => {
  etcd = await startTestEtcd();
});

after(async () => {
  await etcd?.stop();
});

function server(): TestEtcd {
  if (etcd === undefined) throw new Error('etcd did not start');
  return etcd;
}

/** Each store is its own key space `/t<n>/registry/` of the one test etcd. */
function nextRoot(): string {
  stores++;
  return `/t${stores}/registry/`;
}

registerBackendConformance({
  name: 'etcd',
  async fixture() {
    const s = server();
    const root = nextRoot();
    return {
      root,
      // The suite compacts by itself: a compactor compacting the shared etcd in the middle of it would not do.
      openOptions: { kind: 'etcd', endpoints: s.endpoints, prefix: root, compaction: false },
      open: () => openEtcdBackend({ endpoints: s.endpoints, prefix: root, compaction: false }),
      restartServer: () => s.restart(),
      crashServer: () => s.crash(),
      cleanup: async () => {},
    };
  },
});

void test('prefixRangeEnd is the first key after the prefix', () => {
  const cases: { name: string; prefix: number[]; want: number[] }[] = [
    { name: 'increments the last byte', prefix: [0x61, 0x62], want: [0x61, 0x63] },
    { name: 'drops trailing 0xff bytes', prefix: [0x61, 0xff, 0xff], want: [0x62] },
    { name: 'all 0xff means no end', prefix: [0xff], want: [0] },
  ];
  for (const tc of cases) {
    assert.deepEqual([...prefixRangeEnd(Buffer.from(tc.prefix))], tc.want, tc.name);
  }
});

void test('keys outside the storage prefix are rejected', async () => {
  const root = nextRoot();
  const b = await openEtcdBackend({ endpoints: server().endpoints, prefix: root });
  try {
    await assert.rejects(b.create('/other/pods/a', new Uint8Array()), RangeError);
    await assert.rejects(b.list('/'), RangeError);
    assert.throws(() => b.watch('/other/', 0), RangeError);
  } finally {
    await b.close();
  }
});

void test('a watch resumes without gaps or duplicates after etcd restarts', async () => {
  const root = nextRoot();
  const s = server();
  let b: EtcdBackend | undefined = await openEtcdBackend({ endpoints: s.endpoints, prefix: root });
  const watch = b.watch(root, await b.currentRevision());
  let writer: EtcdBackend | undefined;
  try {
    const r1 = await b.create(`${root}pods/a`, new Uint8Array([1]));
    assert.equal((await takeEvents(watch, 1))[0]?.revision, r1);
    await s.restart();
    // A fresh client for the writes: the watching client may still be backing off.
    writer = await openEtcdBackend({ endpoints: s.endpoints, prefix: root });
    const r2 = await writer.create(`${root}pods/b`, new Uint8Array([2]));
    const r3 = await writer.create(`${root}pods/c`, new Uint8Array([3]));
    const events = await takeEvents(watch, 2, 15_000);
    assert.deepEqual(
      events.map((ev) => ev.revision),
      [r2, r3],
    );
  } finally {
    watch.close();
    await writer?.close();
    await b.close();
    b = undefined;
  }
});

void test('a slow watcher pauses its stream and still sees every event once', async () => {
  const root = nextRoot();
  const b = await openEtcdBackend({ endpoints: server().endpoints, prefix: root, watchBufferEvents: 3 });
  const watch = b.watch(root, await b.currentRevision());
  try {
    const revs = await Promise.all(
      Array.from({ length: 100 }, (_, i) => b.create(`${root}p${i}`, new Uint8Array([i]))),
    );
    const seen: number[] = [];
    for await (const ev of watch) {
      seen.push(ev.revision);
      if (seen.length % 10 === 0) await new Promise((r) => setTimeout(r, 5));
      if (seen.length === revs.length) break;
    }
    assert.deepEqual(
      seen,
      revs.sort((x, y) => x - y),
    );
  } finally {
    watch.close();
    await b.close();
  }
});

void test('a watch delivers every event of a multi-key etcd transaction (they share one revision)', async () => {
  const root = nextRoot();
  const s = server();
  const b = await openEtcdBackend({ endpoints: s.endpoints, prefix: root });
  const raw = new Etcd3({ hosts: s.endpoints });
  const watch = b.watch(root, await b.currentRevision());
  try {
    const res = await raw.kv.txn({
      success: [
        { request_put: { key: Buffer.from(`${root}a`), value: Buffer.from('1') } },
        { request_put: { key: Buffer.from(`${root}b`), value: Buffer.from('2') } },
      ],
    });
    const rev = Number(res.header.revision);
    const events = await takeEvents(watch, 2);
    assert.deepEqual(
      events.map((ev) => `${ev.revision} ${ev.kv.key}`),
      [`${rev} ${root}a`, `${rev} ${root}b`],
    );
  } finally {
    watch.close();
    raw.close();
    await b.close();
  }
});

void test('opening fails with a clear error when etcd does not answer', async () => {
  const closed = await new Promise<number>((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr !== null ? addr.port : 0));
    });
  });
  await assert.rejects(
    openEtcdBackend({ endpoints: [`http://127.0.0.1:${closed}`], requestTimeoutMs: 2000 }),
    new RegExp(`^Error: etcd at http://127\\.0\\.0\\.1:${closed} did not answer: `),
  );
});

void test('a list larger than gRPC’s default 4 MiB message limit is received whole', async () => {
  const root = nextRoot();
  const b = await openEtcdBackend({ endpoints: server().endpoints, prefix: root });
  try {
    const mib = new Uint8Array(1024 * 1024).fill(120);
    for (let i = 0; i < 6; i++) await b.create(`${root}configmaps/big/c${i}`, mib);
    const res = await b.list(`${root}configmaps/`);
    assert.equal(res.items.length, 6);
    assert.ok(res.items.every((kv) => kv.value.length === mib.length));
  } finally {
    await b.close();
  }
});

void test('the compactor compacts, each interval, the history older than the interval before (kube-apiserver’s compactor)', async () => {
  const root = nextRoot();
  const writer = await openEtcdBackend({ endpoints: server().endpoints, prefix: root, compaction: false });
  const errors: unknown[] = [];
  const b = await openEtcdBackend({ endpoints: server().endpoints, prefix: root, compaction: { intervalMs: 300 }, onBackgroundError: (e) => errors.push(e) });
  try {
    const before = await b.compactedRevision();
    const r1 = await writer.create(`${root}pods/default/a`, new Uint8Array([1]));
    // The first tick only takes the current revision; the second compacts to it.
    let compacted = before;
    const deadline = Date.now() + 10_000;
    while (compacted <= before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      compacted = await b.compactedRevision();
    }
    assert.ok(compacted >= r1, `compacted to ${compacted}, after the write at ${r1}`);
    await assert.rejects(b.list(`${root}pods/`, { revision: r1 - 1 }), Compacted);
    // The current state survives compaction.
    assert.deepEqual((await b.list(`${root}pods/`)).items.map((kv) => kv.key), [`${root}pods/default/a`]);
    assert.deepEqual(errors, []);
  } finally {
    await b.close();
    await writer.close();
  }
});

void test('reads and writes go on after etcd restarts or crashes: calls wait for it within their deadline', async () => {
  const root = nextRoot();
  const s = server();
  const b = await openEtcdBackend({ endpoints: s.endpoints, prefix: root, compaction: false });
  try {
    const r1 = await b.create(`${root}pods/a`, new Uint8Array([1]));
    // A write sent while etcd is down waits for it to come back.
    const during = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return b.create(`${root}pods/b`, new Uint8Array([2]));
    })();
    await s.restart();
    const r2 = await during;
    assert.ok(r2 > r1);
    await s.crash();
    const r3 = await b.update(`${root}pods/a`, new Uint8Array([3]), r1);
    assert.ok(r3 > r2);
    assert.deepEqual(
      (await b.list(`${root}pods/`)).items.map((kv) => [kv.key, [...kv.value]]),
      [
        [`${root}pods/a`, [3]],
        [`${root}pods/b`, [2]],
      ],
    );
  } finally {
    await b.close();
  }
});

void test('a request’s deadline runs from when it is sent, not while it waits for a request slot', async () => {
  const root = nextRoot();
  // One slot: the 2,000 creates go one after another, together far longer than one request's deadline.
  const b = await openEtcdBackend({ endpoints: server().endpoints, prefix: root, maxInflightRequests: 1, requestTimeoutMs: 500, compaction: false });
  try {
    const started = Date.now();
    const results = await Promise.allSettled(Array.from({ length: 2000 }, (_, i) => b.create(`${root}configmaps/q/c${i}`, new Uint8Array([120]))));
    const waited = Date.now() - started;
    const failed = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason));
    assert.deepEqual(failed, [], `after ${waited} ms`);
    assert.equal((await b.list(`${root}configmaps/`)).items.length, 2000);
  } finally {
    await b.close();
  }
});
