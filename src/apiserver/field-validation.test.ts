import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenApi } from './openapi/index.js';
import { ResourceTable } from './discovery/resource-defs.js';
import { decodeTypeError, pruneUnknownFields } from './field-validation.js';

const api = new OpenApi();
const table = new ResourceTable();

function check(resource: string, group: string, obj: Record<string, unknown>): string | undefined {
  const def = table.get(group, 'v1', resource);
  if (def === undefined) throw new Error(`no ${resource}`);
  return decodeTypeError(api, def, obj);
}

const pod = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { name: 'p' }): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Pod', metadata, spec });

test('decodeTypeError names the innermost struct, the path without indexes or keys, and the Go type', () => {
  const cases: [string, string | undefined, string, Record<string, unknown>][] = [
    ['a bool label', 'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string', 'pods', pod({ containers: [] }, { name: 'p', labels: { on: true } })],
    ['a number annotation', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type string', 'pods', pod({ containers: [] }, { name: 'p', annotations: { port: 8080 } })],
    ['a string for an int32', 'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32', 'pods', pod({ containers: [{ name: 'c', image: 'i', ports: [{ containerPort: '80' }] }] })],
    ['a fraction for an int64', 'json: cannot unmarshal number 1.5 into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64', 'pods', pod({ containers: [], activeDeadlineSeconds: 1.5 })],
    ['an object for a bool', 'json: cannot unmarshal object into Go struct field PodSpec.spec.hostNetwork of type bool', 'pods', pod({ containers: [], hostNetwork: {} })],
    ['a Quantity may be a number', undefined, 'pods', pod({ containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: 1, memory: '1Gi' } } }] })],
    ['an IntOrString may be either', undefined, 'services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8081 }] } }],
    ['null is any type', undefined, 'pods', pod({ containers: [], hostNetwork: null })],
    ['unknown fields are not this check', undefined, 'pods', pod({ containers: [], nonsense: true })],
  ];
  for (const [what, want, resource, obj] of cases) assert.equal(check(resource, '', obj), want, what);
});

test('pruneUnknownFields names the paths kube-apiserver reports for fieldValidation=Strict', () => {
  const deployments = table.get('apps', 'v1', 'deployments');
  if (deployments === undefined) throw new Error('no deployments');
  const obj = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels: { anything: 'goes' }, managedFields: [{ fieldsV1: { 'f:spec': {} } }] },
    spec: {
      replicas: 1,
      foo: 1,
      template: { spec: { containers: [{ name: 'a', image: 'nginx', resources: { limits: { cpu: '1' } } }, { name: 'b', imagePullPolice: 'Always' }] } },
      strategy: { rollingUpdate: { maxSurge: '25%' } },
    },
    status: {},
  };
  assert.deepEqual(pruneUnknownFields(api, deployments, obj), ['spec.foo', 'spec.template.spec.containers[1].imagePullPolice']);
  // A kind the OpenAPI document has no schema for.
  const widgets = { ...deployments, group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget' };
  assert.deepEqual(pruneUnknownFields(api, widgets, { spec: { x: 1 } }), []);
});
