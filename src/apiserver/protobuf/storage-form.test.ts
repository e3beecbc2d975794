import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asStoredForm } from './storage-form.js';

/** `obj` as it reads back from storage. */
function stored(obj: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(obj);
  asStoredForm(copy);
  return copy;
}

void test('a slice without omitempty that is empty or absent reads null, at the root and further down', () => {
  assert.deepEqual(stored({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' } }), {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'r' },
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
      metadata: { name: 'p', labels: {}, annotations: { a: 'b' } },
      spec: { containers: [{ name: 'c', ports: [], env: [], args: null, volumeMounts: [{ name: 'v', mountPath: '/v' }] }], nodeSelector: {}, tolerations: [] },
    }),
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', annotations: { a: 'b' } },
      spec: { containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/v' }] }] },
    },
  );
  assert.deepEqual(stored({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {}, binaryData: {} }), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c' },
  });
  // A Secret's empty data goes.
  assert.deepEqual(stored({ apiVersion: 'v1', kind: 'Secret', data: {} }), { apiVersion: 'v1', kind: 'Secret' });
});

void test('an omitempty scalar that is false, 0 or "" reads absent; a pointer and a field without omitempty keep theirs', () => {
  const pod = stored({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', generateName: '' },
    spec: {
      hostNetwork: false,
      hostPID: true,
      containers: [
        {
          name: 'c',
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
    metadata: { name: 'p' },
    spec: {
      hostPID: true,
      containers: [
        {
          name: 'c',
          volumeMounts: [{ name: 'v', mountPath: '/v' }],
          livenessProbe: { periodSeconds: 10, httpGet: { path: '/', port: 80 } },
          securityContext: { privileged: false },
        },
      ],
    },
    status: { phase: 'Running', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'x', imageID: '' }] },
  });
});

void test('lists with items, missing structs and kinds the schema does not know are left alone', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } };
  assert.deepEqual(stored(pod), pod);
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
  assert.deepEqual(stored(role), role);
  const csiNode = { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'n' } };
  assert.deepEqual(stored(csiNode), csiNode);
  const event = { apiVersion: 'v1', kind: 'Event', involvedObject: { kind: 'Pod' }, reason: 'Pulled' };
  assert.deepEqual(stored(event), event);
  const custom = { apiVersion: 'example.com/v1', kind: 'Widget', rules: [] };
  assert.deepEqual(stored(custom), custom);
  assert.deepEqual(stored({ kind: 'Role', rules: [] }), { kind: 'Role', rules: [] });
});
