import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer } from 'node:net';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_fake-client.js';
import type { NodeHostView } from '../agent.js';
import type { SimulatedNodeSpec } from '../kubelet/node-status.js';
import { NodePortProxy, readyBackends } from './nodeport.js';

const specs: SimulatedNodeSpec[] = [
  { name: 'linux-amd64-1', os: 'linux', arch: 'amd64', internalIP: '127.0.1.2' },
  { name: 'linux-arm64-1', os: 'linux', arch: 'arm64', internalIP: '127.0.1.3' },
];

const view: NodeHostView = {
  nodeNames: () => specs.map((s) => s.name),
  nodeSpec: (n) => specs.find((s) => s.name === n),
  isNetworkReady: () => true,
  podLogs: () => undefined,
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

function get(host: string, port: number): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: '/', method: 'GET', timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const svc = (nodePort: number, extra: Partial<NonNullable<Service['spec']>> = {}): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'numbers-web', namespace: 'default' },
  spec: { type: 'NodePort', selector: { app: 'numbers' }, ports: [{ port: 8090, targetPort: 'web', nodePort, protocol: 'TCP' }], ...extra },
});

const slice = (ready: boolean[]): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'numbers-web-abcde', namespace: 'default', labels: { 'kubernetes.io/service-name': 'numbers-web' } },
  addressType: 'IPv4',
  ports: [{ name: '', port: 80, protocol: 'TCP' }],
  endpoints: ready.map((r, i) => ({
    addresses: [`10.244.${i + 1}.2`],
    conditions: { ready: r },
    nodeName: specs[i]?.name ?? '',
    targetRef: { kind: 'Pod', namespace: 'default', name: `web-${i}` },
  })),
});

const pod = (i: number): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `web-${i}`, namespace: 'default' },
  spec: { nodeName: specs[i]?.name ?? '', containers: [{ name: 'web', image: 'kiamol/ch03-numbers-web' }] },
  status: { containerStatuses: [{ name: 'web', image: 'docker.io/kiamol/ch03-numbers-web:latest', imageID: '', ready: true, restartCount: 0 }] },
});

void test('ready backends come from EndpointSlices, unready ones left out', () => {
  const b = readyBackends(svc(30001), { port: 8090, nodePort: 30001 }, [slice([true, false])], undefined);
  assert.deepEqual(b.map((x) => [x.ip, x.port, x.pod?.name]), [['10.244.1.2', 80, 'web-0']]);
});

void test('every node serves the NodePort on its own IP, round-robin over ready endpoints', async (t) => {
  const client = new FakeClient();
  const port = await freePort();
  await client.create(resources.services, svc(port));
  await client.create(resources.endpointslices, slice([true, true]));
  await client.create(resources.pods, pod(0));
  await client.create(resources.pods, pod(1));
  const proxy = new NodePortProxy({ client, nodes: view, log: () => undefined });
  t.after(async () => {
    await proxy.stop();
    client.closeAll();
  });
  await proxy.start();
  assert.deepEqual(proxy.serving(), [`127.0.1.2:${port}`, `127.0.1.3:${port}`]);
  const a = await get('127.0.1.2', port);
  const b = await get('127.0.1.2', port);
  assert.equal(a.status, 200);
  assert.notEqual(a.headers['x-kubemix-pod'], b.headers['x-kubemix-pod']);
  const arm = [a, b].find((r) => r.headers['x-kubemix-pod'] === 'default/web-1');
  assert.ok(arm !== undefined);
  assert.match(arm.body, /node: linux-arm64-1 \(linux\/arm64\)/);
  assert.match(arm.body, /image: docker\.io\/kiamol\/ch03-numbers-web:latest/);
  const c = await get('127.0.1.3', port);
  assert.equal(c.status, 200);
});

void test('externalTrafficPolicy Local keeps to the receiving node; no endpoint drops the connection', async (t) => {
  const client = new FakeClient();
  const port = await freePort();
  await client.create(resources.services, svc(port, { externalTrafficPolicy: 'Local' }));
  await client.create(resources.endpointslices, slice([true, false]));
  const proxy = new NodePortProxy({ client, nodes: view, log: () => undefined });
  t.after(async () => {
    await proxy.stop();
    client.closeAll();
  });
  await proxy.start();
  for (let i = 0; i < 3; i++) assert.equal((await get('127.0.1.2', port)).headers['x-kubemix-pod'], 'default/web-0');
  await assert.rejects(get('127.0.1.3', port));
});

void test('listeners follow Services: a deleted Service stops being served', async (t) => {
  const client = new FakeClient();
  const port = await freePort();
  await client.create(resources.services, svc(port));
  const proxy = new NodePortProxy({ client, nodes: view, log: () => undefined });
  t.after(async () => {
    await proxy.stop();
    client.closeAll();
  });
  await proxy.start();
  assert.equal(proxy.serving().length, 2);
  await client.delete(resources.services, 'numbers-web', { namespace: 'default' });
  for (let i = 0; i < 20 && proxy.serving().length > 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(proxy.serving(), []);
});

void test('off above the node limit', () => {
  const proxy = new NodePortProxy({ client: new FakeClient(), nodes: view, maxNodes: 1 });
  assert.equal(proxy.enabled, false);
});
