import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { makePod } from '../_testing/builders.js';
import { checkEviction } from './eviction.js';

function pdb(selector: Record<string, string>, status: Partial<NonNullable<PodDisruptionBudget['status']>>, name = 'foo'): PodDisruptionBudget {
  return {
    metadata: { name, namespace: 'default', generation: 1 },
    spec: { selector: { matchLabels: selector } },
    status: { currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0, observedGeneration: 1, ...status },
  };
}

function pod(phase: string, ready = true): Pod {
  const b = makePod('t1').labels({ a: 'true' }).phase(phase);
  if (ready) b.ready();
  return b.obj();
}

const now = Date.parse('2025-01-01T00:00:00Z');

/** `err.Error()` of a StatusError plus its causes, as upstream's test compares it. */
function describe(d: ReturnType<typeof checkEviction>): string {
  if (d.allowed) return '';
  const causes = (d.error.details?.causes ?? []).filter((c) => c.reason === 'DisruptionBudget').map((c) => `${c.reason ?? ''}: ${c.message ?? ''}`).join('');
  return causes === '' ? d.error.message : `${d.error.message}: ${causes}`;
}

void test('Eviction', async (t) => {
  const cases: { name: string; pdbs: PodDisruptionBudget[]; pod: Pod; expectError: string; expectDeleted: boolean }[] = [
    {
      name: 'matching pdbs with no disruptions allowed, pod running',
      pdbs: [pdb({ a: 'true' }, { disruptionsAllowed: 0 })],
      pod: pod('Running'),
      expectError: "Cannot evict pod as it would violate the pod's disruption budget.: DisruptionBudget: The disruption budget foo needs 0 healthy pods and has 0 currently",
      expectDeleted: false,
    },
    { name: 'matching pdbs with no disruptions allowed, pod pending', pdbs: [pdb({ a: 'true' }, {})], pod: pod('Pending'), expectError: '', expectDeleted: true },
    { name: 'matching pdbs with no disruptions allowed, pod succeeded', pdbs: [pdb({ a: 'true' }, {})], pod: pod('Succeeded'), expectError: '', expectDeleted: true },
    { name: 'matching pdbs with no disruptions allowed, pod failed', pdbs: [pdb({ a: 'true' }, {})], pod: pod('Failed'), expectError: '', expectDeleted: true },
    { name: 'matching pdbs with disruptions allowed', pdbs: [pdb({ a: 'true' }, { disruptionsAllowed: 1 })], pod: pod('Running'), expectError: '', expectDeleted: true },
    { name: 'non-matching pdbs', pdbs: [pdb({ b: 'true' }, {})], pod: pod('Running'), expectError: '', expectDeleted: true },
    {
      name: 'matching pdbs with no disruptions allowed, pod running, pod healthy, unhealthy pod not ours',
      pdbs: [pdb({ a: 'true' }, { currentHealthy: 2, desiredHealthy: 2 })],
      pod: pod('Running'),
      expectError: "Cannot evict pod as it would violate the pod's disruption budget.: DisruptionBudget: The disruption budget foo needs 2 healthy pods and has 2 currently",
      expectDeleted: false,
    },
    {
      name: 'matching pdbs with no disruptions allowed, pod running, pod unhealthy, unhealthy pod ours',
      pdbs: [pdb({ a: 'true' }, { currentHealthy: 2, desiredHealthy: 2 })],
      pod: pod('Running', false),
      expectError: '',
      expectDeleted: true,
    },
    {
      name: 'matching pdbs with no disruptions allowed, pod running, pod unhealthy, budget not met',
      pdbs: [pdb({ a: 'true' }, { currentHealthy: 1, desiredHealthy: 2 })],
      pod: pod('Running', false),
      expectError: "Cannot evict pod as it would violate the pod's disruption budget.: DisruptionBudget: The disruption budget foo needs 2 healthy pods and has 1 currently",
      expectDeleted: false,
    },
    {
      name: 'unhealthyPodEvictionPolicy AlwaysAllow lets an unready pod go',
      pdbs: [{ ...pdb({ a: 'true' }, { currentHealthy: 1, desiredHealthy: 2 }), spec: { selector: { matchLabels: { a: 'true' } }, unhealthyPodEvictionPolicy: 'AlwaysAllow' } }],
      pod: pod('Running', false),
      expectError: '',
      expectDeleted: true,
    },
    {
      name: 'a PDB not yet observed at its generation answers 429 with retry',
      pdbs: [{ ...pdb({ a: 'true' }, { disruptionsAllowed: 1, observedGeneration: 1 }), metadata: { name: 'foo', namespace: 'default', generation: 2 } }],
      pod: pod('Running'),
      expectError: "Cannot evict pod as it would violate the pod's disruption budget.: DisruptionBudget: The disruption budget foo is still being processed by the server.",
      expectDeleted: false,
    },
    {
      name: 'more than one matching PDB',
      pdbs: [pdb({ a: 'true' }, { disruptionsAllowed: 1 }), pdb({}, { disruptionsAllowed: 1 }, 'bar')],
      pod: pod('Running'),
      expectError: 'Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      expectDeleted: false,
    },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const d = checkEviction(tc.pod, tc.pdbs, now);
      assert.equal(d.allowed, tc.expectDeleted);
      assert.equal(describe(d), tc.expectError);
    });
  }
});

void test('an eviction consumes a disruption: decrement, disruptedPods, condition at zero; codes 429 and 500', () => {
  const d = checkEviction(pod('Running'), [pdb({ a: 'true' }, { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 })], now);
  assert.ok(d.allowed);
  assert.equal(d.pdbUpdate?.status?.disruptionsAllowed, 0);
  assert.deepEqual(d.pdbUpdate?.status?.disruptedPods, { t1: '2025-01-01T00:00:00Z' });
  assert.deepEqual(
    d.pdbUpdate?.status?.conditions?.map((c) => [c.type, c.status, c.reason]),
    [['DisruptionAllowed', 'False', 'InsufficientPods']],
  );
  const dry = checkEviction(pod('Running'), [pdb({ a: 'true' }, { disruptionsAllowed: 1 })], now, { dryRun: true });
  assert.ok(dry.allowed && dry.pdbUpdate === undefined);
  const denied = checkEviction(pod('Running'), [pdb({ a: 'true' }, {})], now);
  assert.ok(!denied.allowed && denied.error.code === 429 && denied.error.reason === 'TooManyRequests');
  const multi = checkEviction(pod('Running'), [pdb({}, {}), pdb({}, {}, 'bar')], now);
  assert.ok(!multi.allowed && multi.error.code === 500);
});
