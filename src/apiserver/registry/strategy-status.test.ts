/**
 * The status subresource's PrepareForUpdate per kind: status comes from the request, spec from the stored
 * object, and of the client-owned metadata (labels, annotations, finalizers, ownerReferences) what each
 * 1.32 status strategy resets comes from the stored object and the rest from the request. First the
 * upstream strategy tests, then through a store with managed fields, as requests reach it.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceDef } from '../discovery/resource-defs.js';
import type { StoredObject } from '../storage/watch-cache.js';
import type { ConvertingStore } from './converting-store.js';
import { adminCtx, def, openStrategyStore, type StrategyStore } from './_strategy-store.test-helpers.js';
import { prepareForUpdate, statusMetadataReset, statusResetFields } from './strategy.js';


const deployments = def('apps', 'v1', 'deployments');
const replicaSets = def('apps', 'v1', 'replicasets');
const replicationControllers = def('', 'v1', 'replicationcontrollers');
const pods = def('', 'v1', 'pods');
const volumeAttachments = def('storage.k8s.io', 'v1', 'volumeattachments');
const apiServices = def('apiregistration.k8s.io', 'v1', 'apiservices');
const flowSchemas = def('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas');
/** A custom resource with a status subresource. */
const widgets: ResourceDef = { ...replicaSets, group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', custom: true };

describe('pkg/registry/apps/deployment/strategy_test.go TestStatusUpdates', () => {
  const newDeployment = (labels: Record<string, string>, annotations: Record<string, string>): StoredObject => ({
    metadata: { name: 'test', labels, annotations },
    spec: { replicas: 1, strategy: { type: 'Recreate' }, template: { spec: { containers: [{ name: 'test', image: 'test' }] } } },
  });
  const cases: { name: string; old: StoredObject; obj: StoredObject; expected: StoredObject }[] = [
    {
      name: 'a status update cannot add a label',
      old: newDeployment({ test: 'label' }, { test: 'annotation' }),
      obj: newDeployment({ test: 'label', sneaky: 'label' }, { test: 'annotation' }),
      expected: newDeployment({ test: 'label' }, { test: 'annotation' }),
    },
    {
      name: 'a status update can add an annotation',
      old: newDeployment({ test: 'label' }, { test: 'annotation' }),
      obj: newDeployment({ test: 'label' }, { test: 'annotation', sneaky: 'annotation' }),
      expected: newDeployment({ test: 'label' }, { test: 'annotation', sneaky: 'annotation' }),
    },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      assert.deepEqual(prepareForUpdate(deployments, tc.obj, tc.old, 'status'), { ...tc.expected, status: undefined });
    });
  }
});

describe('ReplicaSet and ReplicationController TestStatusStrategy (pkg/registry/{apps/replicaset,core/replicationcontroller}/strategy_test.go)', () => {
  for (const [kind, d] of [['ReplicaSet', replicaSets], ['Replication controller', replicationControllers]] as const) {
    test(`${kind} status updates should allow change of replicas; PrepareForUpdate should have preferred spec`, () => {
      const old: StoredObject = { metadata: { name: 'abc', namespace: 'default', resourceVersion: '10' }, spec: { replicas: 3 }, status: { replicas: 1, observedGeneration: 10 } };
      const next: StoredObject = { metadata: { name: 'abc', namespace: 'default', resourceVersion: '9' }, spec: { replicas: 1 }, status: { replicas: 3, observedGeneration: 11 } };
      const out = prepareForUpdate(d, next, old, 'status');
      assert.equal((out['status'] as { replicas: number }).replicas, 3);
      assert.equal((out['spec'] as { replicas: number }).replicas, 3);
    });
  }
});

describe('the status strategies per kind: which client-owned metadata a status update keeps', () => {
  const ownerA = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs-1', uid: 'u1' };
  const ownerB = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs-2', uid: 'u2' };
  const old: StoredObject = {
    metadata: { name: 'x', labels: { a: '1' }, annotations: { a: '1' }, finalizers: ['example.com/a'], ownerReferences: [ownerA] },
    spec: { v: 1 },
    status: { phase: 'Old' },
  };
  const sent: StoredObject = {
    metadata: { name: 'x', labels: { b: '2' }, annotations: { b: '2' }, finalizers: ['example.com/b'], ownerReferences: [ownerB] },
    spec: { v: 2 },
    status: { phase: 'New' },
  };
  const oldMeta = old.metadata ?? {};
  const sentMeta = sent.metadata ?? {};
  const cases: { name: string; def: ResourceDef; want: Record<string, unknown> }[] = [
    {
      name: 'a Deployment keeps the stored labels and takes the rest (deploymentStatusStrategy resets Spec and Labels)',
      def: deployments,
      want: { ...sentMeta, labels: oldMeta.labels },
    },
    {
      name: 'a ReplicaSet takes all of them (replicaSetStatusStrategy resets only Spec)',
      def: replicaSets,
      want: sentMeta,
    },
    {
      name: 'a Pod keeps the stored ownerReferences ("old kubelets corrupt them in a way that breaks garbage collection")',
      def: pods,
      want: { ...sentMeta, ownerReferences: oldMeta.ownerReferences },
    },
    {
      name: 'a VolumeAttachment keeps all of them (metav1.ResetObjectMetaForStatus)',
      def: volumeAttachments,
      want: oldMeta,
    },
    {
      name: 'an APIService keeps all of them (apiServerStatusStrategy resets Labels, Annotations, Finalizers, OwnerReferences)',
      def: apiServices,
      want: oldMeta,
    },
    {
      name: 'a FlowSchema keeps all of them (flowSchemaStatusStrategy copies the old ObjectMeta)',
      def: flowSchemas,
      want: oldMeta,
    },
    {
      name: 'a custom resource keeps the whole stored object but status (customresource statusStrategy)',
      def: widgets,
      want: oldMeta,
    },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      const out = prepareForUpdate(tc.def, structuredClone(sent), structuredClone(old), 'status');
      assert.deepEqual(out.metadata, tc.want);
      assert.deepEqual(out['spec'], old['spec']);
      assert.deepEqual(out['status'], sent['status']);
    });
  }

  test('a Pod status without qosClass gets the stored one back (podStatusStrategy: the Pod QoS is immutable)', () => {
    const out = prepareForUpdate(pods, { metadata: { name: 'pod' }, status: { phase: 'Running' } }, { metadata: { name: 'pod' }, status: { phase: 'Pending', qosClass: 'BestEffort' } }, 'status');
    assert.deepEqual(out['status'], { phase: 'Running', qosClass: 'BestEffort' });
  });

  test('the managed fields of a status update leave out spec and what the strategy resets (GetResetFields)', () => {
    assert.deepEqual(statusResetFields(deployments), [['spec'], ['metadata', 'labels']]);
    assert.deepEqual(statusResetFields(replicaSets), [['spec']]);
    assert.deepEqual(statusResetFields(pods), [['spec'], ['metadata', 'ownerReferences']]);
    assert.deepEqual(statusResetFields(widgets), [['spec'], ['metadata']]);
    assert.equal(statusMetadataReset(widgets), 'all');
  });
});

describe('through the store: a status update per kind family', () => {
  let opened: StrategyStore;
  let store: ConvertingStore;
  const ctx = adminCtx;
  const selector = { matchLabels: { app: 'web' } };
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };

  before(async () => {
    opened = await openStrategyStore('kubemix-strategy-status-');
    store = opened.store;
  });
  after(() => opened.close());

  test('a Deployment: the revision annotation written with status keeps generation 1; a label sent with status is dropped', async () => {
    const created = await store.create(deployments, 'default', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } }, spec: { selector, template } }, ctx('kubectl-create'));
    assert.equal(created.metadata?.generation, 1);
    const sent = {
      ...created,
      metadata: { ...created.metadata, labels: { app: 'web', sneaky: 'label' }, annotations: { 'deployment.kubernetes.io/revision': '1' } },
      status: { observedGeneration: 1, replicas: 1 },
    };
    const { object } = await store.update(deployments, 'default', 'web', 'status', sent, ctx('kube-controller-manager'));
    assert.equal(object.metadata?.generation, 1);
    assert.deepEqual(object.metadata?.labels, { app: 'web' });
    assert.deepEqual(object.metadata?.annotations, { 'deployment.kubernetes.io/revision': '1' });
    assert.deepEqual(object['status'], { observedGeneration: 1, replicas: 1 });
    // The controller's entry owns the annotation, under the status subresource, as on a real cluster.
    const entry = (object.metadata?.managedFields ?? []).find((m) => m.manager === 'kube-controller-manager');
    assert.equal(entry?.subresource, 'status');
    assert.deepEqual((entry?.fieldsV1 as { 'f:metadata'?: unknown } | undefined)?.['f:metadata'], {
      'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} },
    });
    const annotated = await store.update(deployments, 'default', 'web', '', { ...object, metadata: { ...object.metadata, annotations: { ...object.metadata?.annotations, a: 'b' } } }, ctx('kubectl-annotate'));
    assert.equal(annotated.object.metadata?.generation, 2);
  });

  test('a ReplicaSet: labels, annotations, finalizers and ownerReferences sent with status are stored; spec is not', async () => {
    const created = await store.create(replicaSets, 'default', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web' }, spec: { replicas: 1, selector, template } }, ctx('test'));
    const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd-uid', controller: true, blockOwnerDeletion: true };
    const sent = {
      ...created,
      metadata: { ...created.metadata, labels: { l: '1' }, annotations: { a: '1' }, finalizers: ['example.com/f'], ownerReferences: [owner] },
      spec: { replicas: 5, selector, template },
      status: { replicas: 1 },
    };
    const { object } = await store.update(replicaSets, 'default', 'web', 'status', sent, ctx('test'));
    assert.deepEqual(object.metadata?.labels, { l: '1' });
    assert.deepEqual(object.metadata?.annotations, { a: '1' });
    assert.deepEqual(object.metadata?.finalizers, ['example.com/f']);
    assert.deepEqual(object.metadata?.ownerReferences, [owner]);
    assert.equal((object['spec'] as { replicas: number }).replicas, 1);
    assert.equal(object.metadata?.generation, 1);
  });

  test('a Pod: ownerReferences sent with status are not stored, labels are', async () => {
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-uid', controller: true, blockOwnerDeletion: true };
    const created = await store.create(pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', ownerReferences: [owner] }, spec: { containers: [{ name: 'web', image: 'nginx' }] } }, ctx('test'));
    const sent = { ...created, metadata: { ...created.metadata, labels: { l: '1' }, ownerReferences: [] }, status: { phase: 'Running' } };
    const { object } = await store.update(pods, 'default', 'web', 'status', sent, ctx('test'));
    assert.deepEqual(object.metadata?.ownerReferences, [owner]);
    assert.deepEqual(object.metadata?.labels, { l: '1' });
    assert.deepEqual(object['status'], { phase: 'Running', qosClass: 'BestEffort' });
  });

  test('a created pod stores the QoS class of its defaulted spec, its quantities compared by value (ComputePodQOS)', async () => {
    const resources = { requests: { cpu: '1000m', memory: '1Gi' }, limits: { cpu: '1', memory: '1024Mi' } };
    const created = await store.create(pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'qos' }, spec: { containers: [{ name: 'c', image: 'nginx', resources }] } }, ctx('test'));
    assert.equal((created['status'] as { qosClass?: string }).qosClass, 'Guaranteed');
  });

  test('a custom resource: nothing but status moves', async () => {
    const created = await store.create(widgets, 'default', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { l: '1' } }, spec: { size: 1 } }, ctx('test'));
    const sent = { ...created, metadata: { ...created.metadata, labels: { l: '2' }, annotations: { a: '1' } }, spec: { size: 2 }, status: { ready: true } };
    const { object } = await store.update(widgets, 'default', 'w', 'status', sent, ctx('test'));
    assert.deepEqual(object.metadata?.labels, { l: '1' });
    assert.equal(object.metadata?.annotations, undefined);
    assert.deepEqual(object['spec'], { size: 1 });
    assert.deepEqual(object['status'], { ready: true });
    assert.equal(object.metadata?.generation, 1);
  });
});
