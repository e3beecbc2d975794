import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume } from 'kubernetes-types/core/v1.js';
import { apiErrors } from '../../api/errors.js';
import { resources, type ResourceType } from '../../api/resources.js';
import type { KubeObject, WriteOptions } from '../../client/client.js';
import { FakeClient } from '../_testing/fake-client.js';
import { startController } from '../_testing/fakes.js';
import { create } from './pv-protection.js';

// pkg/controller/volume/pvprotection/pv_protection_controller_test.go (TestPVProtectionController), v1.32.

const defaultPVName = 'default-pv';
const finalizer = 'kubernetes.io/pv-protection';

function pv(): PersistentVolume {
  return { metadata: { name: defaultPVName } };
}
function boundPV(): PersistentVolume {
  return { metadata: { name: defaultPVName }, status: { phase: 'Bound' } };
}
function withProtectionFinalizer(v: PersistentVolume): PersistentVolume {
  return { ...v, metadata: { ...v.metadata, finalizers: [...(v.metadata?.finalizers ?? []), finalizer] } };
}
function deleted(v: PersistentVolume): PersistentVolume {
  return { ...v, metadata: { ...v.metadata, deletionTimestamp: '2025-01-01T00:00:00Z' } };
}

const updateAction = (v: PersistentVolume): string => `update persistentvolumes ${v.metadata?.name ?? ''} finalizers=${JSON.stringify(v.metadata?.finalizers ?? [])} deleting=${v.metadata?.deletionTimestamp !== undefined}`;

/** A FakeClient recording updates; `updateFailures` makes the first updates fail with Forbidden. */
class RecordingClient extends FakeClient {
  readonly calls: string[] = [];
  updateFailures = 0;
  override async update<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    if (opts.subresource === undefined) {
      this.calls.push(updateAction(obj as PersistentVolume));
      if (this.updateFailures > 0) {
        this.updateFailures--;
        throw apiErrors.forbidden({ group: '', resource: res.resource }, obj.metadata?.name ?? '', 'Mock error');
      }
    }
    return super.update(res, obj, opts);
  }
}

const cases: { name: string; updatedPV: PersistentVolume; updateFailures?: number; expectedActions: string[] }[] = [
  { name: 'PV without finalizer -> finalizer is added', updatedPV: pv(), expectedActions: [updateAction(withProtectionFinalizer(pv()))] },
  { name: 'PVC with finalizer -> no action', updatedPV: withProtectionFinalizer(pv()), expectedActions: [] },
  {
    name: 'saving PVC finalizer fails -> controller retries',
    updatedPV: pv(),
    updateFailures: 2,
    expectedActions: [updateAction(withProtectionFinalizer(pv())), updateAction(withProtectionFinalizer(pv())), updateAction(withProtectionFinalizer(pv()))],
  },
  { name: 'deleted PV with finalizer -> finalizer is removed', updatedPV: deleted(withProtectionFinalizer(pv())), expectedActions: [updateAction(deleted(pv()))] },
  {
    name: 'finalizer removal fails -> controller retries',
    updatedPV: deleted(withProtectionFinalizer(pv())),
    updateFailures: 2,
    expectedActions: [updateAction(deleted(pv())), updateAction(deleted(pv())), updateAction(deleted(pv()))],
  },
  { name: 'deleted PVC with finalizer + PV is bound -> finalizer is not removed', updatedPV: deleted(withProtectionFinalizer(boundPV())), expectedActions: [] },
];

for (const tc of cases) {
  test(`TestPVProtectionController/${tc.name}`, async (t) => {
    const client = new RecordingClient();
    // The fake client keeps the status given at create, as upstream's fake clientset does.
    await client.create(resources.persistentvolumes, tc.updatedPV);
    client.updateFailures = tc.updateFailures ?? 0;
    const ctx = await startController(t, client, (c) => create(c));
    for (let i = 0; i < 20; i++) {
      await ctx.settle();
      if (ctx.clock.pendingTimers() === 0) break;
      ctx.clock.step(1000);
    }
    assert.deepEqual(client.calls, tc.expectedActions);
  });
}

test('a Bound volume being deleted keeps its finalizer until the PV controller moves it to Released', async (t) => {
  const client = new FakeClient();
  const ctx = await startController(t, client, (c) => create(c));
  await client.create(resources.persistentvolumes, boundPV());
  await ctx.settle();
  assert.deepEqual(client.peek<PersistentVolume>(resources.persistentvolumes, defaultPVName)?.metadata?.finalizers, [finalizer]);
  await client.delete(resources.persistentvolumes, defaultPVName);
  await ctx.settle();
  const terminating = client.peek<PersistentVolume>(resources.persistentvolumes, defaultPVName);
  assert.notEqual(terminating?.metadata?.deletionTimestamp, undefined);
  assert.equal(terminating?.status?.phase, 'Bound');

  await client.update(resources.persistentvolumes, { ...terminating, status: { phase: 'Released' } }, { subresource: 'status' });
  await ctx.settle();
  assert.equal(client.peek(resources.persistentvolumes, defaultPVName), undefined);
});
