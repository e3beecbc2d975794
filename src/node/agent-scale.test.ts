/** NodeHost.addNodes / removeNodes: changing a running host's nodes (`kubemix nodes add|remove`). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Event, Node, Pod } from 'kubernetes-types/core/v1.js';
import { resources } from '../api/resources.js';
import { FakeClock } from '../client/index.js';
import { FakeClient } from './_fake-client.js';
import { NodeHost } from './agent.js';
import type { SimulatedNodeSpec } from './kubelet/node-status.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const flush = (): Promise<void> => new Promise((r) => setImmediate(r));
const spec = (name: string, i: number): SimulatedNodeSpec => ({ name, os: 'linux', arch: 'amd64', internalIP: `127.0.1.${i}`, podCIDR: `10.244.${i}.0/24`, cpu: 2, memory: '4Gi', maxPods: 110 });

/** `events`: the host's `nodeEvents` option as given (`{}` for its default). */
async function setup(t: { after(fn: () => void): void }, nodes: SimulatedNodeSpec[], client = new FakeClient(), events: { nodeEvents?: boolean } = { nodeEvents: false }) {
  const clock = new FakeClock(T0);
  const host = new NodeHost({ client, clock, nodes, cni: 'preinstalled', watchAllNodes: true, log: () => undefined, ...events });
  t.after(() => {
    host.stop();
    client.closeAll();
  });
  await host.start();
  await host.waitForSync();
  const advance = async (ms: number): Promise<void> => {
    for (let done = 0; done < ms; done += 100) {
      for (let i = 0; i < 5; i++) await flush();
      clock.step(Math.min(100, ms - done));
      for (let i = 0; i < 5; i++) await flush();
    }
  };
  return { client, host, advance };
}

void test('addNodes registers new nodes on a running host, reports progress and starts their heartbeats', async (t) => {
  const { client, host, advance } = await setup(t, [spec('a-1', 1)]);
  const progress: string[] = [];
  await host.addNodes([spec('a-2', 2), spec('a-3', 3)], (done, total) => progress.push(`${done}/${total}`));
  assert.deepEqual(progress, ['1/2', '2/2']);
  assert.deepEqual(host.nodeNames(), ['a-1', 'a-2', 'a-3']);
  assert.equal(client.peek<Node>(resources.nodes, 'a-3')?.spec?.podCIDR, '10.244.3.0/24');
  const renew = (): string | undefined => client.peek<Lease>(resources.leases, 'a-3', 'kube-node-lease')?.spec?.renewTime;
  const first = renew();
  assert.ok(first !== undefined);
  await advance(10_500);
  assert.notEqual(renew(), first);
  await assert.rejects(host.addNodes([spec('a-2', 2)]), /node a-2 is already hosted/);
});

void test('a pod bound to an added node before it came is started by it', async (t) => {
  const { client, host, advance } = await setup(t, [spec('a-1', 1)]);
  await client.create<Pod>(resources.pods, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'early', namespace: 'default', uid: 'uid-early' },
    spec: { nodeName: 'a-2', containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
    status: { phase: 'Pending' },
  });
  await advance(200);
  await host.addNodes([spec('a-2', 2)]);
  await advance(5_000);
  assert.equal(client.peek<Pod>(resources.pods, 'early', 'default')?.status?.phase, 'Running');
});

void test('removeNodes stops a node\'s heartbeats and pod workers; its objects stay for the caller to drain and delete', async (t) => {
  const { client, host, advance } = await setup(t, [spec('a-1', 1), spec('a-2', 2)]);
  await advance(200);
  await host.removeNodes(['a-2', 'unknown']);
  assert.deepEqual(host.nodeNames(), ['a-1']);
  const renew = (name: string): string | undefined => client.peek<Lease>(resources.leases, name, 'kube-node-lease')?.spec?.renewTime;
  const [kept, removed] = [renew('a-1'), renew('a-2')];
  await advance(20_500);
  assert.notEqual(renew('a-1'), kept);
  assert.equal(renew('a-2'), removed);
  assert.ok(client.peek<Node>(resources.nodes, 'a-2') !== undefined);
});

void test('a host of several nodes lists and watches bound pods only, as each kubelet watches its own node\'s', async (t) => {
  const client = new FakeClient();
  const selectors: Array<string | undefined> = [];
  const list = client.list.bind(client);
  const watch = client.watch.bind(client);
  client.list = (res, opts) => {
    if (res.resource === 'pods') selectors.push(opts?.fieldSelector);
    return list(res, opts);
  };
  client.watch = (res, opts) => {
    if (res.resource === 'pods') selectors.push(opts?.fieldSelector);
    return watch(res, opts);
  };
  await setup(t, [spec('a-1', 1), spec('a-2', 2)], client);
  for (let i = 0; i < 5; i++) await flush();
  assert.ok(selectors.length >= 2);
  assert.deepEqual(new Set(selectors), new Set(['spec.nodeName!=']));
});

void test('every kubelet of a large host records its node events, as upstream kubelets do', async (t) => {
  const names = Array.from({ length: 600 }, (_, i) => `big-${i}`);
  const { client } = await setup(t, names.map((n, i) => spec(n, i % 250)), new FakeClient(), {});
  for (let i = 0; i < 50; i++) await flush();
  const starting = new Set(client.all<Event>(resources.events).filter((e) => e.reason === 'Starting' && e.message === 'Starting kubelet.').map((e) => e.involvedObject.name));
  assert.equal(starting.size, names.length);
});
