import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareClaimSpec, type ClaimSpec } from './pvc-data-sources.js';

const pvc = { kind: 'PersistentVolumeClaim', name: 'src' };
const snapshot = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' };
const populator = { apiGroup: 'example.com', kind: 'Populator', name: 'p' };

void test('create: either data source reference fills in the other; a dataSource other than a PVC or a VolumeSnapshot is dropped', () => {
  const cases: [string, ClaimSpec, ClaimSpec][] = [
    ['a PVC clone through dataSource', { dataSource: { ...pvc } }, { dataSource: pvc, dataSourceRef: pvc }],
    ['a snapshot through dataSourceRef', { dataSourceRef: { ...snapshot } }, { dataSource: snapshot, dataSourceRef: snapshot }],
    ['a populator through dataSource alone: dropped (KEP 1495)', { dataSource: { ...populator } }, {}],
    ['a populator through dataSourceRef: kept, and copied', { dataSourceRef: { ...populator } }, { dataSource: populator, dataSourceRef: populator }],
    ['a cross-namespace reference loses its namespace (gate off), then is copied', { dataSourceRef: { ...pvc, namespace: 'other' } }, { dataSource: pvc, dataSourceRef: pvc }],
    ['volumeAttributesClassName goes (gate off)', { volumeAttributesClassName: 'gold' }, {}],
    ['no data source', {}, {}],
  ];
  for (const [what, spec, want] of cases) {
    prepareClaimSpec(spec);
    assert.deepEqual(spec, want, what);
  }
});

void test('update: what the stored claim already uses stays; the stored spec is normalized for validation', () => {
  const spec: ClaimSpec = { dataSource: { ...populator }, volumeAttributesClassName: 'gold', dataSourceRef: { ...populator, namespace: 'other' } };
  const old: ClaimSpec = { dataSource: { ...populator }, volumeAttributesClassName: 'gold', dataSourceRef: { ...populator, namespace: 'other' } };
  prepareClaimSpec(spec, old);
  assert.deepEqual(spec, { dataSource: populator, volumeAttributesClassName: 'gold', dataSourceRef: { ...populator, namespace: 'other' } });
  // A claim stored with only dataSource (an earlier version) reads as normalized.
  const stored: ClaimSpec = { dataSource: { ...pvc } };
  const sent: ClaimSpec = { dataSource: { ...pvc } };
  prepareClaimSpec(sent, stored);
  assert.deepEqual([sent, stored], [{ dataSource: pvc, dataSourceRef: pvc }, { dataSource: pvc, dataSourceRef: pvc }]);
});
