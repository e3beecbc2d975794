import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod, PodSpec, Taint } from 'kubernetes-types/core/v1.js';
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { TestContext, waitFor, startController } from '../_testing/fakes.js';
import { makeNode } from '../_testing/builders.js';
import { create } from './daemonset.js';
import {
  addOrUpdateDaemonPodTolerations,
  daemonSchedulingInputsChanged,
  daemonSchedulingKey,
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
} from './_util.js';
import { ClaimCandidateIndex } from '../_claim-index.js';
import type { Informer } from '../_context.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';

const simpleDaemonSetLabel = { name: 'simple-daemon', type: 'production' };
const simpleDaemonSetLabel2 = { name: 'simple-daemon', type: 'test' };

function ds(spec: Partial<PodSpec> = {}, name = 'ds'): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: simpleDaemonSetLabel },
      template: { metadata: { labels: simpleDaemonSetLabel }, spec: { containers: [{ name: 'c', image: 'agent:1' }], ...spec } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
    },
  };
}

function affinityIn(values: string[]): Partial<PodSpec> {
  return {
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'type', operator: 'In', values }] }] },
      },
    },
  };
}

void test('NodeShouldRunDaemonPod', async (t) => {
  const cases: { predicateName: string; ds: DaemonSet; nodeUnschedulable?: boolean; shouldRun: boolean; shouldContinueRunning: boolean }[] = [
    { predicateName: 'ShouldRunDaemonPod', ds: ds(), shouldRun: true, shouldContinueRunning: true },
    { predicateName: 'InsufficientResourceError', ds: ds({ containers: [{ name: 'c', resources: { requests: { memory: '200M', cpu: '0.5' } } }] }), shouldRun: true, shouldContinueRunning: true },
    { predicateName: 'ErrPodNotMatchHostName', ds: ds({ nodeName: 'other-node' }), shouldRun: false, shouldContinueRunning: false },
    { predicateName: 'ErrPodNotFitsHostPorts', ds: ds({ containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 666 }] }] }), shouldRun: true, shouldContinueRunning: true },
    { predicateName: 'ErrNodeSelectorNotMatch', ds: ds({ nodeSelector: simpleDaemonSetLabel2 }), shouldRun: false, shouldContinueRunning: false },
    { predicateName: 'ShouldRunDaemonPod', ds: ds({ nodeSelector: simpleDaemonSetLabel }), shouldRun: true, shouldContinueRunning: true },
    { predicateName: 'ErrPodAffinityNotMatch', ds: ds(affinityIn(['test'])), shouldRun: false, shouldContinueRunning: false },
    { predicateName: 'ShouldRunDaemonPod', ds: ds(affinityIn(['production'])), shouldRun: true, shouldContinueRunning: true },
    { predicateName: 'ShouldRunDaemonPodOnUnschedulableNode', ds: ds(), nodeUnschedulable: true, shouldRun: true, shouldContinueRunning: true },
  ];
  for (const [i, c] of cases.entries()) {
    for (const strategy of ['OnDelete', 'RollingUpdate']) {
      await t.test(`[${i}] ${strategy} ${c.predicateName}`, () => {
        const node = makeNode('test-node', { labels: simpleDaemonSetLabel });
        if (c.nodeUnschedulable === true) (node.spec as { unschedulable?: boolean }).unschedulable = true;
        const d = structuredClone(c.ds);
        if (d.spec !== undefined) d.spec.updateStrategy = { type: strategy };
        assert.deepEqual(nodeShouldRunDaemonPod(node, d), { shouldRun: c.shouldRun, shouldContinueRunning: c.shouldContinueRunning });
      });
    }
  }
});

const noScheduleTaints: Taint[] = [{ key: 'dedicated', value: 'user1', effect: 'NoSchedule' }];
const noExecuteTaints: Taint[] = [{ key: 'dedicated', value: 'user1', effect: 'NoExecute' }];

void test('taints and the daemon pod tolerations', async (t) => {
  const cases: { name: string; taints: Taint[]; spec?: Partial<PodSpec>; shouldRun: boolean; shouldContinueRunning: boolean }[] = [
    { name: 'DaemonSet should not launch an intolerant pod on a tainted node (NoSchedule), running pods continue', taints: noScheduleTaints, shouldRun: false, shouldContinueRunning: true },
    { name: 'DaemonSet should not launch nor keep an intolerant pod on a NoExecute-tainted node', taints: noExecuteTaints, shouldRun: false, shouldContinueRunning: false },
    {
      name: 'DaemonSet should launch a pod tolerating the taint',
      taints: noScheduleTaints,
      spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'user1', effect: 'NoSchedule' }] },
      shouldRun: true,
      shouldContinueRunning: true,
    },
    { name: 'DaemonSet launches pods on a not-ready node (not-ready:NoExecute)', taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }], shouldRun: true, shouldContinueRunning: true },
    { name: 'DaemonSet launches pods on an unreachable node (unreachable:NoExecute)', taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }], shouldRun: true, shouldContinueRunning: true },
    {
      name: 'DaemonSet launches pods on nodes under disk, memory and PID pressure',
      taints: [
        { key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/pid-pressure', effect: 'NoSchedule' },
      ],
      shouldRun: true,
      shouldContinueRunning: true,
    },
    { name: 'DaemonSet launches pods on a cordoned node (unschedulable:NoSchedule)', taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }], shouldRun: true, shouldContinueRunning: true },
    { name: 'network-unavailable is tolerated only by hostNetwork pods', taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }], shouldRun: false, shouldContinueRunning: true },
    {
      name: 'hostNetwork DaemonSet launches pods on a node with network-unavailable',
      taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }],
      spec: { hostNetwork: true },
      shouldRun: true,
      shouldContinueRunning: true,
    },
    { name: 'Windows taint os=windows:NoSchedule keeps intolerant daemons off', taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }], shouldRun: false, shouldContinueRunning: true },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const node = makeNode('tainted', { labels: simpleDaemonSetLabel, taints: c.taints });
      assert.deepEqual(nodeShouldRunDaemonPod(node, ds(c.spec ?? {})), { shouldRun: c.shouldRun, shouldContinueRunning: c.shouldContinueRunning });
    });
  }
});

void test('AddOrUpdateDaemonPodTolerations adds tolerations without tolerationSeconds and replaces matching ones', () => {
  const spec: PodSpec = { containers: [], tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }] };
  addOrUpdateDaemonPodTolerations(spec);
  assert.deepEqual(spec.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ]);
});

void test('ReplaceDaemonSetPodNodeNameNodeAffinity replaces required terms and keeps preferred ones', () => {
  assert.deepEqual(replaceDaemonSetPodNodeNameNodeAffinity(undefined, 'node-1'), {
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }] } },
  });
  const withPreferred = replaceDaemonSetPodNodeNameNodeAffinity(
    {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'a', operator: 'Exists' }] } }],
      },
    },
    'node-2',
  );
  assert.deepEqual(withPreferred.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [
    { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-2'] }] },
  ]);
  assert.equal(withPreferred.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length, 1);
});

async function setup(t: { after(fn: () => void): void }): Promise<{ client: FakeClient; ctx: TestContext }> {
  const client = new FakeClient();
  const ctx = await startController(t, client, create);
  return { client, ctx };
}

/** Plays scheduler + kubelet: binds pinned pods to their node and marks them Running and Ready. */
async function runPods(client: FakeClient): Promise<void> {
  for (const p of client.peekAll<Pod>(resources.pods)) {
    if (p.status?.phase === 'Running') continue;
    const node = p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0] ?? '';
    const bound = await client.update<Pod>(resources.pods, { ...p, spec: { ...(p.spec ?? { containers: [] }), nodeName: node } });
    await client.update(resources.pods, { ...bound, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
  }
}

function linuxDaemonSet(): DaemonSet {
  const d = ds({ nodeSelector: { 'kubernetes.io/os': 'linux' } }, 'agent');
  return d;
}

void test('one pod per eligible node, pinned by affinity; nodes that join later get theirs; Windows nodes never do', async (t) => {
  const { client, ctx } = await setup(t);
  await client.create(resources.nodes, makeNode('linux-1'));
  await client.create(resources.nodes, makeNode('win-1', { labels: { 'kubernetes.io/os': 'windows' } }));
  await client.create(resources.daemonsets, linuxDaemonSet());
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 1);
  await ctx.settle();
  await client.create(resources.nodes, makeNode('linux-2'));
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 2);
  await ctx.settle();
  const pods = client.peekAll<Pod>(resources.pods);
  const targets = pods.map((p) => p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0]).sort();
  assert.deepEqual(targets, ['linux-1', 'linux-2']);
  for (const p of pods) {
    assert.match(p.metadata?.name ?? '', /^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.ok(p.metadata?.labels?.['controller-revision-hash'] !== undefined);
    assert.ok(p.spec?.tolerations?.some((x) => x.key === 'node.kubernetes.io/unreachable' && x.tolerationSeconds === undefined));
  }
  const created = ctx.events.filter((e) => e.reason === 'SuccessfulCreate');
  assert.equal(created.length, 2);
  assert.match(created[0]?.message ?? '', /^Created pod: agent-/);
  const revs = client.peekAll<ControllerRevision>(resources.controllerrevisions);
  assert.equal(revs.length, 1);
  assert.equal(revs[0]?.revision, 1);
  assert.equal(revs[0]?.metadata?.name, `agent-${pods[0]?.metadata?.labels?.['controller-revision-hash'] ?? ''}`);
  await runPods(client);
  await ctx.settle();
  await waitFor(() => client.peek<DaemonSet>(resources.daemonsets, 'agent', 'default')?.status?.numberReady === 2);
  const st = client.peek<DaemonSet>(resources.daemonsets, 'agent', 'default')?.status;
  assert.deepEqual(
    [st?.desiredNumberScheduled, st?.currentNumberScheduled, st?.numberReady, st?.updatedNumberScheduled, st?.numberAvailable, st?.numberMisscheduled, st?.numberUnavailable ?? 0, st?.observedGeneration],
    [2, 2, 2, 2, 2, 0, 0, 1],
  );
});

void test('a node that stops matching loses its daemon pod', async (t) => {
  const { client, ctx } = await setup(t);
  await client.create(resources.nodes, makeNode('linux-1'));
  await client.create(resources.daemonsets, linuxDaemonSet());
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 1);
  await ctx.settle();
  const n = client.peek<Node>(resources.nodes, 'linux-1') as Node;
  await client.update(resources.nodes, { ...n, metadata: { ...n.metadata, labels: { 'kubernetes.io/os': 'windows' } } });
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 0);
  assert.ok(ctx.events.some((e) => e.reason === 'SuccessfulDelete'));
});

void test('rolling update replaces one pod at a time (maxUnavailable 1) and records a second revision', async (t) => {
  const { client, ctx } = await setup(t);
  for (const n of ['n1', 'n2', 'n3']) await client.create(resources.nodes, makeNode(n));
  await client.create(resources.daemonsets, linuxDaemonSet());
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 3);
  await ctx.settle();
  await runPods(client);
  await ctx.settle();
  const cur = client.peek<DaemonSet>(resources.daemonsets, 'agent', 'default') as DaemonSet;
  const next = structuredClone(cur);
  const c0 = next.spec?.template.spec?.containers[0];
  if (c0 !== undefined) c0.image = 'agent:2';
  await client.update(resources.daemonsets, next);
  let minReady = 3;
  for (let i = 0; i < 30; i++) {
    await ctx.settle();
    const pods = client.peekAll<Pod>(resources.pods);
    minReady = Math.min(minReady, pods.filter((p) => p.status?.phase === 'Running').length);
    await runPods(client);
    await ctx.settle();
    const images = client.peekAll<Pod>(resources.pods).map((p) => p.spec?.containers[0]?.image);
    if (images.length === 3 && images.every((x) => x === 'agent:2')) break;
  }
  const images = client.peekAll<Pod>(resources.pods).map((p) => p.spec?.containers[0]?.image);
  assert.deepEqual(images, ['agent:2', 'agent:2', 'agent:2']);
  assert.ok(minReady >= 2, `at most one daemon pod unavailable, saw ${minReady} running`);
  const revs = client.peekAll<ControllerRevision>(resources.controllerrevisions).map((r) => r.revision).sort();
  assert.deepEqual(revs, [1, 2]);
});

void test('failed daemon pods are replaced with a per-node backoff (1 s doubling)', async (t) => {
  const { client, ctx } = await setup(t);
  await client.create(resources.nodes, makeNode('linux-1'));
  await client.create(resources.daemonsets, linuxDaemonSet());
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 1);
  const fail = async (): Promise<void> => {
    for (const p of client.peekAll<Pod>(resources.pods)) {
      if (p.status?.phase !== 'Failed') await client.update(resources.pods, { ...p, status: { phase: 'Failed' } }, { subresource: 'status' });
    }
    await ctx.settle();
  };
  await fail();
  const deletes = (): number => client.actions.filter((a) => a.verb === 'delete' && a.resource === 'pods').length;
  assert.equal(deletes(), 1, 'the first failure is replaced at once');
  assert.ok(ctx.events.some((e) => e.reason === 'FailedDaemonPod' && /^Found failed daemon pod default\/agent-\w+ on node linux-1, will try to kill it$/.test(e.message)));
  await fail();
  assert.equal(deletes(), 1, 'a second failure within 1 s waits');
  ctx.clock.step(1000);
  await ctx.settle();
  assert.equal(deletes(), 2);
  await fail();
  ctx.clock.step(1000);
  await ctx.settle();
  assert.equal(deletes(), 2, 'then 2 s');
  ctx.clock.step(1000);
  await ctx.settle();
  assert.equal(deletes(), 3);
});

void test('rolling update with maxSurge 1 starts the new pod before deleting the old one', async (t) => {
  const { client, ctx } = await setup(t);
  await client.create(resources.nodes, makeNode('n1'));
  const d = linuxDaemonSet();
  if (d.spec !== undefined) d.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
  await client.create(resources.daemonsets, d);
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 1);
  await ctx.settle();
  await runPods(client);
  await ctx.settle();
  const cur = client.peek<DaemonSet>(resources.daemonsets, 'agent', 'default') as DaemonSet;
  const next = structuredClone(cur);
  const c0 = next.spec?.template.spec?.containers[0];
  if (c0 !== undefined) c0.image = 'agent:2';
  await client.update(resources.daemonsets, next);
  await ctx.settle();
  const during = client.peekAll<Pod>(resources.pods).map((p) => p.spec?.containers[0]?.image).sort();
  assert.deepEqual(during, ['agent:1', 'agent:2'], 'old and new side by side on the node');
  await runPods(client);
  await ctx.settle();
  assert.deepEqual(client.peekAll<Pod>(resources.pods).map((p) => p.spec?.containers[0]?.image), ['agent:2']);
});

// ---- node events (daemon_controller_test.go TestAddNode, TestUpdateNode) ----

const simpleNodeLabel = { color: 'blue', speed: 'fast' };

/** A controller whose informers run but whose handlers are not installed: node events are fed by hand. */
async function unstarted(t: { after(fn: () => void): void }, objs: { daemonSets: DaemonSet[]; nodes?: Node[] }): Promise<{ client: FakeClient; ctx: TestContext; c: ReturnType<typeof create>; queued: () => number }> {
  const client = new FakeClient();
  for (const d of objs.daemonSets) await client.create(resources.daemonsets, d);
  for (const n of objs.nodes ?? []) await client.create(resources.nodes, n);
  const ctx = new TestContext(client);
  const c = create(ctx);
  ctx.startInformers();
  await ctx.waitForSync();
  t.after(() => ctx.stop());
  const queue = ctx.queues[0];
  return { client, ctx, c, queued: () => queue?.len() ?? 0 };
}

function withStrategy(d: DaemonSet, strategy: string): DaemonSet {
  const out = structuredClone(d);
  if (out.spec !== undefined) out.spec.updateStrategy = strategy === 'OnDelete' ? { type: 'OnDelete' } : { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } };
  return out;
}

void test('TestAddNode: a new node enqueues only the DaemonSets that should run on it', async (t) => {
  const { c, queued } = await unstarted(t, { daemonSets: [ds({ nodeSelector: simpleNodeLabel })] });
  c.addNode(makeNode('node1'));
  assert.equal(queued(), 0);
  c.addNode(makeNode('node2', { labels: simpleNodeLabel }));
  assert.equal(queued(), 1);
});

void test('TestUpdateNode: DaemonSets are resynced when node labels or taints changed', async (t) => {
  const cases: { test: string; oldNode: Node; newNode: Node; ds: DaemonSet; shouldEnqueue: boolean; expectedCreates: number }[] = [
    {
      test: 'Nothing changed, should not enqueue',
      oldNode: makeNode('node1'),
      newNode: makeNode('node1'),
      ds: ds({ nodeSelector: simpleNodeLabel }),
      shouldEnqueue: false,
      expectedCreates: 0,
    },
    {
      test: 'Node labels changed',
      oldNode: makeNode('node1'),
      newNode: makeNode('node1', { labels: simpleNodeLabel }),
      ds: ds({ nodeSelector: simpleNodeLabel }),
      shouldEnqueue: true,
      expectedCreates: 0,
    },
    {
      test: 'Node taints changed',
      oldNode: makeNode('node1', { taints: noScheduleTaints }),
      newNode: makeNode('node1'),
      ds: ds(),
      shouldEnqueue: true,
      expectedCreates: 0,
    },
    {
      test: 'Node Allocatable changed',
      oldNode: makeNode('node1'),
      newNode: { ...makeNode('node1'), status: { allocatable: { memory: '200M', cpu: '200m' } } },
      ds: ds({ containers: [{ name: 'c', image: 'agent:1', resources: { requests: { memory: '200M', cpu: '200m' } } }] }),
      shouldEnqueue: false,
      expectedCreates: 1,
    },
  ];
  for (const c of cases) {
    for (const strategy of ['OnDelete', 'RollingUpdate']) {
      await t.test(`${c.test} (${strategy})`, async (st) => {
        const { client, ctx, c: dsc, queued } = await unstarted(st, { daemonSets: [withStrategy(c.ds, strategy)], nodes: [c.oldNode] });
        await dsc.sync('default/ds');
        assert.equal(client.actions.filter((a) => a.verb === 'create' && a.resource === 'pods').length, c.expectedCreates);
        const oldNode = client.peek<Node>(resources.nodes, 'node1') as Node;
        const newNode: Node = { ...c.newNode, metadata: { ...oldNode.metadata, labels: c.newNode.metadata?.labels ?? {} } };
        await ctx.settle();
        dsc.updateNode(oldNode, newNode);
        assert.equal(queued() > 0, c.shouldEnqueue);
      });
    }
  }
});

void test('updateNode enqueues only the DaemonSets whose shouldRun or shouldContinueRunning changed', async (t) => {
  const tolerant = ds({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] }, 'tolerant');
  const intolerant = ds({}, 'intolerant');
  const { c, ctx } = await unstarted(t, { daemonSets: [tolerant, intolerant] });
  const queue = ctx.queues[0];
  const drain = async (): Promise<string[]> => {
    const keys: string[] = [];
    while ((queue?.len() ?? 0) > 0) {
      const k = await queue?.get();
      if (k !== undefined) {
        keys.push(k);
        queue?.done(k);
      }
    }
    return keys.sort();
  };
  const plain = makeNode('n1');
  c.updateNode(plain, makeNode('n1', { taints: noScheduleTaints }));
  assert.deepEqual(await drain(), ['default/intolerant'], 'NoSchedule: the intolerant one stops shouldRun');
  c.updateNode(makeNode('n1', { taints: noScheduleTaints }), makeNode('n1', { taints: noExecuteTaints }));
  assert.deepEqual(await drain(), ['default/intolerant'], 'NoSchedule to NoExecute: the intolerant one stops shouldContinueRunning');
  c.updateNode(makeNode('n1', { taints: [{ ...(noScheduleTaints[0] as Taint), timeAdded: '2025-01-01T00:00:00Z' }] }), makeNode('n1', { taints: noScheduleTaints }));
  assert.deepEqual(await drain(), [], 'timeAdded alone changes nothing');
  c.updateNode(plain, makeNode('n1', { labels: { unrelated: 'x' } }));
  assert.deepEqual(await drain(), [], 'a label no DaemonSet selects on changes nothing');
  const notReady = makeNode('n1', { ready: false });
  c.updateNode(notReady, makeNode('n1', { ready: true }));
  assert.deepEqual(await drain(), [], 'conditions alone change nothing');
});

void test('daemonSchedulingInputsChanged looks at the name, labels and taints (key, value, effect) only', async (t) => {
  const base = makeNode('n1', { labels: { a: '1' }, taints: noScheduleTaints });
  const cases: { name: string; cur: Node; changed: boolean }[] = [
    { name: 'same node', cur: structuredClone(base), changed: false },
    { name: 'status changed', cur: { ...structuredClone(base), status: { conditions: [{ type: 'Ready', status: 'True' }] } }, changed: false },
    { name: 'resourceVersion changed', cur: { ...structuredClone(base), metadata: { ...base.metadata, resourceVersion: '9' } }, changed: false },
    { name: 'unschedulable set (the taint, not the field, is what counts)', cur: { ...structuredClone(base), spec: { ...base.spec, unschedulable: true } }, changed: false },
    { name: 'label value changed', cur: makeNode('n1', { labels: { a: '2' }, taints: noScheduleTaints }), changed: true },
    { name: 'label added', cur: makeNode('n1', { labels: { a: '1', b: '1' }, taints: noScheduleTaints }), changed: true },
    { name: 'label replaced by another (as many labels)', cur: makeNode('n1', { labels: { c: '1' }, taints: noScheduleTaints }), changed: true },
    { name: 'taint removed', cur: makeNode('n1', { labels: { a: '1' } }), changed: true },
    { name: 'taint effect changed', cur: makeNode('n1', { labels: { a: '1' }, taints: noExecuteTaints }), changed: true },
    { name: 'taint value changed', cur: makeNode('n1', { labels: { a: '1' }, taints: [{ key: 'dedicated', value: 'user2', effect: 'NoSchedule' }] }), changed: true },
    { name: 'taint timeAdded changed', cur: makeNode('n1', { labels: { a: '1' }, taints: [{ ...(noScheduleTaints[0] as Taint), timeAdded: '2025-01-01T00:00:00Z' }] }), changed: false },
    { name: 'name changed', cur: makeNode('n2', { labels: { a: '1' }, taints: noScheduleTaints }), changed: true },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      assert.equal(daemonSchedulingInputsChanged(base, c.cur), c.changed);
      // When nothing NodeShouldRunDaemonPod reads changed, no DaemonSet can be judged differently.
      if (!c.changed) {
        for (const d of [ds(), ds({ nodeSelector: { a: '1' } }), ds({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] })]) {
          assert.deepEqual(nodeShouldRunDaemonPod(c.cur, d), nodeShouldRunDaemonPod(base, d));
        }
      }
    });
  }
});

void test('daemonSchedulingKey changes with every template field NodeShouldRunDaemonPod reads, and only those', () => {
  const base = daemonSchedulingKey(ds());
  assert.equal(daemonSchedulingKey(ds({ containers: [{ name: 'c', image: 'agent:2' }] })), base, 'the image plays no part');
  for (const spec of [{ nodeName: 'n1' }, { nodeSelector: { a: '1' } }, affinityIn(['x']), { tolerations: [{ key: 'k', operator: 'Exists' as const }] }, { hostNetwork: true }]) {
    assert.notEqual(daemonSchedulingKey(ds(spec)), base, JSON.stringify(spec));
  }
});

void test('a template change of the scheduling fields is judged afresh on nodes already judged', async (t) => {
  const { client, ctx } = await setup(t);
  await client.create(resources.nodes, makeNode('n1'));
  await client.create(resources.daemonsets, ds({ nodeSelector: { pool: 'a' } }, 'agent'));
  await ctx.settle();
  assert.equal(client.peekAll<Pod>(resources.pods).length, 0);
  const cur = client.peek<DaemonSet>(resources.daemonsets, 'agent', 'default') as DaemonSet;
  const next = structuredClone(cur);
  const spec = next.spec?.template.spec;
  if (spec !== undefined) delete spec.nodeSelector;
  await client.update(resources.daemonsets, next);
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 1);
});

/** A pod informer with its ClaimCandidateIndex, and pods owned by DaemonSets named after their uid (or orphans). */
function claimIndexFixture(t: { after(fn: () => void): void }): {
  client: FakeClient;
  ctx: TestContext;
  informer: Informer<Pod>;
  index: ClaimCandidateIndex;
  ref: (uid: string) => OwnerReference;
  pod: (name: string, ns: string, owner?: string) => Pod;
} {
  const client = new FakeClient();
  const ctx = new TestContext(client);
  const informer = ctx.informer<Pod>(resources.pods);
  const index = new ClaimCandidateIndex(informer);
  ctx.startInformers();
  t.after(() => ctx.stop());
  const ref = (uid: string): OwnerReference => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', name: uid, uid, controller: true });
  const pod = (name: string, ns: string, owner?: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, ...(owner !== undefined ? { ownerReferences: [ref(owner)] } : {}) }, spec: { containers: [] } });
  return { client, ctx, informer, index, ref, pod };
}

void test('ClaimCandidateIndex: the candidates version changes with the controller\'s pods and the orphans, not with others\'', async (t) => {
  const { client, ctx, informer, index, pod: podIn } = claimIndexFixture(t);
  const pod = (name: string, owner?: string): Pod => podIn(name, 'kube-system', owner);
  await client.create(resources.pods, pod('a1', 'uid-a'));
  await client.create(resources.pods, pod('b1', 'uid-b'));
  await ctx.waitForSync();
  const settle = (): Promise<void> => waitFor(() => informer.list().length === client.peekAll<Pod>(resources.pods).length);
  const versionA = (): number => index.candidatesVersion('kube-system', 'uid-a');
  let v = versionA();
  const changed = (): boolean => {
    const now = versionA();
    const moved = now !== v;
    v = now;
    return moved;
  };
  await client.create(resources.pods, pod('b2', 'uid-b'));
  await settle();
  assert.equal(changed(), false, 'a pod of another controller');
  await client.create(resources.pods, pod('a2', 'uid-a'));
  await settle();
  assert.equal(changed(), true, 'a new pod of the controller');
  const a2 = client.peek<Pod>(resources.pods, 'a2', 'kube-system');
  await client.update(resources.pods, { ...a2, metadata: { ...a2?.metadata, labels: { x: 'y' } } });
  await waitFor(() => informer.get('kube-system/a2')?.metadata?.labels?.['x'] === 'y');
  assert.equal(changed(), true, 'a changed pod of the controller');
  await client.create(resources.pods, pod('o1'));
  await settle();
  assert.equal(changed(), true, 'a new orphan');
  await client.delete(resources.pods, 'a1', { namespace: 'kube-system' });
  await settle();
  assert.equal(changed(), true, 'a deleted pod of the controller');
  await client.delete(resources.pods, 'a2', { namespace: 'kube-system' });
  await settle();
  assert.equal(changed(), true, 'the controller\'s last pod deleted');
  await client.delete(resources.pods, 'b1', { namespace: 'kube-system' });
  await settle();
  assert.equal(changed(), false, 'a deleted pod of another controller');
});

void test('ClaimCandidateIndex answers what a scan of the namespace would give claimObjects', async (t) => {
  const { client, ctx, informer, index, ref, pod } = claimIndexFixture(t);
  await client.create(resources.pods, pod('a1', 'kube-system', 'uid-a'));
  await client.create(resources.pods, pod('b1', 'kube-system', 'uid-b'));
  await client.create(resources.pods, pod('o1', 'kube-system'));
  await client.create(resources.pods, pod('x1', 'other', 'uid-a'));
  await ctx.waitForSync();
  const names = (ps: Pod[]): string[] => ps.map((p) => p.metadata?.name ?? '').sort();
  const expected = (uid: string): string[] =>
    names(client.peekAll<Pod>(resources.pods, 'kube-system').filter((p) => {
      const r = p.metadata?.ownerReferences?.find((x) => x.controller === true);
      return r === undefined || r.uid === uid;
    }));
  assert.deepEqual(names(index.candidates('kube-system', 'uid-a')), ['a1', 'o1']);
  assert.deepEqual(names(index.candidates('kube-system', 'uid-a')), expected('uid-a'));
  // Changes after the namespace was indexed: a new pod, an adoption, a release, a deletion.
  await client.create(resources.pods, pod('a2', 'kube-system', 'uid-a'));
  const o1 = client.peek<Pod>(resources.pods, 'o1', 'kube-system') as Pod;
  await client.update(resources.pods, { ...o1, metadata: { ...o1.metadata, ownerReferences: [ref('uid-b')] } });
  const b1 = client.peek<Pod>(resources.pods, 'b1', 'kube-system') as Pod;
  await client.update(resources.pods, { ...b1, metadata: { ...b1.metadata, ownerReferences: [] } });
  await client.delete(resources.pods, 'a1', { namespace: 'kube-system' });
  await waitFor(() => informer.get('kube-system/a1') === undefined && informer.get('kube-system/a2') !== undefined);
  await ctx.settle();
  for (const uid of ['uid-a', 'uid-b', 'uid-c']) assert.deepEqual(names(index.candidates('kube-system', uid)), expected(uid), uid);
  assert.deepEqual(names(index.candidates('kube-system', 'uid-b')), ['b1', 'o1']);
});
