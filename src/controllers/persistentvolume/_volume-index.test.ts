/** Cases from pkg/controller/volume/persistentvolume/index_test.go (TestMatchVolume and friends). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { accessModesAsString } from '../../api/pv-helpers.js';
import { findBestMatchForClaim } from './_volume-index.js';

const vol = (name: string, size: string, modes: string[], extra: Partial<NonNullable<PersistentVolume['spec']>> = {}, labels?: Record<string, string>): PersistentVolume => ({
  metadata: { name, ...(labels !== undefined ? { labels } : {}) },
  spec: { capacity: { storage: size }, accessModes: modes, ...extra },
  status: { phase: 'Available' },
});

// The shape of createTestVolumes(): gce-pd volumes of several sizes and access modes, nfs ones with RWX.
const volumes: PersistentVolume[] = [
  vol('gce-pd-1', '1G', ['ReadWriteOnce', 'ReadOnlyMany']),
  vol('gce-pd-5', '5G', ['ReadWriteOnce', 'ReadOnlyMany']),
  vol('gce-pd-10', '10G', ['ReadWriteOnce', 'ReadOnlyMany']),
  vol('nfs-5', '5G', ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany']),
  vol('nfs-10', '10G', ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany']),
  vol('gce-pd-20-labelled', '20G', ['ReadWriteOnce', 'ReadOnlyMany'], {}, { 'should-exist': 'true' }),
  vol('block', '8G', ['ReadWriteOnce'], { volumeMode: 'Block' }),
  vol('gold', '3G', ['ReadWriteOnce'], { storageClassName: 'gold' }),
];

const claim = (size: string, modes: string[], spec: Partial<NonNullable<PersistentVolumeClaim['spec']>> = {}): PersistentVolumeClaim => ({
  metadata: { name: 'claim01', namespace: 'myns', uid: 'claim-uid' },
  spec: { accessModes: modes, resources: { requests: { storage: size } }, ...spec },
});

void test('findBestMatchForClaim', () => {
  const cases: { name: string; claim: PersistentVolumeClaim; want: string | undefined }[] = [
    { name: 'successful-match-gce-10', claim: claim('8G', ['ReadOnlyMany', 'ReadWriteOnce']), want: 'gce-pd-10' },
    { name: 'successful-match-nfs-5', claim: claim('5G', ['ReadOnlyMany', 'ReadWriteOnce', 'ReadWriteMany']), want: 'nfs-5' },
    { name: 'successful-skip-1g-bound-volume (the smallest RWO fit)', claim: claim('1G', ['ReadWriteOnce']), want: 'gce-pd-1' },
    { name: 'unsuccessful-match', claim: claim('100G', ['ReadOnlyMany', 'ReadWriteOnce']), want: undefined },
    { name: 'successful-match-with-label-selector', claim: claim('1G', ['ReadWriteOnce'], { selector: { matchLabels: { 'should-exist': 'true' } } }), want: 'gce-pd-20-labelled' },
    { name: 'unsuccessful-match-with-label-selector', claim: claim('1G', ['ReadWriteOnce'], { selector: { matchLabels: { 'should-not-exist': 'true' } } }), want: undefined },
    { name: 'successful-match-with-class', claim: claim('1G', ['ReadWriteOnce'], { storageClassName: 'gold' }), want: 'gold' },
    { name: 'successful-match-block-volume-mode', claim: claim('1G', ['ReadWriteOnce'], { volumeMode: 'Block' }), want: 'block' },
    { name: 'unsuccessful-match-class-with-no-volume', claim: claim('1G', ['ReadWriteOnce'], { storageClassName: 'silver' }), want: undefined },
  ];
  for (const tc of cases) assert.equal(findBestMatchForClaim(tc.claim, volumes, false)?.metadata?.name, tc.want, tc.name);
});

void test('pre-bound volumes: returned even when delayed binding skips the rest, and even when not Available', () => {
  const prebound: PersistentVolume = { ...vol('prebound', '2G', ['ReadWriteOnce'], { claimRef: { namespace: 'myns', name: 'claim01' } }), status: { phase: 'Pending' } };
  const otherUid = vol('taken', '1G', ['ReadWriteOnce'], { claimRef: { namespace: 'myns', name: 'claim01', uid: 'another' } });
  assert.equal(findBestMatchForClaim(claim('1G', ['ReadWriteOnce']), [otherUid, ...volumes, prebound], true)?.metadata?.name, 'prebound');
  assert.equal(findBestMatchForClaim(claim('1G', ['ReadWriteOnce']), volumes, true), undefined);
  assert.equal(findBestMatchForClaim(claim('1G', ['ReadWriteOnce']), [otherUid], false), undefined);
});

void test('GetAccessModesAsString order', () => {
  assert.equal(accessModesAsString(['ReadWriteOncePod', 'ReadWriteMany', 'ReadWriteOnce', 'ReadOnlyMany']), 'RWO,ROX,RWX,RWOP');
});
