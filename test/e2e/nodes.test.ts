/**
 * Simulated nodes end to end with the real kubectl: images that do not fit a node fail the way containerd
 * and Windows make them fail, the kubelet's OS admission, and NodePorts served on every node's own address.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';
import { processThreads, threadNiceness } from '../harness/threads.js';
import { componentsThreadNiceness } from '../../src/util/thread-priority.js';

interface EventView {
  reason: string;
  message: string;
  type: string;
  involvedObject: { name: string };
}

function httpGet(host: string, port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: '/', method: 'GET', timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
}

const pod = (name: string, spec: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
${spec}`;

describe('simulated nodes', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
    await c.kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
  });
  after(async () => {
    await c.stop();
  });

  const events = async (name: string): Promise<EventView[]> =>
    (JSON.parse(await c.kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])) as { items: EventView[] }).items;
  const statusOf = async (name: string): Promise<string> => ((await c.kubectl(['get', 'pod', name, '--no-headers'])).trim().split(/\s+/)[2] ?? '');

  test('the components thread yields the CPU to the API server\'s thread', { skip: process.platform !== 'linux' }, () => {
    // The API server runs on this thread, the process's main thread.
    const own = threadNiceness();
    const all = processThreads().map((t) => t.niceness);
    // One thread runs at the components' priority; the node host's and every other keep the process's.
    const lowered = all.filter((n) => n === Math.min(19, own + componentsThreadNiceness));
    assert.equal(lowered.length, 1, `API server at nice ${own}; all threads at ${all.join(' ')}`);
  });

  test("the kubelet's writes are recorded in managedFields as kubelet", async () => {
    await c.kubectl(['apply', '-f', '-'], pod('managed-by-kubelet', `  nodeSelector:
    kubernetes.io/os: linux
  containers:
  - name: web
    image: nginx:1.27
`));
    await c.eventually('Running', async () => ((await statusOf('managed-by-kubelet')) === 'Running' ? true : undefined));
    type Managed = { metadata: { managedFields: { manager: string; operation: string; subresource?: string }[] } };
    const managers = (o: Managed): string[] => o.metadata.managedFields.map((m) => `${m.manager} ${m.operation} ${m.subresource ?? ''}`.trim());
    const p = JSON.parse(await c.kubectl(['get', 'pod', 'managed-by-kubelet', '-o', 'json', '--show-managed-fields'])) as Managed;
    assert.deepEqual(managers(p), ['kubectl-client-side-apply Update', 'kubelet Update status']);
    const n = JSON.parse(await c.kubectl(['get', 'node', 'linux-amd64-1', '-o', 'json', '--show-managed-fields'])) as Managed;
    assert.ok(managers(n).includes('kubelet Update'), managers(n).join(', '));
    assert.ok(managers(n).includes('kubelet Update status'), managers(n).join(', '));
  });

  test('a Linux-only image on a Windows node cannot be pulled', async () => {
    await c.kubectl(['apply', '-f', '-'], pod('linux-on-windows', `  nodeSelector:
    kubernetes.io/os: windows
    node.kubernetes.io/windows-build: "10.0.20348"
  tolerations:
  - key: os
    operator: Equal
    value: windows
    effect: NoSchedule
  containers:
  - name: web
    image: nginx:1.27
`));
    const msg = 'Failed to pull image "nginx:1.27": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.27": no match for platform in manifest: not found';
    await c.eventually('the pull failure', async () => (await events('linux-on-windows')).find((e) => e.reason === 'Failed' && e.message === msg));
    await c.eventually('ImagePullBackOff', async () => ((await statusOf('linux-on-windows')) === 'ImagePullBackOff' ? true : undefined));
  });

  test('an amd64-only image on an arm64 node pulls, then crashes with exec format error', async () => {
    await c.kubectl(['apply', '-f', '-'], pod('amd64-on-arm', `  nodeSelector:
    kubernetes.io/arch: arm64
  containers:
  - name: db
    image: mcr.microsoft.com/mssql/server:2022-latest
`));
    await c.eventually('CrashLoopBackOff', async () => ((await statusOf('amd64-on-arm')) === 'CrashLoopBackOff' ? true : undefined), 40_000);
    const logs = await c.kubectlResult(['logs', 'amd64-on-arm']);
    assert.match(logs.stdout + logs.stderr, /exec format error/);
    const evs = await events('amd64-on-arm');
    assert.ok(evs.some((e) => e.reason === 'Pulled'), JSON.stringify(evs.map((e) => e.reason)));
    assert.ok(evs.some((e) => e.reason === 'BackOff' && /^Back-off restarting failed container db in pod amd64-on-arm_default\(/.test(e.message)), JSON.stringify(evs));
  });

  test('a matching Windows image runs on its build', async () => {
    await c.kubectl(['apply', '-f', '-'], pod('win-2019-ok', `  nodeSelector:
    kubernetes.io/os: windows
    node.kubernetes.io/windows-build: "10.0.17763"
  tolerations:
  - key: os
    operator: Equal
    value: windows
    effect: NoSchedule
  containers:
  - name: iis
    image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019
`));
    await c.eventually('Running', async () => ((await statusOf('win-2019-ok')) === 'Running' ? true : undefined));
    assert.match(await c.kubectl(['get', 'pod', 'win-2019-ok', '-o', 'wide', '--no-headers']), /windows-2019-1/);
  });

  test('the kubelet rejects a Windows pod pinned to a Linux node', async () => {
    await c.kubectl(['apply', '-f', '-'], pod('windows-on-linux', `  nodeName: linux-amd64-2
  os:
    name: windows
  containers:
  - name: app
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
`));
    const status = await c.eventually('Failed', async () => {
      const p = JSON.parse(await c.kubectl(['get', 'pod', 'windows-on-linux', '-o', 'json'])) as { status: { phase?: string; reason?: string; message?: string } };
      return p.status.phase === 'Failed' ? p.status : undefined;
    });
    assert.equal(status.reason, 'PodOSNotSupported');
    assert.equal(status.message, "Pod was rejected: Failed to admit pod as the OS field doesn't match node OS");
    assert.equal(await statusOf('windows-on-linux'), 'PodOSNotSupported');
    const ev = (await events('windows-on-linux')).find((e) => e.reason === 'PodOSNotSupported');
    assert.equal(ev?.type, 'Warning');
    assert.equal(ev?.message, "Failed to admit pod as the OS field doesn't match node OS");
  });

  test('a NodePort answers on two different node addresses from the Service\'s pods', async () => {
    await c.kubectl(['apply', '-f', '-'], `apiVersion: apps/v1
kind: Deployment
metadata:
  name: echo
spec:
  replicas: 2
  selector:
    matchLabels: {app: echo}
  template:
    metadata:
      labels: {app: echo}
    spec:
      nodeSelector:
        kubernetes.io/os: linux
      containers:
      - name: echo
        image: nginx:1.27
        ports:
        - containerPort: 80
---
apiVersion: v1
kind: Service
metadata:
  name: echo
spec:
  type: NodePort
  selector: {app: echo}
  ports:
  - port: 80
    targetPort: 80
    nodePort: 30080
`);
    await c.kubectl(['rollout', 'status', 'deployment/echo', '--timeout=60s']);
    const nodes = JSON.parse(await c.kubectl(['get', 'nodes', '-o', 'json'])) as { items: { metadata: { name: string }; status: { addresses: { type: string; address: string }[] } }[] };
    const ip = (name: string): string => nodes.items.find((n) => n.metadata.name === name)?.status.addresses.find((a) => a.type === 'InternalIP')?.address ?? '';
    for (const node of ['linux-amd64-1', 'windows-2022-1']) {
      const r = await c.eventually(`NodePort on ${node}`, async () => {
        const res = await httpGet(ip(node), 30080);
        return res.status === 200 ? res : undefined;
      });
      assert.match(r.body, /echo-/);
    }
  });
});
