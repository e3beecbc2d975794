/**
 * The real kubectl v1.32 against the API server: a CRD's served versions appear as local APIServices, as
 * on a real kube-apiserver (its CRD registration and autoregister controllers), and go with them.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';
import { runKubectl, type RunResult } from '../tools/kubectl-tools.js';

const crd = (v1beta1Served: boolean): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
  - name: v1beta1
    served: ${v1beta1Served}
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`;

interface APIService {
  metadata: { name: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

describe('kubectl sees the APIServices of CRDs', () => {
  let srv: TestApiServer;
  const kubectlResult = (args: string[], input?: string): Promise<RunResult> =>
    runKubectl(args, { kubeconfig: srv.kubeconfig, ...(input !== undefined ? { input } : {}) });
  const kubectl = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectlResult(args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    return r.stdout;
  };
  /** Retries `check` until it passes: the registration follows the CRD's change, it does not answer it. */
  const eventually = async (check: () => Promise<void>, timeoutMs = 10_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await check();
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  const notFound = async (name: string): Promise<void> => {
    const r = await kubectlResult(['get', 'apiservice', name]);
    assert.equal(r.stderr, `Error from server (NotFound): apiservices.apiregistration.k8s.io "${name}" not found\n`);
  };
  let builtIn: string;

  before(async () => {
    srv = await startTestApiServer();
    builtIn = await kubectl(['get', 'apiservices', '-l', 'kube-aggregator.kubernetes.io/automanaged=onstart', '-o', 'name']);
  });
  after(async () => {
    await srv.stop();
  });

  test('a CRD serving v1 and v1beta1 gets v1.<group> and v1beta1.<group>, Local and Available', async () => {
    assert.equal(await kubectl(['apply', '-f', '-'], crd(true)), 'customresourcedefinition.apiextensions.k8s.io/widgets.stable.example.com created\n');
    await eventually(async () => {
      assert.match(
        await kubectl(['get', 'apiservice', 'v1.stable.example.com', 'v1beta1.stable.example.com']),
        /^NAME\s+SERVICE\s+AVAILABLE\s+AGE\nv1\.stable\.example\.com\s+Local\s+True\s+\d+s\nv1beta1\.stable\.example\.com\s+Local\s+True\s+\d+s\n$/,
      );
    });
    for (const version of ['v1', 'v1beta1']) {
      const svc = JSON.parse(await kubectl(['get', 'apiservice', `${version}.stable.example.com`, '-o', 'json'])) as APIService;
      assert.deepEqual(svc.metadata.labels, { 'kube-aggregator.kubernetes.io/automanaged': 'true' });
      assert.deepEqual(svc.spec, { group: 'stable.example.com', version, groupPriorityMinimum: 1000, versionPriority: 100 });
      assert.deepEqual(
        svc.status?.conditions?.map(({ type, status, reason, message }) => ({ type, status, reason, message })),
        [{ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' }],
      );
    }
  });

  test('v1beta1 no longer served: its APIService goes, v1 stays', async () => {
    assert.equal(await kubectl(['apply', '-f', '-'], crd(false)), 'customresourcedefinition.apiextensions.k8s.io/widgets.stable.example.com configured\n');
    await eventually(() => notFound('v1beta1.stable.example.com'));
    assert.match(await kubectl(['get', 'apiservice', 'v1.stable.example.com', '--no-headers']), /^v1\.stable\.example\.com\s+Local\s+True\s+\d+s\n$/);
  });

  test('deleting the CRD deletes its APIServices and none of the built-in ones', async () => {
    assert.equal(await kubectl(['delete', 'crd', 'widgets.stable.example.com']), 'customresourcedefinition.apiextensions.k8s.io "widgets.stable.example.com" deleted\n');
    await eventually(() => notFound('v1.stable.example.com'));
    await notFound('v1beta1.stable.example.com');
    assert.match(builtIn, /^apiservice\.apiregistration\.k8s\.io\/v1\.\n/);
    assert.equal(await kubectl(['get', 'apiservices', '-l', 'kube-aggregator.kubernetes.io/automanaged=onstart', '-o', 'name']), builtIn);
    assert.match(await kubectl(['get', 'apiservice', 'v1.apps', '--no-headers']), /^v1\.apps\s+Local\s+True\s+\d+s\n$/);
  });
});
