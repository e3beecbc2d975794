/**
 * The real kubectl v1.32 and the Job policies on `kubemix up`: a podFailurePolicy FailJob rule on an exit
 * code, backoffLimitPerIndex with failing indexes, and a successPolicy that completes a Job early. The
 * simulated containers exit as the `kubemix.dev/simulate` annotation of the pod template says.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';

const ns = 'jobs-e2e';

const failJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-pod-failure-policy-failjob
  namespace: ${ns}
spec:
  completions: 1
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        containerName: main-container
        operator: In
        values: [42]
  template:
    metadata:
      annotations:
        kubemix.dev/simulate: exit=42,after=200ms
    spec:
      restartPolicy: Never
      containers:
      - name: main-container
        image: docker.io/library/bash:5
        command: ["bash", "-c", "exit 42"]
`;

const perIndex = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-backoff-limit-per-index
  namespace: ${ns}
spec:
  completions: 2
  parallelism: 2
  completionMode: Indexed
  backoffLimitPerIndex: 0
  template:
    metadata:
      annotations:
        kubemix.dev/simulate: exit=1,after=200ms
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/bash:5
        command: ["bash", "-c", "exit 1"]
`;

const successPolicy = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-success-policy
  namespace: ${ns}
spec:
  completions: 5
  parallelism: 1
  completionMode: Indexed
  successPolicy:
    rules:
    - succeededIndexes: "0"
  template:
    metadata:
      annotations:
        kubemix.dev/simulate: exit=0,after=200ms
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/bash:5
`;

describe('kubectl and the Job policies', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
    await c.kubectl(['create', 'namespace', ns]);
  });
  after(async () => {
    await c.stop();
  });

  const finished = (name: string) =>
    c.eventually(
      `Job ${name} finished`,
      async () => {
        const s = await c.kubectl(['get', 'job', name, '-n', ns, '-o', 'jsonpath={.status.conditions[?(@.type=="Complete")].status}{.status.conditions[?(@.type=="Failed")].status}']);
        return s === '' ? undefined : s;
      },
      60_000,
    );

  test('a FailJob rule on exit code 42 fails the Job with the upstream message', async () => {
    await c.kubectl(['apply', '-f', '-'], failJob);
    await finished('job-pod-failure-policy-failjob');
    const pod = await c.kubectl(['get', 'pods', '-n', ns, '-l', 'job-name=job-pod-failure-policy-failjob', '-o', 'jsonpath={.items[0].metadata.name}']);
    const got = await c.kubectl(['get', 'job', 'job-pod-failure-policy-failjob', '-n', ns, '-o', 'jsonpath={.status.conditions[?(@.type=="Failed")].reason}|{.status.conditions[?(@.type=="Failed")].message}|{.status.failed}']);
    assert.equal(got, `PodFailurePolicy|Container main-container for pod ${ns}/${pod} failed with exit code 42 matching FailJob rule at index 0|1`);
    const table = await c.kubectl(['get', 'job', 'job-pod-failure-policy-failjob', '-n', ns, '--no-headers']);
    assert.match(table, /^job-pod-failure-policy-failjob\s+Failed\s+0\/1\s/);
  });

  test('backoffLimitPerIndex: the failed indexes are listed and the Job fails with FailedIndexes', async () => {
    await c.kubectl(['apply', '-f', '-'], perIndex);
    await finished('job-backoff-limit-per-index');
    const got = await c.kubectl(['get', 'job', 'job-backoff-limit-per-index', '-n', ns, '-o', 'jsonpath={.status.failedIndexes}|{.status.failed}|{.status.conditions[?(@.type=="Failed")].reason}|{.status.conditions[?(@.type=="Failed")].message}']);
    assert.equal(got, '0,1|2|FailedIndexes|Job has failed indexes');
  });

  test('successPolicy: the Job completes once index 0 succeeded', async () => {
    await c.kubectl(['apply', '-f', '-'], successPolicy);
    await finished('job-success-policy');
    const got = await c.kubectl([
      'get', 'job', 'job-success-policy', '-n', ns, '-o',
      'jsonpath={.status.completedIndexes}|{.status.succeeded}|{.status.conditions[?(@.type=="SuccessCriteriaMet")].message}|{.status.conditions[?(@.type=="Complete")].reason}',
    ]);
    assert.equal(got, '0|1|Matched rules at index 0|SuccessPolicy');
    const table = await c.kubectl(['get', 'job', 'job-success-policy', '-n', ns, '--no-headers']);
    assert.match(table, /^job-success-policy\s+Complete\s+1\/5\s/);
  });
});
