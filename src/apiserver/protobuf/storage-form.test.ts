import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asStoredForm } from './storage-form.js';

/** A creationTimestamp, which the store always sets (without one, metadata reads `creationTimestamp: null`). */
const created = '2026-11-27T10:00:00Z';

/** `obj` as it reads back from storage. */
function stored(obj: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(obj);
  asStoredForm(copy);
  return copy;
}

void test('a slice without omitempty that is empty or absent reads null, at the root and further down', () => {
  assert.deepEqual(stored({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r', creationTimestamp: created } }), {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'r', creationTimestamp: created },
    rules: null,
  });
  assert.deepEqual(stored({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', rules: [] })['rules'], null);
  assert.deepEqual(stored({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', spec: { drivers: [] } })['spec'], { drivers: null });
  const slice = stored({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4', endpoints: [] });
  assert.deepEqual([slice['endpoints'], slice['ports']], [null, null]);
  // In list elements: a FlowSchema rule for cluster-scoped requests only has no namespaces.
  const fs = stored({
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    spec: { rules: [{ subjects: [{ kind: 'Group', group: { name: 'g' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true }] }] },
  });
  assert.deepEqual((fs['spec'] as { rules: { resourceRules: unknown[] }[] }).rules[0]?.resourceRules[0], {
    verbs: ['*'],
    apiGroups: ['*'],
    resources: ['*'],
    clusterScope: true,
    namespaces: null,
  });
  // Through a pointer struct inside a list: a projected volume with no sources.
  const pod = stored({ apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'c' }], volumes: [{ name: 'v', projected: { sources: [] } }] } });
  assert.deepEqual((pod['spec'] as { volumes: unknown[] }).volumes[0], { name: 'v', projected: { sources: null } });
});

void test('an omitempty list or map that is empty reads absent: empty env, ports, labels and data vanish', () => {
  assert.deepEqual(
    stored({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', creationTimestamp: created, labels: {}, annotations: { a: 'b' } },
      spec: { containers: [{ name: 'c', ports: [], env: [], args: null, resources: {}, volumeMounts: [{ name: 'v', mountPath: '/v' }] }], nodeSelector: {}, tolerations: [] },
      status: { phase: 'Pending' },
    }),
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', creationTimestamp: created, annotations: { a: 'b' } },
      spec: { containers: [{ name: 'c', resources: {}, volumeMounts: [{ name: 'v', mountPath: '/v' }] }] },
      status: { phase: 'Pending' },
    },
  );
  assert.deepEqual(stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', creationTimestamp: created }, data: {}, binaryData: {} }), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', creationTimestamp: created },
  });
  // A Secret's empty data goes.
  assert.deepEqual(stored({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', creationTimestamp: created }, data: {} }), {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', creationTimestamp: created },
  });
});

void test('an omitempty scalar that is false, 0 or "" reads absent; a pointer and a field without omitempty keep theirs', () => {
  const pod = stored({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', generateName: '', creationTimestamp: created },
    spec: {
      hostNetwork: false,
      hostPID: true,
      containers: [
        {
          name: 'c',
          resources: {},
          tty: false,
          volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: false, subPath: '' }],
          livenessProbe: { initialDelaySeconds: 0, periodSeconds: 10, httpGet: { path: '/', port: 80 } },
          securityContext: { privileged: false },
        },
      ],
    },
    status: { phase: 'Running', hostIP: '', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'x', imageID: '' }] },
  });
  assert.deepEqual(pod, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', creationTimestamp: created },
    spec: {
      hostPID: true,
      containers: [
        {
          name: 'c',
          resources: {},
          volumeMounts: [{ name: 'v', mountPath: '/v' }],
          livenessProbe: { periodSeconds: 10, httpGet: { path: '/', port: 80 } },
          securityContext: { privileged: false },
        },
      ],
    },
    // The state structs are not pointers: they read `{}` when left out.
    status: { phase: 'Running', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'x', imageID: '', state: {}, lastState: {} }] },
  });
});

void test('lists with items and kinds the schema does not know are left alone', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', creationTimestamp: created, labels: { a: 'b' } },
    spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }], resources: {} }] },
    status: {},
  };
  assert.deepEqual(stored(pod), pod);
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { creationTimestamp: created }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
  assert.deepEqual(stored(role), role);
  const custom = { apiVersion: 'example.com/v1', kind: 'Widget', rules: [] };
  assert.deepEqual(stored(custom), custom);
  assert.deepEqual(stored({ kind: 'Role', rules: [] }), { kind: 'Role', rules: [] });
});

void test('a field Go writes at its zero value reads as that value when left out or null: scalars, pointers and structs', () => {
  const meta = { name: 'x', creationTimestamp: created };
  // Scalars without omitempty: an HPA nobody scaled yet, a PodDisruptionBudget before the disruption controller.
  const hpa = stored({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: meta, spec: { maxReplicas: 3 }, status: {} });
  assert.deepEqual(hpa['status'], { currentMetrics: null, desiredReplicas: 0 });
  const pdb = stored({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: meta, spec: { minAvailable: 1 }, status: null });
  assert.deepEqual(pdb['status'], { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  // An Event written without the newer fields: its times null, an empty source, empty reporting names.
  const event = stored({ apiVersion: 'v1', kind: 'Event', metadata: meta, involvedObject: { kind: 'Pod' }, reason: 'Pulled', reportingInstance: null });
  assert.deepEqual(event, {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta,
    involvedObject: { kind: 'Pod' },
    reason: 'Pulled',
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    eventTime: null,
    reportingComponent: '',
    reportingInstance: '',
  });
  // Structs that are not pointers, omitempty or not: a Lease's spec, an Ingress's load balancer, a
  // template's metadata (its zero creationTimestamp is null), a CSINode's spec with its nil drivers.
  assert.deepEqual(stored({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta })['spec'], {});
  assert.deepEqual(stored({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: meta, spec: {}, status: {} })['status'], { loadBalancer: {} });
  const rs = stored({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: meta, spec: { template: { spec: { containers: [] } } } });
  assert.deepEqual((rs['spec'] as { template: { metadata: unknown } }).template.metadata, { creationTimestamp: null });
  assert.deepEqual(rs['status'], { replicas: 0 });
  assert.deepEqual(stored({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: meta })['spec'], { drivers: null });
  // A pointer without omitempty reads null: a PVC's data source without an API group.
  const pvc = stored({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta, spec: { dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } }, status: {} });
  assert.deepEqual((pvc['spec'] as { dataSource: unknown }).dataSource, { kind: 'PersistentVolumeClaim', name: 'src', apiGroup: null });
  // Values that are set stay, and each object gets its own zero struct.
  const leases = [stored({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta }), stored({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta })];
  assert.notEqual(leases[0]?.['spec'], leases[1]?.['spec']);
  const set = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta, spec: { holderIdentity: 'n', leaseDurationSeconds: 40 } };
  assert.deepEqual(stored(set), set);
});
