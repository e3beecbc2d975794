import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultCluster, defaultClusterConfig } from './default-topology.js';
import { expandCluster, nodeLabels } from './expand.js';
import { readClusterConfig } from './load.js';

void test('the default topology has the nodes of cli.md, in its order', () => {
  const nodes = expandCluster(defaultCluster());
  assert.deepEqual(
    nodes.map((n) => [n.name, `${n.os}/${n.arch}`, n.windowsBuild ?? '', n.osImage]),
    [
      ['control-plane', 'linux/amd64', '', 'Ubuntu 22.04.4 LTS'],
      ['linux-amd64-1', 'linux/amd64', '', 'Ubuntu 22.04.4 LTS'],
      ['linux-amd64-2', 'linux/amd64', '', 'Ubuntu 22.04.4 LTS'],
      ['linux-arm64-1', 'linux/arm64', '', 'Ubuntu 22.04.4 LTS'],
      ['windows-2019-1', 'windows/amd64', '10.0.17763', 'Windows Server 2019 Datacenter'],
      ['windows-2022-1', 'windows/amd64', '10.0.20348', 'Windows Server 2022 Datacenter'],
    ],
  );
});

void test('the default topology taints the control plane and the Windows nodes only', () => {
  const taints = Object.fromEntries(expandCluster(defaultCluster()).map((n) => [n.name, n.taints]));
  assert.deepEqual(taints, {
    'control-plane': [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
    'linux-amd64-1': [],
    'linux-amd64-2': [],
    'linux-arm64-1': [],
    'windows-2019-1': [{ key: 'os', value: 'windows', effect: 'NoSchedule' }],
    'windows-2022-1': [{ key: 'os', value: 'windows', effect: 'NoSchedule' }],
  });
});

void test('the control plane carries kubeadm role labels; workers do not', () => {
  const nodes = expandCluster(defaultCluster());
  const cp = nodes.find((n) => n.name === 'control-plane');
  assert.ok(cp);
  assert.equal(cp.controlPlane, true);
  assert.deepEqual(nodeLabels(cp), {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': 'control-plane',
    'kubernetes.io/os': 'linux',
    'node-role.kubernetes.io/control-plane': '',
    'node.kubernetes.io/exclude-from-external-load-balancers': '',
  });
  for (const n of nodes.filter((x) => x.name !== 'control-plane')) {
    assert.equal(n.controlPlane, false);
    assert.equal(n.labels['node-role.kubernetes.io/control-plane'], undefined, n.name);
  }
});

void test('Windows nodes of the default topology carry their build label', () => {
  const nodes = expandCluster(defaultCluster());
  const w19 = nodes.find((n) => n.name === 'windows-2019-1');
  const w22 = nodes.find((n) => n.name === 'windows-2022-1');
  assert.ok(w19 && w22);
  assert.equal(nodeLabels(w19)['node.kubernetes.io/windows-build'], '10.0.17763');
  assert.equal(nodeLabels(w22)['node.kubernetes.io/windows-build'], '10.0.20348');
  assert.equal(w19.kernelVersion, '10.0.17763.6532');
  assert.equal(w22.kernelVersion, '10.0.20348.2849');
  assert.equal(nodeLabels(w22)['kubernetes.io/os'], 'windows');
});

void test('every default node has 4 cpu, 16Gi memory and 110 pods, allocatable as capacity', () => {
  for (const n of expandCluster(defaultCluster())) {
    assert.deepEqual(n.capacity, { cpu: '4', 'ephemeral-storage': '100Gi', memory: '16Gi', pods: '110' }, n.name);
    assert.deepEqual(n.allocatable, n.capacity, n.name);
  }
});

void test('the default topology is written as a native config with explicit names', () => {
  const config = defaultClusterConfig();
  assert.equal(config.apiVersion, 'kubemix.dev/v1alpha1');
  assert.equal(config.kind, 'Cluster');
  for (const g of config.nodeGroups) assert.ok(g.names !== undefined && g.names.length > 0, g.name);
  // It reads back through the public reader to the same spec.
  assert.deepEqual(readClusterConfig(config, 'default'), defaultCluster());
});

void test('defaultClusterConfig returns a fresh copy each time', () => {
  const a = defaultClusterConfig();
  a.nodeGroups.pop();
  assert.equal(defaultClusterConfig().nodeGroups.length, 5);
});
