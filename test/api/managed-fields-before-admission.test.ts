/**
 * Field ownership is recorded from the object the client sent, after defaulting and before mutating
 * admission and the strategy (kube-apiserver's create, update and patch handlers call the field manager
 * first): what the server adds itself belongs to no manager. The expected sets are what a real 1.32 server
 * recorded (../shared/fixtures/apiserver-1.32/tables: a DaemonSet's pods, Services applied by kubectl).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { resources } from '../../src/api/resources.js';
import type { Client, KubeObject } from '../../src/client/client.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';

/** The keys under `f:<part>` of the entry of `manager`. */
function owned(obj: KubeObject, manager: string, part: string): string[] {
  const entry = (obj.metadata?.managedFields ?? []).find((e) => e.manager === manager);
  assert.ok(entry !== undefined, `no managedFields entry of ${manager}`);
  const fields = (entry.fieldsV1 as Record<string, Record<string, unknown>> | undefined)?.[`f:${part}`] ?? {};
  return Object.keys(fields).sort();
}

describe('managedFields leave out what admission and the strategy add', () => {
  let srv: TestApiServer;
  let c: Client;
  before(async () => {
    srv = await startTestApiServer();
    c = srv.inProcess();
    await c.create(resources.serviceaccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
  });
  after(async () => {
    await srv.stop();
  });

  test("a DaemonSet's pod: its spec as sent and defaulted, not the service account, token volume, priority or default tolerations", async () => {
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { generateName: 'agent-', namespace: 'default', labels: { app: 'agent' } },
      spec: {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } } },
        containers: [{ name: 'a', image: 'busybox' }],
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }],
      },
    };
    const created = await c.create<Pod>(resources.pods, pod, { fieldManager: 'kube-controller-manager' });
    // Admission did run: the token volume, the service account and the default tolerations are there.
    assert.ok(created.spec?.volumes?.[0]?.name.startsWith('kube-api-access-'));
    assert.equal(created.spec?.serviceAccountName, 'default');
    assert.equal(created.spec?.tolerations?.length, 2);
    assert.deepEqual(owned(created, 'kube-controller-manager', 'spec'), [
      'f:affinity',
      'f:containers',
      'f:dnsPolicy',
      'f:enableServiceLinks',
      'f:nodeSelector',
      'f:restartPolicy',
      'f:schedulerName',
      'f:securityContext',
      'f:terminationGracePeriodSeconds',
      'f:tolerations',
    ]);
    const container = Object.values(((created.metadata?.managedFields?.[0]?.fieldsV1 as Record<string, Record<string, Record<string, Record<string, unknown>>>>)['f:spec']?.['f:containers']) ?? {})[0];
    assert.equal(container?.['f:volumeMounts'], undefined, 'the token mount is not owned');
  });

  test('a Service: not the cluster IPs, IP families or node ports the server allocates', async () => {
    const svc: Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
      spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
    };
    const created = await c.create<Service>(resources.services, svc, { fieldManager: 'kubectl-client-side-apply' });
    assert.ok(created.spec?.clusterIP !== undefined && created.spec.ports?.[0]?.nodePort !== undefined);
    assert.deepEqual(owned(created, 'kubectl-client-side-apply', 'spec'), ['f:externalTrafficPolicy', 'f:internalTrafficPolicy', 'f:ports', 'f:selector', 'f:sessionAffinity', 'f:type']);
    const port = Object.values((created.metadata?.managedFields?.[0]?.fieldsV1 as Record<string, Record<string, Record<string, Record<string, unknown>>>>)['f:spec']?.['f:ports'] ?? {}).find((v) => typeof v === 'object' && Object.keys(v as object).length > 0) as Record<string, unknown>;
    assert.deepEqual(Object.keys(port).sort(), ['.', 'f:port', 'f:protocol', 'f:targetPort']);
  });

  test('a status patch records its manager for the status it changed, and an update its own fields', async () => {
    await c.create(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { a: '1' } }, { fieldManager: 'creator' });
    const updated = await c.patch(resources.configmaps, 'cm', 'merge', { data: { b: '2' } }, { namespace: 'default', fieldManager: 'patcher' });
    assert.deepEqual(owned(updated, 'patcher', 'data'), ['f:b']);
    const pod = await c.create<Pod>(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'st', namespace: 'default' }, spec: { containers: [{ name: 'a', image: 'busybox' }] } });
    const patched = await c.patch<Pod>(resources.pods, pod.metadata?.name ?? '', 'strategic', { status: { conditions: [{ type: 'Example', status: 'True' }] } }, { namespace: 'default', subresource: 'status', fieldManager: 'kubelet' });
    assert.deepEqual(owned(patched, 'kubelet', 'status'), ['f:conditions']);
    assert.equal((patched.metadata?.managedFields ?? []).find((e) => e.manager === 'kubelet')?.subresource, 'status');
  });
});
