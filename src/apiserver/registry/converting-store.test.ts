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

  test('a create is defaulted in v1 (minReplicas) before the conversion, in v2 (the CPU metric) after it', async () => {
    calls.length = 0;
    const hpa: StoredObject = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' }, spec: { scaleTargetRef, maxReplicas: 3 } };
    const created = await store.create(v1, 'default', hpa, ctx);
    assert.deepEqual(calls, [
      ['autoscaling/v1', { scaleTargetRef, maxReplicas: 3 }],
      ['autoscaling/v2', { scaleTargetRef, maxReplicas: 3, minReplicas: 1 }],
    ]);
    assert.deepEqual(created['spec'], { scaleTargetRef, maxReplicas: 3, minReplicas: 1, targetCPUUtilizationPercentage: 80 });
  });

  test('an update of the main resource is defaulted the same way; a status update is not defaulted', async () => {
    calls.length = 0;
    const live = await store.get(v1, 'default', 'web');
    await store.update(v1, 'default', 'web', '', { ...live, spec: { scaleTargetRef, maxReplicas: 5, targetCPUUtilizationPercentage: 60 } }, ctx);
    assert.deepEqual(calls, [
      ['autoscaling/v1', { scaleTargetRef, maxReplicas: 5, targetCPUUtilizationPercentage: 60 }],
      ['autoscaling/v2', { scaleTargetRef, maxReplicas: 5, minReplicas: 1, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }] }],
    ]);
    calls.length = 0;
    const updated = await store.get(v1, 'default', 'web');
    await store.update(v1, 'default', 'web', 'status', { ...updated, status: { currentReplicas: 2, desiredReplicas: 2 } }, ctx);
    assert.deepEqual(calls, []);
  });
});
