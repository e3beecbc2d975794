import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { pluginUnderTest } from '../../_testing/framework.js';
import { makeNode, makePod } from '../../_testing/wrappers.js';
import type { ApiActions, VolumeLister } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Code, type Status } from '../../framework/status.js';
import { ErrReasonBindConflict, ErrReasonNodeConflict, ErrReasonPVNotExist, VolumeBinding, errReasonUnboundImmediatePVC, isSchedulableAfterPersistentVolumeClaimChange } from './volume-binding.js';
import { annBindCompleted, annBoundByController } from '../../../api/pv-helpers.js';

const immediateSC: StorageClass = { metadata: { name: 'immediate-sc' }, provisioner: '', volumeBindingMode: 'Immediate' };
const waitSC: StorageClass = { metadata: { name: 'wait-sc' }, provisioner: '', volumeBindingMode: 'WaitForFirstConsumer' };
const waitHDDSC: StorageClass = { metadata: { name: 'wait-hdd-sc' }, provisioner: '', volumeBindingMode: 'WaitForFirstConsumer' };

/** upstream test_utils.go's `makePVC(name, class)`. */
class PVCWrapper {
  readonly obj: PersistentVolumeClaim;
  constructor(name: string, className: string) {
    this.obj = { metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1' }, spec: { storageClassName: className }, status: {} };
  }
  withBoundPV(pv: string): this {
    this.obj.spec = { ...this.obj.spec, volumeName: pv };
    this.obj.metadata = { ...this.obj.metadata, annotations: { [annBindCompleted]: 'yes' } };
    return this;
  }
  withRequestStorage(q: string): this {
    this.obj.spec = { ...this.obj.spec, resources: { requests: { storage: q } } };
    return this;
  }
  withPhase(phase: string): this {
    (this.obj as { status: { phase?: string } }).status.phase = phase;
    return this;
  }
  deleting(): this {
    this.obj.metadata = { ...this.obj.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' };
    return this;
  }
}
const makePVC = (name: string, className: string): PVCWrapper => new PVCWrapper(name, className);

/** upstream test_utils.go's `makePV(name, class)`. */
class PVWrapper {
  readonly obj: PersistentVolume;
  constructor(name: string, className: string) {
    this.obj = { metadata: { name, resourceVersion: '1' }, spec: { storageClassName: className }, status: {} };
  }
  withPhase(phase: string): this {
    (this.obj as { status: { phase?: string } }).status.phase = phase;
    return this;
  }
  withCapacity(q: string): this {
    this.obj.spec = { ...this.obj.spec, capacity: { storage: q } };
    return this;
  }
  withNodeAffinity(keyValues: Record<string, string[]>): this {
    const matchExpressions = Object.entries(keyValues).map(([key, values]) => ({ key, operator: 'In', values }));
    this.obj.spec = { ...this.obj.spec, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions }] } } };
    return this;
  }
}
const makePV = (name: string, className: string): PVWrapper => new PVWrapper(name, className);

function withPVCVolume(pod: Pod, claimName: string, volName = claimName): Pod {
  pod.spec = { containers: [], ...pod.spec, volumes: [...(pod.spec?.volumes ?? []), { name: volName, persistentVolumeClaim: { claimName } }] };
  return pod;
}

function lister(pvcs: PersistentVolumeClaim[], pvs: PersistentVolume[], scs: StorageClass[] = [immediateSC, waitSC, waitHDDSC]): VolumeLister & { pvcs: Map<string, PersistentVolumeClaim>; pvs: Map<string, PersistentVolume> } {
  const pvcMap = new Map(pvcs.map((c) => [`${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`, c]));
  const pvMap = new Map(pvs.map((v) => [v.metadata?.name ?? '', v]));
  return {
    pvcs: pvcMap,
    pvs: pvMap,
    persistentVolumeClaim: (ns, name) => pvcMap.get(`${ns}/${name}`),
    persistentVolume: (name) => pvMap.get(name),
    persistentVolumes: () => [...pvMap.values()],
    storageClass: (name) => scs.find((s) => s.metadata?.name === name),
    podExists: () => true,
  };
}

const reasonsOf = (s: Status): { code: Code; reasons: readonly string[] } => ({ code: s.code, reasons: s.reasons() });

interface Case {
  name: string;
  pod: Pod;
  nodes: Node[];
  pvcs?: PersistentVolumeClaim[];
  pvs?: PersistentVolume[];
  wantPreFilterStatus?: { code: Code; reasons: readonly string[] };
  wantPreFilterNodeNames?: string[];
  /** One per node; undefined means success. */
  wantFilterStatus: ({ code: Code; reasons: readonly string[] } | undefined)[];
}

const cases: Case[] = [
  { name: 'pod has not pvcs', pod: makePod('pod-a').obj(), nodes: [makeNode('node-a').obj()], wantPreFilterStatus: { code: Code.Skip, reasons: [] }, wantFilterStatus: [undefined] },
  {
    name: 'all bound',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj()],
    pvcs: [makePVC('pvc-a', 'wait-sc').withBoundPV('pv-a').obj],
    pvs: [makePV('pv-a', 'wait-sc').withPhase('Available').obj],
    wantFilterStatus: [undefined],
  },
  {
    name: 'all bound with local volumes',
    pod: withPVCVolume(withPVCVolume(makePod('pod-a').obj(), 'pvc-a', 'volume-a'), 'pvc-b', 'volume-b'),
    nodes: [makeNode('node-a').obj()],
    pvcs: [makePVC('pvc-a', 'wait-sc').withBoundPV('pv-a').obj, makePVC('pvc-b', 'wait-sc').withBoundPV('pv-b').obj],
    pvs: [
      makePV('pv-a', 'wait-sc').withPhase('Bound').withNodeAffinity({ 'kubernetes.io/hostname': ['node-a'] }).obj,
      makePV('pv-b', 'wait-sc').withPhase('Bound').withNodeAffinity({ 'kubernetes.io/hostname': ['node-a'] }).obj,
    ],
    wantPreFilterNodeNames: ['node-a'],
    wantFilterStatus: [undefined],
  },
  {
    name: 'PVC does not exist',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj()],
    wantPreFilterStatus: { code: Code.UnschedulableAndUnresolvable, reasons: ['persistentvolumeclaim "pvc-a" not found'] },
    wantFilterStatus: [],
  },
  {
    name: 'Part of PVCs do not exist',
    pod: withPVCVolume(withPVCVolume(makePod('pod-a').obj(), 'pvc-a'), 'pvc-b'),
    nodes: [makeNode('node-a').obj()],
    pvcs: [makePVC('pvc-a', 'wait-sc').withBoundPV('pv-a').obj],
    wantPreFilterStatus: { code: Code.UnschedulableAndUnresolvable, reasons: ['persistentvolumeclaim "pvc-b" not found'] },
    wantFilterStatus: [],
  },
  {
    name: 'PVC is being deleted',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj()],
    pvcs: [makePVC('pvc-a', 'wait-sc').withBoundPV('pv-a').deleting().obj],
    wantPreFilterStatus: { code: Code.UnschedulableAndUnresolvable, reasons: ['persistentvolumeclaim "pvc-a" is being deleted'] },
    wantFilterStatus: [],
  },
  {
    name: 'immediate claims not bound',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj()],
    pvcs: [makePVC('pvc-a', 'immediate-sc').obj],
    wantPreFilterStatus: { code: Code.UnschedulableAndUnresolvable, reasons: [errReasonUnboundImmediatePVC] },
    wantFilterStatus: [],
  },
  {
    name: 'immediate claim without a class not bound',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj()],
    pvcs: [makePVC('pvc-a', '').obj],
    wantPreFilterStatus: { code: Code.UnschedulableAndUnresolvable, reasons: ['pod has unbound immediate PersistentVolumeClaims'] },
    wantFilterStatus: [],
  },
  {
    name: 'unbound claims no matches',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj()],
    pvcs: [makePVC('pvc-a', 'wait-sc').obj],
    wantFilterStatus: [{ code: Code.UnschedulableAndUnresolvable, reasons: [ErrReasonBindConflict] }],
  },
  {
    name: 'bound and unbound unsatisfied',
    pod: withPVCVolume(withPVCVolume(makePod('pod-a').obj(), 'pvc-a'), 'pvc-b'),
    nodes: [makeNode('node-a').label('foo', 'barbar').obj()],
    pvcs: [makePVC('pvc-a', 'wait-sc').withBoundPV('pv-a').obj, makePVC('pvc-b', 'wait-sc').obj],
    pvs: [makePV('pv-a', 'wait-sc').withPhase('Available').withNodeAffinity({ foo: ['bar'] }).obj],
    wantFilterStatus: [{ code: Code.UnschedulableAndUnresolvable, reasons: [ErrReasonNodeConflict, ErrReasonBindConflict] }],
  },
  {
    name: 'pvc not found',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj()],
    wantPreFilterStatus: { code: Code.UnschedulableAndUnresolvable, reasons: ['persistentvolumeclaim "pvc-a" not found'] },
    wantFilterStatus: [],
  },
  {
    name: 'pv not found',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj()],
    pvcs: [makePVC('pvc-a', 'wait-sc').withBoundPV('pv-a').obj],
    wantFilterStatus: [{ code: Code.UnschedulableAndUnresolvable, reasons: [ErrReasonPVNotExist] }],
  },
  {
    name: 'pv not found claim lost',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj()],
    pvcs: [makePVC('pvc-a', 'wait-sc').withBoundPV('pv-a').withPhase('Lost').obj],
    wantPreFilterStatus: { code: Code.UnschedulableAndUnresolvable, reasons: ['persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'] },
    wantFilterStatus: [],
  },
  {
    name: 'local volumes with close capacity are preferred',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj(), makeNode('node-b').obj(), makeNode('node-c').obj()],
    pvcs: [makePVC('pvc-a', 'wait-sc').withRequestStorage('50Gi').obj],
    pvs: [
      makePV('pv-a-0', 'wait-sc').withPhase('Available').withCapacity('200Gi').withNodeAffinity({ 'kubernetes.io/hostname': ['node-a'] }).obj,
      makePV('pv-a-1', 'wait-sc').withPhase('Available').withCapacity('200Gi').withNodeAffinity({ 'kubernetes.io/hostname': ['node-a'] }).obj,
      makePV('pv-b-0', 'wait-sc').withPhase('Available').withCapacity('100Gi').withNodeAffinity({ 'kubernetes.io/hostname': ['node-b'] }).obj,
      makePV('pv-b-1', 'wait-sc').withPhase('Available').withCapacity('100Gi').withNodeAffinity({ 'kubernetes.io/hostname': ['node-b'] }).obj,
    ],
    wantFilterStatus: [undefined, undefined, { code: Code.UnschedulableAndUnresolvable, reasons: ["node(s) didn't find available persistent volumes to bind"] }],
  },
  {
    name: 'a volume too small, of another class or not Available does not match',
    pod: withPVCVolume(makePod('pod-a').obj(), 'pvc-a'),
    nodes: [makeNode('node-a').obj()],
    pvcs: [makePVC('pvc-a', 'wait-sc').withRequestStorage('50Gi').obj],
    pvs: [
      makePV('pv-small', 'wait-sc').withPhase('Available').withCapacity('10Gi').obj,
      makePV('pv-hdd', 'wait-hdd-sc').withPhase('Available').withCapacity('100Gi').obj,
      makePV('pv-released', 'wait-sc').withPhase('Released').withCapacity('100Gi').obj,
    ],
    wantFilterStatus: [{ code: Code.UnschedulableAndUnresolvable, reasons: [ErrReasonBindConflict] }],
  },
];

for (const tc of cases) {
  void test(tc.name, () => {
    const vl = lister(tc.pvcs ?? [], tc.pvs ?? []);
    const { plugin, state, snapshot } = pluginUnderTest<VolumeBinding>(names.VolumeBinding, { nodes: tc.nodes, volumeLister: vl });
    const { result, status } = plugin.preFilter(state, tc.pod);
    assert.deepEqual(reasonsOf(status), tc.wantPreFilterStatus ?? { code: Code.Success, reasons: [] });
    assert.deepEqual(result?.nodeNames !== undefined ? [...result.nodeNames].sort() : undefined, tc.wantPreFilterNodeNames);
    if (!status.isSuccess()) return;
    tc.nodes.forEach((n, i) => {
      const ni = snapshot.get(n.metadata?.name ?? '');
      assert.ok(ni !== undefined);
      const s = plugin.filter(state, tc.pod, ni);
      assert.deepEqual(reasonsOf(s), tc.wantFilterStatus[i] ?? { code: Code.Success, reasons: [] }, n.metadata?.name);
    });
  });
}

void test('an unbound WaitForFirstConsumer claim gets the smallest fitting volume: Reserve assumes it, PreBind pre-binds it and waits for the PV controller', async () => {
  const pod = withPVCVolume(makePod('pod-a').obj(), 'pvc-a');
  const pvc = makePVC('pvc-a', 'wait-sc').withRequestStorage('50Gi').obj;
  const vl = lister([pvc], [
    makePV('pv-big', 'wait-sc').withPhase('Available').withCapacity('200Gi').obj,
    makePV('pv-fit', 'wait-sc').withPhase('Available').withCapacity('100Gi').obj,
  ]);
  const updated: PersistentVolume[] = [];
  const api = {
    updatePersistentVolume: async (pv: PersistentVolume) => {
      const stored = { ...pv, metadata: { ...pv.metadata, resourceVersion: '2' } };
      updated.push(stored);
      vl.pvs.set(pv.metadata?.name ?? '', stored);
      return stored;
    },
  } as unknown as ApiActions;
  const { plugin, state, snapshot } = pluginUnderTest<VolumeBinding>(names.VolumeBinding, { nodes: [makeNode('node-a').obj()], volumeLister: vl, apiActions: api });
  assert.equal(plugin.preFilter(state, pod).status.code, Code.Success);
  const ni = snapshot.get('node-a');
  assert.ok(ni !== undefined);
  assert.ok(plugin.filter(state, pod, ni).isSuccess());
  assert.ok(plugin.reserve(state, pod, 'node-a').isSuccess());
  // The assumed volume is no longer Available to a second pod's claim of the same class.
  const pod2 = withPVCVolume(makePod('pod-b').obj(), 'pvc-b');
  vl.pvcs.set('default/pvc-b', makePVC('pvc-b', 'wait-sc').withRequestStorage('150Gi').obj);
  const { state: state2 } = pluginUnderTest<VolumeBinding>(names.VolumeBinding);
  assert.equal(plugin.preFilter(state2, pod2).status.code, Code.Success);
  assert.ok(plugin.filter(state2, pod2, ni).isSuccess(), 'pv-big is still free for pvc-b');
  // PreBind: the PV controller completes the claim's binding on the second check.
  let checks = 0;
  const sleeping = new VolumeBinding(plugin['handle'], {
    sleep: async () => {
      if (++checks === 2) vl.pvcs.set('default/pvc-a', { ...pvc, spec: { ...pvc.spec, volumeName: 'pv-fit' }, metadata: { ...pvc.metadata, annotations: { [annBindCompleted]: 'yes' } } });
    },
  });
  // Reuse the cycle's state with a plugin whose sleep is instant.
  const s = await sleeping.preBind(state, pod, 'node-a');
  assert.ok(s.isSuccess(), s.message());
  assert.equal(checks, 2);
  assert.equal(updated.length, 1);
  assert.equal(updated[0]?.metadata?.name, 'pv-fit');
  assert.deepEqual(updated[0]?.spec?.claimRef, { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'pvc-a', uid: 'uid-pvc-a', apiVersion: 'v1', resourceVersion: '1' });
  assert.equal(updated[0]?.metadata?.annotations?.[annBoundByController], 'yes');
});

void test('PreBind gives up after bindTimeoutSeconds with upstream\'s error', async () => {
  const pod = withPVCVolume(makePod('pod-a').obj(), 'pvc-a');
  const vl = lister([makePVC('pvc-a', 'wait-sc').obj], [makePV('pv-a', 'wait-sc').withPhase('Available').obj]);
  const api = {
    updatePersistentVolume: async (pv: PersistentVolume) => {
      vl.pvs.set(pv.metadata?.name ?? '', pv);
      return pv;
    },
  } as unknown as ApiActions;
  const { plugin, state, snapshot } = pluginUnderTest<VolumeBinding>(names.VolumeBinding, { nodes: [makeNode('node-a').obj()], volumeLister: vl, apiActions: api });
  const fast = new VolumeBinding(plugin['handle'], { args: { bindTimeoutSeconds: 3 }, sleep: async () => undefined });
  assert.ok(fast.preFilter(state, pod).status.isSuccess());
  const ni = snapshot.get('node-a');
  assert.ok(ni !== undefined);
  assert.ok(fast.filter(state, pod, ni).isSuccess());
  assert.ok(fast.reserve(state, pod, 'node-a').isSuccess());
  const s = await fast.preBind(state, pod, 'node-a');
  assert.equal(s.code, Code.Error);
  assert.equal(s.message(), 'binding volumes: context deadline exceeded');
});

void test('a PVC event queues the pod only for its own claims', () => {
  const pod = withPVCVolume(makePod('pod-a').obj(), 'pvc-a');
  assert.equal(isSchedulableAfterPersistentVolumeClaimChange(pod, makePVC('pvc-a', 'wait-sc').obj), 'Queue');
  assert.equal(isSchedulableAfterPersistentVolumeClaimChange(pod, makePVC('pvc-b', 'wait-sc').obj), 'QueueSkip');
});
