/**
 * The real kubectl v1.32 and PodSecurity admission on `kubemix up`: labelling a namespace with an enforce level
 * warns about the pods already there, a violating pod is refused with kube-apiserver's message, a compliant one
 * is created, a Deployment in a warn=baseline namespace is created with kubectl's `Warning:` line, and bad label
 * values are refused.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';

const pod = (name: string, securityContext = ''): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: psa-e2e
spec:
  containers:
  - name: app
    image: nginx:1.27
${securityContext}`;

const compliant = `apiVersion: v1
kind: Pod
metadata:
  name: compliant
  namespace: psa-e2e
spec:
  securityContext:
    runAsNonRoot: true
    seccompProfile:
      type: RuntimeDefault
  containers:
  - name: app
    image: nginx:1.27
    securityContext:
      allowPrivilegeEscalation: false
      capabilities:
        drop: ["ALL"]
`;

const privilegedDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: node-agent
  namespace: psa-e2e
spec:
  replicas: 1
  selector:
    matchLabels: {app: node-agent}
  template:
    metadata:
      labels: {app: node-agent}
    spec:
      hostNetwork: true
      containers:
      - name: agent
        image: nginx:1.27
        securityContext:
          privileged: true
`;

const restrictedDetail = (container: string): string =>
  `allowPrivilegeEscalation != false (container "${container}" must set securityContext.allowPrivilegeEscalation=false), ` +
  `unrestricted capabilities (container "${container}" must set securityContext.capabilities.drop=["ALL"]), ` +
  `runAsNonRoot != true (pod or container "${container}" must set securityContext.runAsNonRoot=true), ` +
  `seccompProfile (pod or container "${container}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`;

describe('kubectl and PodSecurity admission', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c.stop();
  });

  test('enforce=restricted: existing-pod warnings, refusal, admission; warn=baseline on a Deployment; bad labels', async () => {
    await c.kubectl(['create', 'namespace', 'psa-e2e']);
    // Unlabelled namespaces are privileged: anything goes.
    await c.kubectl(['apply', '-f', '-'], pod('legacy'));

    const labelled = await c.kubectlResult(['label', 'namespace', 'psa-e2e', 'pod-security.kubernetes.io/enforce=restricted']);
    assert.equal(labelled.code, 0, labelled.stderr);
    assert.equal(labelled.stdout, 'namespace/psa-e2e labeled\n');
    assert.equal(
      labelled.stderr,
      'Warning: existing pods in namespace "psa-e2e" violate the new PodSecurity enforce level "restricted:latest"\n' +
        'Warning: legacy: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile\n',
    );

    const refused = await c.kubectlResult(['apply', '-f', '-'], pod('violating'));
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, `Error from server (Forbidden): error when creating "STDIN": pods "violating" is forbidden: violates PodSecurity "restricted:latest": ${restrictedDetail('app')}\n`);

    const created = await c.kubectlResult(['apply', '-f', '-'], compliant);
    assert.deepEqual([created.code, created.stdout, created.stderr], [0, 'pod/compliant created\n', '']);

    await c.kubectl(['label', 'namespace', 'psa-e2e', 'pod-security.kubernetes.io/warn=baseline']);
    const deployed = await c.kubectlResult(['apply', '-f', '-'], privilegedDeployment);
    assert.equal(deployed.code, 0, deployed.stderr);
    assert.equal(deployed.stdout, 'deployment.apps/node-agent created\n');
    assert.equal(
      deployed.stderr,
      'Warning: would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true), privileged (container "agent" must not set securityContext.privileged=true)\n',
    );

    const bad = await c.kubectlResult(['label', 'namespace', 'psa-e2e', 'pod-security.kubernetes.io/enforce=strict', '--overwrite']);
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr,
      'The Namespace "psa-e2e" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted\n',
    );
  });
});
