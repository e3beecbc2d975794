/**
 * The real kubectl v1.32 and ResourceQuota on `kubemix up`: the quota controller fills in `status`, the
 * admission plugin refuses pods past the quota with kube-apiserver's Forbidden message and charges the
 * ones it admits, and `kubectl describe quota` / `kubectl get quota` print the usage.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';

const quota = `apiVersion: v1
kind: ResourceQuota
metadata:
  name: compute
  namespace: quota-e2e
spec:
  hard:
    pods: "2"
    limits.cpu: "2"
`;

const pod = (name: string, cpu: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: quota-e2e
spec:
  containers:
  - name: app
    image: nginx:1.27
    resources:
      limits:
        cpu: "${cpu}"
`;

describe('kubectl and ResourceQuota', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c.stop();
  });

  test('pods: 2 and limits.cpu: 2 are enforced and shown', async () => {
    await c.kubectl(['create', 'namespace', 'quota-e2e']);
    await c.kubectl(['apply', '-f', '-'], quota);
    await c.eventually('the quota status', async () => {
      const used = await c.kubectl(['get', 'quota', 'compute', '-n', 'quota-e2e', '-o', 'jsonpath={.status.used}']);
      return used === '' ? undefined : used;
    });

    const noLimits = await c.kubectlResult(['run', 'bare', '-n', 'quota-e2e', '--image=nginx:1.27']);
    assert.equal(noLimits.code, 1);
    assert.equal(noLimits.stderr, 'Error from server (Forbidden): pods "bare" is forbidden: failed quota: compute: must specify limits.cpu for: bare\n');

    await c.kubectl(['apply', '-f', '-'], pod('one', '1'));
    const tooMuch = await c.kubectlResult(['apply', '-f', '-'], pod('two', '2'));
    assert.equal(tooMuch.code, 1);
    assert.equal(
      tooMuch.stderr,
      'Error from server (Forbidden): error when creating "STDIN": pods "two" is forbidden: exceeded quota: compute, requested: limits.cpu=2, used: limits.cpu=1, limited: limits.cpu=2\n',
    );
    await c.kubectl(['apply', '-f', '-'], pod('two', '500m'));
    const third = await c.kubectlResult(['apply', '-f', '-'], pod('three', '100m'));
    assert.equal(
      third.stderr,
      'Error from server (Forbidden): error when creating "STDIN": pods "three" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2\n',
    );

    assert.equal(
      await c.kubectl(['describe', 'quota', 'compute', '-n', 'quota-e2e']),
      'Name:       compute\nNamespace:  quota-e2e\nResource    Used   Hard\n--------    ----   ----\nlimits.cpu  1500m  2\npods        2      2\n',
    );
    assert.match(await c.kubectl(['get', 'quota', '-n', 'quota-e2e']), /^NAME\s+AGE\s+REQUEST\s+LIMIT\ncompute\s+\d+s\s+pods: 2\/2\s+limits\.cpu: 1500m\/2\n$/);

    // Deleting a pod gives its share back (the controller's replenishment).
    await c.kubectl(['delete', 'pod', 'one', '-n', 'quota-e2e', '--grace-period=0', '--force']);
    await c.eventually('the released usage', async () => {
      const used = await c.kubectl(['get', 'quota', 'compute', '-n', 'quota-e2e', '-o', 'jsonpath={.status.used.pods}']);
      return used === '1' ? used : undefined;
    });
  });
});
