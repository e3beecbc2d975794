import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Event, Node, Pod } from 'kubernetes-types/core/v1.js';
import type { CSINode } from 'kubernetes-types/storage/v1.js';
import { resources, type ResourceType } from '../api/resources.js';
import type { KubeObject, PatchType, WriteOptions } from '../client/client.js';
import { FakeClock } from '../client/index.js';
import { FakeClient } from './_fake-client.js';
import { NodeHost, type NodeHostOptions } from './agent.js';
import type { SimulatedNodeSpec } from './kubelet/node-status.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

const linux: SimulatedNodeSpec = { name: 'linux-amd64-1', os: 'linux', arch: 'amd64', internalIP: '127.0.1.2', podCIDR: '10.244.1.0/24', cpu: 4, memory: '16Gi', maxPods: 110 };
const win2022: SimulatedNodeSpec = {
  name: 'windows-2022-1',
  os: 'windows',
  arch: 'amd64',
  windowsBuild: '10.0.20348',
  internalIP: '127.0.1.6',
  podCIDR: '10.244.5.0/24',
  taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }],
};

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

async function setup(t: { after(fn: () => void | Promise<void>): void }, nodes: SimulatedNodeSpec[], opts: Partial<NodeHostOptions> = {}, client = new FakeClient()) {
  const clock = new FakeClock(T0);
  const host = new NodeHost({ client, clock, nodes, log: () => undefined, ...opts });
  t.after(() => {
    host.stop();
    client.closeAll();
  });
  await host.start();
  await host.waitForSync();
  await flush();
  /** Advances simulated time in 100 ms steps, letting API calls and watch events settle in between. */
  const advance = async (ms: number): Promise<void> => {
    for (let done = 0; done < ms; done += 100) {
      for (let i = 0; i < 5; i++) await flush();
      clock.step(Math.min(100, ms - done));
      for (let i = 0; i < 5; i++) await flush();
    }
  };
  const events = (): Event[] => client.all<Event>(resources.events);
  return { client, clock, host, advance, events };
}

function bound(name: string, node: string, spec: Partial<NonNullable<Pod['spec']>> = {}, meta: Partial<NonNullable<Pod['metadata']>> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, ...meta },
    spec: { nodeName: node, containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  };
}

void test('registration: labels, nodeInfo, taints, NotReady with the CNI message, and a Lease', async (t) => {
  const { client } = await setup(t, [linux, win2022]);
  const node = client.peek<Node>(resources.nodes, 'windows-2022-1');
  assert.ok(node !== undefined);
  assert.equal(node.metadata?.labels?.['node.kubernetes.io/windows-build'], '10.0.20348');
  assert.equal(node.metadata?.labels?.['kubernetes.io/os'], 'windows');
  assert.equal(node.metadata?.labels?.['beta.kubernetes.io/arch'], 'amd64');
  assert.equal(node.status?.nodeInfo?.osImage, 'Windows Server 2022 Datacenter');
  assert.deepEqual(node.spec?.taints, [{ key: 'os', value: 'windows', effect: 'NoSchedule' }]);
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  assert.equal(ready?.status, 'False');
  assert.equal(ready?.message, 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized');
  const lease = client.peek<Lease>(resources.leases, 'windows-2022-1', 'kube-node-lease');
  assert.equal(lease?.spec?.holderIdentity, 'windows-2022-1');
  assert.equal(lease?.spec?.leaseDurationSeconds, 40);
  assert.equal(lease?.metadata?.ownerReferences?.[0]?.kind, 'Node');
  assert.equal(lease?.metadata?.ownerReferences?.[0]?.uid, node.metadata?.uid);
  assert.ok(node.status?.images?.some((i) => i.names?.includes('registry.k8s.io/pause:3.10')));
});

void test('preloaded images: each node reports the manifest of its own platform and Windows build', async (t) => {
  const win2019: SimulatedNodeSpec = { ...win2022, name: 'windows-2019-1', windowsBuild: '10.0.17763', internalIP: '127.0.1.5', podCIDR: '10.244.4.0/24' };
  const arm: SimulatedNodeSpec = { ...linux, name: 'linux-arm64-1', arch: 'arm64', internalIP: '127.0.1.3', podCIDR: '10.244.2.0/24' };
  const win2022b: SimulatedNodeSpec = { ...win2022, name: 'windows-2022-2', internalIP: '127.0.1.7', podCIDR: '10.244.6.0/24' };
  const { client } = await setup(t, [win2022, linux, win2019, arm, win2022b]);
  const pauseSize = (name: string): number | undefined =>
    client.peek<Node>(resources.nodes, name)?.status?.images?.find((i) => i.names?.includes('registry.k8s.io/pause:3.10'))?.sizeBytes;
  // registry.k8s.io/pause:3.10's index in the built-in catalog: a manifest per architecture and per Windows build.
  assert.equal(pauseSize('linux-amd64-1'), 320_368);
  assert.equal(pauseSize('linux-arm64-1'), 313_432);
  assert.equal(pauseSize('windows-2019-1'), 112_590_208);
  assert.equal(pauseSize('windows-2022-1'), 122_116_534);
  assert.equal(pauseSize('windows-2022-2'), 122_116_534);
});

void test('an existing Node is reused: its status is posted, kubelet labels reconciled', async (t) => {
  const client = new FakeClient();
  await client.create<Node>(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'linux-amd64-1', labels: { team: 'a' } } });
  const clock = new FakeClock(T0);
  const host = new NodeHost({ client, clock, nodes: [linux], log: () => undefined, cni: 'preinstalled' });
  t.after(() => {
    host.stop();
    client.closeAll();
  });
  await host.start();
  const node = client.peek<Node>(resources.nodes, 'linux-amd64-1');
  assert.equal(node?.metadata?.labels?.['team'], 'a');
  assert.equal(node?.metadata?.labels?.['kubernetes.io/os'], 'linux');
  assert.equal(node?.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
});

const csiNodes = resources.csinodes;

/** What kubelet 1.32 writes on Linux and on Windows alike (pkg/volume/csi/csi_plugin.go `migratedPlugins`). */
const migratedPlugins1_32 = 'kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume,kubernetes.io/vsphere-volume';

void test('each node gets its CSINode once registered: named after it, owned by the Node, no drivers, the migrated plugins', async (t) => {
  const { client } = await setup(t, [linux, win2022]);
  for (const name of ['linux-amd64-1', 'windows-2022-1']) {
    const csiNode = client.peek<CSINode>(csiNodes, name);
    assert.ok(csiNode !== undefined, name);
    const node = client.peek<Node>(resources.nodes, name);
    assert.deepEqual(csiNode.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name, uid: node?.metadata?.uid }]);
    assert.deepEqual(csiNode.metadata?.annotations, { 'storage.alpha.kubernetes.io/migrated-plugins': migratedPlugins1_32 });
    assert.deepEqual(csiNode.spec, { drivers: [] });
  }
  const csiNodeCalls = client.calls.filter((c) => c.resource === 'csinodes');
  assert.deepEqual(
    csiNodeCalls.map((c) => `${c.verb} ${c.name}`).sort(),
    ['create linux-amd64-1', 'create windows-2022-1'],
    'one create per node, no reads',
  );
});

void test('an existing CSINode is kept: not duplicated, its annotation reconciled, its other fields untouched', async (t) => {
  const client = new FakeClient();
  const node = await client.create<Node>(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'linux-amd64-1' } });
  const ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: 'linux-amd64-1', uid: node.metadata?.uid ?? '' }];
  const drivers = [{ name: 'ebs.csi.aws.com', nodeID: 'i-0123' }];
  const before = await client.create<CSINode>(csiNodes, {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name: 'linux-amd64-1', annotations: { 'storage.alpha.kubernetes.io/migrated-plugins': 'kubernetes.io/gce-pd', team: 'a' }, ownerReferences },
    spec: { drivers },
  });
  await setup(t, [linux], {}, client);
  assert.equal(client.all<CSINode>(csiNodes).length, 1);
  const after = client.peek<CSINode>(csiNodes, 'linux-amd64-1');
  assert.equal(after?.metadata?.uid, before.metadata?.uid, 'the same object');
  assert.deepEqual(after?.metadata?.annotations, { 'storage.alpha.kubernetes.io/migrated-plugins': migratedPlugins1_32, team: 'a' });
  assert.deepEqual(after?.metadata?.ownerReferences, ownerReferences);
  assert.deepEqual(after?.spec, { drivers });
  assert.equal(client.calls.filter((c) => c.verb === 'update' && c.resource === 'csinodes').length, 1);
});

void test('an existing CSINode announcing the same plugins in another order is not updated', async (t) => {
  const client = new FakeClient();
  const reversed = migratedPlugins1_32.split(',').reverse().join(',');
  await client.create<CSINode>(csiNodes, { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'linux-amd64-1', annotations: { 'storage.alpha.kubernetes.io/migrated-plugins': reversed } }, spec: { drivers: [] } });
  await setup(t, [linux], {}, client);
  assert.equal(client.peek<CSINode>(csiNodes, 'linux-amd64-1')?.metadata?.annotations?.['storage.alpha.kubernetes.io/migrated-plugins'], reversed);
  assert.deepEqual(
    client.calls.filter((c) => c.resource === 'csinodes').map((c) => c.verb),
    ['create', 'create', 'get'],
    'the test fixture, the kubelet\'s create, and its read after AlreadyExists',
  );
});

/** A FakeClient whose first `failures` CSINode creates fail. */
class FailingCSINodeClient extends FakeClient {
  constructor(private failures: number) {
    super();
  }
  override async create<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    if (res.resource === 'csinodes' && this.failures > 0) {
      this.failures--;
      throw new Error('connection refused');
    }
    return super.create(res, obj, opts);
  }
}

void test('a failed CSINode create is logged and retried with backoff; registration and the lease go on meanwhile', async (t) => {
  const client = new FailingCSINodeClient(2);
  const logged: string[] = [];
  const { advance } = await setup(t, [linux], { log: (m) => logged.push(m) }, client);
  assert.ok(client.peek<Node>(resources.nodes, 'linux-amd64-1') !== undefined);
  assert.ok(client.peek<Lease>(resources.leases, 'linux-amd64-1', 'kube-node-lease') !== undefined);
  assert.equal(client.peek<CSINode>(csiNodes, 'linux-amd64-1'), undefined);
  assert.deepEqual(logged, ['initializing the CSINode of linux-amd64-1 failed']);
  await advance(500);
  assert.equal(client.peek<CSINode>(csiNodes, 'linux-amd64-1'), undefined, 'the second attempt, after 500 ms, fails too');
  await advance(900);
  assert.equal(client.peek<CSINode>(csiNodes, 'linux-amd64-1'), undefined, 'the next waits 1 s');
  await advance(100);
  assert.ok(client.peek<CSINode>(csiNodes, 'linux-amd64-1') !== undefined);
  assert.equal(logged.length, 2);
});

void test('the lease is renewed every 10 s on the fake clock; stop() halts heartbeats', async (t) => {
  const { client, advance, host } = await setup(t, [linux]);
  const renewTimes = (): string | undefined => client.peek<Lease>(resources.leases, 'linux-amd64-1', 'kube-node-lease')?.spec?.renewTime;
  assert.equal(renewTimes(), '2026-01-01T00:00:00.000000Z');
  await advance(10_000);
  assert.equal(renewTimes(), '2026-01-01T00:00:10.000000Z');
  await advance(10_000);
  assert.equal(renewTimes(), '2026-01-01T00:00:20.000000Z');
  host.stop();
  await advance(30_000);
  assert.equal(renewTimes(), '2026-01-01T00:00:20.000000Z');
});

void test('node status is posted when it changes, and every 5 min otherwise', async (t) => {
  const { client, advance } = await setup(t, [linux], { cni: 'preinstalled' });
  const statusPatches = (): number => client.calls.filter((c) => c.verb === 'patch' && c.resource === 'nodes' && c.subresource === 'status').length;
  const before = statusPatches();
  await advance(60_000);
  assert.equal(statusPatches(), before);
  await advance(250_000);
  assert.equal(statusPatches(), before + 1);
});

void test('heartbeats of many nodes are spread over the interval', async (t) => {
  const many = Array.from({ length: 10 }, (_, i): SimulatedNodeSpec => ({ ...linux, name: `n-${i}`, internalIP: `127.0.2.${i + 1}` }));
  const progress: string[] = [];
  const { client, advance } = await setup(t, many, { onRegistered: (done, total) => progress.push(`${done}/${total}`) });
  assert.deepEqual(progress, Array.from({ length: 10 }, (_, i) => `${i + 1}/10`));
  const renewals = (): number => client.calls.filter((c) => c.verb === 'update' && c.resource === 'leases').length;
  const start = renewals();
  await advance(999);
  assert.equal(renewals() - start, 1, 'one node of ten renews in the first second after start');
  await advance(9_000);
  assert.equal(renewals() - start, 10);
});

void test('a node renews its lease from its registration on, while other nodes still register', async (t) => {
  let release = (): void => undefined;
  const gate = new Promise<void>((r) => (release = r));
  // The second node's registration hangs (a slow store), 45 s: longer than a lease lasts.
  class SlowRegistration extends FakeClient {
    override async create<T extends KubeObject>(res: ResourceType, obj: T, opts?: WriteOptions): Promise<T> {
      if (res.resource === 'nodes' && obj.metadata?.name === 'n-1') await gate;
      return super.create(res, obj, opts);
    }
  }
  const client = new SlowRegistration();
  const clock = new FakeClock(T0);
  const nodes = [0, 1].map((i): SimulatedNodeSpec => ({ ...linux, name: `n-${i}`, internalIP: `127.0.2.${i + 1}` }));
  const host = new NodeHost({ client, clock, nodes, log: () => undefined, registrationConcurrency: 1 });
  t.after(() => {
    release();
    host.stop();
    client.closeAll();
  });
  const started = host.start();
  for (let ms = 0; ms < 45_000; ms += 100) {
    for (let i = 0; i < 5; i++) await flush();
    clock.step(100);
  }
  for (let i = 0; i < 5; i++) await flush();
  assert.equal(client.peek<Node>(resources.nodes, 'n-1'), undefined, 'n-1 is still registering');
  assert.equal(client.peek<Lease>(resources.leases, 'n-0', 'kube-node-lease')?.spec?.renewTime, '2026-01-01T00:00:40.000000Z');
  release();
  await started;
  assert.ok(client.peek<Lease>(resources.leases, 'n-1', 'kube-node-lease') !== undefined);
});

void test('a pod goes ContainerCreating -> Running through pods/status', async (t) => {
  const { client, advance, events } = await setup(t, [linux], { cni: 'preinstalled' });
  await client.create(resources.pods, bound('web', 'linux-amd64-1'));
  await advance(100);
  let pod = client.peek<Pod>(resources.pods, 'web', 'default');
  assert.equal(pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'ContainerCreating');
  assert.equal(pod?.status?.podIP, '10.244.1.2');
  assert.equal(pod?.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status, 'True');
  await advance(3_000);
  pod = client.peek<Pod>(resources.pods, 'web', 'default');
  assert.equal(pod?.status?.phase, 'Running');
  assert.equal(pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  const statusWrites = client.calls.filter((c) => c.verb === 'patch' && c.resource === 'pods');
  assert.ok(statusWrites.every((c) => c.subresource === 'status'));
  const podEvents = events().filter((e) => e.involvedObject?.name === 'web');
  assert.deepEqual(
    podEvents.map((e) => [e.reason, e.involvedObject?.fieldPath]),
    [
      ['Pulling', 'spec.containers{app}'],
      ['Pulled', 'spec.containers{app}'],
      ['Created', 'spec.containers{app}'],
      ['Started', 'spec.containers{app}'],
    ],
  );
  await advance(11_000);
  const node = client.peek<Node>(resources.nodes, 'linux-amd64-1');
  assert.ok(node?.status?.images?.some((i) => i.names?.includes('docker.io/library/nginx:1.27') && i.sizeBytes === 72_099_410));
});

void test('a platform mismatch: ErrImagePull, then ImagePullBackOff, with the exact event', async (t) => {
  const { client, advance, events } = await setup(t, [win2022], { cni: 'preinstalled' });
  const image = 'mcr.microsoft.com/windows/servercore:ltsc2019';
  await client.create(resources.pods, bound('win', 'windows-2022-1', { containers: [{ name: 'windowswebserver', image }] }));
  await advance(400);
  let pod = client.peek<Pod>(resources.pods, 'win', 'default');
  assert.equal(pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'ErrImagePull');
  await advance(1_000);
  pod = client.peek<Pod>(resources.pods, 'win', 'default');
  assert.equal(pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'ImagePullBackOff');
  const failed = events().find((e) => e.reason === 'Failed' && e.message?.startsWith('Failed to pull image'));
  assert.equal(
    failed?.message,
    `Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${image}": no match for platform in manifest: not found`,
  );
  assert.equal(failed?.type, 'Warning');
  assert.equal(failed?.source?.component, 'kubelet');
  assert.equal(failed?.source?.host, 'windows-2022-1');
});

void test('CNI gating: NotReady and NetworkNotReady until the flannel pod runs', async (t) => {
  const { client, advance, events } = await setup(t, [linux]);
  await client.create(resources.pods, bound('app', 'linux-amd64-1'));
  await advance(2_000);
  assert.equal(client.peek<Pod>(resources.pods, 'app', 'default')?.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'ContainerCreating');
  assert.ok(events().some((e) => e.reason === 'NetworkNotReady' && e.involvedObject?.name === 'app'));
  await client.create(
    resources.pods,
    bound('kube-flannel-ds-abcde', 'linux-amd64-1', { hostNetwork: true, containers: [{ name: 'kube-flannel', image: 'docker.io/flannel/flannel:v0.26.1' }] }, { labels: { app: 'flannel' }, namespace: 'kube-flannel' }),
  );
  await advance(3_000);
  const node = client.peek<Node>(resources.nodes, 'linux-amd64-1');
  const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
  assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['True', 'KubeletReady', 'kubelet is posting ready status']);
  assert.equal(client.peek<Pod>(resources.pods, 'kube-flannel-ds-abcde', 'kube-flannel')?.status?.podIP, '127.0.1.2');
  await advance(3_000);
  assert.equal(client.peek<Pod>(resources.pods, 'app', 'default')?.status?.phase, 'Running');
  assert.ok(events().some((e) => e.reason === 'NodeReady' && e.message === 'Node linux-amd64-1 status is now: NodeReady'));
});

void test('graceful deletion: Killing, then the final delete with gracePeriodSeconds 0', async (t) => {
  const { client, advance, events } = await setup(t, [linux], { cni: 'preinstalled' });
  await client.create(resources.pods, bound('d', 'linux-amd64-1'));
  await advance(3_000);
  await client.delete(resources.pods, 'd', { namespace: 'default' });
  await advance(1_000);
  assert.ok(events().some((e) => e.reason === 'Killing' && e.message === 'Stopping container app'));
  assert.equal(client.peek(resources.pods, 'd', 'default'), undefined);
  const finalDelete = client.calls.filter((c) => c.verb === 'delete' && c.resource === 'pods').at(-1);
  assert.deepEqual(finalDelete?.opts, { namespace: 'default', gracePeriodSeconds: 0, preconditions: { uid: 'uid-d' } });
});

void test('a pod whose OS field does not match is rejected: Failed, reason, message', async (t) => {
  const { client, advance } = await setup(t, [linux], { cni: 'preinstalled' });
  await client.create(resources.pods, bound('w', 'linux-amd64-1', { os: { name: 'windows' } }));
  await advance(200);
  const pod = client.peek<Pod>(resources.pods, 'w', 'default');
  assert.equal(pod?.status?.phase, 'Failed');
  assert.equal(pod?.status?.reason, 'PodOSNotSupported');
  assert.equal(pod?.status?.message, "Pod was rejected: Failed to admit pod as the OS field doesn't match node OS");
});

void test('simulated logs say what ran where', async (t) => {
  const { client, advance, host } = await setup(t, [linux], { cni: 'preinstalled' });
  await client.create(resources.pods, bound('web', 'linux-amd64-1'));
  await advance(2_000);
  assert.deepEqual(host.podLogs('default', 'web')?.slice(0, 3), [
    'kubemix simulated container "app" of pod default/web',
    'image docker.io/library/nginx:1.27 (linux/amd64)',
    'node linux-amd64-1 (linux/amd64), started 2026-01-01T00:00:00Z',
  ]);
  assert.equal(
    await host.logs('default', 'web', undefined, { tailLines: 1, timestamps: true }),
    '2026-01-01T00:00:00.660000000Z node linux-amd64-1 (linux/amd64), started 2026-01-01T00:00:00Z\n',
  );
  assert.equal(await host.logs('default', 'web', 'nope', {}), undefined);
  assert.equal(await host.logs('default', 'other', undefined, {}), undefined);
});

void test('the kube-node-lease namespace is created when the API server has none', async (t) => {
  const client = new FakeClient();
  client.requireNamespaces = true;
  const clock = new FakeClock(T0);
  const host = new NodeHost({ client, clock, nodes: [linux], log: () => undefined, nodeEvents: false });
  t.after(() => {
    host.stop();
    client.closeAll();
  });
  await host.start();
  assert.ok(client.peek(resources.namespaces, 'kube-node-lease') !== undefined);
  assert.equal(client.peek<Lease>(resources.leases, 'linux-amd64-1', 'kube-node-lease')?.spec?.holderIdentity, 'linux-amd64-1');
});

void test('after an agent restart, a flannel pod that was Running makes the network ready at once', async (t) => {
  const client = new FakeClient();
  await client.create(resources.pods, {
    ...bound('kube-flannel-ds-x', 'linux-amd64-1', { hostNetwork: true, containers: [{ name: 'kube-flannel', image: 'docker.io/flannel/flannel:v0.26.1' }] }, { labels: { app: 'flannel' } }),
    status: { phase: 'Running' },
  });
  const clock = new FakeClock(T0);
  const host = new NodeHost({ client, clock, nodes: [linux], log: () => undefined, nodeEvents: false });
  t.after(() => {
    host.stop();
    client.closeAll();
  });
  await host.start();
  await host.waitForSync();
  for (let i = 0; i < 10; i++) await flush();
  assert.equal(host.isNetworkReady('linux-amd64-1'), true);
  assert.equal(client.peek<Node>(resources.nodes, 'linux-amd64-1')?.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
});

void test('when another writer marks a running pod NotReady, the kubelet writes its status again', async (t) => {
  const { client, advance } = await setup(t, [linux], { cni: 'preinstalled' });
  await client.create(resources.pods, bound('web', 'linux-amd64-1'));
  await advance(3_000);
  const pod = client.peek<Pod>(resources.pods, 'web', 'default');
  const conditions = (pod?.status?.conditions ?? []).map((c) => (c.type === 'Ready' ? { ...c, status: 'False', reason: 'NodeNotReady' } : c));
  await client.patch(resources.pods, 'web', 'merge', { status: { conditions } }, { namespace: 'default', subresource: 'status' });
  await advance(500);
  assert.equal(client.peek<Pod>(resources.pods, 'web', 'default')?.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
});

/** A FakeClient whose updates or patches of one resource wait while `held` (a slow API server). */
class GatedClient extends FakeClient {
  attempts = 0;
  private release: (() => void) | undefined;
  private gate: Promise<void> | undefined;
  constructor(private readonly gated: { verb: 'update' | 'patch'; resource: string; subresource?: string }) {
    super();
  }
  hold(): void {
    this.gate = new Promise((r) => (this.release = r));
  }
  open(): void {
    this.release?.();
    this.gate = undefined;
  }
  private async pass(verb: string, resource: string, subresource: string | undefined): Promise<void> {
    if (verb !== this.gated.verb || resource !== this.gated.resource || subresource !== this.gated.subresource) return;
    this.attempts++;
    await this.gate;
  }
  override async update<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    await this.pass('update', res.resource, opts.subresource);
    return super.update(res, obj, opts);
  }
  override async patch<T extends KubeObject>(res: ResourceType, name: string, type: PatchType, patch: unknown, opts: WriteOptions & { force?: boolean } = {}): Promise<T> {
    await this.pass('patch', res.resource, opts.subresource);
    return super.patch(res, name, type, patch, opts);
  }
}

async function gatedSetup(t: { after(fn: () => void | Promise<void>): void }, client: GatedClient, opts: Partial<NodeHostOptions> = {}) {
  const clock = new FakeClock(T0);
  const host = new NodeHost({ client, clock, nodes: [linux], log: () => undefined, ...opts });
  t.after(() => {
    client.open();
    host.stop();
    client.closeAll();
  });
  await host.start();
  await host.waitForSync();
  await flush();
  const advance = async (ms: number): Promise<void> => {
    for (let done = 0; done < ms; done += 100) {
      for (let i = 0; i < 5; i++) await flush();
      clock.step(Math.min(100, ms - done));
      for (let i = 0; i < 5; i++) await flush();
    }
  };
  return { advance, host };
}

void test('a lease renewal still in flight is not doubled: no conflicting renewals on a slow API server', async (t) => {
  const client = new GatedClient({ verb: 'update', resource: 'leases' });
  const { advance } = await gatedSetup(t, client);
  const renewTime = (): string | undefined => client.peek<Lease>(resources.leases, 'linux-amd64-1', 'kube-node-lease')?.spec?.renewTime;
  await advance(5_000);
  client.hold();
  client.attempts = 0;
  await advance(30_000);
  assert.equal(client.attempts, 1, 'the renewals due at 20 s and 30 s wait for the one started at 10 s');
  client.open();
  await advance(100);
  assert.equal(renewTime(), '2026-01-01T00:00:10.000000Z');
  await advance(5_000);
  assert.equal(renewTime(), '2026-01-01T00:00:40.000000Z', 'the 10 s cadence goes on');
  assert.equal(client.calls.filter((c) => c.verb === 'get' && c.resource === 'leases').length, 0, 'no conflict was retried');
});

void test('node status asked for while a post is in flight is posted once that post ends', async (t) => {
  const client = new GatedClient({ verb: 'patch', resource: 'nodes', subresource: 'status' });
  const { advance } = await gatedSetup(t, client, { nodeStatusReportFrequencyMs: 20_000 });
  client.hold();
  await advance(21_000);
  assert.equal(client.attempts, 1, 'the unchanged status is reported after 20 s');
  await client.create(
    resources.pods,
    bound('kube-flannel-ds-abcde', 'linux-amd64-1', { hostNetwork: true, containers: [{ name: 'kube-flannel', image: 'docker.io/flannel/flannel:v0.26.1' }] }, { labels: { app: 'flannel' }, namespace: 'kube-flannel' }),
  );
  await advance(20_000);
  assert.equal(client.peek<Pod>(resources.pods, 'kube-flannel-ds-abcde', 'kube-flannel')?.status?.phase, 'Running');
  assert.equal(client.attempts, 1, 'network ready and the status ticks wait for the post in flight');
  const ready = (): string | undefined => client.peek<Node>(resources.nodes, 'linux-amd64-1')?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  assert.equal(ready(), 'False');
  client.open();
  await advance(100);
  assert.equal(client.attempts, 2);
  assert.equal(ready(), 'True');
});
