/**
 * The cluster benchmark as a CI smoke test (issue 11): a small run in process must bring every node Ready
 * and every pod Running, and end with the JSON line of exactly the documented keys. No timing assertions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apportion, benchClusterSpec, benchDeployments, benchKeys, parseBenchArgs, percentile, runBench } from '../../bench/bench.js';
import { expandCluster } from '../../src/cluster/index.js';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: { bench: string } };

test('the node mix is 60% linux/amd64, 20% linux/arm64, 10% Windows Server 2019 and 10% 2022, Windows tainted', () => {
  const nodes = expandCluster(benchClusterSpec(100));
  const count = (f: (n: (typeof nodes)[number]) => boolean): number => nodes.filter(f).length;
  assert.equal(nodes.length, 100);
  assert.equal(count((n) => n.os === 'linux' && n.arch === 'amd64'), 60);
  assert.equal(count((n) => n.os === 'linux' && n.arch === 'arm64'), 20);
  assert.equal(count((n) => n.windowsBuild === '10.0.17763'), 10);
  assert.equal(count((n) => n.windowsBuild === '10.0.20348'), 10);
  for (const n of nodes) {
    assert.deepEqual(n.taints, n.os === 'windows' ? [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] : []);
    assert.ok(['zone-a', 'zone-b', 'zone-c'].includes(n.labels['topology.kubernetes.io/zone'] ?? ''));
  }
});

test('Deployments add up to the pod count and carry every kind of constraint', () => {
  for (const pods of [1, 7, 500, 15_000]) {
    const ds = benchDeployments(pods);
    assert.equal(ds.reduce((a, d) => a + (d.spec?.replicas ?? 0), 0), pods);
    assert.ok(ds.every((d) => (d.spec?.replicas ?? 0) <= 1000));
  }
  const specs = benchDeployments(500).map((d) => d.spec?.template.spec);
  assert.ok(specs.some((s) => s?.nodeSelector === undefined && s?.affinity === undefined && s?.runtimeClassName === undefined));
  assert.ok(specs.some((s) => s?.nodeSelector?.['kubernetes.io/os'] === 'linux' && s.topologySpreadConstraints === undefined));
  assert.deepEqual(specs.filter((s) => s?.runtimeClassName !== undefined).map((s) => s?.runtimeClassName), ['windows-2019', 'windows-2022']);
  assert.ok(specs.some((s) => s?.affinity?.nodeAffinity !== undefined));
  assert.ok(specs.some((s) => s?.topologySpreadConstraints?.[0]?.topologyKey === 'topology.kubernetes.io/zone'));
});

test('apportion, percentile and the flags', () => {
  assert.deepEqual(apportion(10, [6, 2, 1, 1]), [6, 2, 1, 1]);
  assert.deepEqual(apportion(5, [1, 1, 1]), [2, 2, 1]);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50), 5);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99), 10);
  assert.equal(percentile([], 99), 0);
  assert.deepEqual(parseBenchArgs(['--nodes', '5', '--pods=7', '--store', 'etcd']), { nodes: 5, pods: 7, store: 'etcd' });
  assert.throws(() => parseBenchArgs(['--store', 'mysql']), /--store must be sqlite or etcd/);
  assert.throws(() => parseBenchArgs(['--nodes', '0']), /--nodes must be a positive integer/);
});

test('npm run bench -- --nodes 500 --pods 15000 brings every node Ready and every pod Running, JSON line last', { timeout: 600_000 }, async () => {
  // As `npm run bench` runs it (the same node flags, its own process); no timing assertions.
  const script = fileURLToPath(new URL('../../bench/bench.js', import.meta.url));
  const flags = /--max-old-space-size=\d+ --max-semi-space-size=\d+/.exec(packageJson.scripts.bench)?.[0].split(' ') ?? [];
  assert.equal(flags.length, 2, 'the bench script names its heap flags');
  // At the lowest CPU priority: the tests running beside it keep their timing (their clusters' heartbeats).
  const child = spawn('nice', ['-n', '19', process.execPath, ...flags, script, '--nodes', '500', '--pods', '15000'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const stdout = Buffer.concat(out).toString();
  assert.equal(code, 0, `bench exited ${code}\n${stdout}\n${Buffer.concat(err).toString().slice(-4000)}`);
  const lines = stdout.trim().split('\n');
  assert.match(lines[0] ?? '', /^kubemix bench: 500 nodes, 15000 pods, sqlite store$/);
  // The kubelets renewed their leases while the pods started (every 10 s; the pods take longer).
  assert.match(stdout, /\n {2}node leases {12}[1-9]\d* renewals of 500 while pods started, longest wait [\d.]+ s/);
  const json = JSON.parse(lines.at(-1) ?? '') as Record<string, unknown>;
  assert.deepEqual(Object.keys(json), [...benchKeys]);
  assert.equal(json['nodes'], 500);
  assert.equal(json['pods'], 15000);
  assert.equal(json['store'], 'sqlite');
  for (const k of benchKeys.filter((k) => k !== 'store')) assert.equal(typeof json[k], 'number', k);
});

test('runBench in process: a small run completes and counts every pod Running', { timeout: 180_000 }, async () => {
  const r = await runBench({ nodes: 20, pods: 100, timeoutMs: 150_000 });
  assert.equal(r.running, 100);
  assert.equal((JSON.parse(r.lines.at(-1) ?? '{}') as { pods?: number }).pods, 100);
});
