import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultCluster } from './default-topology.js';
import { expandCluster, internalIPForIndex, kubeletLabels, nodeObject, podCIDRForIndex } from './expand.js';
import { parseClusterConfig } from './load.js';

void test('internal IPs are unique loopback addresses that skip 127.0.0.x and .0/.255', () => {
  assert.equal(internalIPForIndex(0), '127.0.1.1');
  assert.equal(internalIPForIndex(1), '127.0.1.2');
  assert.equal(internalIPForIndex(253), '127.0.1.254');
  assert.equal(internalIPForIndex(254), '127.0.2.1');
  assert.equal(internalIPForIndex(254 * 255), '127.1.0.1');
  const seen = new Set<string>();
  for (let i = 0; i < 6000; i++) {
    const ip = internalIPForIndex(i);
    assert.ok(!seen.has(ip), ip);
    seen.add(ip);
    const last = Number(ip.split('.')[3]);
    assert.ok(last >= 1 && last <= 254, ip);
    assert.ok(!ip.startsWith('127.0.0.'), ip);
  }
});

void test('pod CIDRs are distinct /24s starting at 10.244.0.0/24', () => {
  assert.equal(podCIDRForIndex(0), '10.244.0.0/24');
  assert.equal(podCIDRForIndex(5), '10.244.5.0/24');
  assert.equal(podCIDRForIndex(256), '10.245.0.0/24');
  assert.equal(podCIDRForIndex(12 * 256), '10.0.0.0/24');
  const seen = new Set<string>();
  for (let i = 0; i < 6000; i++) {
    const c = podCIDRForIndex(i);
    assert.ok(!seen.has(c), c);
    seen.add(c);
  }
});

void test('nodes are named <group>-<n> from 1, even for a group of one', () => {
  const spec = parseClusterConfig(
    `apiVersion: kubemix.dev/v1alpha1
kind: Cluster
metadata: {name: t}
nodeGroups:
  - {name: solo}
  - {name: pair, count: 2}
  - {name: named, count: 2, names: [alpha, beta]}
`,
    'c.yaml',
  );
  const nodes = expandCluster(spec);
  assert.deepEqual(
    nodes.map((n) => [n.name, n.group, n.index]),
    [
      ['solo-1', 'solo', 0],
      ['pair-1', 'pair', 1],
      ['pair-2', 'pair', 2],
      ['alpha', 'named', 3],
      ['beta', 'named', 4],
    ],
  );
  assert.deepEqual(
    nodes.map((n) => n.internalIP),
    ['127.0.1.1', '127.0.1.2', '127.0.1.3', '127.0.1.4', '127.0.1.5'],
  );
});

void test('kubelet labels carry the Windows build only on Windows', () => {
  assert.deepEqual(kubeletLabels({ name: 'w', os: 'windows', arch: 'amd64', windowsBuild: '10.0.17763' }), {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'windows',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': 'w',
    'kubernetes.io/os': 'windows',
    'node.kubernetes.io/windows-build': '10.0.17763',
  });
  assert.equal(kubeletLabels({ name: 'l', os: 'linux', arch: 'arm64' })['node.kubernetes.io/windows-build'], undefined);
});

void test('nodeObject builds the Node a kubelet registers', () => {
  const node = expandCluster(defaultCluster()).find((n) => n.name === 'windows-2019-1');
  assert.ok(node);
  const obj = nodeObject(node);
  assert.equal(obj.metadata?.name, 'windows-2019-1');
  assert.equal(obj.metadata?.labels?.['node.kubernetes.io/windows-build'], '10.0.17763');
  assert.deepEqual(obj.spec?.taints, [{ key: 'os', value: 'windows', effect: 'NoSchedule' }]);
  assert.equal(obj.spec?.podCIDR, '10.244.4.0/24');
  assert.deepEqual(obj.status?.addresses, [
    { type: 'InternalIP', address: '127.0.1.5' },
    { type: 'Hostname', address: 'windows-2019-1' },
  ]);
  assert.equal(obj.status?.nodeInfo?.operatingSystem, 'windows');
  assert.equal(obj.status?.nodeInfo?.architecture, 'amd64');
  assert.equal(obj.status?.nodeInfo?.osImage, 'Windows Server 2019 Datacenter');
  assert.equal(obj.status?.nodeInfo?.kernelVersion, '10.0.17763.6532');
  assert.equal(obj.status?.nodeInfo?.kubeletVersion, 'v1.32.0');
  assert.deepEqual(obj.status?.capacity, { cpu: '4', 'ephemeral-storage': '100Gi', memory: '16Gi', pods: '110' });
  // Stable across calls: IDs derive from the node name.
  assert.deepEqual(nodeObject(node), obj);
  assert.equal(obj.spec?.providerID, undefined);
});

void test('a node object without taints has no taints field', () => {
  const node = expandCluster(defaultCluster()).find((n) => n.name === 'linux-arm64-1');
  assert.ok(node);
  assert.equal(nodeObject(node).spec?.taints, undefined);
  assert.equal(nodeObject(node).status?.nodeInfo?.architecture, 'arm64');
});

void test('a 5,000-node group expands with unique names, addresses and pod CIDRs', () => {
  const spec = parseClusterConfig(
    `apiVersion: kubemix.dev/v1alpha1
kind: Cluster
metadata: {name: big}
nodeGroups:
  - {name: cp, controlPlane: true}
  - {name: n, count: 5000}
`,
    'big.yaml',
  );
  const nodes = expandCluster(spec);
  assert.equal(nodes.length, 5001);
  assert.equal(nodes[5000]?.name, 'n-5000');
  assert.equal(new Set(nodes.map((n) => n.internalIP)).size, 5001);
  assert.equal(new Set(nodes.map((n) => n.podCIDR)).size, 5001);
});
