import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, NodeCondition, Pod } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { TestContext, startControllers } from '../_testing/fakes.js';
import { makePod } from '../_testing/builders.js';
import { formatTime } from '../_pods.js';
import { create as createTaintEviction } from '../taint-eviction/taint-eviction.js';
import type { KubeObject, WriteOptions } from '../../client/client.js';
import type { ResourceType } from '../../api/resources.js';
import { create, nodeUpdateWorkers } from './node-lifecycle.js';
import { computeZoneState, noScheduleTaintDiff, reconcileNodeLabels, TokenBucket, tryUpdateNodeHealth } from './_health.js';

function nodeWith(conditions: NodeCondition[], extra: { unschedulable?: boolean; created?: string } = {}): Node {
  return {
    metadata: { name: 'node0', creationTimestamp: extra.created ?? '2012-01-01T00:00:00Z' },
    spec: extra.unschedulable === true ? { unschedulable: true } : {},
    status: { conditions },
  };
}

void test('TaintsNodeByCondition', async (t) => {
  const ready = (s: string): NodeCondition => ({ type: 'Ready', status: s });
  const cases: { name: string; node: Node; expected: string[] }[] = [
    { name: 'NetworkUnavailable is true', node: nodeWith([ready('True'), { type: 'NetworkUnavailable', status: 'True' }]), expected: ['node.kubernetes.io/network-unavailable:NoSchedule'] },
    {
      name: 'NetworkUnavailable and MemoryPressure are true',
      node: nodeWith([ready('True'), { type: 'NetworkUnavailable', status: 'True' }, { type: 'MemoryPressure', status: 'True' }]),
      expected: ['node.kubernetes.io/network-unavailable:NoSchedule', 'node.kubernetes.io/memory-pressure:NoSchedule'],
    },
    { name: 'Ready is false', node: nodeWith([ready('False')]), expected: ['node.kubernetes.io/not-ready:NoSchedule'] },
    { name: 'Ready is unknown', node: nodeWith([ready('Unknown')]), expected: ['node.kubernetes.io/unreachable:NoSchedule'] },
    { name: 'DiskPressure and PIDPressure are true', node: nodeWith([ready('True'), { type: 'DiskPressure', status: 'True' }, { type: 'PIDPressure', status: 'True' }]), expected: ['node.kubernetes.io/disk-pressure:NoSchedule', 'node.kubernetes.io/pid-pressure:NoSchedule'] },
    { name: 'Unschedulable is true', node: nodeWith([ready('True')], { unschedulable: true }), expected: ['node.kubernetes.io/unschedulable:NoSchedule'] },
    { name: 'healthy node has no condition taints', node: nodeWith([ready('True'), { type: 'MemoryPressure', status: 'False' }]), expected: [] },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const diff = noScheduleTaintDiff(tc.node);
      assert.deepEqual(diff.add.map((x) => `${x.key}:${x.effect}`), tc.expected);
      assert.deepEqual(diff.remove, []);
    });
  }
  await t.test('stale condition taints are removed, other taints are left alone', () => {
    const n = nodeWith([ready('True')]);
    (n.spec as { taints?: unknown[] }).taints = [
      { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
      { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
    ];
    const diff = noScheduleTaintDiff(n);
    assert.deepEqual(diff.add, []);
    assert.deepEqual(diff.remove.map((x) => x.key), ['node.kubernetes.io/not-ready']);
  });
});

void test('MonitorNodeHealthUpdateStatus', async (t) => {
  const fakeNow = Date.parse('2017-01-01T00:00:00Z');
  const opts = { nodeMonitorGracePeriodMs: 50_000, nodeStartupGracePeriodMs: 60_000 };
  const readyAt = (hb: string): NodeCondition => ({ type: 'Ready', status: 'True', lastHeartbeatTime: hb, lastTransitionTime: hb });
  const cases: { description: string; node: Node; timeToPass: number; newNode?: Node; expectedConditions?: [string, string, string, string][] }[] = [
    { description: 'Node created recently, with no status (happens only at cluster startup).', node: nodeWith([], { created: formatTime(fakeNow) }), timeToPass: 0 },
    {
      description: 'Node created long time ago, with no status.',
      node: nodeWith([], { created: '2012-01-01T00:00:00Z' }),
      timeToPass: 0,
      expectedConditions: [
        ['Ready', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
        ['MemoryPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
        ['DiskPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
        ['PIDPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
      ],
    },
    { description: 'Node created long time ago, with status updated recently.', node: nodeWith([readyAt(formatTime(fakeNow))]), timeToPass: 0 },
    {
      description: 'Node created long time ago, with status updated by kubelet exceeds grace period.',
      node: nodeWith([readyAt('2015-01-01T12:00:00Z'), { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: '2015-01-01T12:00:00Z', lastTransitionTime: '2015-01-01T12:00:00Z' }]),
      timeToPass: 60_000,
      expectedConditions: [
        ['Ready', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'],
        ['MemoryPressure', 'Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'],
        ['DiskPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
        ['PIDPressure', 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.'],
      ],
    },
  ];
  for (const tc of cases) {
    await t.test(tc.description, () => {
      const first = tryUpdateNodeHealth(tc.node, undefined, undefined, fakeNow, opts);
      let result = first;
      if (tc.timeToPass > 0) result = tryUpdateNodeHealth(tc.node, first.health, undefined, fakeNow + tc.timeToPass, opts);
      if (tc.expectedConditions === undefined) {
        assert.equal(result.updatedNode, undefined);
        return;
      }
      const conds = result.updatedNode?.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]);
      assert.deepEqual(conds, tc.expectedConditions);
    });
  }
  await t.test('a renewed Lease keeps a node with a stale Ready heartbeat healthy', () => {
    const node = nodeWith([readyAt('2015-01-01T12:00:00Z')]);
    const a = tryUpdateNodeHealth(node, undefined, fakeNow, fakeNow, opts);
    const b = tryUpdateNodeHealth(node, a.health, fakeNow + 40_000, fakeNow + 60_000, opts);
    assert.equal(b.updatedNode, undefined);
    const c = tryUpdateNodeHealth(node, b.health, fakeNow + 40_000, fakeNow + 110_001, opts);
    assert.equal(c.updatedNode?.status?.conditions?.[0]?.status, 'Unknown');
  });
});

void test('ComputeZoneState', () => {
  const r = (s: string): NodeCondition => ({ type: 'Ready', status: s });
  assert.deepEqual(computeZoneState([r('True'), r('False')], 0.55), { unhealthy: 1, state: 'Normal' });
  assert.deepEqual(computeZoneState([r('False'), undefined], 0.55), { unhealthy: 2, state: 'FullDisruption' });
  assert.deepEqual(computeZoneState([r('False'), r('Unknown'), r('False'), r('True')], 0.55), { unhealthy: 3, state: 'PartialDisruption' });
  assert.deepEqual(computeZoneState([r('False'), r('False'), r('True'), r('True')], 0.55), { unhealthy: 2, state: 'Normal' });
});

void test('the NoExecute tainting limiter admits one node per 10 s per zone at 0.1 qps', () => {
  const b = new TokenBucket(0.1, 1, 0);
  assert.equal(b.tryAccept(0), true);
  assert.equal(b.tryAccept(5000), false);
  assert.equal(b.tryAccept(10_000), true);
  b.setQps(0, 10_000);
  assert.equal(b.tryAccept(100_000), false);
});

interface Harness {
  client: FakeClient;
  ctx: TestContext;
}

async function heartbeat(h: Harness, name: string): Promise<void> {
  const now = formatTime(h.ctx.clock.now());
  const lease = h.client.peek<Lease>(resources.leases, name, 'kube-node-lease');
  if (lease === undefined) {
    await h.client.create(resources.leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-node-lease' }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: now } });
  } else await h.client.update(resources.leases, { ...lease, spec: { ...(lease.spec ?? {}), renewTime: new Date(h.ctx.clock.now()).toISOString().replace('Z', '000Z') } });
}

async function setup(t: { after(fn: () => void): void }): Promise<Harness> {
  const client = new FakeClient();
  const ctx = new TestContext(client);
  const start = formatTime(ctx.clock.now());
  for (const name of ['n1', 'n2']) {
    await client.create(resources.nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name } },
      spec: {},
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: start, lastTransitionTime: start }] },
    });
  }
  const h = { client, ctx };
  await heartbeat(h, 'n1');
  await heartbeat(h, 'n2');
  await client.create(
    resources.pods,
    makePod('web')
      .node('n1')
      .phase('Running')
      .ready(start)
      .tolerate({ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 })
      .tolerate({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 })
      .obj(),
  );
  await startControllers(t, ctx, create(ctx), createTaintEviction(ctx));
  await ctx.settle();
  return h;
}

/** Advances the fake clock in 1 s steps, renewing the Leases of `alive` nodes every 10 s. */
async function advance(h: Harness, seconds: number, alive: string[]): Promise<void> {
  for (let i = 0; i < seconds; i++) {
    h.ctx.clock.step(1000);
    await h.ctx.settle();
    if (Math.floor(h.ctx.clock.now() / 1000) % 10 === 0) for (const n of alive) await heartbeat(h, n);
  }
}

void test('a silent node goes Unknown after the grace period, is tainted, its pods marked NotReady, then evicted after 300 s', async (t) => {
  const h = await setup(t);
  await advance(h, 6, ['n1', 'n2']);
  const registered = h.ctx.events.filter((e) => e.reason === 'RegisteredNode').map((e) => e.message).sort();
  assert.deepEqual(registered, ['Node n1 event: Registered Node n1 in Controller', 'Node n2 event: Registered Node n2 in Controller']);
  assert.equal(h.ctx.events.find((e) => e.reason === 'RegisteredNode')?.component, 'node-controller');

  // n1 stops renewing its Lease and posting status; 50 s later (plus a monitor period) it is Unknown.
  await advance(h, 45, ['n2']);
  assert.equal(h.client.peek<Node>(resources.nodes, 'n1')?.status?.conditions?.[0]?.status, 'True');
  await advance(h, 15, ['n2']);
  const n1 = h.client.peek<Node>(resources.nodes, 'n1');
  const ready = n1?.status?.conditions?.find((c) => c.type === 'Ready');
  assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']);
  const taints = (n1?.spec?.taints ?? []).map((x) => `${x.key}:${x.effect}`).sort();
  assert.deepEqual(taints, ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
  assert.ok(n1?.spec?.taints?.every((x) => x.timeAdded !== undefined));
  assert.ok(h.ctx.events.some((e) => e.reason === 'NodeNotReady' && e.message === 'Node n1 status is now: NodeNotReady'));
  const pod = h.client.peek<Pod>(resources.pods, 'web', 'default');
  assert.equal(pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
  assert.ok(h.ctx.events.some((e) => e.object === 'default/web' && e.reason === 'NodeNotReady' && e.message === 'Node is not ready' && e.type === 'Warning'));
  const n2 = h.client.peek<Node>(resources.nodes, 'n2');
  assert.equal(n2?.spec?.taints, undefined, 'the healthy node stays untainted');

  await advance(h, 290, ['n2']);
  assert.ok(h.client.peek<Pod>(resources.pods, 'web', 'default') !== undefined, 'tolerated for 300 s');
  await advance(h, 15, ['n2']);
  assert.equal(h.client.peek<Pod>(resources.pods, 'web', 'default'), undefined, 'evicted after 300 s');
  assert.ok(h.ctx.events.some((e) => e.message === 'Marking for deletion Pod default/web'));
});

void test('a node that comes back loses the NoExecute taint; a cordoned node gets the unschedulable taint', async (t) => {
  const h = await setup(t);
  await advance(h, 70, ['n2']);
  assert.ok(h.client.peek<Node>(resources.nodes, 'n1')?.spec?.taints?.some((x) => x.effect === 'NoExecute'));
  const n1 = h.client.peek<Node>(resources.nodes, 'n1') as Node;
  const now = formatTime(h.ctx.clock.now());
  await h.client.update(resources.nodes, { ...n1, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] } }, { subresource: 'status' });
  await heartbeat(h, 'n1');
  await advance(h, 6, ['n1', 'n2']);
  assert.equal(h.client.peek<Node>(resources.nodes, 'n1')?.spec?.taints, undefined);
  assert.ok(h.ctx.events.some((e) => e.message === 'Cancelling deletion of Pod default/web'));
  const cur = h.client.peek<Node>(resources.nodes, 'n2') as Node;
  await h.client.update(resources.nodes, { ...cur, spec: { ...(cur.spec ?? {}), unschedulable: true } });
  await advance(h, 1, ['n1', 'n2']);
  assert.deepEqual(h.client.peek<Node>(resources.nodes, 'n2')?.spec?.taints?.map((x) => `${x.key}:${x.effect}`), ['node.kubernetes.io/unschedulable:NoSchedule']);
});

void test('when every node is down the controller enters master disruption mode and removes NoExecute taints', async (t) => {
  const h = await setup(t);
  await advance(h, 70, []);
  for (const n of ['n1', 'n2']) {
    const node = h.client.peek<Node>(resources.nodes, n);
    assert.equal(node?.status?.conditions?.[0]?.status, 'Unknown');
    assert.deepEqual(node?.spec?.taints?.map((x) => `${x.key}:${x.effect}`), ['node.kubernetes.io/unreachable:NoSchedule']);
  }
  await advance(h, 310, []);
  assert.ok(h.client.peek<Pod>(resources.pods, 'web', 'default') !== undefined, 'no evictions in full disruption');
});

void test('reconcileNodeLabels: beta os/arch labels follow the stable ones', () => {
  const n = (labels: Record<string, string>): Node => ({ metadata: { name: 'n', labels } });
  assert.deepEqual(reconcileNodeLabels(n({ 'kubernetes.io/os': 'windows', 'kubernetes.io/arch': 'amd64' })), { 'beta.kubernetes.io/os': 'windows', 'beta.kubernetes.io/arch': 'amd64' });
  assert.deepEqual(reconcileNodeLabels(n({ 'kubernetes.io/os': 'linux', 'beta.kubernetes.io/os': 'windows' })), { 'beta.kubernetes.io/os': 'linux' });
  assert.equal(reconcileNodeLabels(n({ 'kubernetes.io/os': 'linux', 'beta.kubernetes.io/os': 'linux' })), undefined);
  assert.equal(reconcileNodeLabels(n({})), undefined);
});

void test('NoExecute tainting: each silent node is queued once per zone however many passes see it, and a node that recovers in the queue is never tainted', async (t) => {
  const client = new FakeClient();
  const ctx = new TestContext(client);
  const start = formatTime(ctx.clock.now());
  const names = ['n1', 'n2', 'n3', 'n4', 'n5'];
  for (const name of names) {
    await client.create(resources.nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name } },
      spec: {},
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: start, lastTransitionTime: start }] },
    });
  }
  const h = { client, ctx };
  for (const name of names) await heartbeat(h, name);
  await startControllers(t, ctx, create(ctx));
  await ctx.settle();
  const noExecute = (name: string): boolean => h.client.peek<Node>(resources.nodes, name)?.spec?.taints?.some((x) => x.effect === 'NoExecute') === true;
  // n1 and n2 go silent together: two of five not ready keeps the zone Normal (0.1 nodes/s).
  await advance(h, 66, ['n3', 'n4', 'n5']);
  const tainted = ['n1', 'n2'].filter(noExecute);
  assert.equal(tainted.length, 1, 'one node per 10 s');
  const waiting = tainted[0] === 'n1' ? 'n2' : 'n1';
  // The waiting node comes back before its turn: it leaves the queue.
  const node = h.client.peek<Node>(resources.nodes, waiting) as Node;
  const now = formatTime(h.ctx.clock.now());
  await h.client.update(resources.nodes, { ...node, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] } }, { subresource: 'status' });
  await heartbeat(h, waiting);
  await advance(h, 30, ['n3', 'n4', 'n5', waiting]);
  assert.equal(noExecute(waiting), false);
  assert.equal(noExecute(tainted[0] ?? ''), true);
  const taintWrites = h.client.actions.filter((a) => a.verb === 'update' && a.resource === 'nodes' && a.name === tainted[0]).length;
  await advance(h, 30, ['n3', 'n4', 'n5', waiting]);
  assert.equal(h.client.actions.filter((a) => a.verb === 'update' && a.resource === 'nodes' && a.name === tainted[0]).length, taintWrites, 'the tainted node is not tainted again');
});

void test('node update passes run nodeUpdateWorkers at once, so taints follow thousands of nodes turning Ready while each write waits', async (t) => {
  /** Holds every node write until `nodeUpdateWorkers` of them wait together (or 2 s pass), counting how many ran at once. */
  class SlowNodeWrites extends FakeClient {
    inFlight = 0;
    maxInFlight = 0;
    private held: (() => void)[] = [];
    override async update<T extends KubeObject>(res: ResourceType, obj: T, opts?: WriteOptions): Promise<T> {
      if (res === resources.nodes) {
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        const released = new Promise<void>((resolve) => this.held.push(resolve));
        const timer = setTimeout(() => this.release(), 2000);
        if (this.held.length >= nodeUpdateWorkers) this.release();
        await released;
        clearTimeout(timer);
        this.inFlight--;
      }
      return super.update(res, obj, opts);
    }
    private release(): void {
      for (const r of this.held.splice(0)) r();
    }
  }
  const client = new SlowNodeWrites();
  const ctx = new TestContext(client);
  const now = formatTime(ctx.clock.now());
  const count = 2 * nodeUpdateWorkers;
  for (let i = 0; i < count; i++) {
    await client.create(resources.nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `n${i}` },
      // Ready, with the not-ready taint the controller put on while the node's network was not up.
      spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule', timeAdded: now }] },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] },
    });
  }
  const nlc = create(ctx);
  nlc.start();
  ctx.startInformers();
  t.after(() => {
    nlc.stop();
    ctx.stop();
  });
  await ctx.waitForSync();
  while (client.peekAll<Node>(resources.nodes).some((n) => (n.spec?.taints ?? []).length > 0)) await new Promise((r) => setTimeout(r, 10));
  assert.equal(client.maxInFlight, nodeUpdateWorkers);
});
