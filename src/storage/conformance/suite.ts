/**
 * The storage conformance suite: one set of node:test tests that every Backend must pass (kine runs its
 * suites once per driver the same way). A backend's test file calls `registerBackendConformance` with a
 * target that hands out fresh, isolated stores.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  Compacted,
  Conflict,
  FutureRevision,
  KeyExists,
  KeyNotFound,
  type Backend,
  type KeyValue,
  type Watch,
  type WatchEvent,
} from '../backend.js';
import type { OpenBackendOptions } from '../index.js';

/** One isolated store. */
export interface ConformanceFixture {
  /** Keys of the tests start with this, e.g. `/registry/`; the store holds nothing under it at first. */
  readonly root: string;
  /** Opens a started backend over this store; after `close()` a new call reopens the same data. */
  open(): Promise<Backend>;
  /** `openBackend` options for this store, used by a child process in the durability test. */
  readonly openOptions: OpenBackendOptions;
  /** Restarts the server process, if the backend has one (etcd), between a close and a reopen. */
  restartServer?(): Promise<void>;
  /** Kills the server process with SIGKILL and starts it again, if the backend has one. */
  crashServer?(): Promise<void>;
  /** Removes the store. */
  cleanup(): Promise<void>;
}

export interface ConformanceTarget {
  readonly name: string;
  fixture(): Promise<ConformanceFixture>;
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (v: Uint8Array): string => new TextDecoder().decode(v);

/** Reads `count` events, failing after `timeoutMs` instead of hanging. */
export async function takeEvents(watch: Watch, count: number, timeoutMs = 10_000): Promise<WatchEvent[]> {
  const it = watch[Symbol.asyncIterator]();
  const out: WatchEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs}ms with ${out.length} of ${count} events`)),
      timeoutMs,
    );
  });
  try {
    while (out.length < count) {
      const r = await Promise.race([it.next(), timeout]);
      if (r.done === true) break;
      out.push(r.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return out;
}

/** Resolves to the iterator's next result, or 'pending' when nothing arrives within `ms`. */
async function nextOrPending(watch: Watch, ms: number): Promise<IteratorResult<WatchEvent> | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([watch[Symbol.asyncIterator]().next(), pending]);
  } finally {
    clearTimeout(timer);
  }
}

function summary(ev: WatchEvent): string {
  return `${ev.revision} ${ev.type} ${ev.kv.key}=${dec(ev.kv.value)}`;
}

function plain(kv: KeyValue | undefined): object | undefined {
  return kv === undefined ? undefined : { ...kv, value: dec(kv.value) };
}

export function registerBackendConformance(target: ConformanceTarget): void {
  void describe(`${target.name} backend conformance`, () => {
    /** Runs `body` with a fresh store and an open backend; always closes both. */
    const withStore = async (body: (b: Backend, f: ConformanceFixture) => Promise<void>): Promise<void> => {
      const fixture = await target.fixture();
      let backend: Backend | undefined;
      try {
        backend = await fixture.open();
        await body(backend, fixture);
      } finally {
        await backend?.close();
        await fixture.cleanup();
      }
    };

    void test('every write returns its revision, and revisions strictly increase', () =>
      withStore(async (b, { root }) => {
        const start = await b.currentRevision();
        const a = `${root}pods/default/a`;
        const r1 = await b.create(a, enc('1'));
        assert.ok(r1 > start, `first write ${r1} after ${start}`);
        assert.equal(await b.currentRevision(), r1);
        assert.deepEqual(plain(await b.get(a)), { key: a, value: '1', createRevision: r1, modRevision: r1 });
        const r2 = await b.update(a, enc('2'), r1);
        assert.ok(r2 > r1);
        assert.deepEqual(plain(await b.get(a)), { key: a, value: '2', createRevision: r1, modRevision: r2 });
        const d = await b.delete(a);
        assert.ok(d.revision > r2);
        assert.deepEqual(plain(d.prev), { key: a, value: '2', createRevision: r1, modRevision: r2 });
        assert.equal(await b.get(a), undefined);
        const r4 = await b.create(a, enc('3'));
        assert.ok(r4 > d.revision);
        assert.deepEqual(
          plain(await b.get(a)),
          { key: a, value: '3', createRevision: r4, modRevision: r4 },
          'a re-created key starts a new createRevision',
        );
        assert.equal(await b.currentRevision(), r4);
      }));

    void test('concurrent writes each get their own revision', () =>
      withStore(async (b, { root }) => {
        const revs = await Promise.all(
          Array.from({ length: 50 }, (_, i) => b.create(`${root}configmaps/default/c${i}`, enc(String(i)))),
        );
        assert.equal(new Set(revs).size, 50, 'distinct revisions');
        assert.equal(await b.currentRevision(), Math.max(...revs));
        for (let i = 0; i < 50; i++) {
          const kv = await b.get(`${root}configmaps/default/c${i}`);
          assert.equal(kv?.modRevision, revs[i]);
        }
      }));

    void test('values are stored byte for byte, and keys sort by their UTF-8 bytes', () =>
      withStore(async (b, { root }) => {
        const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
        const binary = `${root}secrets/default/binary`;
        const rev = await b.create(binary, bytes);
        assert.deepEqual([...((await b.get(binary))?.value ?? [])], [...bytes]);
        assert.equal((await b.get(binary))?.modRevision, rev);
        const empty = `${root}secrets/default/empty`;
        await b.create(empty, new Uint8Array());
        assert.equal((await b.get(empty))?.value.length, 0);
        // UTF-8 order differs from JavaScript's UTF-16 order for characters above U+FFFF.
        const names = ['z', 'a', '\u{1f600}', '\uffff', '\u00e9'];
        for (const n of names) await b.create(`${root}pods/ns/${n}`, enc(n));
        assert.deepEqual(
          (await b.list(`${root}pods/`)).items.map((kv) => dec(kv.value)),
          ['a', 'z', '\u00e9', '\uffff', '\u{1f600}'],
        );
        const page = await b.list(`${root}pods/`, { continueFrom: `${root}pods/ns/\uffff` });
        assert.deepEqual(
          page.items.map((kv) => dec(kv.value)),
          ['\u{1f600}'],
        );
      }));

    void test('get returns undefined for a missing key', () =>
      withStore(async (b, { root }) => {
        assert.equal(await b.get(`${root}pods/default/missing`), undefined);
      }));

    void test('create fails with KeyExists when the key is present', () =>
      withStore(async (b, { root }) => {
        const key = `${root}pods/default/a`;
        const rev = await b.create(key, enc('1'));
        await assert.rejects(b.create(key, enc('2')), (err: unknown) => {
          assert.ok(err instanceof KeyExists);
          assert.equal(err.key, key);
          return true;
        });
        assert.deepEqual(plain(await b.get(key)), { key, value: '1', createRevision: rev, modRevision: rev });
        assert.equal(await b.currentRevision(), rev, 'a failed write does not use a revision');
      }));

    void test('update and delete with a stale revision fail with Conflict carrying the current value', () =>
      withStore(async (b, { root }) => {
        const key = `${root}pods/default/a`;
        const r1 = await b.create(key, enc('1'));
        const r2 = await b.update(key, enc('2'), r1);
        const current = { key, value: '2', createRevision: r1, modRevision: r2 };
        await assert.rejects(b.update(key, enc('3'), r1), (err: unknown) => {
          assert.ok(err instanceof Conflict);
          assert.equal(err.key, key);
          assert.deepEqual(plain(err.current), current);
          return true;
        });
        await assert.rejects(b.delete(key, r1), (err: unknown) => {
          assert.ok(err instanceof Conflict);
          assert.deepEqual(plain(err.current), current);
          return true;
        });
        assert.deepEqual(plain(await b.get(key)), current);
        const d = await b.delete(key, r2);
        assert.deepEqual(plain(d.prev), current);
      }));

    void test('update and delete of a missing key fail with KeyNotFound', () =>
      withStore(async (b, { root }) => {
        const key = `${root}pods/default/missing`;
        for (const expected of [0, 1, 12345]) {
          await assert.rejects(b.update(key, enc('x'), expected), (err: unknown) => {
            assert.ok(err instanceof KeyNotFound, `update expecting ${expected}: ${String(err)}`);
            assert.equal(err.key, key);
            return true;
          });
        }
        await assert.rejects(b.delete(key), KeyNotFound);
        await assert.rejects(b.delete(key, 1), KeyNotFound);
        assert.equal(await b.get(key), undefined, 'update expecting 0 must not create the key');
      }));

    void test('list returns the keys with the prefix sorted by key, and count counts them', () =>
      withStore(async (b, { root }) => {
        const names = ['b', 'a', 'c/x', 'c', 'B'];
        const revs = new Map<string, number>();
        for (const n of names) revs.set(n, await b.create(`${root}pods/default/${n}`, enc(n)));
        await b.create(`${root}services/default/a`, enc('svc'));
        const res = await b.list(`${root}pods/`);
        assert.deepEqual(
          res.items.map((kv) => kv.key),
          ['B', 'a', 'b', 'c', 'c/x'].map((n) => `${root}pods/default/${n}`),
        );
        for (const kv of res.items) {
          const n = kv.key.slice(`${root}pods/default/`.length);
          assert.equal(dec(kv.value), n);
          assert.equal(kv.modRevision, revs.get(n));
          assert.equal(kv.createRevision, revs.get(n));
        }
        assert.equal(res.more, false);
        assert.equal(res.revision, await b.currentRevision());
        assert.equal(await b.count(`${root}pods/`), 5);
        assert.equal(await b.count(`${root}pods/default/c`), 2);
        assert.equal(await b.count(`${root}nodes/`), 0);
        assert.deepEqual((await b.list(`${root}nodes/`)).items, []);
      }));

    void test('a prefix does not match keys that only share its text (/registry/pods/ vs /registry/podsx/)', () =>
      withStore(async (b, { root }) => {
        const watch = b.watch(`${root}pods/`, await b.currentRevision());
        try {
          await b.create(`${root}podsx/default/a`, enc('x'));
          await b.create(`${root}pods`, enc('bare'));
          const inside = await b.create(`${root}pods/default/a`, enc('p'));
          await b.create(`${root}pods0/default/a`, enc('0'));
          assert.deepEqual(
            (await b.list(`${root}pods/`)).items.map((kv) => kv.key),
            [`${root}pods/default/a`],
          );
          assert.equal(await b.count(`${root}pods/`), 1);
          assert.equal(await b.count(`${root}podsx/`), 1);
          const events = await takeEvents(watch, 1);
          assert.deepEqual(events.map(summary), [`${inside} put ${root}pods/default/a=p`]);
          assert.equal(await nextOrPending(watch, 200), 'pending', 'no event from another prefix');
        } finally {
          watch.close();
        }
      }));

    void test('list pages with limit and continueFrom, and more tells whether there are others', () =>
      withStore(async (b, { root }) => {
        const keys = Array.from({ length: 7 }, (_, i) => `${root}pods/default/p${i}`);
        for (const k of keys) await b.create(k, enc(k));
        const first = await b.list(`${root}pods/`, { limit: 3 });
        assert.deepEqual(
          first.items.map((kv) => kv.key),
          keys.slice(0, 3),
        );
        assert.equal(first.more, true);
        // Later pages read at the first page's revision, as the API server's continue token does.
        await b.create(`${root}pods/default/p10`, enc('late'));
        await b.delete(keys[4] ?? '');
        const second = await b.list(`${root}pods/`, {
          limit: 3,
          continueFrom: keys[2] ?? '',
          revision: first.revision,
        });
        assert.deepEqual(
          second.items.map((kv) => kv.key),
          keys.slice(3, 6),
        );
        assert.equal(second.more, true);
        assert.equal(second.revision, first.revision);
        const third = await b.list(`${root}pods/`, { limit: 3, continueFrom: keys[5] ?? '', revision: first.revision });
        assert.deepEqual(
          third.items.map((kv) => kv.key),
          keys.slice(6),
        );
        assert.equal(third.more, false);
        const exact = await b.list(`${root}pods/`, { limit: 7, revision: first.revision });
        assert.equal(exact.items.length, 7);
        assert.equal(exact.more, false, 'a limit equal to the number of keys does not cut');
        const now = await b.list(`${root}pods/`, { limit: 2, continueFrom: keys[3] ?? '' });
        assert.deepEqual(
          now.items.map((kv) => kv.key),
          [`${root}pods/default/p5`, `${root}pods/default/p6`],
          'at the current revision p4 is gone and p10 sorts before p2',
        );
        assert.equal(now.more, false);
      }));

    void test('pages at a revision stay at that revision while writes go on between them', () =>
      withStore(async (b, { root }) => {
        const key = (i: number): string => `${root}pods/default/p${String(i).padStart(2, '0')}`;
        const revs = new Map<string, number>();
        for (let i = 0; i < 12; i += 2) revs.set(key(i), await b.create(key(i), enc(`${i}.0`)));
        await b.create(`${root}podsx/outside`, enc('x'));
        const first = await b.list(`${root}pods/`, { limit: 1 });
        const want = [0, 2, 4, 6, 8, 10].map((i) => `${key(i)}=${i}.0`);
        const seen = first.items.map((kv) => `${kv.key}=${dec(kv.value)}`);
        let last = first.items[first.items.length - 1]?.key ?? '';
        let step = 0;
        for (;;) {
          // Between pages: a key updated twice, keys created in a gap and at the end, later a key deleted, once
          // a page of another prefix.
          const k = key(step * 2);
          const r = await b.update(k, enc('new'), revs.get(k) ?? 0);
          revs.set(k, await b.update(k, enc('newer'), r));
          if (step === 3) await b.delete(key(10));
          await b.create(key(step * 2 + 1), enc('late'));
          await b.create(key(20 + step), enc('late'));
          if (step === 1) await b.list(`${root}podsx/`, { limit: 1, revision: first.revision });
          const page = await b.list(`${root}pods/`, { limit: 1, continueFrom: last, revision: first.revision });
          assert.equal(page.revision, first.revision);
          seen.push(...page.items.map((kv) => `${kv.key}=${dec(kv.value)}`));
          if (!page.more) break;
          last = page.items[page.items.length - 1]?.key ?? '';
          step++;
        }
        assert.deepEqual(seen, want);
        const whole = await b.list(`${root}pods/`, { revision: first.revision });
        assert.deepEqual(
          whole.items.map((kv) => `${kv.key}=${dec(kv.value)}`),
          want,
        );
      }));

    void test('a page starts after continueFrom only when that key is inside the prefix range', () =>
      withStore(async (b, { root }) => {
        for (const k of ['nodes/n', 'pods/a', 'pods/b', 'podsx/c']) await b.create(`${root}${k}`, enc(k));
        const keys = async (continueFrom: string): Promise<string[]> =>
          (await b.list(`${root}pods/`, { continueFrom })).items.map((kv) => kv.key.slice(root.length));
        assert.deepEqual(await keys(root), ['pods/a', 'pods/b']);
        assert.deepEqual(await keys(`${root}nodes/n`), ['pods/a', 'pods/b']);
        assert.deepEqual(await keys(`${root}pods/a`), ['pods/b']);
        assert.deepEqual(await keys(`${root}pods/b`), []);
        assert.deepEqual(await keys(`${root}q`), []);
      }));

    void test('list at an old revision returns the data as it was then', () =>
      withStore(async (b, { root }) => {
        const a = `${root}pods/default/a`;
        const bk = `${root}pods/default/b`;
        const c = `${root}pods/default/c`;
        const ra = await b.create(a, enc('a1'));
        const rb = await b.create(bk, enc('b1'));
        const ra2 = await b.update(a, enc('a2'), ra);
        await b.delete(bk);
        await b.create(c, enc('c1'));
        await b.create(bk, enc('b2'));
        const old = await b.list(`${root}pods/`, { revision: rb });
        assert.equal(old.revision, rb);
        assert.deepEqual(old.items.map(plain), [
          { key: a, value: 'a1', createRevision: ra, modRevision: ra },
          { key: bk, value: 'b1', createRevision: rb, modRevision: rb },
        ]);
        const mid = await b.list(`${root}pods/`, { revision: ra2 + 1 });
        assert.deepEqual(
          mid.items.map((kv) => `${kv.key}=${dec(kv.value)}`),
          [`${a}=a2`],
        );
        const paged = await b.list(`${root}pods/`, { revision: rb, limit: 1 });
        assert.deepEqual(
          paged.items.map((kv) => kv.key),
          [a],
        );
        assert.equal(paged.more, true);
        const now = await b.list(`${root}pods/`);
        assert.deepEqual(
          now.items.map((kv) => `${kv.key}=${dec(kv.value)}`),
          [`${a}=a2`, `${bk}=b2`, `${c}=c1`],
        );
      }));

    void test('list at a future revision fails with FutureRevision', () =>
      withStore(async (b, { root }) => {
        const rev = await b.create(`${root}pods/default/a`, enc('1'));
        await assert.rejects(b.list(`${root}pods/`, { revision: rev + 10 }), (err: unknown) => {
          assert.ok(err instanceof FutureRevision);
          assert.equal(err.requested, rev + 10);
          assert.equal(err.current, rev);
          return true;
        });
        assert.equal((await b.list(`${root}pods/`, { revision: rev })).items.length, 1);
        await assert.rejects(b.compact(rev + 10), FutureRevision);
      }));

    void test('watch events carry the new value, and the previous value for updates and deletes', () =>
      withStore(async (b, { root }) => {
        const key = `${root}pods/default/a`;
        const watch = b.watch(`${root}pods/`, await b.currentRevision());
        try {
          const r1 = await b.create(key, enc('1'));
          const r2 = await b.update(key, enc('2'), r1);
          const d = await b.delete(key, r2);
          const [created, updated, deleted] = await takeEvents(watch, 3);
          assert.deepEqual(
            { ...created, kv: plain(created?.kv) },
            { type: 'put', kv: { key, value: '1', createRevision: r1, modRevision: r1 }, revision: r1 },
          );
          assert.deepEqual(
            { ...updated, kv: plain(updated?.kv), prevKv: plain(updated?.prevKv) },
            {
              type: 'put',
              kv: { key, value: '2', createRevision: r1, modRevision: r2 },
              prevKv: { key, value: '1', createRevision: r1, modRevision: r1 },
              revision: r2,
            },
          );
          assert.deepEqual(
            { ...deleted, kv: plain(deleted?.kv), prevKv: plain(deleted?.prevKv) },
            {
              type: 'delete',
              kv: { key, value: '2', createRevision: r1, modRevision: d.revision },
              prevKv: { key, value: '2', createRevision: r1, modRevision: r2 },
              revision: d.revision,
            },
          );
        } finally {
          watch.close();
        }
      }));

    void test('a watcher sees every change of concurrent writers exactly once, in revision order', () =>
      withStore(async (b, { root }) => {
        const watch = b.watch(`${root}pods/`, await b.currentRevision());
        const other = b.watch(`${root}services/`, await b.currentRevision());
        try {
          const expected: { revision: number; line: string }[] = [];
          const writer = async (w: number): Promise<void> => {
            for (let i = 0; i < 10; i++) {
              const key = `${root}pods/w${w}/p${i}`;
              const r1 = await b.create(key, enc(`${w}.${i}.0`));
              expected.push({ revision: r1, line: `${r1} put ${key}=${w}.${i}.0` });
              const r2 = await b.update(key, enc(`${w}.${i}.1`), r1);
              expected.push({ revision: r2, line: `${r2} put ${key}=${w}.${i}.1` });
              if (i % 3 === 0) {
                const d = await b.delete(key, r2);
                expected.push({ revision: d.revision, line: `${d.revision} delete ${key}=${w}.${i}.1` });
              }
            }
          };
          const writers = Array.from({ length: 6 }, (_, w) => writer(w));
          const noise = (async () => {
            for (let i = 0; i < 20; i++) await b.create(`${root}services/s${i}`, enc('s'));
          })();
          await Promise.all([...writers, noise]);
          expected.sort((x, y) => x.revision - y.revision);
          const events = await takeEvents(watch, expected.length);
          assert.deepEqual(
            events.map(summary),
            expected.map((e) => e.line),
          );
          assert.equal(await nextOrPending(watch, 100), 'pending', 'no extra events');
          const services = await takeEvents(other, 20);
          assert.equal(services.length, 20);
          assert.ok(services.every((ev, i) => i === 0 || ev.revision > (services[i - 1]?.revision ?? 0)));
        } finally {
          watch.close();
          other.close();
        }
      }));

    void test('a watch from an old revision replays the history after it, then continues live', () =>
      withStore(async (b, { root }) => {
        const lines: string[] = [];
        const key = (i: number): string => `${root}pods/default/p${i}`;
        let from = 0;
        for (let i = 0; i < 6; i++) {
          const r = await b.create(key(i), enc(`v${i}`));
          if (i === 1) from = r;
          else if (i > 1) lines.push(`${r} put ${key(i)}=v${i}`);
        }
        const d = await b.delete(key(0));
        lines.push(`${d.revision} delete ${key(0)}=v0`);
        const watch = b.watch(`${root}pods/`, from);
        try {
          const replayed = await takeEvents(watch, lines.length);
          assert.deepEqual(replayed.map(summary), lines, 'replay starts after the given revision');
          // Live writes racing with the end of the replay must not be lost or repeated.
          const live: string[] = [];
          const pending = takeEvents(watch, 20);
          for (let i = 10; i < 30; i++) {
            const r = await b.create(key(i), enc(`v${i}`));
            live.push(`${r} put ${key(i)}=v${i}`);
          }
          assert.deepEqual((await pending).map(summary), live);
        } finally {
          watch.close();
        }
      }));

    void test('a watch started while writes are in flight has no gap and no duplicate', () =>
      withStore(async (b, { root }) => {
        const writes: Promise<number>[] = [];
        for (let i = 0; i < 40; i++) writes.push(b.create(`${root}pods/default/p${i}`, enc(String(i))));
        const start = await b.currentRevision();
        const watch = b.watch(`${root}pods/`, start);
        try {
          for (let i = 40; i < 80; i++) writes.push(b.create(`${root}pods/default/p${i}`, enc(String(i))));
          const revs = (await Promise.all(writes)).filter((r) => r > start).sort((x, y) => x - y);
          const events = await takeEvents(watch, revs.length);
          assert.deepEqual(
            events.map((ev) => ev.revision),
            revs,
          );
          assert.equal(await nextOrPending(watch, 100), 'pending');
        } finally {
          watch.close();
        }
      }));

    void test('a watch after a future revision waits for it', () =>
      withStore(async (b, { root }) => {
        const now = await b.currentRevision();
        const watch = b.watch(`${root}pods/`, now + 2);
        try {
          const r1 = await b.create(`${root}pods/default/a`, enc('1'));
          const r2 = await b.create(`${root}pods/default/b`, enc('2'));
          const r3 = await b.create(`${root}pods/default/c`, enc('3'));
          assert.equal(r3, now + 3, `${r1} ${r2} ${r3}`);
          const events = await takeEvents(watch, 1);
          assert.deepEqual(events.map(summary), [`${r3} put ${root}pods/default/c=3`]);
        } finally {
          watch.close();
        }
      }));

    void test('closing a watch ends its iteration, also while a next() is pending', () =>
      withStore(async (b, { root }) => {
        const watch = b.watch(`${root}pods/`, await b.currentRevision());
        const pending = watch[Symbol.asyncIterator]().next();
        watch.close();
        assert.deepEqual(await pending, { done: true, value: undefined });
        watch.close();
        const seen: WatchEvent[] = [];
        for await (const ev of watch) seen.push(ev);
        assert.deepEqual(seen, []);
        const loop = b.watch(`${root}pods/`, await b.currentRevision());
        const r = await b.create(`${root}pods/default/a`, enc('1'));
        for await (const ev of loop) {
          assert.equal(ev.revision, r);
          break; // break calls return(), which closes the watch
        }
        assert.deepEqual(await loop[Symbol.asyncIterator]().next(), { done: true, value: undefined });
      }));

    void test('next() calls made before events arrive are answered in order', () =>
      withStore(async (b, { root }) => {
        const watch = b.watch(`${root}pods/`, await b.currentRevision());
        try {
          const it = watch[Symbol.asyncIterator]();
          const first = it.next();
          const second = it.next();
          const r1 = await b.create(`${root}pods/default/a`, enc('1'));
          const r2 = await b.create(`${root}pods/default/b`, enc('2'));
          const revisionOf = (r: IteratorResult<WatchEvent>): number | undefined =>
            r.done === true ? undefined : r.value.revision;
          assert.equal(revisionOf(await first), r1);
          assert.equal(revisionOf(await second), r2);
        } finally {
          watch.close();
        }
      }));

    void test('closing the backend ends its watches, and later calls fail', async () => {
      const fixture = await target.fixture();
      try {
        const b = await fixture.open();
        const watch = b.watch(`${fixture.root}pods/`, await b.currentRevision());
        const pending = watch[Symbol.asyncIterator]().next();
        await b.close();
        assert.deepEqual(await pending, { done: true, value: undefined });
        await b.close();
        await assert.rejects(b.create(`${fixture.root}pods/default/a`, enc('1')), /storage backend is closed/);
        await assert.rejects(b.get(`${fixture.root}pods/default/a`), /storage backend is closed/);
      } finally {
        await fixture.cleanup();
      }
    });

    void test('compaction forgets history at or below the revision and keeps current values', () =>
      withStore(async (b, { root }) => {
        const a = `${root}pods/default/a`;
        const bk = `${root}pods/default/b`;
        const ra1 = await b.create(a, enc('a1'));
        const ra2 = await b.update(a, enc('a2'), ra1);
        const rb = await b.create(bk, enc('b1'));
        const db = await b.delete(bk);
        const ra3 = await b.update(a, enc('a3'), ra2);
        const rc = await b.create(`${root}pods/default/c`, enc('c1'));
        await b.compact(ra3);
        assert.equal(await b.compactedRevision(), ra3);
        await assert.rejects(b.list(`${root}pods/`, { revision: rb }), (err: unknown) => {
          assert.ok(err instanceof Compacted, String(err));
          assert.equal(err.requested, rb);
          assert.equal(err.compactedRevision, ra3);
          return true;
        });
        const atCompacted = await b.list(`${root}pods/`, { revision: ra3 });
        assert.deepEqual(
          atCompacted.items.map((kv) => `${kv.key}=${dec(kv.value)}@${kv.createRevision}/${kv.modRevision}`),
          [`${a}=a3@${ra1}/${ra3}`],
          'the compacted revision itself stays readable',
        );
        const watch = b.watch(`${root}pods/`, ra1);
        try {
          await assert.rejects(takeEvents(watch, 1), Compacted);
          assert.deepEqual(await watch[Symbol.asyncIterator]().next(), { done: true, value: undefined });
        } finally {
          watch.close();
        }
        const after = b.watch(`${root}pods/`, ra3);
        try {
          assert.deepEqual((await takeEvents(after, 1)).map(summary), [`${rc} put ${root}pods/default/c=c1`]);
        } finally {
          after.close();
        }
        assert.deepEqual(
          (await b.list(`${root}pods/`)).items.map((kv) => `${kv.key}=${dec(kv.value)}`),
          [`${a}=a3`, `${root}pods/default/c=c1`],
        );
        assert.ok(db.revision < ra3);
        await b.compact(ra2);
        assert.equal(await b.compactedRevision(), ra3, 'compacting to an older revision changes nothing');
        // Updating after compaction still reports the previous value.
        const watch2 = b.watch(`${root}pods/`, await b.currentRevision());
        try {
          const ra4 = await b.update(a, enc('a4'), ra3);
          const [ev] = await takeEvents(watch2, 1);
          assert.equal(ev?.revision, ra4);
          assert.deepEqual(plain(ev?.prevKv), { key: a, value: 'a3', createRevision: ra1, modRevision: ra3 });
        } finally {
          watch2.close();
        }
      }));

    void test('a store reopened after close keeps its data, and revisions continue', async () => {
      const fixture = await target.fixture();
      let b: Backend | undefined;
      try {
        b = await fixture.open();
        const { root } = fixture;
        const r1 = await b.create(`${root}pods/default/a`, enc('1'));
        const r2 = await b.create(`${root}pods/default/b`, enc('2'));
        const r3 = await b.update(`${root}pods/default/a`, enc('3'), r1);
        const d = await b.delete(`${root}pods/default/b`);
        const before = await b.list(`${root}pods/`);
        await b.close();
        b = undefined;
        await fixture.restartServer?.();
        b = await fixture.open();
        assert.equal(await b.currentRevision(), d.revision);
        assert.deepEqual((await b.list(`${root}pods/`)).items.map(plain), before.items.map(plain));
        assert.deepEqual(
          (await b.list(`${root}pods/`, { revision: r2 })).items.map((kv) => `${kv.key}=${dec(kv.value)}`),
          [`${root}pods/default/a=1`, `${root}pods/default/b=2`],
          'history survives too',
        );
        const watch = b.watch(`${root}pods/`, r2);
        try {
          const replay = await takeEvents(watch, 2);
          assert.deepEqual(replay.map(summary), [
            `${r3} put ${root}pods/default/a=3`,
            `${d.revision} delete ${root}pods/default/b=2`,
          ]);
        } finally {
          watch.close();
        }
        const r5 = await b.create(`${root}pods/default/c`, enc('5'));
        assert.ok(r5 > d.revision, `revision ${r5} continues after ${d.revision}`);
      } finally {
        await b?.close();
        await fixture.cleanup();
      }
    });

    void test('acknowledged writes survive kill -9 of the writing process', async () => {
      const fixture = await target.fixture();
      let b: Backend | undefined;
      try {
        const acked = await runKillChild(fixture, 60);
        assert.ok(acked.length >= 60, `only ${acked.length} acknowledged writes before the kill`);
        await fixture.crashServer?.();
        b = await fixture.open();
        for (const { key, revision } of acked) {
          const kv = await b.get(key);
          assert.equal(kv?.modRevision, revision, `acknowledged write ${key}@${revision}`);
          assert.equal(dec(kv.value), `value of ${key}`);
        }
        const stored = await b.list(`${fixture.root}kill/`);
        assert.ok(stored.items.length >= acked.length);
        assert.equal(await b.currentRevision(), Math.max(...stored.items.map((kv) => kv.modRevision)));
      } finally {
        await b?.close();
        await fixture.cleanup();
      }
    });
  });
}

/**
 * Runs the `_kill-child` writer against the fixture's store, SIGKILLs it once it has acknowledged at least
 * `minAcks` writes (while more are in flight), and returns the acknowledgements it printed.
 */
async function runKillChild(
  fixture: ConformanceFixture,
  minAcks: number,
): Promise<{ key: string; revision: number }[]> {
  const script = fileURLToPath(new URL('./_kill-child.js', import.meta.url));
  const child = spawn(process.execPath, [script, JSON.stringify(fixture.openOptions), `${fixture.root}kill/`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acked: { key: string; revision: number }[] = [];
  let stderr = '';
  let partial = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kill child acknowledged only ${acked.length} writes in 20s: ${stderr}`));
    }, 20_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const [key, rev] = line.split(' ');
        if (key === undefined || rev === undefined) continue;
        acked.push({ key, revision: Number(rev) });
      }
      if (acked.length >= minAcks && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`kill child exited with ${code ?? signal} before the kill: ${stderr}`));
    });
  });
}
