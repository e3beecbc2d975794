import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClusterConfigError } from './errors.js';
import { expandCluster, nodeLabels } from './expand.js';
import { parseClusterConfig } from './load.js';
import type { NodeSpec } from './types.js';

// shared/scenarios/eksctl-cluster.yaml
const eksctlCluster = `# An eksctl ClusterConfig in the shape of the EKS best-practices guide: Linux and Windows node groups,
# Windows nodes labelled and tainted at registration.
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: hetero
  region: us-east-1
nodeGroups:
  - name: linux-ng
    amiFamily: AmazonLinux2
    instanceType: m5.large
    desiredCapacity: 2
  - name: arm-ng
    amiFamily: AmazonLinux2
    instanceType: m6g.large
    desiredCapacity: 1
  - name: windows-ng
    amiFamily: WindowsServer2022FullContainer
    instanceType: m5.xlarge
    desiredCapacity: 2
    labels:
      nodeclass: windows2022
    taints:
      os: "windows:NoSchedule"
managedNodeGroups:
  - name: windows-2019-mng
    amiFamily: WindowsServer2019CoreContainer
    instanceType: m5.large
    desiredCapacity: 1
    taints:
      - key: os
        value: windows
        effect: NoSchedule
`;

function hetero(): NodeSpec[] {
  return expandCluster(parseClusterConfig(eksctlCluster, 'eksctl-cluster.yaml'));
}

const windowsTaint = [{ key: 'os', value: 'windows', effect: 'NoSchedule' }];

void test('eksctl-cluster.yaml gives 2 Linux amd64, 1 Linux arm64, 2 Windows 2022 and 1 Windows 2019 node', () => {
  assert.deepEqual(
    hetero().map((n) => [n.name, n.group, n.os, n.arch, n.windowsBuild ?? '', n.instanceType, n.maxPods]),
    [
      ['linux-ng-1', 'linux-ng', 'linux', 'amd64', '', 'm5.large', 29],
      ['linux-ng-2', 'linux-ng', 'linux', 'amd64', '', 'm5.large', 29],
      ['arm-ng-1', 'arm-ng', 'linux', 'arm64', '', 'm6g.large', 29],
      ['windows-ng-1', 'windows-ng', 'windows', 'amd64', '10.0.20348', 'm5.xlarge', 14],
      ['windows-ng-2', 'windows-ng', 'windows', 'amd64', '10.0.20348', 'm5.xlarge', 14],
      ['windows-2019-mng-1', 'windows-2019-mng', 'windows', 'amd64', '10.0.17763', 'm5.large', 9],
    ],
  );
});

void test('the taints are as written, in both eksctl forms', () => {
  const taints = Object.fromEntries(hetero().map((n) => [n.name, n.taints]));
  assert.deepEqual(taints, {
    'linux-ng-1': [],
    'linux-ng-2': [],
    'arm-ng-1': [],
    'windows-ng-1': windowsTaint,
    'windows-ng-2': windowsTaint,
    'windows-2019-mng-1': windowsTaint,
  });
});

void test('Windows 2022 nodes are labelled nodeclass=windows2022 and report Windows Server 2022', () => {
  for (const n of hetero().filter((x) => x.group === 'windows-ng')) {
    assert.equal(n.labels['nodeclass'], 'windows2022');
    assert.equal(n.osImage, 'Windows Server 2022 Datacenter');
    assert.equal(n.kernelVersion, '10.0.20348.2849');
    assert.equal(nodeLabels(n)['node.kubernetes.io/windows-build'], '10.0.20348');
  }
  const w19 = hetero().find((n) => n.group === 'windows-2019-mng');
  assert.ok(w19);
  assert.equal(w19.labels['nodeclass'], undefined);
  assert.equal(w19.osImage, 'Windows Server 2019 Datacenter');
});

void test('capacity is the instance type; Linux allocatable is what the EKS bootstrap leaves', () => {
  const [m5] = hetero();
  assert.ok(m5);
  assert.deepEqual(m5.capacity, { cpu: '2', 'ephemeral-storage': '80Gi', memory: '8Gi', pods: '29' });
  // cpu 2000m - 70m; memory 8192Mi - (11*29+255)Mi - 100Mi eviction; storage 80Gi - 1Gi - 10%.
  assert.deepEqual(m5.allocatable, { cpu: '1930m', 'ephemeral-storage': '71Gi', memory: '7518Mi', pods: '29' });
  const win = hetero().find((n) => n.name === 'windows-ng-1');
  assert.ok(win);
  assert.deepEqual(win.capacity, { cpu: '4', 'ephemeral-storage': '80Gi', memory: '16Gi', pods: '14' });
  assert.deepEqual(win.allocatable, { cpu: '4', 'ephemeral-storage': '72Gi', memory: '15884Mi', pods: '14' });
});

void test('nodes carry the labels EKS, eksctl and the AWS cloud provider set', () => {
  const nodes = hetero();
  const selfManaged = nodes.find((n) => n.name === 'linux-ng-2');
  assert.ok(selfManaged);
  assert.equal(selfManaged.labels['eks.amazonaws.com/nodegroup'], undefined);
  assert.deepEqual(selfManaged.labels, {
    'alpha.eksctl.io/cluster-name': 'hetero',
    'alpha.eksctl.io/nodegroup-name': 'linux-ng',
    'beta.kubernetes.io/instance-type': 'm5.large',
    'failure-domain.beta.kubernetes.io/region': 'us-east-1',
    'failure-domain.beta.kubernetes.io/zone': 'us-east-1b',
    'node.kubernetes.io/instance-type': 'm5.large',
    'topology.kubernetes.io/region': 'us-east-1',
    'topology.kubernetes.io/zone': 'us-east-1b',
  });
  const managed = nodes.find((n) => n.name === 'windows-2019-mng-1');
  assert.ok(managed);
  assert.equal(managed.labels['eks.amazonaws.com/nodegroup'], 'windows-2019-mng');
  assert.equal(managed.labels['eks.amazonaws.com/capacityType'], 'ON_DEMAND');
  assert.match(managed.labels['eks.amazonaws.com/nodegroup-image'] ?? '', /^ami-0[0-9a-f]{16}$/);
  assert.equal(managed.labels['alpha.eksctl.io/nodegroup-name'], 'windows-2019-mng');
});

void test('nodes spread round-robin over the zones and get AWS provider IDs', () => {
  const nodes = hetero();
  assert.deepEqual(
    nodes.map((n) => n.zone),
    ['us-east-1a', 'us-east-1b', 'us-east-1a', 'us-east-1a', 'us-east-1b', 'us-east-1a'],
  );
  for (const n of nodes) {
    assert.match(n.providerID ?? '', new RegExp(`^aws:///${n.zone ?? ''}/i-0[0-9a-f]{16}$`));
    assert.equal(n.region, 'us-east-1');
    assert.equal(n.kubeletVersion, 'v1.32.0-eks-5d632ec');
  }
  assert.equal(new Set(nodes.map((n) => n.providerID)).size, nodes.length);
});

void test('common eksctl fields are accepted without effect', () => {
  const spec = parseClusterConfig(
    `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: full
  region: eu-west-1
  version: "1.32"
  tags: {team: infra}
vpc:
  cidr: 10.10.0.0/16
  nat: {gateway: Single}
iam:
  withOIDC: true
addons:
  - name: vpc-cni
availabilityZones: [eu-west-1a, eu-west-1c]
cloudWatch:
  clusterLogging: {enableTypes: ["*"]}
nodeGroups:
  - name: ng
    instanceType: t3.medium
    minSize: 1
    maxSize: 4
    volumeSize: 50
    privateNetworking: true
    ssh: {allow: true, publicKeyName: mykey}
    iam: {withAddonPolicies: {autoScaler: true}}
    tags: {owner: me}
    kubeletExtraConfig: {kubeReserved: {cpu: 300m}}
    preBootstrapCommands: ["echo hi"]
managedNodeGroups:
  - name: mng
    amiFamily: Bottlerocket
    instanceTypes: [c6g.large, c7g.large]
    spot: true
    desiredCapacity: 3
    availabilityZones: [eu-west-1b]
    updateConfig: {maxUnavailable: 1}
`,
    'full.yaml',
  );
  const nodes = expandCluster(spec);
  assert.deepEqual(
    nodes.map((n) => [n.name, n.arch, n.instanceType, n.maxPods, n.zone, n.osImage]),
    [
      ['ng-1', 'amd64', 't3.medium', 17, 'eu-west-1a', 'Amazon Linux 2023.6.20250203'],
      ['mng-1', 'arm64', 'c6g.large', 29, 'eu-west-1b', 'Bottlerocket OS 1.32.0 (aws-k8s-1.32)'],
      ['mng-2', 'arm64', 'c6g.large', 29, 'eu-west-1b', 'Bottlerocket OS 1.32.0 (aws-k8s-1.32)'],
      ['mng-3', 'arm64', 'c6g.large', 29, 'eu-west-1b', 'Bottlerocket OS 1.32.0 (aws-k8s-1.32)'],
    ],
  );
  assert.equal(nodes[0]?.capacity['ephemeral-storage'], '50Gi');
  assert.equal(nodes[1]?.labels['eks.amazonaws.com/capacityType'], 'SPOT');
});

void test('defaults: AmazonLinux2023, m5.large, 2 nodes, us-west-2; maxPodsPerNode overrides max pods', () => {
  const spec = parseClusterConfig(
    `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: d}
nodeGroups:
  - name: ng
  - name: dense
    maxPodsPerNode: 110
    desiredCapacity: 1
`,
    'd.yaml',
  );
  const nodes = expandCluster(spec);
  assert.deepEqual(
    nodes.map((n) => [n.name, n.instanceType, n.osImage, n.maxPods, n.zone]),
    [
      ['ng-1', 'm5.large', 'Amazon Linux 2023.6.20250203', 29, 'us-west-2a'],
      ['ng-2', 'm5.large', 'Amazon Linux 2023.6.20250203', 29, 'us-west-2b'],
      ['dense-1', 'm5.large', 'Amazon Linux 2023.6.20250203', 110, 'us-west-2a'],
    ],
  );
  // kube-reserved memory follows max pods: 8192 - (11*110+255) - 100.
  assert.equal(nodes[2]?.allocatable['memory'], '6627Mi');
});

void test('amiType alone decides the OS; with amiFamily it must agree', () => {
  const spec = parseClusterConfig(
    `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: t, region: us-east-2}
managedNodeGroups:
  - {name: w, amiType: WINDOWS_CORE_2019_x86_64, instanceType: m5.xlarge, desiredCapacity: 1}
  - {name: a, amiType: AL2_ARM_64, amiFamily: AmazonLinux2, instanceType: t4g.medium, desiredCapacity: 1}
`,
    't.yaml',
  );
  const [w, a] = expandCluster(spec);
  assert.ok(w && a);
  assert.deepEqual([w.os, w.windowsBuild, w.maxPods], ['windows', '10.0.17763', 14]);
  assert.deepEqual([a.os, a.arch, a.maxPods, a.kernelVersion], ['linux', 'arm64', 17, '5.10.234-225.895.amzn2.aarch64']);
  assert.equal(spec.nodeGroups[1]?.eks?.amiType, 'AL2_ARM_64');
});

function errorsOf(text: string): string[] {
  try {
    parseClusterConfig(text, 'eks.yaml');
  } catch (e) {
    assert.ok(e instanceof ClusterConfigError, String(e));
    return e.message.split('\n');
  }
  assert.fail('config was accepted');
}

const header = `apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: t, region: us-east-1}
`;

const errorCases: { name: string; body: string; want: string[] }[] = [
  {
    name: 'an unknown node group field is reported',
    body: 'nodeGroups:\n  - {name: ng, desiredCapcity: 2}\n',
    want: ['eks.yaml: nodeGroups[0].desiredCapcity: unknown field'],
  },
  {
    name: 'an unknown top-level field is reported',
    body: 'nodegroups:\n  - {name: ng}\nnodeGroups:\n  - {name: ng}\n',
    want: ['eks.yaml: nodegroups: unknown field'],
  },
  {
    name: 'a self-managed field on a managed group is reported',
    body: 'managedNodeGroups:\n  - {name: ng, kubeletExtraConfig: {}}\n',
    want: ['eks.yaml: managedNodeGroups[0].kubeletExtraConfig: unknown field'],
  },
  {
    name: 'an unknown instance type is refused',
    body: 'nodeGroups:\n  - {name: ng, instanceType: m5.huge}\n',
    want: [
      'eks.yaml: nodeGroups[0].instanceType: Invalid value: "m5.huge": unknown instance type (kubemix knows the families t3, t3a, t4g, m5, m5a, m6i, m7i, m6g, m7g, c5, c6i, c7i, c6g, c7g, r5, r6i, r6g)',
    ],
  },
  {
    name: 'an unknown amiFamily names the supported families',
    body: 'nodeGroups:\n  - {name: ng, amiFamily: WindowsServer2016}\n',
    want: [
      'eks.yaml: nodeGroups[0].amiFamily: Unsupported value: "WindowsServer2016": supported values: "AmazonLinux2023", "AmazonLinux2", "UbuntuPro2604", "Ubuntu2604", "UbuntuPro2404", "Ubuntu2404", "UbuntuPro2204", "Ubuntu2204", "UbuntuPro2004", "Ubuntu2004", "Bottlerocket", "BottlerocketFips", "WindowsServer2019CoreContainer", "WindowsServer2019FullContainer", "WindowsServer2022CoreContainer", "WindowsServer2022FullContainer", "WindowsServer2025CoreContainer", "WindowsServer2025FullContainer"',
    ],
  },
  {
    name: 'a Windows AMI on an arm64 instance type is refused',
    body: 'nodeGroups:\n  - {name: ng, amiFamily: WindowsServer2022FullContainer, instanceType: m6g.large}\n',
    want: [
      'eks.yaml: nodeGroups[0].instanceType: Invalid value: "m6g.large": is arm64, but amiFamily WindowsServer2022FullContainer runs on amd64 instance types only',
    ],
  },
  {
    name: 'an amiType for another architecture is refused',
    body: 'managedNodeGroups:\n  - {name: ng, amiType: AL2_x86_64, instanceType: m6g.large}\n',
    want: ['eks.yaml: managedNodeGroups[0].instanceType: Invalid value: "m6g.large": is arm64, but amiType AL2_x86_64 is for amd64 instance types'],
  },
  {
    name: 'amiType and amiFamily must agree',
    body: 'managedNodeGroups:\n  - {name: ng, amiType: AL2_x86_64, amiFamily: WindowsServer2019CoreContainer}\n',
    want: ['eks.yaml: managedNodeGroups[0].amiType: Invalid value: "AL2_x86_64": does not match amiFamily "WindowsServer2019CoreContainer"'],
  },
  {
    name: 'a map taint without an effect is refused',
    body: 'nodeGroups:\n  - name: ng\n    taints: {os: windows}\n',
    want: ['eks.yaml: nodeGroups[0].taints[os]: Invalid value: "windows": must be of the form value:Effect or :Effect'],
  },
  {
    name: 'a list taint with a bad effect names the supported effects',
    body: 'managedNodeGroups:\n  - name: ng\n    taints: [{key: os, value: windows, effect: NO_SCHEDULE}]\n',
    want: [
      'eks.yaml: managedNodeGroups[0].taints[0].effect: Unsupported value: "NO_SCHEDULE": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ],
  },
  {
    name: 'desiredCapacity must lie within minSize and maxSize',
    body: 'nodeGroups:\n  - {name: ng, desiredCapacity: 5, maxSize: 3}\n  - {name: ng2, desiredCapacity: 1, minSize: 2}\n',
    want: [
      'eks.yaml: nodeGroups[0].desiredCapacity: Invalid value: 5: must be at most maxSize (3)',
      'eks.yaml: nodeGroups[1].desiredCapacity: Invalid value: 1: must be at least minSize (2)',
    ],
  },
  {
    name: 'desiredCapacity must be a non-negative integer',
    body: 'nodeGroups:\n  - {name: ng, desiredCapacity: -1}\n',
    want: ['eks.yaml: nodeGroups[0].desiredCapacity: Invalid value: -1: must be an integer of at least 0'],
  },
  {
    name: 'group names are unique across nodeGroups and managedNodeGroups',
    body: 'nodeGroups:\n  - {name: ng}\nmanagedNodeGroups:\n  - {name: ng}\n',
    want: ['eks.yaml: managedNodeGroups[0].name: Duplicate value: "ng"'],
  },
  {
    name: 'mixed architectures in one managed group are refused',
    body: 'managedNodeGroups:\n  - {name: ng, instanceTypes: [m5.large, m6g.large]}\n',
    want: ['eks.yaml: managedNodeGroups[0].instanceTypes[1]: Invalid value: "m6g.large": is arm64, but m5.large is amd64: a group has one architecture'],
  },
  {
    name: 'a config without node groups is refused',
    body: 'vpc: {cidr: 10.0.0.0/16}\n',
    want: ['eks.yaml: nodeGroups: Required value: must have at least one node group or managed node group'],
  },
];

for (const tc of errorCases) {
  void test(tc.name, () => {
    assert.deepEqual(errorsOf(header + tc.body), tc.want);
  });
}

void test('a group of desiredCapacity 0 has no nodes', () => {
  const spec = parseClusterConfig(header + 'nodeGroups:\n  - {name: idle, desiredCapacity: 0}\n  - {name: busy, desiredCapacity: 1}\n', 'z.yaml');
  assert.deepEqual(
    expandCluster(spec).map((n) => n.name),
    ['busy-1'],
  );
});

void test('eksctl group names may have upper case; node names are lower case and the labels keep the name', () => {
  const spec = parseClusterConfig(header + 'nodeGroups:\n  - {name: LinuxNG, desiredCapacity: 1}\n', 'u.yaml');
  const [n] = expandCluster(spec);
  assert.ok(n);
  assert.equal(n.name, 'linuxng-1');
  assert.equal(n.group, 'LinuxNG');
  assert.equal(n.labels['alpha.eksctl.io/nodegroup-name'], 'LinuxNG');
});

void test('eksctl names must be letters, digits and dashes', () => {
  assert.deepEqual(errorsOf(header + 'nodeGroups:\n  - {name: linux_ng}\n'), [
    'eks.yaml: nodeGroups[0].name: Invalid value: "linux_ng": name must satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*',
  ]);
});
