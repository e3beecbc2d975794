import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

const moduleUrl = new URL('./heap-growth.js', import.meta.url).href;

/**
 * A child process holding live data while it allocates objects that survive long enough to be promoted
 * (like requests in flight), reporting the largest heap it reached, in MiB.
 */
function peakHeapMiB(limited: boolean): number {
  const script = `
    import { getHeapStatistics } from 'node:v8';
    const { limitHeapGrowth } = await import(${JSON.stringify(moduleUrl)});
    if (${String(limited)}) limitHeapGrowth();
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

test('limitHeapGrowth keeps a heap nearer its live data than V8 left alone does', () => {
  const free = peakHeapMiB(false);
  const limited = peakHeapMiB(true);
  assert.ok(limited < free * 0.85, `peak heap ${limited} MiB limited, ${free} MiB left alone`);
});
