import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod, PodSpec, Taint } from 'kubernetes-types/core/v1.js';
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { TestContext, waitFor } from '../_testing/fakes.js';
import { makeNode } from '../_testing/builders.js';
import { create } from './daemonset.js';
import { addOrUpdateDaemonPodTolerations, nodeShouldRunDaemonPod, replaceDaemonSetPodNodeNameNodeAffinity } from './_util.js';

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
  const ctx = new TestContext(client);
  const c = create(ctx);
  c.start();
  ctx.startInformers();
  await ctx.waitForSync();
  t.after(() => {
    c.stop();
    ctx.stop();
  });
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
