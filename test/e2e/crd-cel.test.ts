/**
 * The real kubectl v1.32 against a CRD with `x-kubernetes-validations` rules: a custom resource that breaks a
 * rule comes back as kube-apiserver's 422, a valid one is created, a transition rule (`self == oldSelf`)
 * refuses an update, and a CRD whose rule does not compile is refused (the parser's words after
 * `Syntax error:` are @bufbuild/cel's; cel-go says "mismatched input '<EOF>' expecting ...").
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';
import { runKubectl, type RunResult } from '../tools/kubectl-tools.js';

const crd = (rule: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: gadgets
    kind: Gadget
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
            x-kubernetes-validations:
            - rule: ${JSON.stringify(rule)}
              message: replicas must be <= maxReplicas
            - rule: "!has(self.size) || quantity(self.size).isLessThan(quantity('1Gi'))"
              messageExpression: "'size ' + self.size + ' is too big'"
            properties:
              replicas:
                type: integer
              maxReplicas:
                type: integer
              size:
                type: string
              mode:
                type: string
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: Value is immutable
`;

const gadget = (spec: string): string => `apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g
  namespace: default
spec:
${spec}`;

describe('kubectl and CRD validation rules', () => {
  let srv: TestApiServer;
  const kubectl = (args: string[], input?: string): Promise<RunResult> => runKubectl(args, { kubeconfig: srv.kubeconfig, ...(input !== undefined ? { input } : {}) });

  before(async () => {
    srv = await startTestApiServer();
    const r = await kubectl(['apply', '-f', '-'], crd('self.replicas <= self.maxReplicas'));
    assert.equal(r.stderr, '');
    const w = await kubectl(['wait', '--for=condition=Established', 'crd/gadgets.example.com', '--timeout=30s']);
    assert.equal(w.stderr, '');
  });
  after(async () => {
    await srv.stop();
  });

  test('a custom resource that breaks rules is refused with each rule’s message', async () => {
    const r = await kubectl(['apply', '-f', '-'], gadget('  replicas: 5\n  maxReplicas: 3\n  size: 2Gi\n  mode: fast\n'));
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'The Gadget "g" is invalid: \n' +
        '* spec: Invalid value: "object": replicas must be <= maxReplicas\n' +
        '* spec: Invalid value: "object": size 2Gi is too big\n',
    );
  });

  test('a valid one is created, and an update a transition rule forbids is refused', async () => {
    const c = await kubectl(['apply', '-f', '-'], gadget('  replicas: 1\n  maxReplicas: 3\n  size: 1Mi\n  mode: fast\n'));
    assert.equal(c.stderr, '');
    assert.equal(c.stdout, 'gadget.example.com/g created\n');
    const u = await kubectl(['patch', 'gadget', 'g', '--type=merge', '-p', '{"spec":{"mode":"slow"}}']);
    assert.equal(u.code, 1);
    assert.equal(u.stderr, 'The Gadget "g" is invalid: spec.mode: Invalid value: "string": Value is immutable\n');
    const ok = await kubectl(['patch', 'gadget', 'g', '--type=merge', '-p', '{"spec":{"replicas":2}}']);
    assert.equal(ok.stderr, '');
    assert.equal(ok.stdout, 'gadget.example.com/g patched\n');
  });

  test('a CRD whose rule does not compile is refused', async () => {
    const r = await kubectl(['apply', '-f', '-'], crd('self.replicas <='));
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'The CustomResourceDefinition "gadgets.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: ' +
        'Invalid value: apiextensions.ValidationRule{Rule:"self.replicas <=", Message:"replicas must be <= maxReplicas", MessageExpression:"", ' +
        'Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ' +
        'ERROR: <input>:1:15: Syntax error: found < but expecting end of input\n | self.replicas <=\n | ..............^\n',
    );
  });
});
