import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { TestContext, waitFor, startControllers } from '../_testing/fakes.js';
import { makeNode, makePod } from '../_testing/builders.js';
import { create, minTolerationTimeMs } from './taint-eviction.js';

/** upstream `createNoExecuteTaint(index)`. */
function noExecuteTaint(index: number): Taint {
  return { key: `testTaint${index}`, value: `test${index}`, effect: 'NoExecute' };
}

/** upstream `addToleration(pod, index, duration)`; a negative duration means no tolerationSeconds. */
function toleration(index: number, duration: number): Toleration {
  const t: Toleration = { key: `testTaint${index}`, value: `test${index}`, effect: 'NoExecute' };
  if (duration >= 0) t.tolerationSeconds = duration;
  return t;
}

function pod(name: string, node: string, tols: Toleration[] = []): Pod {
  const b = makePod(name);
  if (node !== '') b.node(node);
  for (const t of tols) b.tolerate(t);
  return b.obj();
}

function node(name: string, taints: Taint[] = []): Node {
  return makeNode(name, taints.length > 0 ? { taints } : {});
}

interface Harness {
  client: FakeClient;
  ctx: TestContext;
}

async function setup(t: { after(fn: () => void): void }, nodes: Node[], pods: Pod[]): Promise<Harness> {
  const client = new FakeClient();
  for (const n of nodes) await client.create(resources.nodes, n);
  for (const p of pods) await client.create(resources.pods, p);
  const ctx = new TestContext(client);
  await startControllers(t, ctx, create(ctx));
  await ctx.settle();
  return { client, ctx };
}

function deleted(h: Harness): string[] {
  return h.client.actions.filter((a) => a.verb === 'delete' && a.resource === 'pods').map((a) => a.name);
}

function patched(h: Harness): string[] {
  return h.client.actions.filter((a) => a.resource === 'pods' && a.subresource === 'status').map((a) => a.name);
}

async function step(h: Harness, ms: number): Promise<void> {
  h.ctx.clock.step(ms);
  await h.ctx.settle();
}

void test('getMinTolerationTime', async (t) => {
  const cases: { tolerations: Toleration[]; expected: number }[] = [
    { tolerations: [], expected: 0 },
    { tolerations: [{}], expected: -1 },
    { tolerations: [{ tolerationSeconds: 1 }, { tolerationSeconds: 2 }], expected: 1000 },
    { tolerations: [{ tolerationSeconds: 1 }, {}], expected: 1000 },
    { tolerations: [{}, { tolerationSeconds: 1 }], expected: 1000 },
  ];
  for (const [i, tc] of cases.entries()) await t.test(`case ${i}`, () => assert.equal(minTolerationTimeMs(tc.tolerations), tc.expected));
});

void test('CreatePod', async (t) => {
  const cases = [
    { description: 'not scheduled - ignore', pod: pod('pod1', ''), taints: [] as Taint[], expectDelete: false },
    { description: 'scheduled on untainted Node', pod: pod('pod1', 'node1'), taints: [], expectDelete: false },
    { description: 'schedule on tainted Node', pod: pod('pod1', 'node1'), taints: [noExecuteTaint(1)], expectDelete: true },
    { description: 'schedule on tainted Node with finite toleration', pod: pod('pod1', 'node1', [toleration(1, 100)]), taints: [noExecuteTaint(1)], expectDelete: false },
    { description: 'schedule on tainted Node with infinite toleration', pod: pod('pod1', 'node1', [toleration(1, -1)]), taints: [noExecuteTaint(1)], expectDelete: false },
    { description: 'schedule on tainted Node with infinite invalid toleration', pod: pod('pod1', 'node1', [toleration(2, -1)]), taints: [noExecuteTaint(1)], expectDelete: true },
  ];
  for (const tc of cases) {
    await t.test(tc.description, async (st) => {
      const h = await setup(st, [node('node1', tc.taints)], []);
      await h.client.create(resources.pods, tc.pod);
      await h.ctx.settle();
      await step(h, 10);
      assert.deepEqual(deleted(h), tc.expectDelete ? ['pod1'] : []);
      assert.deepEqual(patched(h), tc.expectDelete ? ['pod1'] : []);
    });
  }
});

void test('UpdatePod', async (t) => {
  const cases = [
    { description: 'scheduling onto tainted Node', prev: pod('pod1', ''), next: pod('pod1', 'node1'), wait: 0, expectDelete: true },
    { description: 'scheduling onto tainted Node with toleration', prev: pod('pod1', '', [toleration(1, -1)]), next: pod('pod1', 'node1', [toleration(1, -1)]), wait: 0, expectDelete: false },
    { description: 'removing toleration', prev: pod('pod1', 'node1', [toleration(1, 100)]), next: pod('pod1', 'node1'), wait: 0, expectDelete: true },
    { description: "lengthening toleration shouldn't work", prev: pod('pod1', 'node1', [toleration(1, 1)]), next: pod('pod1', 'node1', [toleration(1, 100)]), wait: 1500, expectDelete: true },
  ];
  for (const tc of cases) {
    await t.test(tc.description, async (st) => {
      const h = await setup(st, [node('node1', [noExecuteTaint(1)])], [tc.prev]);
      const cur = h.client.peek<Pod>(resources.pods, 'pod1', 'default') as Pod;
      // Time passes between the first sight and the update, as it does on a real clock.
      await step(h, 10);
      await h.client.update(resources.pods, { ...tc.next, metadata: cur.metadata ?? {} });
      await h.ctx.settle();
      await step(h, 10);
      await step(h, tc.wait);
      assert.deepEqual(deleted(h), tc.expectDelete ? ['pod1'] : []);
    });
  }
});

void test('CreateNode', async (t) => {
  const cases = [
    { description: 'Creating Node matching already assigned Pod', pods: [pod('pod1', 'node1')], node: node('node1'), expectDelete: false },
    { description: 'Creating tainted Node matching already assigned Pod', pods: [pod('pod1', 'node1')], node: node('node1', [noExecuteTaint(1)]), expectDelete: true },
    { description: 'Creating tainted Node matching already assigned tolerating Pod', pods: [pod('pod1', 'node1', [toleration(1, -1)])], node: node('node1', [noExecuteTaint(1)]), expectDelete: false },
  ];
  for (const tc of cases) {
    await t.test(tc.description, async (st) => {
      const h = await setup(st, [], tc.pods);
      await h.client.create(resources.nodes, tc.node);
      await h.ctx.settle();
      await step(h, 10);
      assert.deepEqual(deleted(h), tc.expectDelete ? ['pod1'] : []);
    });
  }
});

void test('UpdateNode', async (t) => {
  const cases: { description: string; pods: Pod[]; prevTaints: Taint[]; newTaints: Taint[]; expectDeleteAt: Record<string, number>; cancelled?: string[] }[] = [
    { description: 'Added taint, without tolerations', pods: [pod('pod1', 'node1')], prevTaints: [], newTaints: [noExecuteTaint(1)], expectDeleteAt: { pod1: 0 } },
    { description: 'Added tolerated taint', pods: [pod('pod1', 'node1', [toleration(1, 100)])], prevTaints: [], newTaints: [noExecuteTaint(1)], expectDeleteAt: {} },
    { description: 'Only one added taint tolerated', pods: [pod('pod1', 'node1', [toleration(1, 100)])], prevTaints: [], newTaints: [noExecuteTaint(1), noExecuteTaint(2)], expectDeleteAt: { pod1: 0 } },
    { description: 'Taint removed', pods: [pod('pod1', 'node1', [toleration(1, 1)])], prevTaints: [noExecuteTaint(1)], newTaints: [], expectDeleteAt: {}, cancelled: ['pod1'] },
    {
      description: 'Pod with multiple tolerations are evicted when first one runs out',
      pods: [pod('pod1', 'node1', [toleration(1, 1), toleration(2, 100)])],
      prevTaints: [],
      newTaints: [noExecuteTaint(1), noExecuteTaint(2)],
      expectDeleteAt: { pod1: 1000 },
    },
    {
      description: 'Pods with different toleration times are evicted appropriately',
      pods: [pod('pod1', 'node1'), pod('pod2', 'node1', [toleration(1, 1)]), pod('pod3', 'node1', [toleration(1, -1)])],
      prevTaints: [],
      newTaints: [noExecuteTaint(1)],
      expectDeleteAt: { pod1: 0, pod2: 1000 },
    },
    {
      description: 'Evict all pods not matching all taints instantly',
      pods: [pod('pod1', 'node1'), pod('pod2', 'node1', [toleration(1, 1)]), pod('pod3', 'node1', [toleration(1, -1)])],
      prevTaints: [],
      newTaints: [noExecuteTaint(1), noExecuteTaint(2)],
      expectDeleteAt: { pod1: 0, pod2: 0, pod3: 0 },
    },
  ];
  for (const tc of cases) {
    await t.test(tc.description, async (st) => {
      const h = await setup(st, [node('node1', tc.prevTaints)], tc.pods);
      const n = h.client.peek<Node>(resources.nodes, 'node1') as Node;
      await h.client.update(resources.nodes, { ...n, spec: { ...(n.spec ?? {}), taints: tc.newTaints } });
      await h.ctx.settle();
      const seen: Record<string, number> = {};
      for (let ms = 0; ms <= 1500; ms += 100) {
        await step(h, ms === 0 ? 0 : 100);
        for (const name of deleted(h)) seen[name] ??= ms;
      }
      const want = Object.fromEntries(Object.entries(tc.expectDeleteAt).map(([k, v]) => [k, Math.ceil(v / 100) * 100]));
      assert.deepEqual(seen, want);
      if (tc.cancelled !== undefined) {
        assert.deepEqual(
          h.ctx.events.filter((e) => e.message.startsWith('Cancelling')).map((e) => e.message),
          tc.cancelled.map((p) => `Cancelling deletion of Pod default/${p}`),
        );
      }
    });
  }
});

void test('evicted pods get DisruptionTarget and the TaintManagerEviction event', async (t) => {
  const h = await setup(t, [node('node1', [noExecuteTaint(1)])], []);
  await h.client.create(resources.pods, pod('pod1', 'node1', [toleration(1, 300)]));
  await h.ctx.settle();
  await step(h, 299_000);
  assert.deepEqual(deleted(h), []);
  let lastStatus: Pod['status'];
  const orig = h.client.update.bind(h.client);
  h.client.update = async (res, obj, opts) => {
    if (res.resource === 'pods' && opts?.subresource === 'status') lastStatus = (obj as Pod).status;
    return orig(res, obj, opts);
  };
  await step(h, 1000);
  await waitFor(() => deleted(h).length === 1);
  const cond = lastStatus?.conditions?.find((c) => c.type === 'DisruptionTarget');
  assert.deepEqual([cond?.status, cond?.reason, cond?.message], ['True', 'DeletionByTaintManager', 'Taint manager: deleting due to NoExecute taint']);
  const ev = h.ctx.events.find((e) => e.reason === 'TaintManagerEviction');
  assert.deepEqual([ev?.type, ev?.message, ev?.object, ev?.component], ['Normal', 'Marking for deletion Pod default/pod1', 'default/pod1', 'taint-eviction-controller']);
});
