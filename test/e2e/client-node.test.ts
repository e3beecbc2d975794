/**
 * @kubernetes/client-node (the official JavaScript client) lists and watches pods against kubemix.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';

describe('@kubernetes/client-node against kubemix', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c.stop();
  });

  test('lists nodes and pods, and watches a pod come and go', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(c.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const nodes = await core.listNode();
    assert.deepEqual(
      nodes.items.map((n) => n.metadata?.name).sort(),
      ['control-plane', 'linux-amd64-1', 'linux-amd64-2', 'linux-arm64-1', 'windows-2019-1', 'windows-2022-1'],
    );
    const windows = nodes.items.find((n) => n.metadata?.name === 'windows-2022-1');
    assert.equal(windows?.metadata?.labels?.['node.kubernetes.io/windows-build'], '10.0.20348');
    assert.equal(windows?.status?.nodeInfo?.operatingSystem, 'windows');

    const seen: string[] = [];
    const watch = new k8s.Watch(kc);
    const done = new Promise<void>((resolve) => {
      void watch
        .watch(
          '/api/v1/namespaces/default/pods',
          { allowWatchBookmarks: true },
          (type: string, obj: k8s.V1Pod) => {
            if (obj.metadata?.name === 'watched') seen.push(type);
            if (type === 'DELETED' && obj.metadata?.name === 'watched') resolve();
          },
          () => resolve(),
        )
        .then((req) => {
          stop = () => req.abort();
        });
    });
    let stop: () => void = () => undefined;
    await new Promise((r) => setTimeout(r, 300));
    await core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'watched' }, spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'c', image: 'busybox' }] } },
    });
    const list = await core.listNamespacedPod({ namespace: 'default' });
    assert.ok(list.items.some((p) => p.metadata?.name === 'watched'));
    await core.deleteNamespacedPod({ name: 'watched', namespace: 'default', gracePeriodSeconds: 0 });
    await done;
    stop();
    assert.equal(seen[0], 'ADDED');
    assert.equal(seen[seen.length - 1], 'DELETED');
  });
});
