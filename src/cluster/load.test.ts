import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../util/paths.js';
import { ClusterConfigError } from './errors.js';
import { expandCluster } from './expand.js';
import { loadClusterConfig, parseClusterConfig, readClusterConfig } from './load.js';

function errorOf(fn: () => unknown): ClusterConfigError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ClusterConfigError, String(e));
    return e;
  }
  assert.fail('no error');
}

void test('JSON configs are read like YAML ones', () => {
  const spec = parseClusterConfig(
    JSON.stringify({
      apiVersion: 'kubemix.dev/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'j' },
      nodeGroups: [{ name: 'w', os: 'windows', windowsBuild: '10.0.17763', count: 2 }],
    }),
    'cluster.json',
  );
  assert.deepEqual(
    expandCluster(spec).map((n) => n.name),
    ['w-1', 'w-2'],
  );
});

void test('an unknown apiVersion names the supported ones', () => {
  const e = errorOf(() => parseClusterConfig('apiVersion: v1\nkind: Cluster\n', 'cluster.yaml'));
  assert.equal(
    e.message,
    'cluster.yaml: apiVersion: Unsupported value: "v1": supported values: "kubemix.dev/v1alpha1", "eksctl.io/v1alpha5"',
  );
});

void test('a missing apiVersion is required', () => {
  assert.equal(errorOf(() => parseClusterConfig('kind: Cluster\n', 'c.yaml')).message, 'c.yaml: apiVersion: Required value');
});

void test('malformed YAML is refused with the parser message', () => {
  const e = errorOf(() => parseClusterConfig('apiVersion: [unclosed\n', 'c.yaml'));
  assert.equal(e.problems.length, 1);
  assert.match(e.message, /^c\.yaml: /);
});

void test('duplicate keys are refused', () => {
  const e = errorOf(() =>
    parseClusterConfig('apiVersion: kubemix.dev/v1alpha1\napiVersion: eksctl.io/v1alpha5\n', 'c.yaml'),
  );
  assert.match(e.message, /^c\.yaml: Map keys must be unique/);
});

void test('several documents are refused', () => {
  const e = errorOf(() => parseClusterConfig('a: 1\n---\nb: 2\n', 'c.yaml'));
  assert.equal(e.message, 'c.yaml: expected one document, found 2');
});

void test('an empty file is refused', () => {
  assert.equal(errorOf(() => parseClusterConfig('# nothing\n', 'c.yaml')).message, 'c.yaml: the file holds no document');
});

void test('a document that is not a map is refused', () => {
  assert.equal(
    errorOf(() => readClusterConfig(['a'], 'c.yaml')).message,
    'c.yaml: must be a map with apiVersion, kind and metadata',
  );
});

void test('loadClusterConfig reads a file and names it in errors', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'kubemix-cluster-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const good = join(dir, 'good.yaml');
  await writeFile(good, 'apiVersion: kubemix.dev/v1alpha1\nkind: Cluster\nmetadata: {name: g}\nnodeGroups: [{name: a}]\n');
  assert.equal((await loadClusterConfig(good)).name, 'g');
  const bad = join(dir, 'bad.yaml');
  await writeFile(bad, 'apiVersion: kubemix.dev/v1alpha1\nkind: Cluster\nmetadata: {name: g}\nnodeGroups: [{name: a, os: macos}]\n');
  await assert.rejects(loadClusterConfig(bad), {
    name: 'ClusterConfigError',
    message: 'bad.yaml: nodeGroups[0].os: Unsupported value: "macos": supported values: "linux", "windows"',
  });
  await assert.rejects(loadClusterConfig(join(dir, 'missing.yaml')), {
    name: 'ClusterConfigError',
    message: 'missing.yaml: no such file',
  });
});

// The scenario files themselves (the repository keeps copies of shared/scenarios under test/e2e/scenarios).
const scenarios = join(packageRoot, 'test', 'e2e', 'scenarios');

void test('the shared scenario configs load', async () => {
  const chapter = expandCluster(await loadClusterConfig(join(scenarios, 'chapter-cluster.yaml')));
  assert.deepEqual(
    chapter.map((n) => n.name),
    ['control-1', 'node-1', 'node-2', 'node-3', 'node-win-1', 'node-win-2', 'node-win-3'],
  );
  const eks = expandCluster(await loadClusterConfig(join(scenarios, 'eksctl-cluster.yaml')));
  assert.deepEqual(
    eks.map((n) => `${n.name} ${n.os}/${n.arch} ${n.windowsBuild ?? '-'} ${n.maxPods}`),
    [
      'linux-ng-1 linux/amd64 - 29',
      'linux-ng-2 linux/amd64 - 29',
      'arm-ng-1 linux/arm64 - 29',
      'windows-ng-1 windows/amd64 10.0.20348 14',
      'windows-ng-2 windows/amd64 10.0.20348 14',
      'windows-2019-mng-1 windows/amd64 10.0.17763 9',
    ],
  );
});
