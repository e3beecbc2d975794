import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { waitFor, startController } from '../_testing/fakes.js';
import { makePod, replicaSet } from '../_testing/builders.js';
import { computePdb, create, pdbStatus, type ScaleFinder } from './disruption.js';

const now = Date.parse('2025-01-01T00:00:00Z');

function pdb(spec: Partial<NonNullable<PodDisruptionBudget['spec']>>, status?: PodDisruptionBudget['status']): PodDisruptionBudget {
  const p: PodDisruptionBudget = { metadata: { name: 'foo', namespace: 'default', generation: 1 }, spec: { selector: { matchLabels: { foo: 'bar' } }, ...spec } };
  if (status !== undefined) p.status = status;
  return p;
}

function pods(n: number, ready = true): Pod[] {
  return Array.from({ length: n }, (_, i) => {
    const b = makePod(`p${i}`).labels({ foo: 'bar' }).phase('Running');
    if (ready) b.ready();
    return b.obj();
  });
}

const noControllers: ScaleFinder = () => undefined;
const rsOf10: ScaleFinder = () => ({ uid: 'rs', replicas: 10 });

void test('PDB status computation', async (t) => {
  const cases: { name: string; pdb: PodDisruptionBudget; pods: Pod[]; finder: ScaleFinder; want: [number, number, number, number]; unmanaged?: number }[] = [
    { name: 'minAvailable integer counts the selected pods', pdb: pdb({ minAvailable: 3 }), pods: pods(4), finder: noControllers, want: [4, 3, 4, 1] },
    { name: 'minAvailable integer not met', pdb: pdb({ minAvailable: 3 }), pods: pods(2), finder: noControllers, want: [2, 3, 2, 0] },
    { name: 'unready pods are not healthy', pdb: pdb({ minAvailable: 1 }), pods: [...pods(1), ...pods(1, false).map((p) => ({ ...p, metadata: { ...p.metadata, name: 'x' } }))], finder: noControllers, want: [1, 1, 2, 0] },
    { name: 'minAvailable percentage uses the controller scale, rounding up', pdb: pdb({ minAvailable: '20%' }), pods: pods(1), finder: rsOf10, want: [1, 2, 10, 0] },
    { name: 'maxUnavailable integer', pdb: pdb({ maxUnavailable: 1 }), pods: pods(10), finder: rsOf10, want: [10, 9, 10, 1] },
    { name: 'maxUnavailable percentage rounds up', pdb: pdb({ maxUnavailable: '25%' }), pods: pods(10), finder: rsOf10, want: [10, 7, 10, 3] },
    { name: 'maxUnavailable with unmanaged pods expects none', pdb: pdb({ maxUnavailable: 1 }), pods: pods(2), finder: noControllers, want: [2, 0, 0, 0], unmanaged: 2 },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const c = computePdb(tc.pdb, tc.pods, tc.finder, now);
      const s = pdbStatus(tc.pdb, c, now);
      assert.deepEqual([s.currentHealthy, s.desiredHealthy, s.expectedPods, s.disruptionsAllowed], tc.want);
      assert.equal(c.unmanagedPods.length, tc.unmanaged ?? 0);
      const cond = s.conditions?.find((x) => x.type === 'DisruptionAllowed');
      assert.deepEqual([cond?.status, cond?.reason], s.disruptionsAllowed > 0 ? ['True', 'SufficientPods'] : ['False', 'InsufficientPods']);
      assert.equal(s.observedGeneration, 1);
    });
  }
  await t.test('pods in disruptedPods do not count as healthy until the 2 minute timeout', () => {
    const p = pdb({ minAvailable: 1 }, { currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 0, disruptedPods: { p0: '2025-01-01T00:00:00Z' } });
    assert.equal(computePdb(p, pods(2), noControllers, now + 60_000).currentHealthy, 1);
    const later = computePdb(p, pods(2), noControllers, now + 121_000);
    assert.equal(later.currentHealthy, 2);
    assert.deepEqual(later.disruptedPods, {});
  });
});

void test('the controller writes PDB status from pods and their ReplicaSet', async (t) => {
  const client = new FakeClient();
  await startController(t, client, create);
  const rs = await client.create(resources.replicasets, replicaSet('web', 3, { foo: 'bar' }));
  for (const p of pods(3)) {
    (p.metadata as { ownerReferences?: OwnerReference[] }).ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata?.uid ?? '', controller: true }];
    await client.create(resources.pods, p);
  }
  await client.create(resources.poddisruptionbudgets, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', ...pdb({ maxUnavailable: 1 }) });
  await waitFor(() => client.peek<PodDisruptionBudget>(resources.poddisruptionbudgets, 'foo', 'default')?.status?.expectedPods === 3);
  const s = client.peek<PodDisruptionBudget>(resources.poddisruptionbudgets, 'foo', 'default')?.status;
  assert.deepEqual([s?.currentHealthy, s?.desiredHealthy, s?.expectedPods, s?.disruptionsAllowed], [3, 2, 3, 1]);
  assert.equal(s?.conditions?.[0]?.reason, 'SufficientPods');
});
