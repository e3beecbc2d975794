/**
 * `kubemix check` end to end: each hazard with a minimal manifest and its exact report, the scenarios of
 * shared/scenarios/README.md, the CLI's outputs and exit codes, `helm template | kubemix check -f -` with
 * the compiled CLI, and placements compared with a live `LocalCluster` on the same topology.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultCluster, loadClusterConfig, type ClusterSpec } from '../../src/cluster/index.js';
import { createDefaultCatalog } from '../../src/node/runtime/index.js';
import { clusterFromClient, clusterFromSpec, loadManifests, parseManifests, renderJUnit, runCheck, InputError, type CheckReport, type ClusterView, type Hazard, type WorkloadReport } from '../../src/check/index.js';
import { runCheckCommand } from '../../src/cli/check.js';
import { httpClientFromKubeconfig } from '../../src/client/kubeconfig.js';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';
import { ensureKubeTools, repoRoot } from '../tools/kubectl-tools.js';

const fixtures = join(repoRoot(), 'test', 'e2e', 'check-fixtures');
const scenarios = join(repoRoot(), 'test', 'e2e', 'scenarios');
const cliPath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

async function check(paths: string[], opts: { spec?: ClusterSpec; text?: string } = {}): Promise<CheckReport> {
  const manifests = opts.text !== undefined ? parseManifests(opts.text, '-') : loadManifests(paths, () => '');
  const cluster = opts.spec !== undefined ? clusterFromSpec(opts.spec, 'config') : clusterFromSpec(defaultCluster(), 'default');
  return runCheck({ manifests, cluster, catalog: createDefaultCatalog() });
}

const fixture = (name: string): string => join(fixtures, name);
const only = (r: CheckReport): WorkloadReport => {
  assert.equal(r.workloads.length, 1);
  return r.workloads[0] as WorkloadReport;
};
const pull = (image: string, ref: string): string =>
  `ErrImagePull: Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": no match for platform in manifest: not found`;
const groupsOf = (w: WorkloadReport): Record<string, string> =>
  Object.fromEntries(w.groups.map((g) => [g.group, `${g.feasibleNodes}/${g.nodes} ${g.outcome ?? ''}${g.reasons.map((r) => ` [${r.nodes} ${r.reason}]`).join('')}`]));
const placedOf = (w: WorkloadReport): Record<string, string> => Object.fromEntries(w.placements.map((p) => [`${p.group} ${p.outcome}`, String(p.pods)]));

const controlPlaneTaint = 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }';
const windowsTaint = 'node(s) had untolerated taint {os: windows}';
const selectorMismatch = "node(s) didn't match Pod's node affinity/selector";

describe('kubemix check: one hazard per minimal manifest', () => {
  const cases: { name: string; file: string; hazards: Hazard[]; ok: boolean }[] = [
    {
      name: 'a template without an OS constraint that can land on Linux and Windows nodes',
      file: 'no-os-constraint.yaml',
      ok: true,
      hazards: [
        {
          type: 'NoOSConstraint',
          severity: 'warning',
          message: 'the pod template has no OS constraint and can be scheduled on both Linux and Windows nodes (linux/amd64, linux/arm64, windows/amd64 10.0.17763, windows/amd64 10.0.20348)',
          fix: 'spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: linux\n',
        },
      ],
    },
    {
      name: 'a Linux image that can be scheduled on Windows nodes',
      file: 'linux-image-on-windows.yaml',
      ok: false,
      hazards: [
        {
          type: 'NoOSConstraint',
          severity: 'warning',
          message: 'the pod template has no OS constraint and can be scheduled on both Linux and Windows nodes (linux/amd64, linux/arm64, windows/amd64 10.0.17763, windows/amd64 10.0.20348)',
          fix: 'spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: linux\n',
        },
        {
          type: 'ImagePlatformMismatch',
          severity: 'error',
          message: `the pod can be scheduled on nodes where it cannot run: windows/amd64 10.0.17763 (windows-2019-1): ${pull('nginx:1.27', 'docker.io/library/nginx:1.27')}; windows/amd64 10.0.20348 (windows-2022-1): ${pull('nginx:1.27', 'docker.io/library/nginx:1.27')}`,
          fix: 'spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: linux\n',
        },
      ],
    },
    {
      name: 'an amd64-only image that can be scheduled on the arm64 node',
      file: 'amd64-only-image.yaml',
      ok: false,
      hazards: [
        {
          type: 'ImagePlatformMismatch',
          severity: 'error',
          message: `the pod can be scheduled on nodes where it cannot run: linux/arm64 (linux-arm64-1): ${pull('mysql:5.7', 'docker.io/library/mysql:5.7')}`,
          fix: 'spec:\n  nodeSelector:\n    kubernetes.io/os: linux\n    kubernetes.io/arch: amd64\n',
        },
      ],
    },
    {
      name: 'a Windows Server 2019 image that can be scheduled on the 2022 node',
      file: 'windows-build-mismatch.yaml',
      ok: false,
      hazards: [
        {
          type: 'ImagePlatformMismatch',
          severity: 'error',
          message: `the pod can be scheduled on nodes where it cannot run: windows/amd64 10.0.20348 (windows-2022-1): ${pull('mcr.microsoft.com/windows/servercore:ltsc2019', 'mcr.microsoft.com/windows/servercore:ltsc2019')}`,
          fix: 'spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: windows\n        node.kubernetes.io/windows-build: 10.0.17763\n',
        },
      ],
    },
    {
      name: 'a DaemonSet that creates pods on nodes where they cannot run',
      file: 'daemonset-tolerates-all.yaml',
      ok: false,
      hazards: [
        {
          type: 'NoOSConstraint',
          severity: 'warning',
          message: 'the pod template has no OS constraint and can be scheduled on both Linux and Windows nodes (linux/amd64, linux/arm64, windows/amd64 10.0.17763, windows/amd64 10.0.20348)',
          fix: 'spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: linux\n',
        },
        {
          type: 'DaemonSetCannotRun',
          severity: 'error',
          message: `the DaemonSet creates pods on 2 node(s) where they cannot run: windows/amd64 10.0.17763 (windows-2019-1): ${pull('busybox:1.36', 'docker.io/library/busybox:1.36')}; windows/amd64 10.0.20348 (windows-2022-1): ${pull('busybox:1.36', 'docker.io/library/busybox:1.36')}`,
          fix: 'spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: linux\n',
        },
      ],
    },
    {
      name: 'spec.os.name disagreeing with the node selector',
      file: 'os-field-mismatch.yaml',
      ok: false,
      hazards: [
        {
          type: 'OSFieldMismatch',
          severity: 'error',
          message:
            'spec.os.name is "windows" but the node selector asks for kubernetes.io/os=linux: the kubelet refuses the pod on linux nodes ("Failed to admit pod as the OS field doesn\'t match node OS") and the scheduler keeps it off windows nodes',
          fix: 'spec:\n  os:\n    name: windows\n  nodeSelector:\n    kubernetes.io/os: windows\n',
        },
      ],
    },
    {
      name: 'spec.os.name without a selector that keeps the pod off Linux nodes',
      file: 'os-field-unpinned.yaml',
      ok: false,
      hazards: [
        {
          type: 'OSFieldMismatch',
          severity: 'error',
          message:
            "spec.os.name is \"windows\" but nothing keeps the pod off nodes of another OS, where the kubelet rejects it: linux/amd64 (linux-amd64-1, linux-amd64-2): PodOSNotSupported: Failed to admit pod as the OS field doesn't match node OS; linux/arm64 (linux-arm64-1): PodOSNotSupported: Failed to admit pod as the OS field doesn't match node OS",
          fix: 'spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: windows\n',
        },
        {
          type: 'ImagePlatformMismatch',
          severity: 'error',
          message: `the pod can be scheduled on nodes where it cannot run: windows/amd64 10.0.17763 (windows-2019-1): ${pull('mcr.microsoft.com/windows/nanoserver:ltsc2022', 'mcr.microsoft.com/windows/nanoserver:ltsc2022')}`,
          fix: 'spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: windows\n        node.kubernetes.io/windows-build: 10.0.20348\n',
        },
      ],
    },
    {
      name: 'a RuntimeClass that exists neither in the input nor in the cluster',
      file: 'runtimeclass-missing.yaml',
      ok: false,
      hazards: [
        {
          type: 'RuntimeClassNotFound',
          severity: 'error',
          message: 'RuntimeClass "windows-2022" exists neither in the input nor in the cluster, so every pod is refused: pods "iis-565459c9b7-" is forbidden: pod rejected: RuntimeClass "windows-2022" not found',
          fix: 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: windows-2022\nhandler: runhcs-wcow-process\n',
        },
      ],
    },
    {
      name: 'a workload in a removed API version',
      file: 'removed-api.yaml',
      ok: false,
      hazards: [
        {
          type: 'RemovedAPIVersion',
          severity: 'error',
          message:
            'no matches for kind "Deployment" in version "extensions/v1beta1": extensions/v1beta1 Deployment was removed in Kubernetes v1.16; use apps/v1 (apps/v1 requires spec.selector (matching the template labels) and no longer defaults it)',
          fix: 'apiVersion: apps/v1\n',
        },
      ],
    },
    { name: 'a Linux CronJob with a multi-arch image has no hazard', file: 'cronjob-linux.yaml', ok: true, hazards: [] },
  ];
  for (const tc of cases) {
    test(tc.name, async () => {
      const r = await check([fixture(tc.file)]);
      const w = only(r);
      assert.deepEqual(w.hazards, tc.hazards);
      assert.equal(w.ok, tc.ok);
      assert.equal(r.summary.ok, tc.ok);
    });
  }

  test('a DaemonSet places one pod per eligible node, with the reasons of the others', async () => {
    const text = readFileSync(fixture('daemonset-tolerates-all.yaml'), 'utf8').replace('        - operator: Exists\n', '        - {key: os, operator: Exists}\n');
    const w = only(await check([], { text }));
    assert.equal(w.desiredPods, 5);
    assert.deepEqual(groupsOf(w), {
      'linux/amd64': `2/3 Running [1 ${controlPlaneTaint}]`,
      'linux/arm64': '1/1 Running',
      'windows/amd64 10.0.17763': '1/1 ErrImagePull',
      'windows/amd64 10.0.20348': '1/1 ErrImagePull',
    });
    assert.deepEqual(placedOf(w), { 'linux/amd64 Running': '2', 'linux/arm64 Running': '1', 'windows/amd64 10.0.17763 ErrImagePull': '1', 'windows/amd64 10.0.20348 ErrImagePull': '1' });
  });

  test('pods accumulate in one cache: the third replica does not fit', async () => {
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: big}
spec:
  replicas: 3
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec:
      nodeSelector: {kubernetes.io/os: linux, kubernetes.io/arch: amd64}
      containers:
        - name: c
          image: nginx:1.27
          resources: {requests: {cpu: "3"}}
`;
    const w = only(await check([], { text }));
    assert.deepEqual(placedOf(w), { 'linux/amd64 Running': '2' });
    assert.deepEqual(w.pending, [
      {
        pods: 1,
        message: `0/6 nodes are available: 1 ${selectorMismatch}, 1 ${controlPlaneTaint}, 2 Insufficient cpu, 2 ${windowsTaint}. preemption: 0/6 nodes are available: 2 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.`,
      },
    ]);
    // Tolerating the Windows taint would not help (the selector asks for Linux), so no fix is offered.
    assert.deepEqual(w.hazards, [{ type: 'Unschedulable', severity: 'error', message: `1 pod(s) stay Pending: ${w.pending[0]?.message ?? ''}` }]);
  });
});

describe('kubemix check: pods the scheduler does not place', () => {
  test('a pod bound with spec.nodeName skips the scheduler and meets the kubelet and the runtime', async () => {
    const text = `apiVersion: v1
kind: Pod
metadata: {name: bound}
spec:
  nodeName: windows-2022-1
  containers: [{name: c, image: nginx:1.27}]
---
apiVersion: v1
kind: Pod
metadata: {name: hungry}
spec:
  nodeName: linux-amd64-1
  containers: [{name: c, image: nginx:1.27, resources: {requests: {cpu: "100"}}}]
`;
    const r = await check([], { text });
    const [bound, hungry] = r.workloads;
    assert.deepEqual(bound?.hazards, [
      {
        type: 'ImagePlatformMismatch',
        severity: 'error',
        message: `the pod is bound to windows-2022-1 (windows/amd64 10.0.20348) by spec.nodeName and cannot run there: ${pull('nginx:1.27', 'docker.io/library/nginx:1.27')}`,
      },
    ]);
    assert.deepEqual(hungry?.placements, [
      {
        group: 'linux/amd64',
        nodes: { 'linux-amd64-1': 1 },
        pods: 1,
        outcome: 'OutOfcpu',
        message: "Pod was rejected: Node didn't have enough resource: cpu, requested: 100000, used: 100, capacity: 4000",
      },
    ]);
    assert.equal(hungry?.hazards[0]?.type, 'NodeRejected');
  });

  test('a pod with scheduling gates waits, and no toleration is offered for it', async () => {
    const text = 'apiVersion: v1\nkind: Pod\nmetadata: {name: gated}\nspec:\n  schedulingGates: [{name: example.com/wait}]\n  containers: [{name: c, image: nginx:1.27}]\n';
    const w = only(await check([], { text }));
    assert.deepEqual(w.pending, [{ pods: 1, message: 'waiting for scheduling gates: [example.com/wait]' }]);
    assert.deepEqual(w.hazards, [{ type: 'Unschedulable', severity: 'error', message: '1 pod(s) stay Pending: waiting for scheduling gates: [example.com/wait]' }]);
  });
});

describe('kubemix check: the scenarios of shared/scenarios', () => {
  const failedScheduling =
    '0/6 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) had untolerated taint {os: windows}, 3 node(s) didn\'t match Pod\'s node affinity/selector. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.';

  test('1. win-webserver stays Pending with the FailedScheduling message, and the fix is the toleration', async () => {
    const r = await check([join(scenarios, 'win-webserver.yaml')]);
    const w = only(r);
    assert.deepEqual(w.pending, [{ pods: 2, message: failedScheduling }]);
    assert.deepEqual(groupsOf(w), {
      'linux/amd64': `0/3  [2 ${selectorMismatch}] [1 ${controlPlaneTaint}]`,
      'linux/arm64': `0/1  [1 ${selectorMismatch}]`,
      'windows/amd64 10.0.17763': `0/1  [1 ${windowsTaint}]`,
      'windows/amd64 10.0.20348': `0/1  [1 ${windowsTaint}]`,
    });
    const unschedulable = w.hazards.find((h) => h.type === 'Unschedulable');
    assert.deepEqual(unschedulable, {
      type: 'Unschedulable',
      severity: 'error',
      message: `2 pod(s) stay Pending: ${failedScheduling}`,
      fix: 'spec:\n  template:\n    spec:\n      tolerations:\n        - key: os\n          operator: Equal\n          value: windows\n          effect: NoSchedule\n',
    });
    assert.equal(r.summary.ok, false);
  });

  test('1. with the toleration the pods reach Windows and the 2022 node cannot pull servercore:ltsc2019', async () => {
    const text = readFileSync(join(scenarios, 'win-webserver.yaml'), 'utf8').replace(
      '      nodeSelector:\n        kubernetes.io/os: windows\n',
      '      nodeSelector:\n        kubernetes.io/os: windows\n      tolerations:\n        - {key: os, operator: Equal, value: windows, effect: NoSchedule}\n',
    );
    const w = only(await check([], { text }));
    assert.deepEqual(placedOf(w), { 'windows/amd64 10.0.17763 Running': '1', 'windows/amd64 10.0.20348 ErrImagePull': '1' });
    const mismatch = w.hazards.find((h) => h.type === 'ImagePlatformMismatch');
    assert.deepEqual(mismatch, {
      type: 'ImagePlatformMismatch',
      severity: 'error',
      message: `the pod can be scheduled on nodes where it cannot run: windows/amd64 10.0.20348 (windows-2022-1): ${pull('mcr.microsoft.com/windows/servercore:ltsc2019', 'mcr.microsoft.com/windows/servercore:ltsc2019')}`,
      fix: 'spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: windows\n        node.kubernetes.io/windows-build: 10.0.17763\n',
    });
  });

  test('2. the RuntimeClass merges its selector and toleration: the pod runs on windows-2019-1', async () => {
    const r = await check([join(scenarios, 'runtimeclass-windows-2019.yaml')]);
    const w = only(r);
    assert.deepEqual(w.placements, [{ group: 'windows/amd64 10.0.17763', nodes: { 'windows-2019-1': 1 }, pods: 1, outcome: 'Running' }]);
    assert.deepEqual(w.hazards.map((h) => h.type), ['OSFieldMissing']);
    assert.equal(r.summary.ok, true);
  });

  test('3. the build selector pins the pod to windows-2022-1, where it runs', async () => {
    const w = only(await check([join(scenarios, 'windows-build-selector.yaml')]));
    assert.deepEqual(w.placements, [{ group: 'windows/amd64 10.0.20348', nodes: { 'windows-2022-1': 1 }, pods: 1, outcome: 'Running' }]);
  });

  test('4. the guide\'s RuntimeClass as printed: the removed version and the missing selector, with what to write instead', async () => {
    const r = await check([join(scenarios, 'runtimeclass-v1beta1.yaml')]);
    assert.deepEqual(r.objects.map((o) => ({ kind: o.kind, name: o.name, hazards: o.hazards })), [
      {
        kind: 'RuntimeClass',
        name: 'windows-2022',
        hazards: [
          {
            type: 'RemovedAPIVersion',
            severity: 'error',
            message: 'no matches for kind "RuntimeClass" in version "node.k8s.io/v1beta1": node.k8s.io/v1beta1 RuntimeClass was removed in Kubernetes v1.25; use node.k8s.io/v1',
            fix: 'apiVersion: node.k8s.io/v1\n',
          },
        ],
      },
    ]);
    const w = only(r);
    assert.deepEqual(w.hazards, [
      {
        type: 'Rejected',
        severity: 'error',
        message:
          'Deployment.apps "iis-2022" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"iis-2022"}: `selector` does not match template `labels`]',
        fix: 'spec:\n  selector:\n    matchLabels:\n      app: iis-2022\n',
      },
    ]);
    assert.deepEqual(w.placements, []);
    assert.equal(r.summary.ok, false);
    // What the report says to write instead works: node.k8s.io/v1 and a selector.
    const fixed = readFileSync(join(scenarios, 'runtimeclass-v1beta1.yaml'), 'utf8')
      .replace('apiVersion: node.k8s.io/v1beta1', 'apiVersion: node.k8s.io/v1')
      .replace('spec:\n  replicas: 1\n', 'spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: iis-2022\n');
    const f = await check([], { text: fixed });
    assert.deepEqual(f.objects, []);
    assert.deepEqual(only(f).placements, [{ group: 'windows/amd64 10.0.20348', nodes: { 'windows-2022-1': 1 }, pods: 1, outcome: 'Running' }]);
  });

  test('5. the hybrid app on the chapter cluster: web on Linux, API on Windows', async () => {
    const spec = await loadClusterConfig(join(scenarios, 'chapter-cluster.yaml'));
    const r = await check([join(scenarios, 'numbers-api.yaml'), join(scenarios, 'numbers-web.yaml')], { spec });
    const byName = new Map(r.workloads.map((w) => [w.name, w]));
    assert.deepEqual(placedOf(byName.get('numbers-api') as WorkloadReport), { 'windows/amd64 10.0.17763 Running': '1' });
    assert.deepEqual(placedOf(byName.get('numbers-web') as WorkloadReport), { 'linux/amd64 Running': '1' });
    assert.equal(r.summary.ok, true);
  });

  test('7. on the eksctl cluster a Windows 2022 workload spreads over the nodeclass=windows2022 group', async () => {
    const spec = await loadClusterConfig(join(scenarios, 'eksctl-cluster.yaml'));
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: win-app}
spec:
  replicas: 2
  selector: {matchLabels: {app: win-app}}
  template:
    metadata: {labels: {app: win-app}}
    spec:
      os: {name: windows}
      nodeSelector: {kubernetes.io/os: windows, nodeclass: windows2022}
      tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
      containers: [{name: c, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}]
`;
    const r = await check([], { text, spec });
    assert.deepEqual(r.cluster.nodeGroups.map((g) => `${g.group} ${g.nodes.length}`), ['linux/amd64 2', 'linux/arm64 1', 'windows/amd64 10.0.20348 2', 'windows/amd64 10.0.17763 1']);
    assert.deepEqual(only(r).placements, [{ group: 'windows/amd64 10.0.20348', nodes: { 'windows-ng-1': 1, 'windows-ng-2': 1 }, pods: 2, outcome: 'Running' }]);
    assert.deepEqual(only(r).hazards, []);
  });

  test('5. on the default topology the API pod stays Pending on the untolerated Windows taint', async () => {
    const r = await check([join(scenarios, 'numbers-api.yaml')]);
    const w = only(r);
    assert.deepEqual(w.pending, [{ pods: 1, message: failedScheduling }]);
    assert.equal(r.summary.ok, false);
  });
});

describe('kubemix check: input, outputs and exit codes', () => {
  const run = async (args: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> => {
    let out = '';
    let err = '';
    const code = await runCheckCommand(args, { stdout: (s) => (out += s), stderr: (s) => (err += s), stdin: () => stdin, color: false });
    return { code, out, err };
  };

  test('multi-document YAML, JSON and v1 Lists are read alike', () => {
    const yaml = parseManifests('---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\n# only a comment\n---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: b}}\n', 'x.yaml');
    assert.deepEqual(yaml.map((o) => [o.obj.metadata?.name, o.source.document]), [['a', 1], ['b', 3]]);
    const json = parseManifests(JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'c' } }] }), 'x.json');
    assert.deepEqual(json.map((o) => o.obj.metadata?.name), ['c']);
  });

  test('unusable input exits 2 with the file and the reason', async () => {
    const missing = await run(['-f', '/nonexistent/x.yaml']);
    assert.deepEqual([missing.code, missing.err], [2, 'kubemix check: /nonexistent/x.yaml: no such file or directory\n']);
    const broken = await run(['-f', '-'], 'apiVersion: v1\nkind: [\n');
    assert.equal(broken.code, 2);
    assert.match(broken.err, /^kubemix check: -: error parsing YAML: /);
    const noKind = await run(['-f', '-'], 'apiVersion: v1\nmetadata: {name: x}\n');
    assert.deepEqual([noKind.code, noKind.err], [2, 'kubemix check: -: document 1: error validating data: [kind not set]\n']);
    assert.throws(() => loadManifests([], () => ''), InputError);
    const format = await run(['-f', fixture('cronjob-linux.yaml'), '-o', 'yaml']);
    assert.equal(format.code, 2);
  });

  test('exit 0 when every pod runs, 1 when not; -o json is the CheckReport', async () => {
    const good = await run(['-f', fixture('cronjob-linux.yaml'), '-o', 'json']);
    assert.equal(good.code, 0);
    const report = JSON.parse(good.out) as CheckReport;
    assert.equal(report.apiVersion, 'kubemix.dev/v1alpha1');
    assert.equal(report.kind, 'CheckReport');
    assert.deepEqual(report.summary, { workloads: 1, desiredPods: 1, placedPods: 1, runningPods: 1, pendingPods: 0, errors: 0, warnings: 0, ok: true });
    const bad = await run(['-f', join(scenarios, 'win-webserver.yaml')]);
    assert.equal(bad.code, 1);
    assert.match(bad.out, /^Deployment default\/win-webserver \(apps\/v1, .*win-webserver\.yaml#2\) {2}FAIL$/m);
    assert.ok(bad.out.includes(`  pending: 2: ${'0/6 nodes are available: '}`));
    assert.ok(!bad.out.includes('\u001b['), 'no colour unless asked');
    let coloured = '';
    await runCheckCommand(['-f', join(scenarios, 'win-webserver.yaml')], { stdout: (s) => (coloured += s), stderr: () => undefined, stdin: () => '', color: true });
    assert.ok(coloured.includes('\u001b[31mFAIL\u001b[0m'));
  });

  test('-o junit: one testcase per workload, one failure per hazard', async () => {
    const r = await check([join(scenarios, 'runtimeclass-v1beta1.yaml'), fixture('cronjob-linux.yaml')]);
    const xml = renderJUnit(r);
    assert.match(xml, /<testsuites name="kubemix check" tests="3" failures="2" errors="0">/);
    assert.match(xml, /<testcase classname="Deployment" name="default\/iis-2022" file="[^"]*runtimeclass-v1beta1\.yaml">\n {6}<failure type="Rejected" message="error: Deployment\.apps &quot;iis-2022&quot; is invalid: \[spec\.selector: Required value, /);
    assert.match(xml, /<testcase classname="CronJob" name="default\/tick" file="[^"]*cronjob-linux\.yaml">\n {6}<system-out>1 pod\(s\) on linux\/arm64/);
    assert.match(xml, /<testcase classname="RuntimeClass" name="windows-2022" [^>]*>\n {6}<failure type="RemovedAPIVersion"/);
  });
});

function runProcess(cmd: string, args: string[], input: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

describe('helm template | kubemix check -f -', () => {
  test('a chart with a DaemonSet without an OS selector reports the Windows hazard', async () => {
    const { helm } = await ensureKubeTools();
    const home = await mkdtemp(join(tmpdir(), 'kubemix-check-helm-'));
    try {
      const env = { HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
      const rendered = await runProcess(helm, ['template', 'rel', join(fixtures, 'node-agent-chart')], '', env);
      assert.equal(rendered.code, 0, rendered.stderr);
      const checked = await runProcess(process.execPath, [cliPath, 'check', '-f', '-', '-o', 'json'], rendered.stdout, { NO_COLOR: '1' });
      assert.equal(checked.code, 1, checked.stderr);
      const report = JSON.parse(checked.stdout) as CheckReport;
      const w = only(report);
      assert.deepEqual([w.kind, w.namespace, w.name, w.source.file], ['DaemonSet', 'default', 'rel-node-agent', '-']);
      assert.deepEqual(w.hazards.map((h) => [h.type, h.severity]), [['NoOSConstraint', 'warning'], ['DaemonSetCannotRun', 'error']]);
      assert.equal(w.hazards[1]?.fix, 'spec:\n  template:\n    spec:\n      nodeSelector:\n        kubernetes.io/os: linux\n');
      // The chart's own knob fixes it.
      const pinned = await runProcess(helm, ['template', 'rel', join(fixtures, 'node-agent-chart'), '--set', 'nodeSelector.kubernetes\\.io/os=linux'], '', env);
      const again = await runProcess(process.execPath, [cliPath, 'check', '-f', '-'], pinned.stdout, { NO_COLOR: '1' });
      assert.equal(again.code, 0, again.stdout);
      assert.match(again.stdout, /^OK: 1 workload\(s\), 4 pod\(s\): 4 run, 0 placed but failing, 0 pending; 0 error\(s\), 0 warning\(s\)$/m);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

/** Workloads whose node group is decided by their constraints, so a live scheduler must agree exactly. */
const comparisonManifests = `apiVersion: apps/v1
kind: Deployment
metadata: {name: amd}
spec:
  replicas: 2
  selector: {matchLabels: {app: amd}}
  template:
    metadata: {labels: {app: amd}}
    spec:
      nodeSelector: {kubernetes.io/os: linux, kubernetes.io/arch: amd64}
      containers: [{name: c, image: nginx:1.27}]
---
apiVersion: v1
kind: Pod
metadata: {name: arm, labels: {app: arm}}
spec:
  nodeSelector: {kubernetes.io/arch: arm64}
  containers: [{name: c, image: busybox:1.36, command: [sleep, "3600"]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: huge}
spec:
  replicas: 1
  selector: {matchLabels: {app: huge}}
  template:
    metadata: {labels: {app: huge}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers: [{name: c, image: nginx:1.27, resources: {requests: {cpu: "64"}}}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      tolerations: [{operator: Exists}]
      containers: [{name: c, image: registry.k8s.io/pause:3.10}]
---
${readFileSync(join(scenarios, 'win-webserver.yaml'), 'utf8')}
---
${readFileSync(join(scenarios, 'runtimeclass-windows-2019.yaml'), 'utf8')}
---
${readFileSync(join(scenarios, 'windows-build-selector.yaml'), 'utf8')}
`;

describe('kubemix check agrees with a live cluster', () => {
  let c: TestCluster;
  let before_: ClusterView;
  before(async () => {
    c = await startTestCluster();
    await c.kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
    // The live cluster as check reads it (HTTP, read-only), before anything is applied.
    before_ = await clusterFromClient(httpClientFromKubeconfig(c.kubeconfig), 'kubemix');
  });
  after(async () => {
    await c?.stop();
  });

  interface LivePod {
    metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { kind: string; name: string }[] };
    spec: { nodeName?: string };
    status: { conditions?: { type: string; status: string; message?: string }[] };
  }

  test('same node groups for every pod, the same Pending pods and FailedScheduling messages', async () => {
    const file = join(c.dataDir, 'compare.yaml');
    await writeFile(file, comparisonManifests);
    const fromConfig = await check([file]);
    const fromLive = await runCheck({ manifests: loadManifests([file], () => ''), cluster: before_, catalog: createDefaultCatalog() });
    // The CLI reads the same live cluster through --kubeconfig.
    let cliOut = '';
    const cliCode = await runCheckCommand(['-f', file, '--kubeconfig', c.kubeconfig, '-o', 'json'], { stdout: (x) => (cliOut += x), stderr: (x) => (cliOut += x), stdin: () => '', color: false });
    assert.equal(cliCode, 1, cliOut);
    const fromCli = JSON.parse(cliOut) as CheckReport;
    assert.equal(fromCli.cluster.source, 'kubeconfig');
    assert.deepEqual(fromCli.summary, fromLive.summary);
    await c.kubectl(['apply', '-f', file]);
    const apps = ['amd', 'arm', 'huge', 'agent', 'win-webserver', 'iis-2019'];
    const live = await c.eventually(
      'every pod scheduled or reported unschedulable',
      async () => {
        const pods = (JSON.parse(await c.kubectl(['get', 'pods', '-o', 'json'])) as { items: LivePod[] }).items;
        const expected = 2 + 1 + 1 + 6 + 2 + 1 + 1;
        if (pods.length < expected) return undefined;
        const settled = pods.every((p) => (p.spec.nodeName ?? '') !== '' || (p.status.conditions ?? []).some((x) => x.type === 'PodScheduled' && x.status === 'False'));
        return settled ? pods : undefined;
      },
      60_000,
    );
    const groupOf = new Map(before_.nodes.map((n) => [n.name, n.group]));
    const liveSummary = (app: string): string[] =>
      live
        .filter((p) => (p.metadata.labels?.['app'] ?? (p.metadata.name === 'win-2022-pinned' ? 'win-2022-pinned' : '')) === app)
        .map((p) => ((p.spec.nodeName ?? '') !== '' ? (groupOf.get(p.spec.nodeName ?? '') ?? '?') : `Pending: ${(p.status.conditions ?? []).find((x) => x.type === 'PodScheduled')?.message ?? ''}`))
        .sort();
    const checkSummary = (r: CheckReport, name: string): string[] => {
      const w = r.workloads.find((x) => x.name === name);
      assert.ok(w !== undefined, name);
      return [...w.placements.flatMap((p) => Array<string>(p.pods).fill(p.group)), ...w.pending.flatMap((p) => Array<string>(p.pods).fill(`Pending: ${p.message}`))].sort();
    };
    const names: Record<string, string> = { amd: 'amd', arm: 'arm', huge: 'huge', agent: 'agent', 'win-webserver': 'win-webserver', 'iis-2019': 'iis-2019', 'win-2022-pinned': 'win-2022-pinned' };
    for (const app of [...apps, 'win-2022-pinned']) {
      const want = liveSummary(app);
      assert.ok(want.length > 0, app);
      assert.deepEqual(checkSummary(fromConfig, names[app] ?? app), want, `${app} (cluster config)`);
      assert.deepEqual(checkSummary(fromLive, names[app] ?? app), want, `${app} (--kubeconfig)`);
    }
  });
});
