import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClusterConfigError } from './errors.js';
import { expandCluster, nodeLabels } from './expand.js';
import { parseClusterConfig } from './load.js';

// shared/scenarios/chapter-cluster.yaml
const chapterCluster = `# The lab cluster of the multi-architecture chapter: a control plane, Linux nodes and Windows Server 2019
# nodes without an OS taint (the chapter relies on nodeSelector alone).
apiVersion: kubemix.dev/v1alpha1
kind: Cluster
metadata:
  name: chapter
nodeGroups:
  - name: control
    count: 1
    os: linux
    arch: amd64
    controlPlane: true
  - name: node
    count: 3
    os: linux
    arch: amd64
  - name: node-win
    count: 3
    os: windows
    arch: amd64
    windowsBuild: "10.0.17763"
`;

void test('chapter-cluster.yaml expands to control-1, node-1..3 and node-win-1..3', () => {
  const spec = parseClusterConfig(chapterCluster, 'chapter-cluster.yaml');
  assert.equal(spec.name, 'chapter');
  assert.equal(spec.source, 'native');
  const nodes = expandCluster(spec);
  assert.deepEqual(
    nodes.map((n) => [n.name, n.os, n.arch, n.windowsBuild ?? '', n.taints.length]),
    [
      ['control-1', 'linux', 'amd64', '', 1],
      ['node-1', 'linux', 'amd64', '', 0],
      ['node-2', 'linux', 'amd64', '', 0],
      ['node-3', 'linux', 'amd64', '', 0],
      ['node-win-1', 'windows', 'amd64', '10.0.17763', 0],
      ['node-win-2', 'windows', 'amd64', '10.0.17763', 0],
      ['node-win-3', 'windows', 'amd64', '10.0.17763', 0],
    ],
  );
  const win = nodes[4];
  assert.ok(win);
  assert.equal(win.osImage, 'Windows Server 2019 Datacenter');
  assert.equal(nodeLabels(win)['node.kubernetes.io/windows-build'], '10.0.17763');
  const cp = nodes[0];
  assert.ok(cp);
  assert.deepEqual(cp.taints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
  assert.equal(cp.labels['node-role.kubernetes.io/control-plane'], '');
});

void test('native defaults: linux/amd64, one node, 4 cpu, 16Gi, 110 pods; Windows defaults to build 10.0.20348', () => {
  const spec = parseClusterConfig(
    `apiVersion: kubemix.dev/v1alpha1
kind: Cluster
metadata: {name: d}
nodeGroups:
  - name: l
  - name: w
    os: windows
`,
    'd.yaml',
  );
  const [l, w] = expandCluster(spec);
  assert.ok(l && w);
  assert.deepEqual([l.name, l.os, l.arch, l.cpu, l.memory, l.maxPods], ['l-1', 'linux', 'amd64', 4, '16Gi', 110]);
  assert.deepEqual([w.name, w.os, w.windowsBuild, w.osImage], ['w-1', 'windows', '10.0.20348', 'Windows Server 2022 Datacenter']);
});

void test('cpu, memory, maxPods, labels, taints in both forms, and image overrides are taken as written', () => {
  const spec = parseClusterConfig(
    `apiVersion: kubemix.dev/v1alpha1
kind: Cluster
metadata: {name: o}
nodeGroups:
  - name: big
    cpu: "500m"
    memory: 1536Mi
    maxPods: 30
    labels: {tier: gold, example.com/zone: z1}
    taints:
      - dedicated=gpu:NoSchedule
      - "flaky:PreferNoSchedule"
      - {key: spot, effect: NoExecute}
      - {key: team, value: a, effect: NoSchedule}
    osImage: Debian GNU/Linux 12 (bookworm)
    kernelVersion: 6.1.0-18-amd64
  - name: sac
    os: windows
    windowsBuild: "10.0.19042"
`,
    'o.yaml',
  );
  const [big, sac] = expandCluster(spec);
  assert.ok(big && sac);
  assert.equal(big.cpu, 0.5);
  assert.deepEqual(big.capacity, { cpu: '500m', 'ephemeral-storage': '100Gi', memory: '1536Mi', pods: '30' });
  assert.deepEqual(big.labels, { 'example.com/zone': 'z1', tier: 'gold' });
  assert.deepEqual(big.taints, [
    { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
    { key: 'flaky', effect: 'PreferNoSchedule' },
    { key: 'spot', effect: 'NoExecute' },
    { key: 'team', value: 'a', effect: 'NoSchedule' },
  ]);
  assert.equal(big.osImage, 'Debian GNU/Linux 12 (bookworm)');
  assert.equal(big.kernelVersion, '6.1.0-18-amd64');
  assert.deepEqual([sac.osImage, sac.kernelVersion], ['Windows Server Datacenter', '10.0.19042.1']);
});

void test('a native group may take cpu and memory from an instance type', () => {
  const spec = parseClusterConfig(
    `apiVersion: kubemix.dev/v1alpha1
kind: Cluster
metadata: {name: i}
nodeGroups:
  - {name: g, arch: arm64, instanceType: m6g.xlarge}
`,
    'i.yaml',
  );
  const [n] = expandCluster(spec);
  assert.ok(n);
  assert.deepEqual([n.cpu, n.memory, n.maxPods, n.instanceType], [4, '16384Mi', 110, 'm6g.xlarge']);
  assert.equal(n.labels['node.kubernetes.io/instance-type'], 'm6g.xlarge');
});

function errorsOf(text: string): string[] {
  try {
    parseClusterConfig(text, 'cluster.yaml');
  } catch (e) {
    assert.ok(e instanceof ClusterConfigError, String(e));
    assert.equal(e.message, e.problems.map((p) => `cluster.yaml: ${p}`).join('\n'));
    return e.message.split('\n');
  }
  assert.fail('config was accepted');
}

const header = `apiVersion: kubemix.dev/v1alpha1
kind: Cluster
metadata: {name: t}
nodeGroups:
`;

const errorCases: { name: string; groups: string; want: string[] }[] = [
  {
    name: 'an unknown field is reported, not ignored',
    groups: '  - {name: a, cnt: 3}\n',
    want: ['cluster.yaml: nodeGroups[0].cnt: unknown field'],
  },
  {
    name: 'an unsupported os names the supported values',
    groups: '  - {name: a}\n  - {name: b, os: macos}\n',
    want: ['cluster.yaml: nodeGroups[1].os: Unsupported value: "macos": supported values: "linux", "windows"'],
  },
  {
    name: 'an unsupported arch names the supported values',
    groups: '  - {name: a, arch: x86_64}\n',
    want: ['cluster.yaml: nodeGroups[0].arch: Unsupported value: "x86_64": supported values: "amd64", "arm64"'],
  },
  {
    name: 'count must be a positive integer',
    groups: '  - {name: a, count: 0}\n  - {name: b, count: 1.5}\n  - {name: c, count: "3"}\n',
    want: [
      'cluster.yaml: nodeGroups[0].count: Invalid value: 0: must be a positive integer',
      'cluster.yaml: nodeGroups[1].count: Invalid value: 1.5: must be a positive integer',
      'cluster.yaml: nodeGroups[2].count: Invalid value: "3": must be a positive integer',
    ],
  },
  {
    name: 'names must be as many as count',
    groups: '  - {name: a, count: 3, names: [x, y]}\n',
    want: ['cluster.yaml: nodeGroups[0].names: Invalid value: ["x","y"]: must have exactly count (3) names'],
  },
  {
    name: 'a taint string without an effect is refused',
    groups: '  - {name: a, taints: ["os=windows"]}\n',
    want: ['cluster.yaml: nodeGroups[0].taints[0]: Invalid value: "os=windows": must be of the form key=value:Effect or key:Effect'],
  },
  {
    name: 'a taint with an unknown effect names the supported effects',
    groups: '  - {name: a, taints: ["os=windows:NoRun"]}\n',
    want: [
      'cluster.yaml: nodeGroups[0].taints[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ],
  },
  {
    name: 'a taint object without effect is refused',
    groups: '  - {name: a, taints: [{key: os, value: windows}]}\n',
    want: ['cluster.yaml: nodeGroups[0].taints[0].effect: Required value'],
  },
  {
    name: 'taints must be unique by key and effect',
    groups: '  - {name: a, taints: ["os=windows:NoSchedule", {key: os, value: linux, effect: NoSchedule}]}\n',
    want: [
      'cluster.yaml: nodeGroups[0].taints[1]: Invalid value: "os=linux:NoSchedule": taints must be unique by key and effect pair',
    ],
  },
  {
    name: 'windowsBuild on a Linux group is forbidden',
    groups: '  - {name: a, windowsBuild: "10.0.17763"}\n',
    want: ['cluster.yaml: nodeGroups[0].windowsBuild: Forbidden: may only be set when os is "windows"'],
  },
  {
    name: 'a malformed windowsBuild is refused',
    groups: '  - {name: a, os: windows, windowsBuild: "2019"}\n',
    want: ['cluster.yaml: nodeGroups[0].windowsBuild: Invalid value: "2019": must be 10.0.<build>, e.g. "10.0.17763"'],
  },
  {
    name: 'arm64 Windows is refused',
    groups: '  - {name: a, os: windows, arch: arm64}\n',
    want: ['cluster.yaml: nodeGroups[0].arch: Invalid value: "arm64": Windows nodes must be amd64'],
  },
  {
    name: 'an unknown instance type is refused',
    groups: '  - {name: a, instanceType: m5.huge}\n',
    want: ['cluster.yaml: nodeGroups[0].instanceType: Invalid value: "m5.huge": unknown instance type'],
  },
  {
    name: 'duplicate node names across groups are refused',
    groups: '  - {name: node, count: 2}\n  - {name: other, names: [node-2]}\n',
    want: ['cluster.yaml: nodeGroups[1].names[0]: Duplicate value: "node-2"'],
  },
  {
    name: 'duplicate group names are refused',
    groups: '  - {name: a}\n  - {name: a}\n',
    want: ['cluster.yaml: nodeGroups[1].name: Duplicate value: "a"'],
  },
  {
    name: 'a group needs a name',
    groups: '  - {count: 2}\n',
    want: ['cluster.yaml: nodeGroups[0].name: Required value'],
  },
  {
    name: 'cpu, memory and maxPods must be positive',
    groups: '  - {name: a, cpu: 0, memory: lots, maxPods: -1}\n',
    want: [
      'cluster.yaml: nodeGroups[0].cpu: Invalid value: 0: must be greater than 0',
      'cluster.yaml: nodeGroups[0].memory: Invalid value: "lots": must be a quantity (e.g. 4, 500m, 16Gi)',
      'cluster.yaml: nodeGroups[0].maxPods: Invalid value: -1: must be a positive integer',
    ],
  },
  {
    name: 'controlPlane must be a boolean',
    groups: '  - {name: a, controlPlane: "yes"}\n',
    want: ['cluster.yaml: nodeGroups[0].controlPlane: Invalid value: "yes": must be true or false'],
  },
  {
    name: 'a group name must be a DNS-1123 label',
    groups: '  - {name: Linux_Nodes}\n',
    want: [
      "cluster.yaml: nodeGroups[0].name: Invalid value: \"Linux_Nodes\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ],
  },
  {
    name: 'label values are checked as upstream checks them',
    groups: '  - {name: a, labels: {tier: "gold!"}}\n',
    want: [
      "cluster.yaml: nodeGroups[0].labels[tier]: Invalid value: \"gold!\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ],
  },
  {
    name: 'every problem is reported, one per line',
    groups: '  - {name: a, cnt: 3}\n  - {name: b, os: macos}\n',
    want: [
      'cluster.yaml: nodeGroups[0].cnt: unknown field',
      'cluster.yaml: nodeGroups[1].os: Unsupported value: "macos": supported values: "linux", "windows"',
    ],
  },
];

for (const tc of errorCases) {
  void test(tc.name, () => {
    assert.deepEqual(errorsOf(header + tc.groups), tc.want);
  });
}

void test('metadata.name and nodeGroups are required; unknown top-level fields are reported', () => {
  assert.deepEqual(errorsOf('apiVersion: kubemix.dev/v1alpha1\nkind: Cluster\nmetadata: {}\nspec: {}\n'), [
    'cluster.yaml: spec: unknown field',
    'cluster.yaml: metadata.name: Required value',
    'cluster.yaml: nodeGroups: Required value: must have at least one node group',
  ]);
});

void test('the kind must be Cluster', () => {
  assert.deepEqual(errorsOf(`apiVersion: kubemix.dev/v1alpha1\nkind: ClusterConfig\nmetadata: {name: t}\nnodeGroups: [{name: a}]\n`), [
    'cluster.yaml: kind: Unsupported value: "ClusterConfig": supported values: "Cluster"',
  ]);
});
