import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { boundHeapGrowthWhenLarge, heapGrowingPercent, parallelScavengeWanted, semiSpaceMiB } from './gc-settings.js';

const moduleUrl = new URL('./gc-settings.js', import.meta.url).href;
const threadsUrl = new URL('../../test/harness/threads.js', import.meta.url).href;

/**
 * A child process holding live data while it allocates objects that survive long enough to be promoted
 * (like requests in flight), reporting the largest heap it reached, in MiB.
 */
function peakHeapMiB(boundedGrowthFromMiB: number | undefined): number {
  const script = `
    import { getHeapStatistics } from 'node:v8';
    const { tuneGarbageCollection } = await import(${JSON.stringify(moduleUrl)});
    if (${String(boundedGrowthFromMiB !== undefined)}) tuneGarbageCollection(undefined, { fromMiB: ${String(boundedGrowthFromMiB ?? 0)} });
    const live = [];
    for (let i = 0; i < 400000; i++) live.push({ name: 'pod-' + i, ports: [i, i + 1], spec: { n: i } });
    let peak = 0;
    let inFlight = [];
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 100000; i++) inFlight.push({ name: 'req-' + i, body: [i], meta: { n: i } });
      if (inFlight.length > 300000) inFlight = inFlight.slice(200000);
      peak = Math.max(peak, getHeapStatistics().total_heap_size);
    }
    process.stdout.write(String(Math.round(peak / 1048576) + live.length * 0));
  `;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

test('tuneGarbageCollection keeps a large process\'s heaps nearer their live data than V8 left alone does', () => {
  const free = peakHeapMiB(undefined);
  const bounded = peakHeapMiB(0);
  assert.ok(bounded < free * 0.85, `peak heap ${bounded} MiB bounded, ${free} MiB left alone`);
});

test('parallel scavenging only where a core is left beside the three heap threads', () => {
  assert.deepEqual([1, 2, 3, 4, 8].map(parallelScavengeWanted), [false, false, false, true, true]);
});

test('below the bound a heap grows as V8 chooses', () => {
  const free = peakHeapMiB(undefined);
  const small = peakHeapMiB(1024 * 1024);
  assert.ok(small > free * 0.85, `peak heap ${small} MiB below the bound, ${free} MiB left alone`);
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('heap growth is bounded once resident memory reaches the mark, and stays so', async () => {
  const flags: string[] = [];
  const rss = [100, 200, 3000, 1000];
  let reads = 0;
  const stop = boundHeapGrowthWhenLarge({ fromMiB: 2048, rss: () => (rss[Math.min(reads++, rss.length - 1)] as number) * 1024 * 1024, setFlags: (f) => flags.push(f), checkEveryMs: 5 });
  try {
    assert.deepEqual(flags, ['--heap-growing-percent=0']);
    for (let waited = 0; flags.length < 2 && waited < 5000; waited += 5) await sleep(5);
    assert.deepEqual(flags, ['--heap-growing-percent=0', `--heap-growing-percent=${heapGrowingPercent}`]);
    assert.equal(reads, 3);
    await sleep(60);
    assert.equal(reads, 3, 'no check after the bound is set');
    assert.equal(flags.length, 2);
  } finally {
    stop();
  }
});

test('a process already past the mark is bounded at once, with no check left running', async () => {
  const flags: string[] = [];
  let reads = 0;
  boundHeapGrowthWhenLarge({ fromMiB: 0, rss: () => (reads++, 1), setFlags: (f) => flags.push(f), checkEveryMs: 5 });
  await sleep(60);
  assert.deepEqual(flags, [`--heap-growing-percent=${heapGrowingPercent}`]);
  assert.equal(reads, 1);
});

/**
 * CPU seconds V8's helper threads (every thread but the main one) spent while a child process scavenged a
 * young generation in which much survives: what parallel scavenging adds beside the heap's own thread.
 */
function helperCpuSeconds(cores: number | undefined): number {
  const script = `
    const { tuneGarbageCollection } = await import(${JSON.stringify(moduleUrl)});
    const { processThreads } = await import(${JSON.stringify(threadsUrl)});
    if (${String(cores !== undefined)}) tuneGarbageCollection(${String(cores ?? 0)});
    const helpers = () => {
      let ticks = 0;
      for (const t of processThreads()) if (t.tid !== String(process.pid)) ticks += t.cpuTicks;
      return ticks / 100;
    };
    const before = helpers();
    const ring = new Array(300000);
    for (let i = 0; i < 6000000; i++) ring[i % ring.length] = { name: 'req-' + i, body: [i], meta: { n: i } };
    process.stdout.write(String(helpers() - before));
  `;
  return Number(execFileSync(process.execPath, ['--max-semi-space-size=64', '--input-type=module', '-e', script], { encoding: 'utf8' }));
}

test('with two cores the young generation is scavenged on the heap\'s own thread', { skip: process.platform !== 'linux' }, () => {
  const parallel = helperCpuSeconds(undefined);
  const serial = helperCpuSeconds(2);
  assert.ok(serial < parallel / 2, `helper threads ${serial} s tuned for 2 cores, ${parallel} s left alone`);
});

/**
 * The largest young generation (new space, both semi-spaces) a worker thread reached, in MiB, while it
 * kept replacing objects of a large live set, in a child process tuned (or not) before starting it.
 */
function workerNewSpaceMiB(tuned: boolean): number {
  const worker = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { parentPort } from 'node:worker_threads';
    const ring = new Array(300000);
    let peak = 0;
    for (let i = 0; i < 3000000; i++) {
      ring[i % ring.length] = { name: 'req-' + i, body: [i], meta: { n: i } };
      if (i % 100000 === 0) peak = Math.max(peak, getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
    }
    parentPort.postMessage(Math.round(peak / 1048576));
  `;
  const script = `
    import { Worker } from 'node:worker_threads';
    const { tuneGarbageCollection } = await import(${JSON.stringify(moduleUrl)});
    if (${String(tuned)}) tuneGarbageCollection(2);
    new Worker(${JSON.stringify(worker)}, { eval: true }).on('message', (m) => process.stdout.write(String(m)));
  `;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

test('worker threads started after tuning grow their young generation to the tuned semi-spaces', () => {
  const free = workerNewSpaceMiB(false);
  const tuned = workerNewSpaceMiB(true);
  assert.ok(free < semiSpaceMiB, `left alone: ${free} MiB`);
  assert.equal(tuned, 2 * semiSpaceMiB, `tuned: ${tuned} MiB, left alone ${free} MiB`);
});

test('npm start and npm run bench give the main thread\'s heap the same semi-spaces', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  for (const script of ['start', 'bench']) {
    assert.match(pkg.scripts[script] ?? '', new RegExp(`node (?:\\S+ )*--max-semi-space-size=${semiSpaceMiB} `), script);
  }
});
