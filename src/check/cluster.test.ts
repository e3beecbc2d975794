import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultCluster, expandCluster, nodeObject } from '../cluster/index.js';
import { clusterFromSpec, nodeGroups, simNodeOf } from './cluster.js';

test('the default topology gives the node groups of kubemix up', () => {
  const c = clusterFromSpec(defaultCluster(), 'default');
  assert.deepEqual(
    nodeGroups(c.nodes).map((g) => [g.group, g.nodes]),
    [
      ['linux/amd64', ['control-plane', 'linux-amd64-1', 'linux-amd64-2']],
      ['linux/arm64', ['linux-arm64-1']],
      ['windows/amd64 10.0.17763', ['windows-2019-1']],
      ['windows/amd64 10.0.20348', ['windows-2022-1']],
    ],
  );
  assert.ok(c.bootstrapObjects.some((o) => o.kind === 'DaemonSet'));
});

test('a live node is read by its nodeInfo and labels, the same as one built from the config', () => {
  for (const n of expandCluster(defaultCluster())) {
    const fromLive = simNodeOf(nodeObject(n));
    const fromConfig = clusterFromSpec(defaultCluster(), 'default').nodes.find((x) => x.name === n.name);
    assert.equal(fromLive.group, fromConfig?.group);
    assert.equal(fromLive.windowsBuild, fromConfig?.windowsBuild);
  }
  const bare = simNodeOf({ metadata: { name: 'w', labels: { 'kubernetes.io/os': 'windows', 'kubernetes.io/arch': 'amd64' } }, status: { nodeInfo: { kernelVersion: '10.0.20348.2849', operatingSystem: 'windows', architecture: 'amd64' } as never } });
  assert.equal(bare.group, 'windows/amd64 10.0.20348');
});
