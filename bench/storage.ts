/**
 * Storage benchmark: write and watch throughput of both backends on temporary stores (it starts its own
 * etcd), plus reads at scale on SQLite. `npm run bench:storage`. Every phase is bounded in time, so the
 * whole run stays around half a minute.
 *
 * - batched: `inFlight` writes outstanding at once (what an API server under load does; SQLite groups them
 *   into one transaction per event-loop turn, etcd pipelines them on one connection);
 * - one-at-a-time: each write awaited before the next (the latency of one durable commit).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Backend } from '../src/storage/backend.js';
import { openEtcdBackend } from '../src/storage/etcd/etcd-backend.js';
import { startTestEtcd } from '../src/storage/etcd/_test-etcd.js';
import { openSqliteBackend } from '../src/storage/sqlite/sqlite-backend.js';

const inFlight = 256;
const phaseMs = 2000;
const scaleKeys = 150_000;

const value = new TextEncoder().encode(
  JSON.stringify({ kind: 'Pod', metadata: { name: 'x' }, spec: { pad: 'x'.repeat(900) } }),
);

interface Rate {
  ops: number;
  ms: number;
}

function perSecond(r: Rate): string {
  return `${Math.round((r.ops * 1000) / r.ms).toLocaleString('en-US')}/s`.padStart(12);
}

/** Runs `op(i)` with `parallel` calls outstanding until `max` calls or `phaseMs` elapsed. */
async function drive(parallel: number, max: number, op: (i: number) => Promise<unknown>): Promise<Rate> {
  const start = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < max && performance.now() - start < phaseMs) await op(next++);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return { ops: next, ms: performance.now() - start };
}

/** Writes `count` keys with `inFlight` outstanding while a watcher consumes them; rate of delivered events. */
async function watchRate(b: Backend, root: string, count: number): Promise<Rate> {
  const from = await b.currentRevision();
  const watch = b.watch(`${root}watch/`, from);
  const start = performance.now();
  let seen = 0;
  const consume = (async () => {
    for await (const _ev of watch) if (++seen === count) break;
  })();
  await drive(inFlight, count, (i) => b.create(`${root}watch/w${i}`, value));
  // drive() may stop early on its time budget: wait only for what was written.
  const written = (await b.count(`${root}watch/`));
  while (seen < written) await new Promise((r) => setTimeout(r, 1));
  watch.close();
  await consume;
  return { ops: seen, ms: performance.now() - start };
}

/** Replays `count` events from history (a watch from an old revision). */
async function replayRate(b: Backend, root: string, from: number, count: number): Promise<Rate> {
  const watch = b.watch(`${root}`, from);
  const start = performance.now();
  let seen = 0;
  for await (const _ev of watch) if (++seen >= count) break;
  return { ops: seen, ms: performance.now() - start };
}

async function runWrites(name: string, b: Backend, root: string): Promise<void> {
  const before = await b.currentRevision();
  const batchedCreates = await drive(inFlight, 20_000, (i) => b.create(`${root}pods/b/p${i}`, value));
  const singleCreates = await drive(1, 5_000, (i) => b.create(`${root}pods/s/p${i}`, value));
  const revs = new Map<number, number>();
  for (const kv of (await b.list(`${root}pods/b/`)).items) {
    revs.set(Number(kv.key.slice(`${root}pods/b/p`.length)), kv.modRevision);
  }
  const keys = revs.size;
  const batchedUpdates = await drive(inFlight, keys, async (i) => {
    revs.set(i, await b.update(`${root}pods/b/p${i}`, value, revs.get(i) ?? 0));
  });
  const singleUpdates = await drive(1, keys, async (i) => {
    const j = (i + batchedUpdates.ops) % keys;
    revs.set(j, await b.update(`${root}pods/b/p${j}`, value, revs.get(j) ?? 0));
  });
  const watched = await watchRate(b, root, 20_000);
  const replayed = await replayRate(b, root, before, Math.min(20_000, (await b.currentRevision()) - before));
  const row = (what: string, first: string, a: Rate, second: string, b2: Rate): void => {
    const left = `${what.padEnd(8)} ${first.padEnd(7)} ${perSecond(a)}`;
    console.log(`${name.padEnd(7)} ${left}   ${second.padEnd(13)} ${perSecond(b2)}`);
  };
  row('creates', 'batched', batchedCreates, 'one-at-a-time', singleCreates);
  row('updates', 'batched', batchedUpdates, 'one-at-a-time', singleUpdates);
  row('watch', 'live', watched, 'replay', replayed);
}

async function timeIt(runs: number, op: () => Promise<unknown>): Promise<string> {
  const start = performance.now();
  for (let i = 0; i < runs; i++) await op();
  return `${((performance.now() - start) / runs).toFixed(3)} ms`;
}

/** SQLite with `scaleKeys` pods: reads at the current revision and at an old one. */
async function runScale(dataDir: string): Promise<void> {
  const b = openSqliteBackend({ dataDir: join(dataDir, 'scale'), compaction: false });
  try {
    const start = performance.now();
    const namespaces = 50;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < scaleKeys) {
        const i = next++;
        await b.create(`/registry/pods/ns${i % namespaces}/pod-${i}`, value);
      }
    };
    await Promise.all(Array.from({ length: 1024 }, worker));
    const loadMs = performance.now() - start;
    const mid = await b.currentRevision();
    const size = `${((await b.dbSize()) / 1e6).toFixed(0)} MB`;
    const loaded = `${(loadMs / 1000).toFixed(1)} s`;
    console.log(`sqlite  ${scaleKeys.toLocaleString('en-US')} pods loaded in ${loaded}, db ${size}`);
    const get = await timeIt(2000, () => b.get(`/registry/pods/ns7/pod-${Math.floor(Math.random() * scaleKeys)}`));
    const page = await timeIt(50, () =>
      b.list('/registry/pods/', {
        limit: 500,
        continueFrom: `/registry/pods/ns${Math.floor(Math.random() * namespaces)}/`,
      }),
    );
    const ns = await timeIt(20, () => b.list('/registry/pods/ns3/'));
    const count = await timeIt(20, () => b.count('/registry/pods/'));
    for (let i = 0; i < 1000; i++) {
      const key = `/registry/pods/ns3/pod-${i * namespaces + 3}`;
      await b.update(key, value, (await b.get(key))?.modRevision ?? 0);
    }
    const oldPage = await timeIt(20, () => b.list('/registry/pods/ns3/', { revision: mid, limit: 500 }));
    console.log(
      `sqlite  at ${scaleKeys.toLocaleString('en-US')} keys: get ${get}, list page of 500 ${page}, ` +
        `list namespace (3000) ${ns}, count all ${count}, old-revision page of 500 ${oldPage}`,
    );
  } finally {
    await b.close();
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'kubemix-bench-'));
  const etcd = await startTestEtcd();
  try {
    console.log(
      `storage benchmark: ${value.length}-byte values, ${inFlight} writes in flight when batched, ` +
        `${phaseMs} ms per phase`,
    );
    const sqlite = openSqliteBackend({ dataDir: join(dir, 'sqlite'), compaction: false });
    try {
      await runWrites('sqlite', sqlite, '/registry/');
    } finally {
      await sqlite.close();
    }
    const etcdBackend = await openEtcdBackend({ endpoints: etcd.endpoints });
    try {
      await runWrites('etcd', etcdBackend, '/registry/');
    } finally {
      await etcdBackend.close();
    }
    await runScale(dir);
  } finally {
    await etcd.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
