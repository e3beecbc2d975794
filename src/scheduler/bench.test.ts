import assert from 'node:assert/strict';
import { test } from 'node:test';
import { benchNodes, runSchedulerBench } from './bench.js';

void test('the benchmark node mix is 60% linux/amd64, 20% linux/arm64, 10% each Windows build (tainted)', () => {
  const nodes = benchNodes(100);
  const count = (f: (l: Record<string, string>) => boolean): number => nodes.filter((n) => f(n.metadata?.labels ?? {})).length;
  assert.equal(count((l) => l['kubernetes.io/os'] === 'linux' && l['kubernetes.io/arch'] === 'amd64'), 60);
  assert.equal(count((l) => l['kubernetes.io/arch'] === 'arm64'), 20);
  assert.equal(count((l) => l['node.kubernetes.io/windows-build'] === '10.0.17763'), 10);
  assert.equal(count((l) => l['node.kubernetes.io/windows-build'] === '10.0.20348'), 10);
  assert.ok(nodes.filter((n) => n.metadata?.labels?.['kubernetes.io/os'] === 'windows').every((n) => n.spec?.taints?.[0]?.key === 'os'));
});

void test('a small benchmark run binds what can be bound and rejects the rest', () => {
  const results = runSchedulerBench({ nodes: 200, initialPods: 20, measuredPods: 150 });
  assert.deepEqual(
    results.map((r) => [r.variant, r.bound, r.unschedulable]),
    [
      ['SchedulingBasic', 150, 0],
      ['NodeAffinityAndTaints', 150, 0],
      ['UnschedulableHeavy', 50, 100],
    ],
  );
  for (const r of results) assert.ok(r.podsPerSecond > 0 && r.cpuSeconds > 0);
});

for (const variant of ['ClusterMix', 'ClusterMixManyWorkloads'] as const) {
  void test(`the ${variant} variant (the scale benchmark pods with ReplicaSet spreading) binds every pod, reproducibly`, () => {
    const run = (): [number, number, string] => {
      const [r] = runSchedulerBench({ nodes: 300, initialPods: 30, measuredPods: 300, variants: [variant] });
      assert.ok(r !== undefined);
      return [r.bound, r.unschedulable, r.placementsHash];
    };
    const first = run();
    assert.deepEqual(first.slice(0, 2), [300, 0]);
    assert.deepEqual(run(), first);
  });
}
