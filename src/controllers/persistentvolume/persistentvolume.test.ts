import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { startController, type TestContext } from '../_testing/fakes.js';
import { create, deleteByInTreePlugin, messages } from './persistentvolume.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function pv(name: string, size: string, o: { modes?: string[]; cls?: string; policy?: string; labels?: Record<string, string>; claimRef?: { namespace: string; name: string }; hostPath?: string } = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...(o.labels !== undefined ? { labels: o.labels } : {}) },
    spec: {
      capacity: { storage: size },
      accessModes: o.modes ?? ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: o.policy ?? 'Retain',
      ...(o.cls !== undefined ? { storageClassName: o.cls } : {}),
      ...(o.claimRef !== undefined ? { claimRef: o.claimRef } : {}),
      hostPath: { path: o.hostPath ?? `/data/${name}` },
    },
  };
}

function pvc(name: string, size: string, o: { modes?: string[]; cls?: string; volumeName?: string; annotations?: Record<string, string>; selector?: Record<string, string> } = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default', ...(o.annotations !== undefined ? { annotations: o.annotations } : {}) },
    spec: {
      accessModes: o.modes ?? ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
      ...(o.cls !== undefined ? { storageClassName: o.cls } : {}),
      ...(o.volumeName !== undefined ? { volumeName: o.volumeName } : {}),
      ...(o.selector !== undefined ? { selector: { matchLabels: o.selector } } : {}),
    },
    // What persistentvolumeclaimStrategy.PrepareForCreate sets (the fake client has no strategies).
    status: { phase: 'Pending' },
  };
}

function sc(name: string, provisioner: string, mode: 'Immediate' | 'WaitForFirstConsumer', isDefault = false): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, ...(isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) },
    provisioner,
    volumeBindingMode: mode,
    reclaimPolicy: 'Delete',
  };
}

async function cluster(t: { after: (f: () => void) => void }, objs: { pvs?: PersistentVolume[]; pvcs?: PersistentVolumeClaim[]; classes?: StorageClass[]; pods?: Pod[] }): Promise<{ client: FakeClient; ctx: TestContext }> {
  const client = new FakeClient();
  for (const c of objs.classes ?? []) await client.create(resources.storageclasses, c);
  for (const v of objs.pvs ?? []) await client.create(resources.persistentvolumes, v);
  for (const p of objs.pods ?? []) await client.create(resources.pods, p);
  const ctx = await startController(t, client, (c) => create(c));
  await ctx.settle();
  for (const c of objs.pvcs ?? []) await client.create(resources.persistentvolumeclaims, c);
  await ctx.settle();
  return { client, ctx };
}

const getPV = (c: FakeClient, n: string): Promise<PersistentVolume> => c.get<PersistentVolume>(resources.persistentvolumes, n);
const getPVC = (c: FakeClient, n: string): Promise<PersistentVolumeClaim> => c.get<PersistentVolumeClaim>(resources.persistentvolumeclaims, n, { namespace: 'default' });
const events = (ctx: TestContext): string[] => ctx.events.map((e) => `${e.kind} ${e.object} ${e.type} ${e.reason} ${e.message} (${e.component})`);

void test('1-1 - successful bind: claimRef and phase on the volume, then volumeName, annotations and status on the claim, in upstream order', async (t) => {
  const client = new FakeClient();
  await client.create(resources.persistentvolumes, pv('volume1-1', '1Gi'));
  const ctx = await startController(t, client, (c) => create(c));
  await ctx.settle();
  assert.equal((await getPV(client, 'volume1-1')).status?.phase, 'Available');
  const before = client.actions.length;
  const claim = await client.create(resources.persistentvolumeclaims, pvc('claim1-1', '1Gi'));
  await ctx.settle();
  assert.deepEqual(
    client.actions.slice(before + 1).map((a) => `${a.verb} ${a.resource}${a.subresource !== undefined ? '/' + a.subresource : ''}`),
    ['update persistentvolumes', 'update persistentvolumes/status', 'update persistentvolumeclaims', 'update persistentvolumeclaims/status'],
  );
  const v = await getPV(client, 'volume1-1');
  assert.deepEqual(v.spec?.claimRef, { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'claim1-1', uid: claim.metadata?.uid, apiVersion: 'v1', resourceVersion: claim.metadata?.resourceVersion });
  assert.deepEqual(v.metadata?.annotations, { 'pv.kubernetes.io/bound-by-controller': 'yes' });
  assert.equal(v.status?.phase, 'Bound');
  const c = await getPVC(client, 'claim1-1');
  assert.equal(c.spec?.volumeName, 'volume1-1');
  assert.deepEqual(c.metadata?.annotations, { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
  assert.deepEqual(c.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
  assert.deepEqual(ctx.events, []);
});

void test('1-2 - noop: no matching volume, claim stays Pending with FailedBinding', async (t) => {
  const { client, ctx } = await cluster(t, { pvs: [pv('volume1-2', '1Gi')], pvcs: [pvc('claim1-2', '10Gi')] });
  assert.equal((await getPVC(client, 'claim1-2')).status?.phase, 'Pending');
  assert.equal((await getPV(client, 'volume1-2')).status?.phase, 'Available');
  assert.deepEqual(events(ctx), [`PersistentVolumeClaim default/claim1-2 Normal FailedBinding ${messages.noVolumesNoClass} (persistentvolume-controller)`]);
});

void test('the smallest volume that fits wins; volumes with fewer access modes are tried first', async (t) => {
  const { client } = await cluster(t, {
    pvs: [pv('small', '1Gi'), pv('big', '10Gi'), pv('fit', '5Gi'), pv('rwx', '4Gi', { modes: ['ReadWriteOnce', 'ReadWriteMany'] })],
    pvcs: [pvc('claim', '3Gi')],
  });
  assert.equal((await getPVC(client, 'claim')).spec?.volumeName, 'fit');
  assert.equal((await getPV(client, 'rwx')).status?.phase, 'Available');
});

void test('class, beta class annotation and label selector must match', async (t) => {
  const { client } = await cluster(t, {
    pvs: [pv('gold', '1Gi', { cls: 'gold' }), pv('plain', '1Gi'), pv('labelled', '2Gi', { labels: { tier: 'db' } })],
    pvcs: [
      pvc('by-annotation', '1Gi', { cls: 'other', annotations: { 'volume.beta.kubernetes.io/storage-class': 'gold' } }),
      pvc('by-selector', '1Gi', { selector: { tier: 'db' } }),
    ],
  });
  assert.equal((await getPVC(client, 'by-annotation')).spec?.volumeName, 'gold');
  assert.equal((await getPVC(client, 'by-selector')).spec?.volumeName, 'labelled');
  assert.equal((await getPV(client, 'plain')).status?.phase, 'Available');
});

void test('2-x - claim pre-bound by spec.volumeName: the volume gets bound-by-controller, the claim only bind-completed', async (t) => {
  const { client } = await cluster(t, { pvs: [pv('wanted', '5Gi'), pv('other', '1Gi')], pvcs: [pvc('claim', '1Gi', { volumeName: 'wanted' })] });
  const v = await getPV(client, 'wanted');
  assert.equal(v.status?.phase, 'Bound');
  assert.deepEqual(v.metadata?.annotations, { 'pv.kubernetes.io/bound-by-controller': 'yes' });
  const c = await getPVC(client, 'claim');
  assert.deepEqual(c.metadata?.annotations, { 'pv.kubernetes.io/bind-completed': 'yes' });
  assert.deepEqual(c.status?.capacity, { storage: '5Gi' });
});

void test('volume pre-bound by claimRef: only that claim gets it, and the volume is not marked bound-by-controller', async (t) => {
  const { client } = await cluster(t, {
    pvs: [pv('reserved', '1Gi', { claimRef: { namespace: 'default', name: 'owner' } })],
    pvcs: [pvc('intruder', '1Gi'), pvc('owner', '1Gi')],
  });
  assert.equal((await getPVC(client, 'intruder')).spec?.volumeName, undefined);
  const v = await getPV(client, 'reserved');
  assert.equal(v.spec?.claimRef?.name, 'owner');
  assert.equal(v.metadata?.annotations, undefined);
  assert.deepEqual((await getPVC(client, 'owner')).metadata?.annotations, { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
});

void test('requested volume too small: VolumeMismatch warning, claim Pending', async (t) => {
  const { client, ctx } = await cluster(t, { pvs: [pv('tiny', '1Gi')], pvcs: [pvc('claim', '2Gi', { volumeName: 'tiny' })] });
  assert.equal((await getPVC(client, 'claim')).status?.phase, 'Pending');
  assert.deepEqual(events(ctx), ['PersistentVolumeClaim default/claim Warning VolumeMismatch Cannot bind to requested volume "tiny": requested PV is too small (persistentvolume-controller)']);
});

void test('classes: WaitForFirstConsumer waits (naming unscheduled pods), an external provisioner is asked, a missing class fails', async (t) => {
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'user', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'used' } }] } };
  const { client, ctx } = await cluster(t, {
    classes: [sc('local', 'kubernetes.io/no-provisioner', 'WaitForFirstConsumer'), sc('ext', 'example.com/csi', 'Immediate')],
    pvs: [pv('lv', '1Gi', { cls: 'local' })],
    pods: [pod],
    pvcs: [pvc('wffc', '1Gi', { cls: 'local' }), pvc('used', '1Gi', { cls: 'local' }), pvc('external', '1Gi', { cls: 'ext' }), pvc('missing', '1Gi', { cls: 'nope' })],
  });
  assert.equal((await getPV(client, 'lv')).status?.phase, 'Available');
  const ext = await getPVC(client, 'external');
  assert.equal(ext.metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'], 'example.com/csi');
  assert.equal(ext.metadata?.annotations?.['volume.beta.kubernetes.io/storage-provisioner'], 'example.com/csi');
  // The annotation write brings the claim back through a sync, which reports again, as upstream (x2).
  assert.deepEqual(events(ctx).sort(), [
    `PersistentVolumeClaim default/external Normal ExternalProvisioning ${messages.externalProvisioning('example.com/csi')} (persistentvolume-controller)`,
    `PersistentVolumeClaim default/external Normal ExternalProvisioning ${messages.externalProvisioning('example.com/csi')} (persistentvolume-controller)`,
    'PersistentVolumeClaim default/missing Warning ProvisioningFailed storageclass.storage.k8s.io "nope" not found (persistentvolume-controller)',
    'PersistentVolumeClaim default/used Normal WaitForPodScheduled waiting for pod user to be scheduled (persistentvolume-controller)',
    `PersistentVolumeClaim default/wffc Normal WaitForFirstConsumer ${messages.waitForFirstConsumer} (persistentvolume-controller)`,
  ]);
});

void test('a claim without a class gets the default class (newest default wins)', async (t) => {
  const { client } = await cluster(t, { classes: [sc('standard', 'example.com/p', 'WaitForFirstConsumer', true)], pvcs: [pvc('claim', '1Gi')] });
  assert.equal((await getPVC(client, 'claim')).spec?.storageClassName, 'standard');
});

void test('claim deleted: Retain releases the volume; Delete of a hostPath outside /tmp fails; under /tmp deletes it', async (t) => {
  const { client, ctx } = await cluster(t, {
    pvs: [pv('keep', '1Gi'), pv('doomed', '2Gi', { policy: 'Delete' }), pv('scratch', '3Gi', { policy: 'Delete', hostPath: '/tmp/scratch' })],
    pvcs: [pvc('a', '1Gi'), pvc('b', '2Gi'), pvc('c', '3Gi')],
  });
  assert.deepEqual(
    await Promise.all(['keep', 'doomed', 'scratch'].map(async (n) => (await getPV(client, n)).status?.phase)),
    ['Bound', 'Bound', 'Bound'],
  );
  for (const n of ['a', 'b', 'c']) await client.delete(resources.persistentvolumeclaims, n, { namespace: 'default' });
  await ctx.settle();
  const keep = await getPV(client, 'keep');
  assert.equal(keep.status?.phase, 'Released');
  assert.equal(keep.spec?.claimRef?.name, 'a');
  const doomed = await getPV(client, 'doomed');
  assert.deepEqual(doomed.status, { phase: 'Failed', message: 'host_path deleter only supports /tmp/.+ but received provided /data/doomed' });
  await assert.rejects(getPV(client, 'scratch'));
  assert.deepEqual(events(ctx), ['PersistentVolume doomed Warning VolumeFailedDelete host_path deleter only supports /tmp/.+ but received provided /data/doomed (persistentvolume-controller)']);
});

void test('3-x - volume deleted under a bound claim: the claim is Lost, its capacity and access modes cleared', async (t) => {
  const { client, ctx } = await cluster(t, { pvs: [pv('v', '1Gi')], pvcs: [pvc('claim', '1Gi')] });
  assert.equal((await getPVC(client, 'claim')).status?.phase, 'Bound');
  await client.delete(resources.persistentvolumes, 'v');
  await ctx.settle();
  assert.deepEqual((await getPVC(client, 'claim')).status, { phase: 'Lost' });
  assert.deepEqual(events(ctx), [`PersistentVolumeClaim default/claim Warning ClaimLost ${messages.claimLostVolume} (persistentvolume-controller)`]);
});

void test('deleteByInTreePlugin: which volumes kube-controller-manager can delete', () => {
  const cases: { name: string; volume: PersistentVolume; want: ReturnType<typeof deleteByInTreePlugin> }[] = [
    { name: 'hostPath under /tmp', volume: pv('a', '1Gi', { hostPath: '/tmp/x' }), want: 'deleted' },
    { name: 'hostPath elsewhere', volume: pv('b', '1Gi', { hostPath: '/mnt/x' }), want: { error: 'host_path deleter only supports /tmp/.+ but received provided /mnt/x' } },
    { name: 'local volume', volume: { metadata: { name: 'l' }, spec: { local: { path: '/mnt' } } }, want: { error: 'error getting deleter volume plugin for volume "l": no deletable volume plugin matched' } },
    { name: 'csi volume', volume: { metadata: { name: 'c' }, spec: { csi: { driver: 'd', volumeHandle: 'h' } } }, want: 'external' },
    { name: 'provisioned by an external provisioner', volume: { metadata: { name: 'e', annotations: { 'pv.kubernetes.io/provisioned-by': 'rancher.io/local-path' } }, spec: { hostPath: { path: '/opt' } } }, want: 'external' },
  ];
  for (const tc of cases) assert.deepEqual(deleteByInTreePlugin(tc.volume), tc.want, tc.name);
});

void test('a user unbinding a controller-bound volume: the next resync of the claim binds it again', async (t) => {
  const { client, ctx } = await cluster(t, { pvs: [pv('v', '1Gi')], pvcs: [pvc('claim', '1Gi')] });
  const v = structuredClone(await getPV(client, 'v'));
  delete (v.spec as Mutable<NonNullable<PersistentVolume['spec']>>).claimRef;
  await client.update(resources.persistentvolumes, v);
  await ctx.settle();
  assert.equal((await getPV(client, 'v')).status?.phase, 'Available');
  ctx.clock.step(15_000);
  await ctx.settle();
  assert.equal((await getPV(client, 'v')).spec?.claimRef?.name, 'claim');
});

// [Unit test set 15] of pv_controller_test.go (TestRetroactiveStorageClassAssignment), v1.32: a claim
// without any class gets the default class at its next sync, whatever was default when it was created.
// All classes are created in the same second, so the default is picked by name when several are marked.
const retroactiveCases: { name: string; classes: StorageClass[]; claim: PersistentVolumeClaim; wantClass: string | undefined; wantPhase: string }[] = [
  { name: '15-1 - pvc storage class is not assigned retroactively if there are no default storage classes', classes: [], claim: pvc('claim15-1', '1Gi'), wantClass: undefined, wantPhase: 'Pending' },
  {
    name: '15-3 - pvc storage class is not assigned retroactively if claim is already bound',
    classes: [sc('gold', 'kubernetes.io/mock', 'Immediate', true), sc('silver', 'kubernetes.io/mock', 'Immediate')],
    claim: { ...pvc('claim15-3', '1Gi', { cls: 'copper', volumeName: 'test', annotations: { 'pv.kubernetes.io/bound-by-controller': 'yes', 'pv.kubernetes.io/bind-completed': 'yes' } }), status: { phase: 'Bound' } },
    wantClass: 'copper',
    wantPhase: 'Lost',
  },
  {
    name: '15-4 - pvc storage class is not assigned retroactively if claim is already bound but annotations are missing',
    classes: [sc('gold', 'kubernetes.io/mock', 'Immediate', true), sc('silver', 'kubernetes.io/mock', 'Immediate')],
    claim: { ...pvc('claim15-4', '1Gi', { cls: 'copper', volumeName: 'test' }), status: { phase: 'Bound' } },
    wantClass: 'copper',
    wantPhase: 'Pending',
  },
  {
    name: '15-5 - pvc storage class is assigned retroactively if there is a default',
    classes: [sc('gold', 'kubernetes.io/mock', 'Immediate', true), sc('silver', 'kubernetes.io/mock', 'Immediate')],
    claim: pvc('claim15-5', '1Gi'),
    wantClass: 'gold',
    wantPhase: 'Pending',
  },
  {
    name: '15-2 - pvc storage class is assigned retroactively if there are multiple default storage classes',
    classes: [sc('gold', 'kubernetes.io/mock', 'Immediate', true), sc('silver', 'kubernetes.io/mock', 'Immediate', true)],
    claim: pvc('claim15-2', '1Gi'),
    wantClass: 'gold',
    wantPhase: 'Pending',
  },
  {
    name: '15-6 - pvc storage class is not changed if claim is not bound but already has a storage class',
    classes: [sc('gold', 'kubernetes.io/mock', 'Immediate', true), sc('copper', 'kubernetes.io/mock', 'Immediate')],
    claim: pvc('claim15-6', '1Gi', { cls: 'copper' }),
    wantClass: 'copper',
    wantPhase: 'Pending',
  },
  {
    name: '15-7 - pvc storage class is not changed if claim is not bound but already set annotation "volume.beta.kubernetes.io/storage-class"',
    classes: [sc('gold', 'kubernetes.io/mock', 'Immediate', true), sc('copper', 'kubernetes.io/mock', 'Immediate')],
    claim: pvc('claim15-7', '1Gi', { annotations: { 'volume.beta.kubernetes.io/storage-class': 'copper' } }),
    wantClass: undefined,
    wantPhase: 'Pending',
  },
];

for (const tc of retroactiveCases) {
  void test(`TestRetroactiveStorageClassAssignment/${tc.name}`, async (t) => {
    const client = new FakeClient({ now: () => Date.parse('2025-01-01T00:00:00Z') });
    for (const c of tc.classes) await client.create(resources.storageclasses, c);
    const ctx = await startController(t, client, (c) => create(c));
    await ctx.settle();
    await client.create(resources.persistentvolumeclaims, tc.claim);
    await ctx.settle();
    const got = await getPVC(client, tc.claim.metadata?.name ?? '');
    assert.equal(got.spec?.storageClassName, tc.wantClass);
    assert.equal(got.status?.phase, tc.wantPhase);
  });
}

void test('a default class created after the claim is assigned at the next resync, the newest default winning', async (t) => {
  let now = Date.parse('2025-01-01T00:00:00Z');
  const client = new FakeClient({ now: () => now });
  const ctx = await startController(t, client, (c) => create(c));
  await client.create(resources.persistentvolumeclaims, pvc('early', '1Gi'));
  await client.create(resources.persistentvolumeclaims, pvc('no-class', '1Gi', { cls: '' }));
  await ctx.settle();
  assert.equal((await getPVC(client, 'early')).spec?.storageClassName, undefined);
  await client.create(resources.storageclasses, sc('a-older', 'example.com/p', 'WaitForFirstConsumer', true));
  now += 1000;
  await client.create(resources.storageclasses, sc('z-newer', 'example.com/p', 'WaitForFirstConsumer', true));
  await ctx.settle();
  assert.equal((await getPVC(client, 'early')).spec?.storageClassName, undefined, 'StorageClass events do not sync claims');
  ctx.clock.step(15_000);
  await ctx.settle();
  assert.equal((await getPVC(client, 'early')).spec?.storageClassName, 'z-newer');
  assert.equal((await getPVC(client, 'no-class')).spec?.storageClassName, '', 'an explicit "" asks for no class');
});
