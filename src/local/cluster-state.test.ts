import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultCluster, parseClusterConfig } from '../cluster/index.js';
import { clusterStateConfigMap, ClusterStateError, decodeClusterState, nodesOfState, scaleGroup, stateFromSpec } from './cluster-state.js';

const chapter = parseClusterConfig(
  `apiVersion: kubemix.dev/v1alpha1
kind: Cluster
metadata: {name: chapter}
nodeGroups:
  - {name: control, count: 1, os: linux, arch: amd64, controlPlane: true}
  - {name: node, count: 3, os: linux, arch: amd64}
  - {name: node-win, count: 2, os: windows, arch: amd64, windowsBuild: "10.0.17763"}
`,
  'chapter.yaml',
);

test('a new state lists every node name and numbers nodes in config order', () => {
  const s = stateFromSpec(chapter);
  assert.deepEqual(s.spec.nodeGroups.map((g) => g.names), [['control-1'], ['node-1', 'node-2', 'node-3'], ['node-win-1', 'node-win-2']]);
  assert.deepEqual(s.indexes, { 'control-1': 0, 'node-1': 1, 'node-2': 2, 'node-3': 3, 'node-win-1': 4, 'node-win-2': 5 });
  assert.deepEqual(nodesOfState(s).map((n) => n.internalIP), ['127.0.1.1', '127.0.1.2', '127.0.1.3', '127.0.1.4', '127.0.1.5', '127.0.1.6']);
});

test('adding to an earlier group keeps every existing node\'s address and pod CIDR', () => {
  const s = stateFromSpec(chapter);
  const before = new Map(nodesOfState(s).map((n) => [n.name, n]));
  const r = scaleGroup(s, 'node', 2);
  assert.deepEqual(r.added, ['node-4', 'node-5']);
  assert.deepEqual(r.removed, []);
  const after = nodesOfState(r.state);
  for (const n of after) {
    const b = before.get(n.name);
    if (b !== undefined) assert.deepEqual([n.internalIP, n.podCIDR], [b.internalIP, b.podCIDR], n.name);
  }
  const added = after.filter((n) => r.added.includes(n.name));
  assert.deepEqual(added.map((n) => [n.index, n.internalIP, n.podCIDR, n.group, n.os]), [
    [6, '127.0.1.7', '10.244.6.0/24', 'node', 'linux'],
    [7, '127.0.1.8', '10.244.7.0/24', 'node', 'linux'],
  ]);
  assert.equal(r.state.spec.nodeGroups[1]?.count, 5);
});

test('removing takes the group\'s last nodes; adding again continues after the highest number in use, indexes are not reused', () => {
  const s = stateFromSpec(chapter);
  const removed = scaleGroup(s, 'node', -2);
  assert.deepEqual(removed.removed, ['node-2', 'node-3']);
  assert.deepEqual(removed.state.spec.nodeGroups[1]?.names, ['node-1']);
  assert.equal(removed.state.indexes['node-3'], undefined);
  const again = scaleGroup(removed.state, 'node', 1);
  assert.deepEqual(again.added, ['node-2']);
  assert.equal(again.state.indexes['node-2'], 6);
});

test('the default topology\'s explicitly named groups continue their <group>-<n> naming', () => {
  const s = stateFromSpec(defaultCluster());
  assert.deepEqual(scaleGroup(s, 'linux-amd64', 1).added, ['linux-amd64-3']);
  assert.deepEqual(scaleGroup(s, 'windows-2022', 2).added, ['windows-2022-2', 'windows-2022-3']);
  assert.deepEqual(scaleGroup(s, 'control-plane', 1).added, ['control-plane-2']);
});

test('an unknown group or removing more nodes than a group has is refused', () => {
  const s = stateFromSpec(chapter);
  assert.throws(() => scaleGroup(s, 'gpu', 1), new ClusterStateError('no node group "gpu"; the cluster\'s groups are: control, node, node-win'));
  assert.throws(() => scaleGroup(s, 'node-win', -3), new ClusterStateError('node group "node-win" has 2 nodes; cannot remove 3'));
  assert.deepEqual(scaleGroup(s, 'node-win', -2).state.spec.nodeGroups[2]?.names, []);
});

test('the ConfigMap round-trips the state; a malformed one is refused', () => {
  const s = scaleGroup(stateFromSpec(chapter), 'node-win', 1).state;
  const cm = clusterStateConfigMap(s);
  assert.equal(cm.metadata?.namespace, 'kube-system');
  assert.equal(cm.metadata?.name, 'kubemix-cluster');
  assert.deepEqual(decodeClusterState(JSON.parse(JSON.stringify(cm)) as typeof cm), s);
  assert.throws(() => decodeClusterState({ data: { 'cluster.json': '{' } }), ClusterStateError);
  assert.throws(() => decodeClusterState({ data: { 'cluster.json': '{"spec":1}' } }), /is not a kubemix cluster state/);
  assert.throws(() => decodeClusterState({}), /has no cluster.json/);
});
