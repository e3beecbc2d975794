import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyFileSync, fdatasync, readFileSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { registerBackendConformance, takeEvents } from '../conformance/suite.js';
import { prefixEnd } from './_keys.js';
import { openSqliteBackend, pageSize, walCheckpointBytes, type SqliteBackendOptions } from './sqlite-backend.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (v: Uint8Array | undefined): string => new TextDecoder().decode(v);

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'kubemix-sqlite-'));
}

registerBackendConformance({
  name: 'sqlite',
  async fixture() {
    const dataDir = await tempDir();
    return {
      root: '/registry/',
      openOptions: { kind: 'sqlite', dataDir, compaction: false },
      open: async () => openSqliteBackend({ dataDir, compaction: false }),
      cleanup: () => rm(dataDir, { recursive: true, force: true }),
    };
  },
});

// The same contract while the index of live keys is written back all the time, in slices of two keys.
registerBackendConformance({
  name: 'sqlite, index written back every 3 changed keys',
  async fixture() {
    const dataDir = await tempDir();
    const options = { dataDir, compaction: false, currentWriteBackKeys: 3, currentWriteBackSlice: 2 } as const;
    return {
      root: '/registry/',
      openOptions: { kind: 'sqlite', dataDir, compaction: false },
      open: async () => openSqliteBackend(options),
      cleanup: () => rm(dataDir, { recursive: true, force: true }),
    };
  },
});

/** The page size a database file's header records (offset 16, big-endian; 1 stands for 65,536). */
function filePageSize(file: string): number {
  const header = readFileSync(file).subarray(0, 100);
  const size = header.readUInt16BE(16);
  return size === 1 ? 65_536 : size;
}

/** Runs `body` with a temporary directory, then removes it. */
async function withDataDir(body: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = await tempDir();
  try {
    await body(dataDir);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Runs `body` with a backend over a temporary directory, then closes it and removes the directory. */
async function withBackend(
  opts: Omit<SqliteBackendOptions, 'dataDir'>,
  body: (b: ReturnType<typeof openSqliteBackend>, dataDir: string) => Promise<void>,
): Promise<void> {
  const dataDir = await tempDir();
  const b = openSqliteBackend({ compaction: false, ...opts, dataDir });
  try {
    await body(b, dataDir);
  } finally {
    await b.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

void test('prefixEnd is the first string after every string with the prefix', () => {
  const cases: { name: string; prefix: string; want: string | undefined }[] = [
    { name: 'increments the last character', prefix: '/registry/pods/', want: '/registry/pods0' },
    { name: 'empty prefix has no end', prefix: '', want: undefined },
    { name: 'skips the surrogate block', prefix: 'a\ud7ff', want: 'a\ue000' },
    { name: 'carries over U+10FFFF', prefix: 'a\u{10ffff}', want: 'b' },
    { name: 'only U+10FFFF has no end', prefix: '\u{10ffff}', want: undefined },
  ];
  for (const tc of cases) assert.equal(prefixEnd(tc.prefix), tc.want, tc.name);
});

void test('a new store is at revision 0 and stores one file kubemix.db', () =>
  withBackend({}, async (b, dataDir) => {
    assert.equal(await b.currentRevision(), 0);
    assert.equal(await b.compactedRevision(), 0);
    assert.equal(b.file, join(dataDir, 'kubemix.db'));
    assert.ok((await b.dbSize()) > 0);
    assert.equal(await b.create('/registry/a', enc('1')), 1);
  }));

void test('a new database file has 64 KiB pages', () =>
  withBackend({}, async (b) => {
    await b.create('/registry/a', enc('1'));
    assert.equal(filePageSize(b.file), pageSize);
  }));

void test('a database file created with 4 KiB pages keeps them and its data', () =>
  withDataDir(async (dataDir) => {
    const raw = new Database(join(dataDir, 'kubemix.db'));
    raw.pragma('page_size = 4096');
    raw.pragma('journal_mode = WAL');
    raw.close();
    const b = openSqliteBackend({ dataDir, compaction: false });
    const r1 = await b.create('/registry/pods/a', enc('a1'));
    await b.close();
    const reopened = openSqliteBackend({ dataDir, compaction: false });
    try {
      assert.equal(filePageSize(reopened.file), 4096);
      assert.deepEqual([dec((await reopened.get('/registry/pods/a'))?.value), (await reopened.get('/registry/pods/a'))?.modRevision], ['a1', r1]);
    } finally {
      await reopened.close();
    }
  }));

void test('the WAL is checkpointed once it holds walCheckpointBytes, not after SQLite\'s 1,000 pages', () =>
  withBackend({}, async (b) => {
    const value = enc('x'.repeat(4000));
    const batchBytes = 200 * value.length;
    // 60 MiB of values: past walCheckpointBytes (40 MiB), short of SQLite's default of 1,000 64 KiB pages.
    for (let batch = 0; batch < (60 * 1024 * 1024) / batchBytes; batch++) {
      await Promise.all(Array.from({ length: 200 }, (_, i) => b.create(`/registry/configmaps/ns/cm-${batch}-${i}`, value)));
    }
    // The WAL restarts from its beginning after a checkpoint: its file is never longer than one interval.
    const walBytes = statSync(`${b.file}-wal`).size;
    assert.ok(walBytes > walCheckpointBytes / 2 && walBytes < walCheckpointBytes + 2 * batchBytes, `WAL of ${walBytes} bytes`);
  }));

void test('the database file cannot be opened twice', () =>
  withBackend({}, async (_b, dataDir) => {
    assert.throws(() => openSqliteBackend({ dataDir, compaction: false }), /is in use by another kubemix process/);
  }));

void test('writes issued in the same tick commit together and keep their order', () =>
  withBackend({}, async (b) => {
    const key = '/registry/pods/default/a';
    const results = await Promise.allSettled([
      b.create(key, enc('1')),
      b.create(key, enc('2')),
      b.update(key, enc('3'), 1),
      b.delete(key, 1),
      b.delete(key, 2),
      b.create(key, enc('4')),
    ]);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).name)),
      [
        1,
        'KeyExists',
        2,
        'Conflict',
        { revision: 3, prev: { key, value: Buffer.from('3'), createRevision: 1, modRevision: 2 } },
        4,
      ],
    );
  }));

void test('a slow watcher falls back to reading the log and still sees every event once', () =>
  withBackend({ watchBufferEvents: 5, watchReadBatch: 7 }, async (b) => {
    const watch = b.watch('/registry/', 0);
    try {
      const revs: number[] = [];
      for (let round = 0; round < 10; round++) {
        revs.push(
          ...(await Promise.all(Array.from({ length: 10 }, (_, i) => b.create(`/registry/p${round}-${i}`, enc('x'))))),
        );
      }
      const events = await takeEvents(watch, 100);
      assert.deepEqual(
        events.map((ev) => ev.revision),
        revs.sort((x, y) => x - y),
      );
      const live = await b.create('/registry/live', enc('y'));
      assert.deepEqual(
        (await takeEvents(watch, 1)).map((ev) => ev.revision),
        [live],
      );
    } finally {
      watch.close();
    }
  }));

void test('a slow watcher that falls behind a compaction fails with Compacted', () =>
  withBackend({ watchBufferEvents: 2 }, async (b) => {
    const watch = b.watch('/registry/', 0);
    try {
      let rev = await b.create('/registry/a', enc('0'));
      for (let i = 1; i < 10; i++) rev = await b.update('/registry/a', enc(String(i)), rev);
      await b.compact(rev);
      await assert.rejects(takeEvents(watch, 10), { name: 'Compacted' });
    } finally {
      watch.close();
    }
  }));

void test('compaction deletes superseded rows and tombstones, in batches that let writers through', async () => {
  const dataDir = await tempDir();
  try {
    const b = openSqliteBackend({ dataDir, compaction: false, compactionBatch: 20 });
    let rev = 0;
    for (let i = 0; i < 50; i++) await b.create(`/registry/k${i}`, enc('0'));
    for (let round = 1; round <= 20; round++) {
      const revs = await Promise.all(
        Array.from({ length: 50 }, (_, i) => b.update(`/registry/k${i}`, enc(String(round)), i + 1 + (round - 1) * 50)),
      );
      rev = Math.max(...revs);
    }
    const deleted = await Promise.all(Array.from({ length: 10 }, (_, i) => b.delete(`/registry/k${i}`)));
    const target = Math.max(...deleted.map((d) => d.revision));
    const compaction = b.compact(target);
    let compactionDone = false;
    void compaction.then(() => {
      compactionDone = true;
    });
    // The write commits between compaction batches (its acknowledgement then waits for the WAL sync).
    const writing = b.create('/registry/during', enc('w'));
    let committedDuring = false;
    while (!compactionDone) {
      if ((await b.get('/registry/during')) !== undefined) {
        committedDuring = true;
        break;
      }
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(committedDuring, true, 'a write went through while the compaction was still running');
    const during = await writing;
    await compaction;
    assert.ok(during > rev);
    const live = await b.list('/registry/');
    assert.equal(live.items.length, 41);
    assert.ok(live.items.every((kv) => kv.key === '/registry/during' || new TextDecoder().decode(kv.value) === '20'));
    await b.close();
    const db = new Database(join(dataDir, 'kubemix.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT COUNT(*) FROM kv').pluck().get();
      assert.equal(rows, 41, 'one row per live key is left');
    } finally {
      db.close();
    }
    const reopened = openSqliteBackend({ dataDir, compaction: false });
    try {
      assert.equal(await reopened.compactedRevision(), target);
      assert.equal(await reopened.currentRevision(), during);
    } finally {
      await reopened.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

void test('the automatic compactor keeps the last minRetainRevisions and one interval of history', () =>
  withBackend({ compaction: { intervalMs: 30, minRetainRevisions: 5 } }, async (b) => {
    let rev = await b.create('/registry/a', enc('0'));
    for (let i = 1; i < 20; i++) rev = await b.update('/registry/a', enc(String(i)), rev);
    // First tick records the revision; the second compacts to min(that revision, current - 5).
    const deadline = Date.now() + 5000;
    while ((await b.compactedRevision()) !== rev - 5 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(await b.compactedRevision(), rev - 5);
    assert.equal((await b.list('/registry/', { revision: rev - 5 })).items.length, 1);
  }));

void test('an interrupted compaction is finished when the store is opened again', async () => {
  const dataDir = await tempDir();
  try {
    const b = openSqliteBackend({ dataDir, compaction: false });
    let rev = await b.create('/registry/a', enc('0'));
    for (let i = 1; i < 30; i++) rev = await b.update('/registry/a', enc(String(i)), rev);
    await b.close();
    // What a crash right after raising the compaction mark leaves behind.
    const raw = new Database(join(dataDir, 'kubemix.db'));
    raw.prepare("INSERT INTO meta (name, value) VALUES ('compact_revision', ?)").run(rev - 1);
    raw.close();
    const reopened = openSqliteBackend({ dataDir, compaction: false, compactionBatch: 4 });
    try {
      assert.equal(await reopened.compactedRevision(), rev - 1);
      await assert.rejects(reopened.list('/registry/', { revision: 2 }), { name: 'Compacted' });
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
        const size = await reopened.list('/registry/', { revision: rev - 1 });
        assert.equal(new TextDecoder().decode(size.items[0]?.value), '28');
        if (!reopened.compacting) break;
      }
      assert.equal(reopened.compacting, false);
    } finally {
      await reopened.close();
    }
    const check = new Database(join(dataDir, 'kubemix.db'), { readonly: true });
    try {
      assert.deepEqual(check.prepare('SELECT id FROM kv ORDER BY id').pluck().all(), [rev - 1, rev]);
    } finally {
      check.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

void test('a store opened again has its live keys: updated, deleted, created again, compacted', () =>
  withDataDir(async (dataDir) => {
    const b = openSqliteBackend({ dataDir, compaction: false });
    const a1 = await b.create('/registry/pods/a', enc('a1'));
    const a2 = await b.update('/registry/pods/a', enc('a2'), a1);
    await b.create('/registry/pods/b', enc('b1'));
    await b.delete('/registry/pods/b');
    const c1 = await b.create('/registry/pods/c', enc('c1'));
    await b.delete('/registry/pods/c');
    const c2 = await b.create('/registry/pods/c', enc('c2'));
    await b.create('/registry/pods/d', enc('d1'));
    await b.delete('/registry/pods/d');
    await b.compact(await b.currentRevision());
    await b.close();
    const reopened = openSqliteBackend({ dataDir, compaction: false });
    try {
      const list = await reopened.list('/registry/pods/');
      assert.deepEqual(
        list.items.map((kv) => [kv.key, dec(kv.value), kv.createRevision, kv.modRevision]),
        [
          ['/registry/pods/a', 'a2', a1, a2],
          ['/registry/pods/c', 'c2', c2, c2],
        ],
      );
      assert.equal(await reopened.count('/registry/pods/'), 2);
      assert.equal(await reopened.get('/registry/pods/b'), undefined);
      await assert.rejects(reopened.create('/registry/pods/a', enc('again')), { name: 'KeyExists' });
      await assert.rejects(reopened.update('/registry/pods/c', enc('c3'), c1), { name: 'Conflict' });
      const a3 = await reopened.update('/registry/pods/a', enc('a3'), a2);
      assert.equal((await reopened.get('/registry/pods/a'))?.createRevision, a1);
      assert.ok((await reopened.create('/registry/pods/b', enc('b2'))) > a3);
      assert.equal(await reopened.count('/registry/pods/'), 3);
    } finally {
      await reopened.close();
    }
  }));

void test('a data dir of an earlier version loses its index of the log by key, and its current rows learn their createRevision', () =>
  withDataDir(async (dataDir) => {
    const b = openSqliteBackend({ dataDir, compaction: false });
    const r1 = await b.create('/registry/pods/a', enc('a1'));
    const r2 = await b.update('/registry/pods/a', enc('a2'), r1);
    await b.close();
    // The schema of earlier versions: the log indexed by (name, id), current rows without createRevision.
    const raw = new Database(join(dataDir, 'kubemix.db'));
    raw.exec(`CREATE INDEX kv_name_id ON kv (name, id);
      DROP TABLE current;
      CREATE TABLE current (name TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;`);
    raw.prepare('INSERT INTO current (name, id) VALUES (?, ?)').run('/registry/pods/a', r2);
    raw.close();
    const reopened = openSqliteBackend({ dataDir, compaction: false });
    try {
      const a = await reopened.get('/registry/pods/a');
      assert.deepEqual([dec(a?.value), a?.createRevision, a?.modRevision], ['a2', r1, r2]);
      const r3 = await reopened.update('/registry/pods/a', enc('a3'), r2);
      assert.equal((await reopened.get('/registry/pods/a'))?.createRevision, r1);
      const at = await reopened.list('/registry/pods/', { revision: r2 });
      assert.deepEqual(
        at.items.map((kv) => dec(kv.value)),
        ['a2'],
      );
      assert.ok(r3 > r2);
    } finally {
      await reopened.close();
    }
    const check = new Database(join(dataDir, 'kubemix.db'), { readonly: true });
    try {
      assert.deepEqual(check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'kv'").pluck().all(), []);
    } finally {
      check.close();
    }
  }));

void test('a commit is watchable once its WAL sync is done: watches started meanwhile see it exactly once', async () => {
  const dataDir = await tempDir();
  const b = openSqliteBackend({ dataDir, compaction: false });
  try {
    await b.create('/registry/a', enc('0'));
    const watches = [];
    const writes: Promise<number>[] = [];
    for (let i = 1; i <= 20; i++) {
      writes.push(b.create(`/registry/k${i}`, enc(String(i))));
      // After the commit (setImmediate) and, most of the time, before its sync has finished.
      await new Promise((r) => setImmediate(r));
      watches.push(b.watch('/registry/', 1));
    }
    const revs = await Promise.all(writes);
    for (const w of watches) {
      const events = await takeEvents(w, 20);
      assert.deepEqual(events.map((e) => e.revision), revs);
      w.close();
    }
  } finally {
    await b.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

void test('watchers stay exact while writers, slow readers and compactions run together', () =>
  withBackend({ watchBufferEvents: 8, watchReadBatch: 16, compactionBatch: 16 }, async (b) => {
    const keys = 20;
    const expected = new Map<number, string>();
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; i < 150; i++) {
        const key = `/registry/pods/k${(i * 7 + w) % keys}`;
        const cur = await b.get(key);
        try {
          const value = enc(`${w}.${i}`);
          const rev = cur === undefined ? await b.create(key, value) : await b.update(key, value, cur.modRevision);
          expected.set(rev, `${key}=${w}.${i}`);
        } catch (err) {
          if (!(err instanceof Error) || !['KeyExists', 'Conflict'].includes(err.name)) throw err;
        }
        if (i % 10 === 9) {
          const d = await b.delete(key).catch(() => undefined);
          if (d !== undefined) expected.set(d.revision, `${key} deleted`);
        }
      }
    };
    let compacting = true;
    const compactor = (async () => {
      while (compacting) {
        const rev = await b.currentRevision();
        if (rev > 40) await b.compact(rev - 40);
        await new Promise((r) => setTimeout(r, 3));
      }
    })();
    const fast = b.watch('/registry/pods/', 0);
    const slow = b.watch('/registry/pods/', 0);
    const stalled = b.watch('/registry/pods/', 0);
    const reader = async (
      watch: typeof fast,
      seen: string[],
      delayEvery: number,
      delayMs = 2,
    ): Promise<string | undefined> => {
      try {
        for await (const ev of watch) {
          const what =
            ev.type === 'delete' ? `${ev.kv.key} deleted` : `${ev.kv.key}=${new TextDecoder().decode(ev.kv.value)}`;
          seen.push(`${ev.revision} ${what}`);
          if (seen.length % delayEvery === 0) await new Promise((r) => setTimeout(r, delayMs));
        }
        return undefined;
      } catch (err) {
        return err instanceof Error ? err.name : String(err);
      }
    };
    const fastSeen: string[] = [];
    const slowSeen: string[] = [];
    const fastRun = reader(fast, fastSeen, Number.MAX_SAFE_INTEGER);
    const slowRun = reader(slow, slowSeen, 5);
    const stalledSeen: string[] = [];
    const stalledRun = reader(stalled, stalledSeen, 1, 100);
    await Promise.all([0, 1, 2].map(writer));
    compacting = false;
    await compactor;
    const all = [...expected.entries()].sort((x, y) => x[0] - y[0]).map(([rev, line]) => `${rev} ${line}`);
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && fastSeen.length < all.length) await new Promise((r) => setTimeout(r, 5));
    fast.close();
    slow.close();
    const fastError = await fastRun;
    const slowError = await slowRun;
    assert.equal(fastError, undefined, 'the fast watcher kept up');
    assert.deepEqual(fastSeen, all);
    // A slow watcher may or may not keep up; what it saw is an exact, gap-free prefix of the history.
    if (slowError !== undefined) assert.equal(slowError, 'Compacted');
    assert.deepEqual(slowSeen, all.slice(0, slowSeen.length));
    // One reading an event per 100 ms falls behind the compactions and is told so.
    const guard = setTimeout(() => stalled.close(), 10_000);
    const stalledError = await stalledRun;
    clearTimeout(guard);
    stalled.close();
    assert.equal(stalledError, 'Compacted');
    assert.deepEqual(stalledSeen, all.slice(0, stalledSeen.length));
  }));

void test('one WAL sync covers every batch committed before it started, and writes are answered in commit order', async () => {
  let syncs = 0;
  // A slow disk: each sync takes 30 ms, so batches committed meanwhile must share the next one.
  const slowSync = (fd: number, done: (err: NodeJS.ErrnoException | null) => void): void => {
    syncs++;
    setTimeout(() => fdatasync(fd, done), 30);
  };
  await withBackend({ fdatasync: slowSync }, async (b) => {
    const answered: number[] = [];
    const writes: Promise<void>[] = [];
    // Twenty writes in twenty event-loop turns: twenty commits (batches).
    for (let i = 0; i < 20; i++) {
      writes.push(b.create(`/registry/t/${i}`, enc('{}')).then((rev) => void answered.push(rev)));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(writes);
    assert.deepEqual(answered, [...answered].sort((x, y) => x - y), 'acknowledged in commit order');
    assert.equal(answered.length, 20);
    assert.ok(syncs >= 2 && syncs <= 4, `20 commits in turns during 30 ms syncs need 2-4 syncs, not ${syncs}`);
    // A write after the last sync gets its own: nothing is acknowledged before a sync that covers it.
    const before = syncs;
    await b.create('/registry/t/last', enc('{}'));
    assert.equal(syncs, before + 1);
  });
});

void test('a crash at any point of the index write-back loses nothing: the table plus the log after its revision is every live key', () =>
  withBackend({ currentWriteBackKeys: 4, currentWriteBackSlice: 3 }, async (b, dataDir) => {
    const live = new Map<string, [string, number, number]>();
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let partialImages = 0;
    for (let i = 0; i < 400; i++) {
      const key = `/registry/pods/k${random(25)}`;
      const cur = live.get(key);
      if (cur === undefined) {
        const rev = await b.create(key, enc(`v${i}`));
        live.set(key, [`v${i}`, rev, rev]);
      } else if (random(4) === 0) {
        await b.delete(key, cur[2]);
        live.delete(key);
      } else {
        const rev = await b.update(key, enc(`v${i}`), cur[2]);
        live.set(key, [`v${i}`, cur[1], rev]);
      }
      if (i % 10 === 9) await b.compact(await b.currentRevision());
      // What kill -9 leaves now: the database file and its WAL, with no transaction open.
      const image = await tempDir();
      try {
        for (const f of ['kubemix.db', 'kubemix.db-wal']) copyFileSync(join(dataDir, f), join(image, f));
        const raw = new Database(join(image, 'kubemix.db'), { readonly: true });
        const tableRevision = raw.prepare("SELECT value FROM meta WHERE name = 'current_revision'").pluck().get() as number;
        raw.close();
        if (tableRevision < (await b.currentRevision())) partialImages++;
        const recovered = openSqliteBackend({ dataDir: image, compaction: false });
        try {
          const list = await recovered.list('/registry/pods/');
          assert.deepEqual(
            list.items.map((kv) => [kv.key, dec(kv.value), kv.createRevision, kv.modRevision]),
            [...live].sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, v]) => [k, ...v]),
            `image after write ${i}`,
          );
          for (let k = 0; k < 25; k++) {
            const key = `/registry/pods/k${k}`;
            const kv = await recovered.get(key);
            const want = live.get(key);
            assert.deepEqual(kv && [dec(kv.value), kv.createRevision, kv.modRevision], want, `${key} after write ${i}`);
          }
        } finally {
          await recovered.close();
        }
      } finally {
        await rm(image, { recursive: true, force: true });
      }
    }
    assert.ok(partialImages > 100, `only ${partialImages} images caught the table behind the log`);
  }));
