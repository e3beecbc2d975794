/**
 * `kubemix up` as users run it: the compiled CLI in child processes (stdout parsed for the API address),
 * driven with the real kubectl. Configs (native and eksctl, scenarios 5 and 7 of shared/scenarios/README.md),
 * config errors, the data-dir lock, `kubemix nodes add|remove` from another process, SIGTERM/SIGINT, resume
 * and `--merge-kubeconfig`. Every child is killed in `after`.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { progressCounter } from '../../src/cli/up.js';
import { repoRoot, runKubectl, type RunResult } from '../tools/kubectl-tools.js';

const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const scenarios = join(repoRoot(), 'test', 'e2e', 'scenarios');
const fixtures = join(repoRoot(), 'test', 'e2e', 'up-fixtures');

interface UpProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  apiServer: string;
  kubeconfig: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `kubemix up ARGS` and resolves once it printed its summary; rejects if it exits first. */
function startUp(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<UpProcess> {
  const child = spawn(process.execPath, [cli, 'up', ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (s: string) => (out += s));
  child.stderr.on('data', (s: string) => (err += s));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kubemix up did not come up in ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`)), timeoutMs);
    const onData = (): void => {
      if (!out.includes('Press Ctrl-C to stop')) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      const api = /API server:\s+(https:\/\/\S+)/.exec(out)?.[1];
      const kubeconfig = /kubeconfig:\s+(\S+)/.exec(out)?.[1];
      if (api === undefined || kubeconfig === undefined) {
        reject(new Error(`no API address or kubeconfig in:\n${out}`));
        return;
      }
      resolve({ child, stdout: () => out, stderr: () => err, apiServer: api, kubeconfig, exited });
    };
    child.stdout.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`kubemix up exited (${code ?? signal ?? ''}) before it was up\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
}

/** Runs the CLI to completion. */
function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kubemix ${args.join(' ')} timed out\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal !== null ? 128 : 1), stdout, stderr });
    });
  });
}

async function stopUp(up: UpProcess | undefined, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (up === undefined || up.child.exitCode !== null || up.child.signalCode !== null) return;
  up.child.kill(signal);
  await up.exited;
}

async function kubectl(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const r = await runKubectl(args, { kubeconfig, ...(input !== undefined ? { input } : {}) });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r.stdout;
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

interface NodeView {
  metadata: { name: string; labels: Record<string, string> };
  spec: { taints?: { key: string; value?: string; effect: string }[]; providerID?: string; unschedulable?: boolean };
  status: {
    capacity: Record<string, string>;
    allocatable: Record<string, string>;
    addresses: { type: string; address: string }[];
    nodeInfo: { osImage: string; operatingSystem: string; architecture: string };
    conditions: { type: string; status: string }[];
  };
}

interface PodView {
  metadata: { name: string; uid: string };
  spec: { nodeName?: string };
  status: { phase?: string };
}

const nodesOf = async (kubeconfig: string): Promise<NodeView[]> => (JSON.parse(await kubectl(kubeconfig, ['get', 'nodes', '-o', 'json'])) as { items: NodeView[] }).items;
const podsOf = async (kubeconfig: string, selector: string): Promise<PodView[]> =>
  (JSON.parse(await kubectl(kubeconfig, ['get', 'pods', '-l', selector, '-o', 'json'])) as { items: PodView[] }).items;
const ready = (n: NodeView): boolean => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True');

describe('kubemix up --config chapter-cluster.yaml, nodes add|remove, stop and resume', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubemix-up-'));
  const dataDir = join(dir, 'chapter');
  let up: UpProcess | undefined;
  let kubeconfig = '';
  let daemonSetsBefore: string[] = [];
  before(async () => {
    up = await startUp(['--config', join(scenarios, 'chapter-cluster.yaml'), '--data-dir', dataDir, '--port', '0']);
    kubeconfig = up.kubeconfig;
    await kubectl(kubeconfig, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
  });
  after(async () => {
    await stopUp(up);
    rmSync(dir, { recursive: true, force: true });
  });

  test('the summary gives the API address, the kubeconfig with its export line and the nodes per OS/arch/build', () => {
    const out = up?.stdout() ?? '';
    assert.match(out, /^kubemix: cluster "chapter" is up$/m);
    assert.match(up?.apiServer ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(kubeconfig, join(dataDir, 'admin.conf'));
    assert.ok(out.includes(`export KUBECONFIG=${join(dataDir, 'admin.conf')}\n`), out);
    assert.match(out, /nodes: 7\n\s+4 {2}linux\/amd64 \(Ubuntu 22\.04\.4 LTS\)\n\s+3 {2}windows\/amd64 10\.0\.17763 \(Windows Server 2019 Datacenter\)\n/);
    assert.doesNotMatch(out, /dashboard/i);
    // Not a terminal: no progress output.
    assert.doesNotMatch(up?.stderr() ?? '', /registering nodes/);
    const kc = parse(readFileSync(kubeconfig, 'utf8')) as { 'current-context': string; clusters: { cluster: { server: string } }[] };
    assert.equal(kc['current-context'], 'kubemix');
    assert.equal(kc.clusters[0]?.cluster.server, up?.apiServer);
  });

  test('the nodes are the config\'s: a control plane with its taint, Linux nodes, Windows 2019 nodes without an OS taint', async () => {
    const nodes = await nodesOf(kubeconfig);
    assert.deepEqual(nodes.map((n) => n.metadata.name).sort(), ['control-1', 'node-1', 'node-2', 'node-3', 'node-win-1', 'node-win-2', 'node-win-3']);
    for (const n of nodes) {
      assert.ok(ready(n), n.metadata.name);
      if (n.metadata.name === 'control-1') {
        assert.deepEqual(n.spec.taints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
        assert.equal(n.metadata.labels['node-role.kubernetes.io/control-plane'], '');
      } else {
        assert.equal(n.spec.taints, undefined, n.metadata.name);
      }
      if (n.metadata.name.startsWith('node-win-')) {
        assert.equal(n.metadata.labels['kubernetes.io/os'], 'windows');
        assert.equal(n.metadata.labels['node.kubernetes.io/windows-build'], '10.0.17763');
        assert.equal(n.status.nodeInfo.osImage, 'Windows Server 2019 Datacenter');
      } else {
        assert.equal(n.metadata.labels['kubernetes.io/os'], 'linux');
      }
    }
  });

  test('5. the chapter\'s hybrid app: the web pod runs on a Linux node and the API pod on a Windows node', async () => {
    await kubectl(kubeconfig, ['apply', '-f', join(scenarios, 'numbers-api.yaml'), '-f', join(scenarios, 'numbers-web.yaml')]);
    const placed = await eventually('both numbers pods Running', async () => {
      const pods = await podsOf(kubeconfig, 'app=numbers');
      return pods.length === 2 && pods.every((p) => p.status.phase === 'Running') ? pods : undefined;
    });
    const web = placed.find((p) => p.metadata.name.startsWith('numbers-web-'));
    const api = placed.find((p) => p.metadata.name.startsWith('numbers-api-'));
    assert.match(web?.spec.nodeName ?? '', /^node-[123]$/);
    assert.match(api?.spec.nodeName ?? '', /^node-win-[123]$/);
    const wide = await kubectl(kubeconfig, ['get', 'pods', '-o', 'wide', '-l', 'app=numbers']);
    assert.match(wide, /numbers-api-\S+\s+1\/1\s+Running\s+0\s+\S+\s+\S+\s+node-win-[123]/);
  });

  test('a second up on the data dir in use is refused with a clear message, and the first keeps serving', async () => {
    const r = await runCli(['up', '--config', join(scenarios, 'chapter-cluster.yaml'), '--data-dir', dataDir, '--port', '0']);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `kubemix up: data dir ${dataDir} is in use by another kubemix process (pid ${up?.child.pid ?? 0}); stop it first or choose another --data-dir\n`,
    );
    assert.equal(r.stdout, '');
    assert.match(await kubectl(kubeconfig, ['get', 'nodes', 'control-1', '-o', 'name']), /^node\/control-1$/m);
  });

  test('nodes add registers new nodes of the group from another process, named <group>-<n> onwards, Ready', async () => {
    const r = await runCli(['nodes', 'add', '--group', 'node-win', '--count', '2', '--data-dir', dataDir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^adding 2 nodes of group node-win: node-win-4, node-win-5$/m);
    assert.match(r.stdout, /^node\/node-win-4 Ready$/m);
    assert.match(r.stdout, /^node\/node-win-5 Ready$/m);
    const nodes = await nodesOf(kubeconfig);
    const added = nodes.find((n) => n.metadata.name === 'node-win-5');
    assert.equal(added?.metadata.labels['node.kubernetes.io/windows-build'], '10.0.17763');
    assert.equal(added?.status.nodeInfo.operatingSystem, 'windows');
    const ips = nodes.map((n) => n.status.addresses.find((a) => a.type === 'InternalIP')?.address);
    assert.equal(new Set(ips).size, nodes.length, `InternalIPs ${ips.join(' ')}`);
    await eventually('the up process to report the change', async () => (up?.stdout().includes('kubemix: added nodes node-win-4, node-win-5\n') === true ? true : undefined), 10_000);
  });

  test('nodes add and remove refuse an unknown group, a bad count and more nodes than the group has', async () => {
    const unknown = await runCli(['nodes', 'add', '--group', 'gpu', '--count', '1', '--kubeconfig', kubeconfig]);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'kubemix nodes add: no node group "gpu"; the cluster\'s groups are: control, node, node-win\n');
    const bad = await runCli(['nodes', 'remove', '--group', 'node', '--count', '0', '--kubeconfig', kubeconfig]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'kubemix nodes remove: --count: must be a positive integer, not "0"\n');
    const many = await runCli(['nodes', 'remove', '--group', 'node', '--count', '4', '--kubeconfig', kubeconfig]);
    assert.equal(many.code, 1);
    assert.equal(many.stderr, 'kubemix nodes remove: node group "node" has 3 nodes; cannot remove 4\n');
  });

  test('nodes remove drains the group\'s last nodes through the eviction API, then deletes them', async () => {
    await kubectl(kubeconfig, ['scale', 'deployment', 'numbers-web', '--replicas=3']);
    const before = await eventually('3 web pods Running', async () => {
      const pods = await podsOf(kubeconfig, 'component=web');
      return pods.length === 3 && pods.every((p) => p.status.phase === 'Running') ? pods : undefined;
    });
    const r = await runCli(['nodes', 'remove', '--group', 'node', '--count', '2', '--kubeconfig', kubeconfig]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^draining and removing 2 nodes of group node: node-2, node-3$/m);
    assert.match(r.stdout, /^node\/node-2 removed$/m);
    assert.match(r.stdout, /^node\/node-3 removed$/m);
    const names = (await nodesOf(kubeconfig)).map((n) => n.metadata.name).sort();
    assert.deepEqual(names, ['control-1', 'node-1', 'node-win-1', 'node-win-2', 'node-win-3', 'node-win-4', 'node-win-5']);
    // Pods of the removed nodes were evicted (they are gone) and replaced on the remaining Linux node.
    const after = await eventually('3 web pods Running on node-1', async () => {
      const pods = await podsOf(kubeconfig, 'component=web');
      return pods.length === 3 && pods.every((p) => p.status.phase === 'Running' && p.spec.nodeName === 'node-1') ? pods : undefined;
    });
    const evicted = before.filter((p) => p.spec.nodeName !== 'node-1');
    for (const p of evicted) assert.ok(!after.some((q) => q.metadata.uid === p.metadata.uid), p.metadata.name);
    // Nothing stays bound to a removed node, DaemonSet pods included.
    const left = await kubectl(kubeconfig, ['get', 'pods', '-A', '--field-selector', 'spec.nodeName=node-3', '-o', 'name']);
    assert.equal(left.trim(), '');
    const list = await runCli(['nodes', 'list', '--kubeconfig', kubeconfig]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^node-win\s+5\s+windows\/amd64 10\.0\.17763\s+node-win-1,node-win-2,node-win-3,node-win-4,node-win-5$/m);
    assert.match(list.stdout, /^node\s+1\s+linux\/amd64\s+node-1$/m);
  });

  test('SIGTERM stops cleanly with exit code 0 and releases the data dir', async () => {
    daemonSetsBefore = (await kubectl(kubeconfig, ['get', 'ds', '-n', 'kube-system', '-o', 'name'])).trim().split('\n').sort();
    up?.child.kill('SIGTERM');
    const { code } = (await up?.exited) ?? { code: -1 };
    assert.equal(code, 0);
    assert.match(up?.stdout() ?? '', /kubemix: stopping\nkubemix: stopped; the cluster is kept in its data dir\n$/);
    assert.equal(existsSync(join(dataDir, 'kubemix.lock')), false);
  });

  test(
    'up on the same data dir resumes the cluster: objects kept, the changed node groups Ready, no duplicate add-ons; SIGINT exits 0',
    async () => {
      up = await startUp(['--data-dir', dataDir, '--port', '0']);
      assert.match(up.stdout(), /^kubemix: cluster "chapter" is up again \(resumed from its data dir\)$/m);
      assert.match(up.stdout(), /nodes: 7\n/);
      kubeconfig = up.kubeconfig;
      await kubectl(kubeconfig, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
      const names = (await nodesOf(kubeconfig)).map((n) => n.metadata.name).sort();
      assert.deepEqual(names, ['control-1', 'node-1', 'node-win-1', 'node-win-2', 'node-win-3', 'node-win-4', 'node-win-5']);
      assert.match(await kubectl(kubeconfig, ['get', 'deploy', 'numbers-web', '-o', 'jsonpath={.spec.replicas}']), /^3$/);
      assert.deepEqual((await kubectl(kubeconfig, ['get', 'ds', '-n', 'kube-system', '-o', 'name'])).trim().split('\n').sort(), daemonSetsBefore);
      up.child.kill('SIGINT');
      assert.equal((await up.exited).code, 0);
    },
  );
});

describe('kubemix up --config eksctl-cluster.yaml (scenario 7) with --merge-kubeconfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubemix-up-eks-'));
  const home = join(dir, 'home');
  let up: UpProcess | undefined;
  before(async () => {
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(
      join(home, '.kube', 'config'),
      'apiVersion: v1\nkind: Config\nclusters:\n- name: other\n  cluster:\n    server: https://10.0.0.1:6443\ncontexts:\n- name: other\n  context:\n    cluster: other\n    user: other\ncurrent-context: other\npreferences: {}\nusers:\n- name: other\n  user:\n    token: abc\n',
    );
    up = await startUp(['--config', join(scenarios, 'eksctl-cluster.yaml'), '--data-dir', join(dir, 'data'), '--port', '0', '--merge-kubeconfig'], { HOME: home });
    await kubectl(up.kubeconfig, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
  });
  after(async () => {
    await stopUp(up);
    rmSync(dir, { recursive: true, force: true });
  });

  test('7. node groups as on EKS: names by group, OS and build by AMI, arch, capacity and max pods by instance type, EKS labels, taints', async () => {
    assert.match(up?.stdout() ?? '', /nodes: 6\n\s+2 {2}linux\/amd64 \(Amazon Linux 2\)\n\s+1 {2}linux\/arm64 \(Amazon Linux 2\)\n\s+2 {2}windows\/amd64 10\.0\.20348 \(Windows Server 2022 Datacenter\)\n\s+1 {2}windows\/amd64 10\.0\.17763 \(Windows Server 2019 Datacenter\)\n/);
    const nodes = new Map((await nodesOf(up?.kubeconfig ?? '')).map((n) => [n.metadata.name, n]));
    assert.deepEqual([...nodes.keys()].sort(), ['arm-ng-1', 'linux-ng-1', 'linux-ng-2', 'windows-2019-mng-1', 'windows-ng-1', 'windows-ng-2']);
    const expect: Record<string, { os: string; arch: string; type: string; pods: string; cpu: string; memory: string; allocCpu: string; allocMemory: string; build?: string; tainted: boolean }> = {
      'linux-ng-1': { os: 'linux', arch: 'amd64', type: 'm5.large', pods: '29', cpu: '2', memory: '8Gi', allocCpu: '1930m', allocMemory: '7518Mi', tainted: false },
      'arm-ng-1': { os: 'linux', arch: 'arm64', type: 'm6g.large', pods: '29', cpu: '2', memory: '8Gi', allocCpu: '1930m', allocMemory: '7518Mi', tainted: false },
      'windows-ng-1': { os: 'windows', arch: 'amd64', type: 'm5.xlarge', pods: '14', cpu: '4', memory: '16Gi', allocCpu: '4', allocMemory: '15884Mi', build: '10.0.20348', tainted: true },
      'windows-2019-mng-1': { os: 'windows', arch: 'amd64', type: 'm5.large', pods: '9', cpu: '2', memory: '8Gi', allocCpu: '2', allocMemory: '7692Mi', build: '10.0.17763', tainted: true },
    };
    for (const [name, e] of Object.entries(expect)) {
      const n = nodes.get(name);
      assert.ok(n !== undefined, name);
      const l = n.metadata.labels;
      assert.equal(l['kubernetes.io/os'], e.os, name);
      assert.equal(l['kubernetes.io/arch'], e.arch, name);
      assert.equal(l['node.kubernetes.io/instance-type'], e.type, name);
      assert.equal(l['topology.kubernetes.io/region'], 'us-east-1', name);
      assert.match(l['topology.kubernetes.io/zone'] ?? '', /^us-east-1[abc]$/, name);
      assert.equal(l['node.kubernetes.io/windows-build'], e.build, name);
      assert.deepEqual(
        { pods: n.status.capacity['pods'], cpu: n.status.capacity['cpu'], memory: n.status.capacity['memory'], allocCpu: n.status.allocatable['cpu'], allocMemory: n.status.allocatable['memory'] },
        { pods: e.pods, cpu: e.cpu, memory: e.memory, allocCpu: e.allocCpu, allocMemory: e.allocMemory },
        name,
      );
      assert.deepEqual(n.spec.taints, e.tainted ? [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] : undefined, name);
      assert.match(n.spec.providerID ?? '', /^aws:\/\/\/us-east-1[abc]\/i-[0-9a-f]{17}$/, name);
    }
    assert.equal(nodes.get('windows-ng-2')?.metadata.labels['nodeclass'], 'windows2022');
    assert.equal(nodes.get('windows-2019-mng-1')?.metadata.labels['eks.amazonaws.com/nodegroup'], 'windows-2019-mng');
    assert.equal(nodes.get('linux-ng-2')?.metadata.labels['alpha.eksctl.io/nodegroup-name'], 'linux-ng');
    // Spread across zones.
    assert.notEqual(nodes.get('linux-ng-1')?.metadata.labels['topology.kubernetes.io/zone'], nodes.get('linux-ng-2')?.metadata.labels['topology.kubernetes.io/zone']);
  });

  test('--merge-kubeconfig adds cluster, user and context kubemix to $HOME/.kube/config and changes nothing else', async () => {
    const path = join(home, '.kube', 'config');
    const kc = parse(readFileSync(path, 'utf8')) as {
      'current-context': string;
      clusters: { name: string; cluster: { server: string } }[];
      contexts: { name: string; context: { cluster: string; user: string } }[];
      users: { name: string; user: Record<string, string> }[];
    };
    assert.equal(kc['current-context'], 'other');
    assert.deepEqual(kc.clusters.map((c) => c.name), ['other', 'kubemix']);
    assert.deepEqual(kc.users.map((c) => c.name), ['other', 'kubemix']);
    assert.deepEqual(kc.contexts, [
      { name: 'other', context: { cluster: 'other', user: 'other' } },
      { name: 'kubemix', context: { cluster: 'kubemix', user: 'kubemix' } },
    ]);
    assert.equal(kc.clusters[1]?.cluster.server, up?.apiServer);
    assert.equal(kc.users[0]?.user['token'], 'abc');
    assert.ok(up?.stdout().includes(`merged into ${path} as context "kubemix"`));
    const r = await runKubectl(['--context', 'kubemix', 'get', 'nodes', '-o', 'name'], { kubeconfig: path });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, 6);
  });
});

describe('kubemix up refuses a bad start before anything runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubemix-up-bad-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a bad native config is refused with the file, each field path and what is wrong; unknown fields included', async () => {
    const dataDir = join(dir, 'native');
    const r = await runCli(['up', '--config', join(fixtures, 'bad-native.yaml'), '--data-dir', dataDir, '--port', '0']);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      [
        'kubemix up: invalid cluster config:',
        'bad-native.yaml: nodeGroups[0].sizee: unknown field',
        'bad-native.yaml: nodeGroups[1].arch: Invalid value: "arm64": Windows nodes must be amd64',
        'bad-native.yaml: nodeGroups[1].taints[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        '',
      ].join('\n'),
    );
    assert.equal(r.stdout, '');
    assert.equal(existsSync(dataDir), false);
  });

  test('a bad eksctl config is refused the same way', async () => {
    const dataDir = join(dir, 'eksctl');
    const r = await runCli(['up', '--config', join(fixtures, 'bad-eksctl.yaml'), '--data-dir', dataDir, '--port', '0']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^bad-eksctl\.yaml: nodeGroups\[0\]\.desiredCapacty: unknown field$/m);
    assert.match(r.stderr, /^bad-eksctl\.yaml: nodeGroups\[0\]\.instanceType: Invalid value: "m5\.huge": unknown instance type/m);
    assert.equal(existsSync(dataDir), false);
  });

  test('a missing config file is named', async () => {
    const r = await runCli(['up', '--config', join(dir, 'nope.yaml'), '--data-dir', join(dir, 'missing'), '--port', '0']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'kubemix up: invalid cluster config:\nnope.yaml: no such file\n');
    assert.equal(existsSync(join(dir, 'missing')), false);
  });

  test('a port in use fails the start and leaves no half-made data dir', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    try {
      const address = blocker.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const dataDir = join(dir, 'busy');
      const r = await runCli(['up', '--data-dir', dataDir, '--port', String(port)]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /EADDRINUSE/);
      assert.equal(existsSync(dataDir), false);
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });
});

describe('progress while nodes register', () => {
  test('a live counter on a terminal: redrawn in place, at most every 100 ms, always at the end', () => {
    const writes: string[] = [];
    const progress = progressCounter({ isTTY: true, write: (s: string) => writes.push(s) });
    for (let i = 1; i <= 500; i++) progress(i, 500);
    assert.ok(writes.length >= 2 && writes.length < 50, `${writes.length} writes`);
    assert.equal(writes[0], `\r  registering nodes [${'.'.repeat(30)}] 1/500`);
    assert.equal(writes.at(-1), `\r  registering nodes [${'#'.repeat(30)}] 500/500\n`);
  });

  test('quiet when not a terminal', () => {
    const writes: string[] = [];
    const progress = progressCounter({ isTTY: false, write: (s: string) => writes.push(s) });
    for (let i = 1; i <= 10; i++) progress(i, 10);
    assert.deepEqual(writes, []);
  });
});
