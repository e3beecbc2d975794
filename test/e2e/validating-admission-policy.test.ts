/**
 * The real kubectl v1.32 and ValidatingAdmissionPolicy (the example of the Kubernetes documentation,
 * "Validating Admission Policy"): a policy limiting deployments to 5 replicas, bound with Deny in namespaces
 * labelled `environment: test`, refuses `kubectl create deployment --replicas=6` with kube-apiserver's message;
 * bound with Warn, kubectl prints the warning and the deployment is created; a policy with a ConfigMap param
 * reads its limit from the param; a policy whose expression does not compile is refused on create; and a
 * policy asks the CEL `authorizer` whether the requesting (impersonated) user may create pods.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';
import { runKubectl } from '../tools/kubectl-tools.js';

const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "demo-policy.example.com"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= 5"
`;

const binding = (name: string, actions: string, env: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "${name}"
spec:
  policyName: "demo-policy.example.com"
  validationActions: [${actions}]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: ${env}
`;

const paramPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "replicalimit-policy.example.com"
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= int(params.data.maxreplicas)"
      messageExpression: "'object.spec.replicas must be no greater than ' + string(params.data.maxreplicas)"
      reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "replicalimit-binding-params.example.com"
spec:
  policyName: "replicalimit-policy.example.com"
  validationActions: [Deny]
  paramRef:
    name: "replica-limit"
    namespace: "params-e2e"
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: params
`;

const authzPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "pod-creators-only.example.com"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   [""]
      apiVersions: ["v1"]
      operations:  ["CREATE"]
      resources:   ["configmaps"]
  validations:
    - expression: "authorizer.group('').resource('pods').namespace(object.metadata.namespace).check('create').allowed()"
      messageExpression: "request.userInfo.username + ' may not create pods in ' + object.metadata.namespace"
      reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "pod-creators-only-binding.example.com"
spec:
  policyName: "pod-creators-only.example.com"
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: authz
`;

describe('kubectl and ValidatingAdmissionPolicy', () => {
  let srv: TestApiServer;
  const kubectl = (args: string[], input?: string): ReturnType<typeof runKubectl> => runKubectl(args, { kubeconfig: srv.kubeconfig, ...(input !== undefined ? { input } : {}) });
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl(args, input);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };

  before(async () => {
    srv = await startTestApiServer();
  });
  after(async () => {
    await srv.stop();
  });

  test('Deny: a deployment with 6 replicas is refused in a namespace the binding selects', async () => {
    await ok(['create', 'namespace', 'vap-test']);
    await ok(['label', 'namespace', 'vap-test', 'environment=test']);
    await ok(['create', 'namespace', 'vap-other']);
    await ok(['apply', '-f', '-'], policy);
    await ok(['apply', '-f', '-'], binding('demo-binding-test.example.com', 'Deny', 'test'));

    const refused = await kubectl(['create', 'deployment', 'nginx', '--image=nginx', '--replicas=6', '-n', 'vap-test']);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      "error: failed to create deployment: deployments.apps \"nginx\" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5\n",
    );
    assert.equal(await ok(['create', 'deployment', 'nginx', '--image=nginx', '--replicas=5', '-n', 'vap-test']), 'deployment.apps/nginx created\n');
    // An UPDATE past the limit is refused too.
    const patched = await kubectl(['patch', 'deployment', 'nginx', '-n', 'vap-test', '--type=merge', '-p', '{"spec":{"replicas":7}}']);
    assert.equal(patched.code, 1);
    assert.equal(
      patched.stderr,
      // kubectl prints an Invalid status by its causes (the documentation shows this text).
      "The deployments \"nginx\" is invalid: : ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5\n",
    );
    // The scale subresource is not `deployments` (a rule must name `deployments/scale`), as upstream.
    assert.equal(await ok(['scale', 'deployment', 'nginx', '--replicas=7', '-n', 'vap-test']), 'deployment.apps/nginx scaled\n');
    // Another namespace is not selected by the binding.
    assert.equal(await ok(['create', 'deployment', 'nginx', '--image=nginx', '--replicas=6', '-n', 'vap-other']), 'deployment.apps/nginx created\n');
  });

  test('Warn: kubectl prints the warning and the deployment is created', async () => {
    await ok(['create', 'namespace', 'vap-warn']);
    await ok(['label', 'namespace', 'vap-warn', 'environment=warn']);
    await ok(['apply', '-f', '-'], binding('demo-binding-warn.example.com', 'Warn', 'warn'));
    const r = await kubectl(['create', 'deployment', 'nginx', '--image=nginx', '--replicas=6', '-n', 'vap-warn']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'deployment.apps/nginx created\n');
    assert.equal(r.stderr, "Warning: Validation failed for ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-warn.example.com': failed expression: object.spec.replicas <= 5\n");
  });

  test('params: the limit comes from a ConfigMap; without it the binding denies', async () => {
    await ok(['create', 'namespace', 'params-e2e']);
    await ok(['label', 'namespace', 'params-e2e', 'environment=params']);
    await ok(['apply', '-f', '-'], paramPolicy);

    const missing = await kubectl(['create', 'deployment', 'web', '--image=nginx', '--replicas=1', '-n', 'params-e2e']);
    assert.equal(missing.code, 1);
    assert.equal(
      missing.stderr,
      "error: failed to create deployment: deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-params.example.com' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction\n",
    );

    await ok(['create', 'configmap', 'replica-limit', '-n', 'params-e2e', '--from-literal=maxreplicas=3']);
    const refused = await kubectl(['create', 'deployment', 'web', '--image=nginx', '--replicas=4', '-n', 'params-e2e']);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      "error: failed to create deployment: deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-params.example.com' denied request: object.spec.replicas must be no greater than 3\n",
    );
    assert.equal(await ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=3', '-n', 'params-e2e']), 'deployment.apps/web created\n');
  });

  test('authorizer: a user who may not create pods in the namespace may not create config maps there', async () => {
    await ok(['create', 'namespace', 'vap-authz']);
    await ok(['label', 'namespace', 'vap-authz', 'environment=authz']);
    await ok(['create', 'role', 'cm-writer', '--verb=create', '--resource=configmaps', '-n', 'vap-authz']);
    await ok(['create', 'rolebinding', 'bob-cm-writer', '--role=cm-writer', '--user=bob', '-n', 'vap-authz']);
    await ok(['apply', '-f', '-'], authzPolicy);

    const refused = await kubectl(['create', 'configmap', 'c1', '-n', 'vap-authz', '--as=bob']);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      "error: failed to create configmap: configmaps \"c1\" is forbidden: ValidatingAdmissionPolicy 'pod-creators-only.example.com' with binding 'pod-creators-only-binding.example.com' denied request: bob may not create pods in vap-authz\n",
    );
    // The admin (system:masters) may create pods anywhere.
    assert.equal(await ok(['create', 'configmap', 'c2', '-n', 'vap-authz']), 'configmap/c2 created\n');
    // Once bob may create pods there, the policy lets him through.
    await ok(['create', 'role', 'pod-creator', '--verb=create', '--resource=pods', '-n', 'vap-authz']);
    await ok(['create', 'rolebinding', 'bob-pod-creator', '--role=pod-creator', '--user=bob', '-n', 'vap-authz']);
    let r = await kubectl(['create', 'configmap', 'c1', '-n', 'vap-authz', '--as=bob']);
    for (let i = 0; i < 50 && r.code !== 0; i++) {
      // The RBAC authorizer sees the new binding once its watch delivers it.
      await new Promise((res) => setTimeout(res, 100));
      r = await kubectl(['create', 'configmap', 'c1', '-n', 'vap-authz', '--as=bob']);
    }
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'configmap/c1 created\n');
  });

  test('a policy whose expression does not compile, and a binding without actions, are invalid', async () => {
    const bad = policy.replace('demo-policy.example.com', 'bad-policy.example.com').replace('object.spec.replicas <= 5', 'params.max > 1');
    const r = await kubectl(['apply', '-f', '-'], bad);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      `The ValidatingAdmissionPolicy "bad-policy.example.com" is invalid: spec.validations[0].expression: Invalid value: "params.max > 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.max > 1\n | ^\n`,
    );
    const noActions = binding('no-actions.example.com', '', 'test');
    const b = await kubectl(['apply', '-f', '-'], noActions);
    assert.equal(b.code, 1);
    assert.equal(b.stderr, 'The ValidatingAdmissionPolicyBinding "no-actions.example.com" is invalid: spec.validationActions: Required value: at least one validation action is required\n');
  });
});
