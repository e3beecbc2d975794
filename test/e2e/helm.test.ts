/**
 * The real helm v3 against `kubemix up`: install (with a CRD and a custom resource), upgrade with --set,
 * rollback and uninstall, each with --wait, as on a real cluster.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';
import { repoRoot } from '../tools/kubectl-tools.js';

const chart = join(repoRoot(), 'test', 'e2e', 'charts', 'demo');

describe('helm against kubemix', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
    await c.kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
  });
  after(async () => {
    await c.stop();
  });

  const helmOk = async (args: string[]): Promise<string> => {
    const r = await c.helm(args);
    assert.equal(r.code, 0, `helm ${args.join(' ')}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    return r.stdout;
  };

  test('install, upgrade, rollback and uninstall a chart with --wait', async () => {
    const installed = await helmOk(['install', 'demo', chart, '--wait', '--timeout', '90s']);
    assert.match(installed, /STATUS: deployed/);
    assert.match(installed, /REVISION: 1/);
    assert.equal(await c.kubectl(['get', 'deployment', 'demo-web', '-o', 'jsonpath={.status.readyReplicas}']), '1');
    assert.equal(await c.kubectl(['get', 'widget', 'demo-widget', '-o', 'jsonpath={.spec.size}']), 'hello');
    assert.equal(await c.kubectl(['get', 'configmap', 'demo-config', '-o', 'jsonpath={.data.greeting}']), 'hello');
    assert.match(await c.kubectl(['get', 'secrets', '-l', 'owner=helm', '-o', 'name']), /secret\/sh\.helm\.release\.v1\.demo\.v1/);

    const upgraded = await helmOk(['upgrade', 'demo', chart, '--set', 'replicaCount=2', '--set', 'greeting=bonjour', '--wait', '--timeout', '90s']);
    assert.match(upgraded, /REVISION: 2/);
    assert.equal(await c.kubectl(['get', 'deployment', 'demo-web', '-o', 'jsonpath={.status.readyReplicas}']), '2');
    assert.equal(await c.kubectl(['get', 'configmap', 'demo-config', '-o', 'jsonpath={.data.greeting}']), 'bonjour');

    assert.match(await helmOk(['rollback', 'demo', '1', '--wait', '--timeout', '90s']), /Rollback was a success! Happy Helming!/);
    assert.equal(await c.kubectl(['get', 'configmap', 'demo-config', '-o', 'jsonpath={.data.greeting}']), 'hello');
    await c.eventually('one replica again', async () =>
      (await c.kubectl(['get', 'deployment', 'demo-web', '-o', 'jsonpath={.spec.replicas}'])) === '1' ? true : undefined,
    );
    const history = await helmOk(['history', 'demo']);
    assert.match(history, /^REVISION\s+UPDATED\s+STATUS\s+CHART\s+APP VERSION\s+DESCRIPTION\s*\n1\s.*superseded.*Install complete\s*\n2\s.*superseded.*Upgrade complete\s*\n3\s.*deployed\s+demo-0\.1\.0\s+1\.0\.0\s+Rollback to 1\s*\n$/);

    assert.match(await helmOk(['uninstall', 'demo', '--wait']), /release "demo" uninstalled/);
    await c.eventually('the release objects gone', async () =>
      (await c.kubectl(['get', 'deployment,service,configmap,serviceaccount,role,rolebinding', '-l', 'app.kubernetes.io/managed-by!=x', '-o', 'name']))
        .split('\n')
        .filter((l) => l.includes('demo-')).length === 0
        ? true
        : undefined,
    );
    assert.equal(await c.kubectl(['get', 'widgets', '-o', 'name']), '');
  });
});
