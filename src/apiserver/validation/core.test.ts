import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import { fieldErrorString } from '../../api/field-errors.js';
import { validate } from './index.js';

test('RuntimeClass: handler must be a DNS label; scheduling and overhead are validated (upstream paths)', () => {
  const rc: RuntimeClass = {
    metadata: { name: 'windows-2019' },
    handler: 'runhcs_wcow',
    overhead: { podFixed: { cpu: '-1' } },
    scheduling: { nodeSelector: { 'kubernetes.io/os': 'windows' }, tolerations: [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }, { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }, { operator: 'Bogus' }] },
  };
  assert.deepEqual(validate({ group: 'node.k8s.io', kind: 'RuntimeClass' }, rc).map(fieldErrorString), [
    "handler: Invalid value: \"runhcs_wcow\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    'overhead.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0',
    'scheduling.tolerations.tolerations[2].operator: Invalid value: "Bogus": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    'scheduling.tolerations.tolerations[2].operator: Unsupported value: "Bogus": supported values: "Equal", "Exists"',
    'scheduling.tolerations[1]: Duplicate value: core.Toleration{Key:"os", Operator:"Equal", Value:"windows", Effect:"NoSchedule", TolerationSeconds:(*int64)(nil)}',
  ]);
  const ok: RuntimeClass = { metadata: { name: 'runc' }, handler: 'runc' };
  assert.deepEqual(validate({ group: 'node.k8s.io', kind: 'RuntimeClass' }, ok), []);
  assert.deepEqual(validate({ group: 'node.k8s.io', kind: 'RuntimeClass' }, { ...ok, handler: 'other' }, ok).map(fieldErrorString), ['handler: Invalid value: "other": field is immutable']);
});

test('Service validation: ports, nodePort on ClusterIP, duplicate node ports, names when several ports', () => {
  const svc = {
    metadata: { name: 'svc', namespace: 'default' },
    spec: {
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ports: [
        { port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30080 },
        { name: 'b', port: 80, protocol: 'TCP', targetPort: 80 },
      ],
    },
  };
  assert.deepEqual(validate({ group: '', kind: 'Service' }, svc).map(fieldErrorString), [
    'spec.ports[0].name: Required value',
    "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
    'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
  ]);
  const np = {
    metadata: { name: 'np', namespace: 'default' },
    spec: { type: 'NodePort', sessionAffinity: 'None', externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster', ports: [{ name: 'a', port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30080 }, { name: 'b', port: 81, protocol: 'TCP', targetPort: 81, nodePort: 30080 }] },
  };
  assert.deepEqual(validate({ group: '', kind: 'Service' }, np).map(fieldErrorString), ['spec.ports[1].nodePort: Duplicate value: 30080']);
  const badType = { metadata: { name: 'x', namespace: 'default' }, spec: { type: 'Weird', sessionAffinity: 'None', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] } };
  assert.deepEqual(validate({ group: '', kind: 'Service' }, badType).map(fieldErrorString), ['spec.type: Unsupported value: "Weird": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']);
});

test('Service update: clusterIP may not change once set', () => {
  const base = { metadata: { name: 's', namespace: 'default' }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] } };
  const changed = structuredClone(base);
  changed.spec.clusterIP = '10.96.0.11';
  changed.spec.clusterIPs = ['10.96.0.11'];
  assert.deepEqual(validate({ group: '', kind: 'Service' }, changed, base).map(fieldErrorString), ['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']);
});

test('ConfigMap keys and Secret types', () => {
  assert.deepEqual(validate({ group: '', kind: 'ConfigMap' }, { metadata: { name: 'c', namespace: 'default' }, data: { 'ok.key': 'v', 'bad key': 'v' } }).map(fieldErrorString), [
    "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
  ]);
  assert.deepEqual(validate({ group: '', kind: 'Secret' }, { metadata: { name: 's', namespace: 'default' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==' } }).map(fieldErrorString), ['data[tls.key]: Required value']);
});

test('PriorityClass: system- prefix reserved, user values capped', () => {
  assert.deepEqual(validate({ group: 'scheduling.k8s.io', kind: 'PriorityClass' }, { metadata: { name: 'system-mine' }, value: 1 }).map(fieldErrorString), [
    "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
  ]);
  assert.deepEqual(validate({ group: 'scheduling.k8s.io', kind: 'PriorityClass' }, { metadata: { name: 'huge' }, value: 1000000001 }).map(fieldErrorString), [
    'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
  ]);
  assert.deepEqual(validate({ group: 'scheduling.k8s.io', kind: 'PriorityClass' }, { metadata: { name: 'system-node-critical' }, value: 2000001000 }), []);
});

test('Namespace names are DNS labels; Node taints validated through the dispatcher', () => {
  assert.equal(validate({ group: '', kind: 'Namespace' }, { metadata: { name: 'a.b' } }).length, 1);
  assert.deepEqual(validate({ group: '', kind: 'Node' }, { metadata: { name: 'n1' }, spec: { taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'NoSchedule' }] } }).map((e) => e.detail), ['taints must be unique by key and effect pair']);
});

test('Lease and PodDisruptionBudget basics', () => {
  assert.deepEqual(validate({ group: 'coordination.k8s.io', kind: 'Lease' }, { metadata: { name: 'n1', namespace: 'kube-node-lease' }, spec: { leaseDurationSeconds: 0 } }).map(fieldErrorString), ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0']);
  assert.deepEqual(validate({ group: 'policy', kind: 'PodDisruptionBudget' }, { metadata: { name: 'p', namespace: 'd' }, spec: { minAvailable: '150%' } }).map(fieldErrorString), [
    'spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
  ]);
});

test('custom resources and CRDs keep their cleanup finalizers', () => {
  const crd = {
    metadata: { name: 'widgets.example.com', finalizers: ['customresourcecleanup.apiextensions.k8s.io'] },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
    status: { storedVersions: ['v1'] },
  };
  assert.deepEqual(validate({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' }, crd, undefined, { namespaced: false }), []);
  assert.deepEqual(validate({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' }, crd, crd, { namespaced: false }), []);
  assert.equal(validate({ group: '', kind: 'ConfigMap' }, { metadata: { name: 'c', namespace: 'd', finalizers: ['cleanup'] } }).length, 1);
});
