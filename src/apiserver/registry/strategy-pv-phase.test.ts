/**
 * PersistentVolume `status.lastPhaseTransitionTime` (PersistentVolumeLastPhaseTransitionTime, GA in 1.31):
 * set on create and whenever the phase changes, kept otherwise, as pkg/registry/core/persistentvolume/
 * strategy_test.go's TestStatusUpdate cases describe.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceTable } from '../discovery/resource-defs.js';
import type { StoredObject } from '../storage/watch-cache.js';
import { prepareForCreate, prepareForUpdate } from './strategy.js';

const pvs = new ResourceTable().get('', 'v1', 'persistentvolumes');
assert.ok(pvs !== undefined);
const now = new Date('2025-01-01T10:00:00.123Z');
const earlier = '2024-12-31T00:00:00Z';
const later = '2025-01-02T00:00:00Z';

const pv = (status: Record<string, unknown>): StoredObject => ({ metadata: { name: 'pv' }, spec: { capacity: { storage: '1Gi' } }, status });

void test('create: Pending, with the transition time now (whatever the client sent)', () => {
  const o = pv({ phase: 'Bound', message: 'x' });
  prepareForCreate(pvs, o, now);
  assert.deepEqual(o['status'], { phase: 'Pending', lastPhaseTransitionTime: '2025-01-01T10:00:00Z' });
});

void test('status updates', () => {
  const cases: { name: string; old: Record<string, unknown>; sent: Record<string, unknown>; want: Record<string, unknown> }[] = [
    { name: 'phase unchanged, time not sent: the stored time is kept', old: { phase: 'Available', lastPhaseTransitionTime: earlier }, sent: { phase: 'Available' }, want: { phase: 'Available', lastPhaseTransitionTime: earlier } },
    { name: 'phase changed, time not sent: now', old: { phase: 'Available', lastPhaseTransitionTime: earlier }, sent: { phase: 'Bound' }, want: { phase: 'Bound', lastPhaseTransitionTime: '2025-01-01T10:00:00Z' } },
    { name: 'phase changed, stored time sent back unchanged: now', old: { phase: 'Bound', lastPhaseTransitionTime: earlier }, sent: { phase: 'Released', lastPhaseTransitionTime: earlier }, want: { phase: 'Released', lastPhaseTransitionTime: '2025-01-01T10:00:00Z' } },
    { name: 'phase changed, client set its own time: kept', old: { phase: 'Bound', lastPhaseTransitionTime: earlier }, sent: { phase: 'Released', lastPhaseTransitionTime: later }, want: { phase: 'Released', lastPhaseTransitionTime: later } },
    { name: 'phase unchanged, client set a time: kept', old: { phase: 'Bound', lastPhaseTransitionTime: earlier }, sent: { phase: 'Bound', lastPhaseTransitionTime: later }, want: { phase: 'Bound', lastPhaseTransitionTime: later } },
  ];
  for (const tc of cases) {
    const out = prepareForUpdate(pvs, pv(tc.sent), pv(tc.old), 'status', now);
    assert.deepEqual(out['status'], tc.want, tc.name);
  }
});
