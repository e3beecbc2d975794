import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenApi } from '../openapi/openapi.js';
import { applyPatch, updateManagedFields, type ManagedFieldsEntry } from './managed-fields.js';
import { isApiError } from '../../api/errors.js';
import type { JsonObject } from './json.js';

const api = new OpenApi();
const podSchema = api.nodeFor({ group: '', version: 'v1', kind: 'Pod' });
const svcSchema = api.nodeFor({ group: '', version: 'v1', kind: 'Service' });
const deploySchema = api.nodeFor({ group: 'apps', version: 'v1', kind: 'Deployment' });
const now = Date.parse('2026-11-22T01:09:14Z');
const T = '2026-11-22T01:09:14Z';

function mf(obj: JsonObject): ManagedFieldsEntry[] {
  return ((obj['metadata'] as JsonObject)['managedFields'] ?? []) as unknown as ManagedFieldsEntry[];
}

void test('apply --server-side of a new Service records what a 1.32 server recorded (defaulted protocol in the key)', () => {
  // /work/shared/fixtures/apiserver-1.32/kubectl-v8/apply-server-side.txt
  const applied: JsonObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'numbers-web', namespace: 'default' },
    spec: { ports: [{ nodePort: 30001, port: 8090, targetPort: 'web' }], selector: { app: 'numbers', component: 'web' }, type: 'NodePort' },
  };
  const out = applyPatch(undefined, applied, svcSchema, { manager: 'kubectl', apiVersion: 'v1', now });
  assert.deepEqual(mf(out), [
    {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: T,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:ports': { 'k:{"port":8090,"protocol":"TCP"}': { '.': {}, 'f:nodePort': {}, 'f:port': {}, 'f:targetPort': {} } }, 'f:selector': {}, 'f:type': {} } },
    },
  ]);
  assert.equal(JSON.stringify(mf(out)[0]?.fieldsV1), '{"f:spec":{"f:ports":{"k:{\\"port\\":8090,\\"protocol\\":\\"TCP\\"}":{".":{},"f:nodePort":{},"f:port":{},"f:targetPort":{}}},"f:selector":{},"f:type":{}}}');
});

void test('apply --server-side of a new Deployment records what a 1.32 server recorded', () => {
  const applied: JsonObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'numbers-web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'numbers', component: 'web' } },
      template: {
        metadata: { labels: { app: 'numbers', component: 'web' } },
        spec: {
          containers: [
            {
              env: [{ name: 'http__numbersapi__url', value: 'http://numbers-api/sixeyed/kiamol/master/ch03/numbers/rng' }],
              image: 'kiamol/ch03-numbers-web',
              name: 'web',
              ports: [{ containerPort: 80, name: 'web' }],
            },
          ],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
        },
      },
    },
  };
  const out = applyPatch(undefined, applied, deploySchema, { manager: 'kubectl', apiVersion: 'apps/v1', now });
  assert.equal(
    JSON.stringify(mf(out)[0]?.fieldsV1),
    '{"f:spec":{"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{},"f:component":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"web\\"}":{".":{},"f:env":{"k:{\\"name\\":\\"http__numbersapi__url\\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:name":{}}}}},"f:nodeSelector":{}}}}}',
  );
  assert.deepEqual((out['spec'] as JsonObject)['selector'], { matchLabels: { app: 'numbers', component: 'web' } });
});

void test('a create by the DaemonSet controller records what a 1.32 server recorded for its pod', () => {
  // The managedFields of pod agent-55k88 in /work/shared/fixtures/apiserver-1.32/tables/api_v1_namespaces_default_pods.table.json
  const pod: JsonObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'agent-',
      namespace: 'default',
      labels: { app: 'agent', 'controller-revision-hash': '78f5958779', 'pod-template-generation': '1' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: '20242cb7-9ea6-49f5-9a8a-d8e66e8a4b45', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['linux-amd64-1'] }] }] } } },
      containers: [{ name: 'a', image: 'nginx', imagePullPolicy: 'Always', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
      dnsPolicy: 'ClusterFirst',
      enableServiceLinks: true,
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }],
    },
    status: {},
  };
  const out = updateManagedFields(undefined, pod, podSchema, { manager: 'kube-controller-manager', apiVersion: 'v1', now, resetFields: [['status']] });
  assert.deepEqual(mf(out), [
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'v1',
      time: T,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': {
          'f:generateName': {},
          'f:labels': { '.': {}, 'f:app': {}, 'f:controller-revision-hash': {}, 'f:pod-template-generation': {} },
          'f:ownerReferences': { '.': {}, 'k:{"uid":"20242cb7-9ea6-49f5-9a8a-d8e66e8a4b45"}': {} },
        },
        'f:spec': {
          'f:affinity': { '.': {}, 'f:nodeAffinity': { '.': {}, 'f:requiredDuringSchedulingIgnoredDuringExecution': {} } },
          'f:containers': {
            'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} },
          },
          'f:dnsPolicy': {},
          'f:enableServiceLinks': {},
          'f:nodeSelector': {},
          'f:restartPolicy': {},
          'f:schedulerName': {},
          'f:securityContext': {},
          'f:terminationGracePeriodSeconds': {},
          'f:tolerations': {},
        },
      },
    },
  ]);
});

const deployment = (replicas: number, managedFields: unknown[]): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', managedFields: managedFields as JsonObject[] },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
});
const csaEntry = {
  manager: 'kubectl-client-side-apply',
  operation: 'Update',
  apiVersion: 'apps/v1',
  time: '2026-11-22T01:08:52Z',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:selector': {} } },
};

void test('applying a different value of a field another manager owns is a 409 with upstream text', () => {
  const live = deployment(3, [csaEntry]);
  const applied: JsonObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 5 } };
  assert.throws(
    () => applyPatch(live, applied, deploySchema, { manager: 'kubectl', apiVersion: 'apps/v1', now }),
    (e: unknown) => {
      assert.ok(isApiError(e));
      assert.deepEqual(e.toStatus(), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
        reason: 'Conflict',
        details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }] },
        code: 409,
      });
      return true;
    },
  );
});

void test('several conflicts are listed by manager', () => {
  const live = deployment(3, [csaEntry, { manager: 'other', operation: 'Apply', apiVersion: 'apps/v1', time: T, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } } }]);
  const applied: JsonObject = { spec: { replicas: 5, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } } };
  assert.throws(
    () => applyPatch(live, applied, deploySchema, { manager: 'kubectl', apiVersion: 'apps/v1', now }),
    (e: unknown) =>
      isApiError(e) &&
      e.message ===
        'Apply failed with 2 conflicts: conflicts with "kubectl-client-side-apply" using apps/v1:\n- .spec.replicas\nconflicts with "other":\n- .spec.template.spec.containers[name="nginx"].image',
  );
});

void test('applying the same value shares ownership without conflict', () => {
  const live = deployment(3, [csaEntry]);
  const out = applyPatch(live, { spec: { replicas: 3 } }, deploySchema, { manager: 'kubectl', apiVersion: 'apps/v1', now });
  const entries = mf(out);
  assert.deepEqual(entries.map((e) => [e.manager, e.operation, e.fieldsV1]), [
    ['kubectl', 'Apply', { 'f:spec': { 'f:replicas': {} } }],
    ['kubectl-client-side-apply', 'Update', { 'f:spec': { 'f:replicas': {}, 'f:selector': {} } }],
  ]);
});

void test('force takes the field from the other manager', () => {
  const live = deployment(3, [csaEntry]);
  const out = applyPatch(live, { spec: { replicas: 5 } }, deploySchema, { manager: 'kubectl', apiVersion: 'apps/v1', now, force: true });
  assert.equal((out['spec'] as JsonObject)['replicas'], 5);
  assert.deepEqual(mf(out).map((e) => [e.manager, e.fieldsV1]), [
    ['kubectl', { 'f:spec': { 'f:replicas': {} } }],
    ['kubectl-client-side-apply', { 'f:spec': { 'f:selector': {} } }],
  ]);
});

void test('a field the applier stops applying is removed unless someone else owns it', () => {
  const base: JsonObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { selector: { app: 'x' }, ports: [{ port: 80 }] } };
  const first = applyPatch(undefined, { ...base, metadata: { name: 's', labels: { a: '1', b: '2' } } }, svcSchema, { manager: 'm', apiVersion: 'v1', now });
  const second = applyPatch(first, { ...base, metadata: { name: 's', labels: { a: '1' } } }, svcSchema, { manager: 'm', apiVersion: 'v1', now: now + 1000 });
  assert.deepEqual((second['metadata'] as JsonObject)['labels'], { a: '1' });

  // Another applier also applies label b: it stays.
  const shared = applyPatch(first, { metadata: { name: 's', labels: { b: '2' } } }, svcSchema, { manager: 'n', apiVersion: 'v1', now });
  const third = applyPatch(shared, { ...base, metadata: { name: 's', labels: { a: '1' } } }, svcSchema, { manager: 'm', apiVersion: 'v1', now: now + 1000 });
  assert.deepEqual((third['metadata'] as JsonObject)['labels'], { a: '1', b: '2' });
});

void test('a list item the applier stops applying is removed, live-only items stay, order follows the live list', () => {
  const live: JsonObject = {
    metadata: { name: 'p', managedFields: [] },
    spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '2' }] },
  };
  const first = applyPatch(live, { spec: { containers: [{ name: 'b', image: '2' }, { name: 'c', image: '3' }] } }, podSchema, { manager: 'm', apiVersion: 'v1', now });
  assert.deepEqual((first['spec'] as JsonObject)['containers'], [{ name: 'a', image: '1' }, { name: 'b', image: '2' }, { name: 'c', image: '3' }]);
  const second = applyPatch(first, { spec: { containers: [{ name: 'b', image: '2' }] } }, podSchema, { manager: 'm', apiVersion: 'v1', now });
  assert.deepEqual((second['spec'] as JsonObject)['containers'], [{ name: 'a', image: '1' }, { name: 'b', image: '2' }]);
});

void test('an update takes fields from appliers and keeps its own over time', () => {
  const applied = applyPatch(undefined, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1 } }, deploySchema, { manager: 'kubectl', apiVersion: 'apps/v1', now });
  const scaled = structuredClone(applied);
  (scaled['spec'] as JsonObject)['replicas'] = 3;
  const out = updateManagedFields(applied, scaled, deploySchema, { manager: 'kubectl', subresource: 'scale', apiVersion: 'apps/v1', now: now + 60_000 });
  assert.deepEqual(mf(out), [
    { manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', time: '2026-11-22T01:10:14Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale' },
  ]);
  // A no-op update changes nothing.
  assert.deepEqual(updateManagedFields(out, structuredClone(out), deploySchema, { manager: 'x', apiVersion: 'apps/v1', now: now + 120_000 }), out);
});

void test('kubectl create of a Deployment, then kubectl patch of its image, record what a 1.32 server recorded', () => {
  // /work/shared/fixtures/apiserver-1.32/kubectl-v8/scale.txt shows the managedFields after both writes.
  const created: JsonObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          containers: [{ name: 'nginx', image: 'nginx', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
        },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {},
  };
  const opts = { apiVersion: 'apps/v1', resetFields: [['status']] as string[][] };
  const afterCreate = updateManagedFields(undefined, created, deploySchema, { ...opts, manager: 'kubectl-create', now: Date.parse('2026-11-22T01:08:52Z') });
  assert.equal(
    JSON.stringify(mf(afterCreate)[0]?.fieldsV1),
    '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}',
  );
  const patched = structuredClone(afterCreate);
  const containers = (((patched['spec'] as JsonObject)['template'] as JsonObject)['spec'] as JsonObject)['containers'] as JsonObject[];
  (containers[0] as JsonObject)['image'] = 'nginx:1.27';
  const afterPatch = updateManagedFields(afterCreate, patched, deploySchema, { ...opts, manager: 'kubectl-patch', now: Date.parse('2026-11-22T01:09:12Z') });
  const entries = mf(afterPatch);
  assert.deepEqual(entries.map((e) => [e.manager, e.time]), [
    ['kubectl-create', '2026-11-22T01:08:52Z'],
    ['kubectl-patch', '2026-11-22T01:09:12Z'],
  ]);
  assert.ok(!JSON.stringify(entries[0]?.fieldsV1).includes('f:image"'), 'kubectl-create no longer owns the image');
  assert.equal(JSON.stringify(entries[1]?.fieldsV1), '{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{"f:image":{}}}}}}}');
});

void test('re-applying the same configuration changes nothing, not even the time', () => {
  const cfg: JsonObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } };
  const first = applyPatch(undefined, cfg, svcSchema, { manager: 'kubectl', apiVersion: 'v1', now });
  const again = applyPatch(first, cfg, svcSchema, { manager: 'kubectl', apiVersion: 'v1', now: now + 3_600_000 });
  assert.deepEqual(again, first);
});

void test('sets merge by value and atomic lists are replaced by an apply', () => {
  const live: JsonObject = {
    metadata: { name: 'p', finalizers: ['a'], managedFields: [] },
    spec: { containers: [{ name: 'c', image: 'i' }], tolerations: [{ key: 'x', operator: 'Exists' }] },
  };
  // The live pod has no managedFields, so before-first-apply owns its tolerations: force.
  const out = applyPatch(live, { metadata: { name: 'p', finalizers: ['b'] }, spec: { tolerations: [{ key: 'y', operator: 'Exists' }] } }, podSchema, { manager: 'm', apiVersion: 'v1', now, force: true });
  assert.deepEqual((out['metadata'] as JsonObject)['finalizers'], ['a', 'b']);
  assert.deepEqual((out['spec'] as JsonObject)['tolerations'], [{ key: 'y', operator: 'Exists' }]);
  assert.deepEqual(mf(out)[0]?.fieldsV1, { 'f:metadata': { 'f:finalizers': { 'v:"b"': {} } }, 'f:spec': { 'f:tolerations': {} } });
});

void test('a status write through the subresource is its own manager entry', () => {
  const live: JsonObject = { metadata: { name: 'd' }, spec: { replicas: 1 }, status: {} };
  const next: JsonObject = { metadata: { name: 'd' }, spec: { replicas: 1 }, status: { replicas: 1, conditions: [{ type: 'Available', status: 'True' }] } };
  const out = updateManagedFields(live, next, deploySchema, { manager: 'kube-controller-manager', apiVersion: 'apps/v1', subresource: 'status', now, resetFields: [['spec']] });
  assert.deepEqual(mf(out), [
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: T,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Available"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:replicas': {} } },
      subresource: 'status',
    },
  ]);
});

void test('an apply patch of another version, or with managedFields, is a 400', () => {
  assert.throws(
    () => applyPatch(undefined, { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'd' } }, deploySchema, { manager: 'm', apiVersion: 'apps/v1', now }),
    (e: unknown) => isApiError(e) && e.code === 400 && e.message === 'Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, expected: apps/v1',
  );
  assert.throws(
    () => applyPatch(undefined, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', managedFields: [] } }, deploySchema, { manager: 'm', apiVersion: 'apps/v1', now }),
    (e: unknown) => isApiError(e) && e.code === 400 && e.message === 'metadata.managedFields must be nil',
  );
});

void test('more than ten Update managers: the oldest merge into ancient-changes', () => {
  let obj: JsonObject = { metadata: { name: 'cm' }, data: {} };
  for (let i = 0; i < 12; i++) {
    const next = structuredClone(obj);
    (next['data'] as JsonObject)[`k${i}`] = 'v';
    obj = updateManagedFields(obj, next, undefined, { manager: `m${String(i).padStart(2, '0')}`, apiVersion: 'v1', now: now + i * 1000 });
  }
  const entries = mf(obj);
  assert.equal(entries.length, 10);
  assert.deepEqual(entries[0], {
    manager: 'ancient-changes',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-11-22T01:09:16Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } },
  });
  assert.deepEqual(entries.slice(1).map((e) => e.manager), ['m03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09', 'm10', 'm11']);
});

void test('the first apply to an object without managedFields gives its existing fields to before-first-apply', () => {
  const live: JsonObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { a: '1' } }, data: { x: '1' } };
  const cmSchema = api.nodeFor({ group: '', version: 'v1', kind: 'ConfigMap' });
  const out = applyPatch(live, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { x: '2' } }, cmSchema, { manager: 'kubectl', apiVersion: 'v1', now, force: true });
  assert.deepEqual(mf(out).map((e) => [e.manager, e.operation, e.fieldsV1]), [
    ['kubectl', 'Apply', { 'f:data': { 'f:x': {} } }],
    ['before-first-apply', 'Update', { 'f:data': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }],
  ]);
  assert.throws(() =>
    applyPatch(live, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { x: '2' } }, cmSchema, { manager: 'kubectl', apiVersion: 'v1', now }),
    (e: unknown) => isApiError(e) && e.message === 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.x',
  );
});
