/**
 * The converting store defaults a write in the version the client sent, then converts it, then lets the
 * store apply the storage version's defaults: kube-apiserver decodes (and defaults) a request in its own
 * version, and defaults the storage version again when it reads the object back from etcd.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackend } from '../../storage/index.js';
import type { Backend } from '../../storage/backend.js';
import { applyDefaults } from '../validation/defaults.js';
import { ResourceTable, type ResourceDef } from '../discovery/resource-defs.js';
import { CacheDispatcher, type StoredObject } from '../storage/watch-cache.js';
import { noPolicy, type ObjectPolicy } from './policy.js';
import type { RequestContext } from './store.js';
import { ConvertingStore } from './converting-store.js';
import { OpenApi } from '../openapi/index.js';
import { managedFieldsUpdater } from '../wiring.js';

const ctx: RequestContext = { user: { username: 'admin', groups: ['system:masters'] }, dryRun: false, fieldManager: 'test' };
const scaleTargetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

describe('ConvertingStore defaults autoscaling/v1 HorizontalPodAutoscalers as v1, then as v2', () => {
  let dataDir: string;
  let backend: Backend;
  let store: ConvertingStore;
  let v1: ResourceDef;
  /** Each applyDefaults call: the group/version it defaulted in and the spec it was given. */
  const calls: [string, unknown][] = [];
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kubemix-converting-store-'));
    backend = await openBackend({ kind: 'sqlite', dataDir, compaction: false });
    const policy: ObjectPolicy = {
      ...noPolicy,
      applyDefaults(def, obj) {
        calls.push([`${def.group}/${def.version}`, structuredClone(obj['spec'])]);
        applyDefaults({ group: def.group, version: def.version, kind: def.kind }, obj);
      },
    };
    const table = new ResourceTable();
    const def = table.get('autoscaling', 'v1', 'horizontalpodautoscalers');
    assert.ok(def !== undefined);
    v1 = def;
    store = new ConvertingStore({ backend, dispatcher: new CacheDispatcher(backend), policy }, table);
  });
  after(async () => {
    await backend.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a create is defaulted in v1 (minReplicas) before the conversion, which fills in the CPU metric, then in v2', async () => {
    calls.length = 0;
    const hpa: StoredObject = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' }, spec: { scaleTargetRef, maxReplicas: 3 } };
    const created = await store.create(v1, 'default', hpa, ctx);
    // Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler adds the 80% CPU target
    // when there is no metric at all; the v2 defaulter would add the same.
    assert.deepEqual(calls, [
      ['autoscaling/v1', { scaleTargetRef, maxReplicas: 3 }],
      ['autoscaling/v2', { scaleTargetRef, maxReplicas: 3, minReplicas: 1, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] }],
    ]);
    assert.deepEqual(created['spec'], { scaleTargetRef, maxReplicas: 3, minReplicas: 1, targetCPUUtilizationPercentage: 80 });
  });

  test('an update of the main resource is defaulted the same way; a status update is defaulted as the stored version and keeps the spec', async () => {
    calls.length = 0;
    const live = await store.get(v1, 'default', 'web');
    await store.update(v1, 'default', 'web', '', { ...live, spec: { scaleTargetRef, maxReplicas: 5, targetCPUUtilizationPercentage: 60 } }, ctx);
    assert.deepEqual(calls, [
      ['autoscaling/v1', { scaleTargetRef, maxReplicas: 5, targetCPUUtilizationPercentage: 60 }],
      ['autoscaling/v2', { scaleTargetRef, maxReplicas: 5, minReplicas: 1, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }] }],
    ]);
    calls.length = 0;
    const updated = await store.get(v1, 'default', 'web');
    const { object } = await store.update(v1, 'default', 'web', 'status', { ...updated, status: { currentReplicas: 2, desiredReplicas: 2 } }, ctx);
    // Decoding defaults status writes too; the status strategy then keeps the live spec.
    assert.deepEqual(
      calls.map(([v]) => v),
      ['autoscaling/v2'],
    );
    assert.deepEqual(object['spec'], updated['spec']);
  });
});

describe('ConvertingStore: a v2 HorizontalPodAutoscaler read and written back as autoscaling/v1 keeps what v1 cannot express', () => {
  let dataDir: string;
  let backend: Backend;
  let store: ConvertingStore;
  let v1: ResourceDef;
  let v2: ResourceDef;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kubemix-converting-store-hpa-'));
    backend = await openBackend({ kind: 'sqlite', dataDir, compaction: false });
    const policy: ObjectPolicy = { ...noPolicy, applyDefaults: (def, obj) => applyDefaults({ group: def.group, version: def.version, kind: def.kind }, obj) };
    const table = new ResourceTable();
    const d1 = table.get('autoscaling', 'v1', 'horizontalpodautoscalers');
    const d2 = table.get('autoscaling', 'v2', 'horizontalpodautoscalers');
    assert.ok(d1 !== undefined && d2 !== undefined);
    v1 = d1;
    v2 = d2;
    store = new ConvertingStore({ backend, dispatcher: new CacheDispatcher(backend), policy }, table);
  });
  after(async () => {
    await backend.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('GET as v1 then PUT as v1 (spec, then status) leaves the v2 object as it was', async () => {
    const spec = {
      scaleTargetRef,
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } },
        { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, target: { type: 'AverageValue', averageValue: '1k' } } },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 60, policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] } },
    };
    const hpa: StoredObject = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'mixed', namespace: 'default', labels: { app: 'web' } }, spec };
    const created = await store.create(v2, 'default', hpa, ctx);
    await store.update(v2, 'default', 'mixed', 'status', {
      ...created,
      status: {
        currentReplicas: 2,
        desiredReplicas: 3,
        currentMetrics: [
          { type: 'Resource', resource: { name: 'memory', current: { averageValue: '300Mi', averageUtilization: 60 } } },
          { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, current: { averageValue: '800' } } },
        ],
        conditions: [
          { type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'SucceededRescale', message: 'the HPA controller was able to update the target scale to 3' },
          { type: 'ScalingLimited', status: 'False', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' },
        ],
      },
    }, ctx);
    const before = await store.get(v2, 'default', 'mixed');
    assert.ok(((before['spec'] as { behavior?: { scaleUp?: unknown } }).behavior?.scaleUp) !== undefined, 'v2 defaulting filled in scaleUp');

    const asV1 = await store.get(v1, 'default', 'mixed');
    assert.equal((asV1['spec'] as Record<string, unknown>)['targetCPUUtilizationPercentage'], undefined);
    assert.deepEqual(Object.keys(asV1.metadata?.annotations ?? {}).sort(), [
      'autoscaling.alpha.kubernetes.io/behavior',
      'autoscaling.alpha.kubernetes.io/conditions',
      'autoscaling.alpha.kubernetes.io/current-metrics',
      'autoscaling.alpha.kubernetes.io/metrics',
    ]);
    // A client's read-modify-write: the object as it read it, through JSON.
    await store.update(v1, 'default', 'mixed', '', JSON.parse(JSON.stringify(asV1)) as StoredObject, ctx);
    const statusRead = await store.get(v1, 'default', 'mixed');
    await store.update(v1, 'default', 'mixed', 'status', JSON.parse(JSON.stringify(statusRead)) as StoredObject, ctx);

    const after = await store.get(v2, 'default', 'mixed');
    assert.deepEqual(after['spec'], before['spec']);
    assert.deepEqual(after['status'], before['status']);
    assert.deepEqual(after.metadata?.annotations, undefined);
    assert.deepEqual(after.metadata?.labels, { app: 'web' });
    assert.equal(after.metadata?.generation, before.metadata?.generation);
    assert.equal(after.metadata?.resourceVersion, before.metadata?.resourceVersion, 'both writes were no-ops');
  });
});

describe('ConvertingStore records field ownership in the form the client wrote', () => {
  let dataDir: string;
  let backend: Backend;
  let store: ConvertingStore;
  let eventsV1: ResourceDef;
  let core: ResourceDef;
  const scheduler: RequestContext = { ...ctx, fieldManager: 'kube-scheduler' };
  const at = Date.UTC(2026, 10, 22, 1, 8, 52);
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kubemix-converting-store-owners-'));
    backend = await openBackend({ kind: 'sqlite', dataDir, compaction: false });
    const table = new ResourceTable();
    const v1 = table.get('events.k8s.io', 'v1', 'events');
    const c = table.get('', 'v1', 'events');
    assert.ok(v1 !== undefined && c !== undefined);
    eventsV1 = v1;
    core = c;
    store = new ConvertingStore({ backend, dispatcher: new CacheDispatcher(backend), policy: noPolicy, managedFields: managedFieldsUpdater(new OpenApi(), () => at) }, table);
  });
  after(async () => {
    await backend.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  // What a real 1.32 server keeps for kube-scheduler's Scheduled event (fixtures: the events table of
  // /api/v1, whose rows carry each Event's metadata).
  test('an events.k8s.io/v1 Event is owned as events.k8s.io/v1, by its v1 field names, also when read as core/v1', async () => {
    const event: StoredObject = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'agent-55k88.18ea38b09169bb28', namespace: 'default' },
      eventTime: '2026-11-22T01:08:52.123456Z',
      reportingController: 'default-scheduler',
      reportingInstance: 'default-scheduler-vm',
      action: 'Binding',
      reason: 'Scheduled',
      regarding: { kind: 'Pod', namespace: 'default', name: 'agent-55k88', uid: 'u1', apiVersion: 'v1', resourceVersion: '340' },
      note: 'Successfully assigned default/agent-55k88 to linux-amd64-1',
      type: 'Normal',
    };
    const entry = {
      manager: 'kube-scheduler',
      operation: 'Update',
      apiVersion: 'events.k8s.io/v1',
      time: '2026-11-22T01:08:52Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:action': {}, 'f:eventTime': {}, 'f:note': {}, 'f:reason': {}, 'f:regarding': {}, 'f:reportingController': {}, 'f:reportingInstance': {}, 'f:type': {} },
    };
    const created = await store.create(eventsV1, 'default', event, scheduler);
    assert.deepEqual(created.metadata?.managedFields, [entry]);
    assert.deepEqual((await store.get(core, 'default', 'agent-55k88.18ea38b09169bb28')).metadata?.managedFields, [entry]);

    // The series PATCH of a second isomorphic event adds its fields to the same entry.
    const { object } = await store.guaranteedUpdate(eventsV1, 'default', 'agent-55k88.18ea38b09169bb28', '', scheduler, undefined, (live) => ({
      ...(live as StoredObject),
      series: { count: 2, lastObservedTime: '2026-11-22T01:08:57.000001Z' },
    }));
    assert.deepEqual(object.metadata?.managedFields, [
      { ...entry, fieldsV1: { ...entry.fieldsV1, 'f:series': { '.': {}, 'f:count': {}, 'f:lastObservedTime': {} } } },
    ]);
  });

  test('a core/v1 Event is owned as v1', async () => {
    const created = await store.create(core, 'default', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'n1.18ea38b09169bb29', namespace: 'default' },
      involvedObject: { kind: 'Node', name: 'n1', uid: 'n1' },
      reason: 'Starting',
      message: 'Starting kubelet.',
      type: 'Normal',
    }, { ...ctx, fieldManager: 'kubelet' });
    assert.deepEqual(created.metadata?.managedFields?.map((e) => [e.manager, e.apiVersion, Object.keys(e.fieldsV1 ?? {})]), [
      ['kubelet', 'v1', ['f:involvedObject', 'f:message', 'f:reason', 'f:type']],
    ]);
  });
});
