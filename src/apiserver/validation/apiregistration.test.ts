import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../api/field-errors.js';
import { validate } from './index.js';

const kind = { group: 'apiregistration.k8s.io', kind: 'APIService' };
const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec });

// kube-aggregator's ValidateAPIService, case by case.
test('APIService names are <version>.<group>; local ones take no CA bundle; remote ones need a service', () => {
  const cases: [string, ReturnType<typeof svc>, string[]][] = [
    ['the legacy group', svc('v1.', { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }), []],
    ['a named group', svc('v1beta1.metrics.k8s.io', { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics-server', port: 443 } }), []],
    [
      'a name that is not version.group',
      svc('metrics', { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100 }),
      ['metadata.name: Invalid value: "metrics": must be `spec.version+"."+spec.group`: "v1beta1.metrics.k8s.io"'],
    ],
    ['an empty group for v2', svc('v2.', { version: 'v2', groupPriorityMinimum: 1, versionPriority: 1 }), ['spec.group: Required value: only v1 may have an empty group and it better be legacy kube']],
    [
      'priorities out of range',
      svc('v1.example.com', { group: 'example.com', version: 'v1', groupPriorityMinimum: 0, versionPriority: 1001 }),
      ['spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000', 'spec.versionPriority: Invalid value: 1001: must be positive and less than 1000'],
    ],
    [
      'a local service with a CA bundle',
      svc('v1.example.com', { group: 'example.com', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, caBundle: Buffer.from('abc').toString('base64') }),
      ['spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle'],
    ],
    [
      'a service without namespace or name',
      svc('v1.example.com', { group: 'example.com', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, service: { port: 70000 } }),
      ['spec.service.namespace: Required value', 'spec.service.name: Required value', 'spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive'],
    ],
  ];
  for (const [what, obj, want] of cases) {
    assert.deepEqual(
      validate(kind, obj).map(fieldErrorString),
      want,
      what,
    );
  }
});
