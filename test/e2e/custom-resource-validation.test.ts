/**
 * The real kubectl v1.32 applying custom resources their CRD's schema refuses: duplicates in
 * `x-kubernetes-list-type: set` and `map` lists, and kube-openapi's schema errors, come back as the 422 a
 * real kube-apiserver sends, and kubectl prints them as it would against a cluster.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';
import { runKubectl, type RunResult } from '../tools/kubectl-tools.js';

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    kind: Widget
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas:
                type: integer
                maximum: 5
              tags:
                type: array
                x-kubernetes-list-type: set
                items:
                  type: string
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name:
                      type: string
                    port:
                      type: integer
`;

const widget = (spec: string): string => `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  namespace: default
spec:
${spec}`;

describe('kubectl apply of invalid custom resources', () => {
  let srv: TestApiServer;
  const kubectl = (args: string[], input?: string): Promise<RunResult> => runKubectl(args, { kubeconfig: srv.kubeconfig, ...(input !== undefined ? { input } : {}) });

  before(async () => {
    srv = await startTestApiServer();
    const r = await kubectl(['apply', '-f', '-'], crd);
    assert.equal(r.stderr, '');
    const w = await kubectl(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=30s']);
    assert.equal(w.stderr, '');
  });
  after(async () => {
    await srv.stop();
  });

  test('a duplicate in a set list', async () => {
    const r = await kubectl(['apply', '-f', '-'], widget('  tags: [a, b, a]\n'));
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'The Widget "w" is invalid: spec.tags[2]: Duplicate value: "a"\n');
  });

  test('duplicate keys in a map list, with a schema error first', async () => {
    const r = await kubectl(['apply', '-f', '-'], widget('  replicas: 9\n  ports:\n  - name: http\n    port: 80\n  - name: http\n    port: 8080\n'));
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'The Widget "w" is invalid: \n' +
        '* spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5\n' +
        '* spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http"}\n',
    );
  });

  test('a valid widget is created, and an update that breaks the schema is refused', async () => {
    const c = await kubectl(['apply', '-f', '-'], widget('  tags: [a, b]\n  ports:\n  - name: http\n    port: 80\n'));
    assert.equal(c.stderr, '');
    assert.equal(c.stdout, 'widget.example.com/w created\n');
    const u = await kubectl(['patch', 'widget', 'w', '--type=merge', '-p', '{"spec":{"replicas":"two"}}']);
    assert.equal(u.code, 1);
    assert.equal(u.stderr, 'The Widget "w" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"\n');
  });
});
