/**
 * Defaulting through the real API, over HTTPS and in process: objects read back with kube-apiserver 1.32's
 * defaults, and an autoscaling/v1 HorizontalPodAutoscaler is defaulted as v1 before it is converted to the
 * autoscaling/v2 storage form (which then gets v2's defaults, as objects read back from etcd do).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HorizontalPodAutoscalerV1 } from 'kubernetes-types/autoscaling/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { PersistentVolumeClaim, Service, TypedLocalObjectReference } from 'kubernetes-types/core/v1.js';
import type { CSIDriver } from 'kubernetes-types/storage/v1.js';
import { resources, type ResourceType } from '../../src/api/resources.js';
import type { Client } from '../../src/client/client.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';

const hpaV1: ResourceType = { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true };
const csidrivers: ResourceType = { group: 'storage.k8s.io', version: 'v1', resource: 'csidrivers', kind: 'CSIDriver', namespaced: false };
const scaleTargetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const cpu80 = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];

describe('defaults through the API', () => {
  let srv: TestApiServer;
  const clients = new Map<string, Client>();
  before(async () => {
    srv = await startTestApiServer();
    clients.set('https', srv.http()).set('in-process', srv.inProcess());
  });
  after(() => srv.stop());

  for (const which of ['https', 'in-process']) {
    const client = (): Client => clients.get(which) ?? assert.fail(`no ${which} client`);
    const p = which === 'https' ? 'h' : 'i';

    test(`${which}: a status write is defaulted too: a load balancer's ingress IP gets ipMode VIP`, async () => {
      const svc = await client().create<Service>(
        resources.services,
        { apiVersion: 'v1', kind: 'Service', metadata: { name: `${p}-lb`, namespace: 'default' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
        { namespace: 'default' },
      );
      const patched = await client().patch<Service>(
        resources.services,
        svc.metadata?.name ?? '',
        'merge',
        { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }, { hostname: 'lb.example.com' }] } } },
        { namespace: 'default', subresource: 'status' },
      );
      assert.deepEqual(patched.status?.loadBalancer?.ingress, [{ ip: '192.0.2.10', ipMode: 'VIP' }, { hostname: 'lb.example.com' }]);
    });

    test(`${which}: a PVC cloned through dataSource reads back with dataSourceRef too; a populator in dataSource alone is dropped`, async () => {
      const claim = (name: string, dataSource: TypedLocalObjectReference): PersistentVolumeClaim => ({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name, namespace: 'default' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, dataSource },
      });
      const clone = await client().create<PersistentVolumeClaim>(resources.persistentvolumeclaims, claim(`${p}-clone`, { kind: 'PersistentVolumeClaim', name: 'src' }));
      // apiGroup is a pointer without omitempty: Go writes the nil as null.
      assert.deepEqual([clone.spec?.dataSource, clone.spec?.dataSourceRef], [
        { apiGroup: null, kind: 'PersistentVolumeClaim', name: 'src' },
        { apiGroup: null, kind: 'PersistentVolumeClaim', name: 'src' },
      ]);
      const populated = await client().create<PersistentVolumeClaim>(resources.persistentvolumeclaims, claim(`${p}-pop`, { apiGroup: 'example.com', kind: 'Populator', name: 'p' }));
      assert.deepEqual([populated.spec?.dataSource, populated.spec?.dataSourceRef], [undefined, undefined]);
    });

    test(`${which}: an autoscaling/v2 HPA without minReplicas or metrics reads back with minReplicas 1 and the 80% CPU target`, async () => {
      const created = await client().create<HorizontalPodAutoscaler>(resources.horizontalpodautoscalers, {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: `${p}-v2`, namespace: 'default' },
        spec: { scaleTargetRef, maxReplicas: 4 },
      });
      assert.deepEqual(created.spec, { scaleTargetRef, minReplicas: 1, maxReplicas: 4, metrics: cpu80 });
      const read = await client().get<HorizontalPodAutoscaler>(resources.horizontalpodautoscalers, `${p}-v2`, { namespace: 'default' });
      assert.deepEqual(read.spec, { scaleTargetRef, minReplicas: 1, maxReplicas: 4, metrics: cpu80 }, 'no behavior is added');
    });

    test(`${which}: an autoscaling/v1 HPA without a CPU target reads back as 80% in v1 and as the CPU metric in v2; a PUT without minReplicas gets 1 again`, async () => {
      const name = `${p}-v1`;
      const created = await client().create<HorizontalPodAutoscalerV1>(hpaV1, {
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name, namespace: 'default' },
        spec: { scaleTargetRef, maxReplicas: 3 },
      });
      assert.equal(created.apiVersion, 'autoscaling/v1');
      assert.deepEqual(created.spec, { scaleTargetRef, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 80 });
      const asV2 = await client().get<HorizontalPodAutoscaler>(resources.horizontalpodautoscalers, name, { namespace: 'default' });
      assert.deepEqual(asV2.spec, { scaleTargetRef, minReplicas: 1, maxReplicas: 3, metrics: cpu80 });

      const replaced = await client().update<HorizontalPodAutoscalerV1>(hpaV1, { ...created, spec: { scaleTargetRef, maxReplicas: 6, targetCPUUtilizationPercentage: 70 } });
      assert.deepEqual(replaced.spec, { scaleTargetRef, minReplicas: 1, maxReplicas: 6, targetCPUUtilizationPercentage: 70 });
    });

    test(`${which}: a NetworkPolicy gets its policy types and TCP ports`, async () => {
      const np = await client().create<NetworkPolicy>(resources.networkpolicies, {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: `${p}-np`, namespace: 'default' },
        spec: { podSelector: { matchLabels: { app: 'web' } }, egress: [{ ports: [{ port: 53 }] }] },
      });
      assert.deepEqual(np.spec, { podSelector: { matchLabels: { app: 'web' } }, egress: [{ ports: [{ port: 53, protocol: 'TCP' }] }], policyTypes: ['Ingress', 'Egress'] });
    });

    test(`${which}: a CSIDriver (served, though not in the client's resource list) gets SetDefaults_CSIDriver`, async () => {
      const driver = await client().create<CSIDriver>(csidrivers, { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: `${p}.csi.example.com` }, spec: {} });
      assert.deepEqual(driver.spec, {
        attachRequired: true,
        podInfoOnMount: false,
        storageCapacity: false,
        fsGroupPolicy: 'ReadWriteOnceWithFSType',
        volumeLifecycleModes: ['Persistent'],
        requiresRepublish: false,
        seLinuxMount: false,
      });
    });
  }
});
