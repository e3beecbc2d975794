import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { apiErrors } from '../../api/errors.js';
import { resources, type ResourceType } from '../../api/resources.js';
import type { KubeList, KubeObject, ListOptions, WriteOptions } from '../../client/client.js';
import { NamespaceIndex, objectKey, type ControllerContext, type Informer, type InformerHandlers } from '../_context.js';
import { FakeClient } from '../_testing/fake-client.js';
import { FakeClock, TestContext, TestQueue, TestRecorder, startController } from '../_testing/fakes.js';
import { create, podUsesPVC } from './pvc-protection.js';

// pkg/controller/volume/pvcprotection/pvc_protection_controller_test.go (TestPVCProtectionController), v1.32.

const defaultNS = 'default';
const defaultPVCName = 'pvc1';
const defaultPodName = 'pod1';
const defaultNodeName = 'node1';
const defaultUID = 'uid1';
const finalizer = 'kubernetes.io/pvc-protection';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function pod(): Pod {
  return { metadata: { name: defaultPodName, namespace: defaultNS, uid: defaultUID }, spec: { nodeName: defaultNodeName, containers: [] }, status: { phase: 'Pending' } };
}
function unscheduled(p: Pod): Pod {
  delete (p.spec ?? {}).nodeName;
  return p;
}
function withPVC(pvcName: string, p: Pod): Pod {
  (p.spec ??= { containers: [] }).volumes = [...(p.spec.volumes ?? []), { name: pvcName, persistentVolumeClaim: { claimName: pvcName } }];
  return p;
}
function withEmptyDir(p: Pod): Pod {
  (p.spec ??= { containers: [] }).volumes = [...(p.spec.volumes ?? []), { name: 'emptyDir', emptyDir: {} }];
  return p;
}
function withEphemeral(volumeName: string, p: Pod): Pod {
  (p.spec ??= { containers: [] }).volumes = [...(p.spec.volumes ?? []), { name: volumeName, ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } }];
  return p;
}
function withStatus(phase: string, p: Pod): Pod {
  (p.status as Mutable<NonNullable<Pod['status']>>).phase = phase;
  return p;
}
function withUID(uid: string, p: Pod): Pod {
  return { ...p, metadata: { ...p.metadata, uid } };
}
function shutDown(p: Pod): Pod {
  return { ...p, metadata: { ...p.metadata, deletionTimestamp: '2025-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 } };
}
function pvc(name = defaultPVCName): PersistentVolumeClaim {
  return { metadata: { name, namespace: defaultNS } };
}
function withProtectionFinalizer(c: PersistentVolumeClaim): PersistentVolumeClaim {
  const md = (c.metadata ??= {});
  md.finalizers = [...(md.finalizers ?? []), finalizer];
  return c;
}
function deleted(c: PersistentVolumeClaim): PersistentVolumeClaim {
  return { ...c, metadata: { ...c.metadata, deletionTimestamp: '2025-01-01T00:00:00Z' } };
}
function ownedBy(p: Pod, c: PersistentVolumeClaim): PersistentVolumeClaim {
  (c.metadata ??= {}).ownerReferences = [{ apiVersion: 'v1', kind: 'Pod', name: p.metadata?.name ?? '', uid: p.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }];
  return c;
}

/** What the controller asks of the API server, as upstream's fake clientset records it. */
const listAction = `list pods ${defaultNS}`;
const updateAction = (c: PersistentVolumeClaim): string => `update persistentvolumeclaims ${defaultNS}/${c.metadata?.name ?? ''} finalizers=${JSON.stringify(c.metadata?.finalizers ?? [])} deleting=${c.metadata?.deletionTimestamp !== undefined}`;

/** A FakeClient recording lists and updates; `updateFailures` makes the first updates fail with Forbidden. */
class RecordingClient extends FakeClient {
  readonly calls: string[] = [];
  updateFailures = 0;
  override async list<T extends KubeObject>(res: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    this.calls.push(`list ${res.resource} ${opts.namespace ?? ''}`);
    return super.list<T>(res, opts);
  }
  override async update<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    this.calls.push(updateAction(obj as PersistentVolumeClaim));
    if (this.updateFailures > 0) {
      this.updateFailures--;
      throw apiErrors.forbidden({ group: '', resource: res.resource }, obj.metadata?.name ?? '', 'Mock error');
    }
    return super.update(res, obj, opts);
  }
}

/** An informer whose cache the test fills (upstream's `Informer().GetStore().Add`), synced from the start. */
class StaticInformer<T extends KubeObject> implements Informer<T> {
  readonly handlers: InformerHandlers<T>[] = [];
  readonly objs = new Map<string, T>();
  addHandlers(h: InformerHandlers<T>): void {
    this.handlers.push(h);
  }
  start(): void {}
  stop(): void {}
  hasSynced(): boolean {
    return true;
  }
  async waitForSync(): Promise<void> {}
  list(): T[] {
    return [...this.objs.values()];
  }
  get(key: string): T | undefined {
    return this.objs.get(key);
  }
  byIndex(indexName: string, value: string): T[] {
    if (indexName !== NamespaceIndex) throw new Error(`no index ${indexName}`);
    return this.list().filter((o) => o.metadata?.namespace === value);
  }
}

interface Case {
  name: string;
  initialObjects?: (Pod | PersistentVolumeClaim)[];
  informersAreLate?: boolean;
  updateFailures?: number;
  updatedPVC?: PersistentVolumeClaim;
  updatedPod?: Pod;
  deletedPod?: Pod;
  expectedActions: string[];
}

const cases: Case[] = [
  // PVC events
  { name: 'PVC without finalizer -> finalizer is added', updatedPVC: pvc(), expectedActions: [updateAction(withProtectionFinalizer(pvc()))] },
  { name: 'PVC with finalizer -> no action', updatedPVC: withProtectionFinalizer(pvc()), expectedActions: [] },
  {
    name: 'saving PVC finalizer fails -> controller retries',
    updatedPVC: pvc(),
    updateFailures: 2,
    expectedActions: [updateAction(withProtectionFinalizer(pvc())), updateAction(withProtectionFinalizer(pvc())), updateAction(withProtectionFinalizer(pvc()))],
  },
  { name: 'deleted PVC with finalizer -> finalizer is removed', updatedPVC: deleted(withProtectionFinalizer(pvc())), expectedActions: [listAction, updateAction(deleted(pvc()))] },
  {
    name: 'finalizer removal fails -> controller retries',
    updatedPVC: deleted(withProtectionFinalizer(pvc())),
    updateFailures: 2,
    expectedActions: [listAction, updateAction(deleted(pvc())), listAction, updateAction(deleted(pvc())), listAction, updateAction(deleted(pvc()))],
  },
  {
    name: 'deleted PVC with finalizer + pod with the PVC exists -> finalizer is not removed',
    initialObjects: [withPVC(defaultPVCName, pod())],
    updatedPVC: deleted(withProtectionFinalizer(pvc())),
    expectedActions: [],
  },
  {
    name: 'deleted PVC with finalizer + pod with unrelated PVC and EmptyDir exists -> finalizer is removed',
    initialObjects: [withEmptyDir(withPVC('unrelatedPVC', pod()))],
    updatedPVC: deleted(withProtectionFinalizer(pvc())),
    expectedActions: [listAction, updateAction(deleted(pvc()))],
  },
  {
    name: 'deleted PVC with finalizer + pod with the PVC finished but is not deleted -> finalizer is not removed',
    initialObjects: [withStatus('Failed', withPVC(defaultPVCName, pod()))],
    updatedPVC: deleted(withProtectionFinalizer(pvc())),
    expectedActions: [],
  },
  {
    name: "deleted PVC with finalizer + pod with the PVC exists but is not in the Informer's cache yet -> finalizer is not removed",
    initialObjects: [withPVC(defaultPVCName, pod())],
    informersAreLate: true,
    updatedPVC: deleted(withProtectionFinalizer(pvc())),
    expectedActions: [listAction],
  },
  // Generic ephemeral volumes (podUsesPVC: the claim `<pod>-<volume>` controlled by the pod, unless the pod is shut down).
  {
    name: 'deleted PVC with finalizer + pod owning it as a generic ephemeral volume -> finalizer is not removed',
    initialObjects: [withEphemeral('data', pod())],
    updatedPVC: deleted(withProtectionFinalizer(ownedBy(pod(), pvc('pod1-data')))),
    expectedActions: [],
  },
  {
    name: 'deleted PVC with finalizer + ephemeral volume of a pod that does not own the PVC -> finalizer is removed',
    initialObjects: [withEphemeral('data', pod())],
    updatedPVC: deleted(withProtectionFinalizer(ownedBy(withUID('other', pod()), pvc('pod1-data')))),
    expectedActions: [listAction, updateAction(deleted(pvc('pod1-data')))],
  },
  {
    name: 'deleted PVC with finalizer + owning pod shut down -> finalizer is removed',
    initialObjects: [shutDown(withEphemeral('data', pod()))],
    updatedPVC: deleted(withProtectionFinalizer(ownedBy(pod(), pvc('pod1-data')))),
    expectedActions: [listAction, updateAction(deleted(pvc('pod1-data')))],
  },
  // Pod events
  { name: 'updated running Pod -> no action', initialObjects: [deleted(withProtectionFinalizer(pvc()))], updatedPod: withStatus('Running', withPVC(defaultPVCName, pod())), expectedActions: [] },
  { name: 'updated finished Pod -> finalizer is not removed', initialObjects: [deleted(withProtectionFinalizer(pvc()))], updatedPod: withStatus('Succeeded', withPVC(defaultPVCName, pod())), expectedActions: [] },
  {
    name: 'updated unscheduled Pod -> finalizer is removed',
    initialObjects: [deleted(withProtectionFinalizer(pvc()))],
    updatedPod: unscheduled(withPVC(defaultPVCName, pod())),
    expectedActions: [listAction, updateAction(deleted(pvc()))],
  },
  {
    name: 'deleted running Pod -> finalizer is removed',
    initialObjects: [deleted(withProtectionFinalizer(pvc()))],
    deletedPod: withStatus('Running', withPVC(defaultPVCName, pod())),
    expectedActions: [listAction, updateAction(deleted(pvc()))],
  },
  {
    name: 'pod delete and create with same namespaced name seen as an update, old pod used deleted PVC -> finalizer is removed',
    initialObjects: [deleted(withProtectionFinalizer(pvc()))],
    deletedPod: withPVC(defaultPVCName, pod()),
    updatedPod: withUID('uid2', pod()),
    expectedActions: [listAction, updateAction(deleted(pvc()))],
  },
  {
    name: 'pod delete and create with same namespaced name seen as an update, old pod used non-deleted PVC -> finalizer is not removed',
    initialObjects: [withProtectionFinalizer(pvc())],
    deletedPod: withPVC(defaultPVCName, pod()),
    updatedPod: withUID('uid2', pod()),
    expectedActions: [],
  },
  {
    name: 'pod delete and create with same namespaced name seen as an update, both pods reference deleted PVC -> finalizer is not removed',
    initialObjects: [deleted(withProtectionFinalizer(pvc()))],
    deletedPod: withPVC(defaultPVCName, pod()),
    updatedPod: withUID('uid2', withPVC(defaultPVCName, pod())),
    expectedActions: [],
  },
  {
    name: 'pod update from unscheduled to scheduled, deleted PVC is referenced -> finalizer is not removed',
    initialObjects: [deleted(withProtectionFinalizer(pvc()))],
    deletedPod: unscheduled(withPVC(defaultPVCName, pod())),
    updatedPod: withPVC(defaultPVCName, pod()),
    expectedActions: [],
  },
];

const isPod = (o: Pod | PersistentVolumeClaim): o is Pod => (o as Pod).spec !== undefined && 'containers' in ((o as Pod).spec ?? {});

for (const tc of cases) {
  test(`TestPVCProtectionController/${tc.name}`, async (t) => {
    const clientObjs: (Pod | PersistentVolumeClaim)[] = [];
    const informerObjs: (Pod | PersistentVolumeClaim)[] = [];
    for (const o of [tc.updatedPVC, tc.updatedPod]) {
      if (o === undefined) continue;
      clientObjs.push(o);
      informerObjs.push(o);
    }
    clientObjs.push(...(tc.initialObjects ?? []));
    if (tc.informersAreLate !== true) informerObjs.push(...(tc.initialObjects ?? []));

    const client = new RecordingClient();
    for (const o of clientObjs) await client.create(isPod(o) ? resources.pods : resources.persistentvolumeclaims, o);
    const pvcInformer = new StaticInformer<PersistentVolumeClaim>();
    const podInformer = new StaticInformer<Pod>();
    for (const o of informerObjs) {
      if (isPod(o)) podInformer.objs.set(objectKey(o), o);
      else pvcInformer.objs.set(objectKey(o), o);
    }
    client.updateFailures = tc.updateFailures ?? 0;

    const clock = new FakeClock();
    const queues: TestQueue[] = [];
    const ctx: ControllerContext = {
      client,
      clock,
      informer: <T extends KubeObject>(res: ResourceType): Informer<T> => (res.resource === 'pods' ? podInformer : pvcInformer) as unknown as Informer<T>,
      newQueue: () => {
        const q = new TestQueue(clock);
        queues.push(q);
        return q;
      },
      recorder: (component) => new TestRecorder([], component),
    };
    const ctrl = create(ctx);
    ctrl.start();
    t.after(() => ctrl.stop());

    // Start the test by simulating an event.
    if (tc.updatedPVC !== undefined) for (const h of pvcInformer.handlers) h.onUpdate?.(tc.updatedPVC, tc.updatedPVC);
    const { deletedPod, updatedPod } = tc;
    if (deletedPod !== undefined && updatedPod !== undefined && deletedPod.metadata?.name === updatedPod.metadata?.name) {
      for (const h of podInformer.handlers) h.onUpdate?.(deletedPod, updatedPod);
    } else if (updatedPod !== undefined) {
      for (const h of podInformer.handlers) h.onAdd?.(updatedPod);
    } else if (deletedPod !== undefined) {
      for (const h of podInformer.handlers) h.onDelete?.(deletedPod);
    }

    // Process the queue until it is idle, letting rate-limited retries come due.
    let idle = 0;
    for (let i = 0; i < 5000 && idle < 10; i++) {
      await new Promise((r) => setImmediate(r));
      if (queues.every((q) => q.busy() === 0)) {
        if (clock.pendingTimers() > 0) clock.step(1000);
        else idle++;
      } else idle = 0;
    }
    assert.deepEqual(client.calls, tc.expectedActions);
  });
}

test('podUsesPVC: an unscheduled pod uses nothing; a claim volume counts whatever the phase', () => {
  const claim = pvc();
  assert.equal(podUsesPVC(unscheduled(withPVC(defaultPVCName, pod())), claim), false);
  assert.equal(podUsesPVC(withStatus('Succeeded', withPVC(defaultPVCName, pod())), claim), true);
  assert.equal(podUsesPVC(shutDown(withPVC(defaultPVCName, pod())), claim), true);
});

test('through the API: a claim in use stays Terminating after delete, and goes once its pod is deleted', async (t) => {
  const client = new FakeClient();
  const ctx: TestContext = await startController(t, client, (c) => create(c));
  await client.create(resources.pods, withPVC('data', pod()));
  await client.create(resources.persistentvolumeclaims, pvc('data'));
  await ctx.settle();
  assert.deepEqual(client.peek<PersistentVolumeClaim>(resources.persistentvolumeclaims, 'data', defaultNS)?.metadata?.finalizers, [finalizer], 'the controller adds the finalizer to a claim that lacks it');

  await client.delete(resources.persistentvolumeclaims, 'data', { namespace: defaultNS });
  await ctx.settle();
  const terminating = client.peek<PersistentVolumeClaim>(resources.persistentvolumeclaims, 'data', defaultNS);
  assert.notEqual(terminating?.metadata?.deletionTimestamp, undefined);
  assert.deepEqual(terminating?.metadata?.finalizers, [finalizer]);

  await client.delete(resources.pods, defaultPodName, { namespace: defaultNS });
  await ctx.settle();
  assert.equal(client.peek(resources.persistentvolumeclaims, 'data', defaultNS), undefined);
});
