/**
 * The cases of shared/scenarios/README.md, end to end: the real kubectl against `kubemix up`'s default
 * topology, with the outcomes a real 1.32 cluster gives on the same nodes.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';
import { repoRoot } from '../tools/kubectl-tools.js';

const scenarios = join(repoRoot(), 'test', 'e2e', 'scenarios');
const manifest = (name: string): string => readFileSync(join(scenarios, name), 'utf8');

interface PodView {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { nodeName?: string; nodeSelector?: Record<string, string>; tolerations?: { key?: string; value?: string; effect?: string; operator?: string }[] };
  status: { phase?: string; containerStatuses?: { state?: { waiting?: { reason?: string }; running?: object } }[] };
}

interface EventView {
  reason: string;
  message: string;
  type: string;
  involvedObject: { name: string };
}

describe('scenarios on the default topology', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
    await c.kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
  });
  after(async () => {
    await c.stop();
  });

  const pods = async (selector: string, namespace = 'default'): Promise<PodView[]> =>
    (JSON.parse(await c.kubectl(['get', 'pods', '-n', namespace, '-l', selector, '-o', 'json'])) as { items: PodView[] }).items;
  const events = async (namespace = 'default'): Promise<EventView[]> =>
    (JSON.parse(await c.kubectl(['get', 'events', '-n', namespace, '-o', 'json'])) as { items: EventView[] }).items;

  test('1. a Windows web server without a toleration stays Pending with the upstream FailedScheduling message', async () => {
    assert.match(await c.kubectl(['apply', '-f', '-'], manifest('win-webserver.yaml')), /deployment.apps\/win-webserver created/);
    const expected =
      '0/6 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) had untolerated taint {os: windows}, 3 node(s) didn\'t match Pod\'s node affinity/selector. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.';
    await c.eventually('FailedScheduling for both pods', async () => {
      const failed = (await events()).filter((e) => e.reason === 'FailedScheduling' && e.involvedObject.name.startsWith('win-webserver-'));
      return new Set(failed.map((e) => e.involvedObject.name)).size === 2 ? failed : undefined;
    });
    for (const e of (await events()).filter((x) => x.reason === 'FailedScheduling')) {
      assert.equal(e.type, 'Warning');
      assert.equal(e.message, expected);
    }
    for (const p of await pods('app=win-webserver')) assert.equal(p.status.phase, 'Pending');
    const describe = await c.kubectl(['describe', 'pods', '-l', 'app=win-webserver']);
    assert.ok(describe.includes(expected), describe);
    const svc = JSON.parse(await c.kubectl(['get', 'svc', 'win-webserver', '-o', 'json'])) as { spec: { ports: { nodePort: number }[] } };
    const nodePort = svc.spec.ports[0]?.nodePort ?? 0;
    assert.ok(nodePort >= 30000 && nodePort <= 32767, `nodePort ${nodePort}`);
  });

  test('1. with the toleration the pods land on the Windows nodes; ltsc2019 cannot be pulled on Server 2022', async () => {
    await c.kubectl(['delete', 'deployment', 'win-webserver', '--wait=true']);
    const tolerated = manifest('win-webserver.yaml').replace(
      '      nodeSelector:\n        kubernetes.io/os: windows',
      '      nodeSelector:\n        kubernetes.io/os: windows\n      tolerations:\n        - key: os\n          operator: Equal\n          value: windows\n          effect: NoSchedule',
    );
    await c.kubectl(['apply', '-f', '-'], tolerated);
    const placed = await c.eventually('both pods placed', async () => {
      const ps = (await pods('app=win-webserver')).filter((p) => p.spec.nodeName !== undefined);
      return ps.length === 2 ? ps : undefined;
    });
    assert.deepEqual(placed.map((p) => p.spec.nodeName).sort(), ['windows-2019-1', 'windows-2022-1']);
    const on2022 = placed.find((p) => p.spec.nodeName === 'windows-2022-1')?.metadata.name ?? '';
    const on2019 = placed.find((p) => p.spec.nodeName === 'windows-2019-1')?.metadata.name ?? '';
    const image = 'mcr.microsoft.com/windows/servercore:ltsc2019';
    const pullFailure = `Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${image}": no match for platform in manifest: not found`;
    await c.eventually('the pull failure event', async () =>
      (await events()).find((e) => e.involvedObject.name === on2022 && e.reason === 'Failed' && e.message === pullFailure),
    );
    await c.eventually('ImagePullBackOff', async () => {
      const out = await c.kubectl(['get', 'pod', on2022, '--no-headers']);
      return /ImagePullBackOff/.test(out) ? out : undefined;
    });
    await c.eventually('the ltsc2019 pod Running on Server 2019', async () => {
      const out = await c.kubectl(['get', 'pod', on2019, '--no-headers']);
      return /1\/1\s+Running/.test(out) ? out : undefined;
    });
    await c.kubectl(['delete', '-f', '-'], tolerated);
  });

  test('2. the RuntimeClass merges its Windows Server 2019 selector and toleration; the pod runs there', async () => {
    await c.kubectl(['apply', '-f', '-'], manifest('runtimeclass-windows-2019.yaml'));
    const [pod] = await c.eventually('the iis pod Running', async () => {
      const ps = await pods('app=iis-2019');
      return ps.length === 1 && ps[0]?.status.phase === 'Running' ? ps : undefined;
    });
    assert.equal(pod?.spec.nodeName, 'windows-2019-1');
    assert.deepEqual(pod?.spec.nodeSelector, {
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/os': 'windows',
      'node.kubernetes.io/windows-build': '10.0.17763',
    });
    assert.ok(pod?.spec.tolerations?.some((t) => t.key === 'os' && t.value === 'windows' && t.effect === 'NoSchedule' && t.operator === 'Equal'));
    const svc = await c.kubectl(['get', 'svc', 'iis']);
    assert.match(svc, /iis\s+LoadBalancer\s+10\.\d+\.\d+\.\d+\s+<pending>\s+80:3\d{4}\/TCP/);
    await c.kubectl(['delete', '-f', '-'], manifest('runtimeclass-windows-2019.yaml'));
  });

  test('3. a pod pinned to build 10.0.20348 lands on windows-2022-1 and runs', async () => {
    await c.kubectl(['apply', '-f', '-'], manifest('windows-build-selector.yaml'));
    const out = await c.eventually('the pinned pod Running', async () => {
      const o = await c.kubectl(['get', 'pod', 'win-2022-pinned', '-o', 'wide', '--no-headers']);
      return /Running/.test(o) ? o : undefined;
    });
    assert.match(out, /windows-2022-1/);
    await c.kubectl(['delete', 'pod', 'win-2022-pinned', '--wait=false']);
  });

  test('4. the guide\'s v1beta1 RuntimeClass and selector-less Deployment are refused; nothing is created', async () => {
    const r = await c.kubectlResult(['apply', '-f', '-'], manifest('runtimeclass-v1beta1.yaml'));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /no matches for kind "RuntimeClass" in version "node\.k8s\.io\/v1beta1"/);
    assert.match(r.stderr, /spec\.selector: Required value/);
    const get = await c.kubectlResult(['get', 'deployment', 'iis-2022']);
    assert.match(get.stderr, /deployments\.apps "iis-2022" not found/);
  });

  test('5. the chapter\'s hybrid app: web runs on Linux, the Windows API stays Pending on tainted nodes', async () => {
    await c.kubectl(['apply', '-f', '-'], manifest('numbers-web.yaml') + '\n---\n' + manifest('numbers-api.yaml'));
    await c.eventually('web Running', async () => {
      const ps = await pods('app=numbers,component=web');
      return ps.length === 1 && ps[0]?.status.phase === 'Running' ? ps : undefined;
    });
    const [web] = await pods('app=numbers,component=web');
    assert.match(web?.spec.nodeName ?? '', /^linux-(amd64|arm64)-\d$/);
    const [api] = await pods('app=numbers,component=api');
    await c.eventually('the API pod FailedScheduling', async () =>
      (await events()).find((e) => e.involvedObject.name === api?.metadata.name && e.reason === 'FailedScheduling'),
    );
    const ev = (await events()).find((e) => e.involvedObject.name === api?.metadata.name && e.reason === 'FailedScheduling');
    assert.match(ev?.message ?? '', /2 node\(s\) had untolerated taint \{os: windows\}/);
    const wide = await c.kubectl(['get', 'pods', '-o', 'wide', '-l', 'app=numbers']);
    assert.match(wide.split('\n')[0] ?? '', /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/);
    await c.kubectl(['delete', '-f', '-'], manifest('numbers-web.yaml') + '\n---\n' + manifest('numbers-api.yaml'));
  });

  test('6. nodes show their OS image, kernel and runtime; DaemonSets run per OS', async () => {
    const nodes = await c.kubectl(['get', 'nodes', '-o', 'wide']);
    const lines = nodes.trim().split('\n');
    assert.match(lines[0] ?? '', /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME$/);
    assert.match(nodes, /windows-2022-1\s+Ready\s+<none>\s+\S+\s+v1\.32\.\d+\s+127\.\S+\s+<none>\s+Windows Server 2022 Datacenter\s+10\.0\.20348\.\d+\s+containerd:\/\/\S+/);
    assert.match(nodes, /control-plane\s+Ready\s+control-plane\s+/);
    const onNode = await c.kubectl(['get', 'pods', '--all-namespaces', '--field-selector', 'spec.nodeName=linux-amd64-1']);
    assert.match(onNode, /kube-proxy-/);
    assert.match(onNode, /kube-flannel-ds-/);
    const ds = await c.kubectl(['get', 'ds', '-n', 'kube-system']);
    assert.match(ds, /kube-proxy\s+4\s+4\s+4\s+4\s+4\s+kubernetes\.io\/os=linux/);
    assert.match(ds, /kube-proxy-windows\s+2\s+2\s+2\s+2\s+2\s+kubernetes\.io\/os=windows/);
  });

  test('6. the old master taint is not found; removing the control-plane taint lets pods land there', async () => {
    const master = await c.kubectlResult(['taint', 'nodes', '--all', 'node-role.kubernetes.io/master-']);
    assert.notEqual(master.code, 0);
    assert.match(master.stderr, /taint "node-role.kubernetes.io\/master" not found/);
    const out = await c.kubectl(['taint', 'nodes', 'control-plane', 'node-role.kubernetes.io/control-plane-']);
    assert.match(out, /node\/control-plane untainted/);
    await c.kubectl(['taint', 'nodes', 'control-plane', 'node-role.kubernetes.io/control-plane:NoSchedule']);
  });

  test('6. the drain lab: pods are evicted and come back on Linux nodes only; uncordon restores', async () => {
    await c.kubectl(['create', 'deployment', 'lab', '--image=nginx', '--replicas=6']);
    await c.kubectl(['rollout', 'status', 'deployment/lab', '--timeout=60s']);
    const out = await c.kubectl(['drain', 'linux-amd64-1', '--ignore-daemonsets']);
    assert.match(out, /node\/linux-amd64-1 cordoned/);
    assert.match(out, /node\/linux-amd64-1 drained/);
    assert.match(await c.kubectl(['get', 'node', 'linux-amd64-1']), /linux-amd64-1\s+Ready,SchedulingDisabled\s+/);
    await c.kubectl(['rollout', 'status', 'deployment/lab', '--timeout=60s']);
    const placed = await pods('app=lab');
    assert.equal(placed.length, 6);
    for (const p of placed) {
      assert.notEqual(p.spec.nodeName, 'linux-amd64-1');
      assert.match(p.spec.nodeName ?? '', /^(linux-amd64-2|linux-arm64-1)$/);
    }
    const ds = await c.kubectl(['get', 'pods', '-n', 'kube-system', '--field-selector', 'spec.nodeName=linux-amd64-1', '-o', 'name']);
    assert.match(ds, /kube-proxy-/);
    assert.equal(await c.kubectl(['uncordon', 'linux-amd64-1']), 'node/linux-amd64-1 uncordoned\n');
    assert.match(await c.kubectl(['get', 'node', 'linux-amd64-1']), /linux-amd64-1\s+Ready\s+<none>/);
    await c.kubectl(['delete', 'deployment', 'lab']);
  });
});
