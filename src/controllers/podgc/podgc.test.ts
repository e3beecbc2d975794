import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { TestContext, startController } from '../_testing/fakes.js';
import { makeNode, makePod } from '../_testing/builders.js';
import { create } from './podgc.js';

async function setup(t: { after(fn: () => void): void }, threshold: number): Promise<{ client: FakeClient; ctx: TestContext }> {
  const client = new FakeClient();
  const ctx = await startController(t, client, (ctx) => create(ctx, { terminatedPodThreshold: threshold }));
  return { client, ctx };
}

async function pass(ctx: TestContext, ms = 20_000): Promise<void> {
  ctx.clock.step(ms);
  await ctx.settle();
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
}

void test('terminated pods beyond the threshold are deleted, oldest first', async (t) => {
  const { client, ctx } = await setup(t, 2);
  for (const [i, phase] of ['Succeeded', 'Failed', 'Succeeded', 'Running'].entries()) {
    await client.create(resources.pods, makePod(`p${i}`).node('n1').phase(phase).created(`2025-01-01T00:0${i}:00Z`).obj());
  }
  await client.create(resources.nodes, makeNode('n1'));
  await ctx.settle();
  await pass(ctx);
  assert.deepEqual(client.peekAll<Pod>(resources.pods).map((p) => p.metadata?.name).sort(), ['p1', 'p2', 'p3']);
});

void test('pods of a node gone for the 40 s quarantine are failed with DisruptionTarget and force-deleted', async (t) => {
  const { client, ctx } = await setup(t, 100);
  await client.create(resources.pods, makePod('orphan').node('gone').phase('Running').obj());
  await ctx.settle();
  let lastStatus: Pod['status'];
  const orig = client.update.bind(client);
  client.update = async (res, obj, opts) => {
    if (res.resource === 'pods' && opts?.subresource === 'status') lastStatus = (obj as Pod).status;
    return orig(res, obj, opts);
  };
  await pass(ctx);
  assert.equal(client.peekAll(resources.pods).length, 1, 'quarantined');
  await pass(ctx);
  await pass(ctx);
  assert.equal(client.peekAll(resources.pods).length, 0);
  const cond = lastStatus?.conditions?.find((c) => c.type === 'DisruptionTarget');
  assert.deepEqual([lastStatus?.phase, cond?.reason, cond?.message], ['Failed', 'DeletionByPodGC', 'PodGC: node no longer exists']);
});
