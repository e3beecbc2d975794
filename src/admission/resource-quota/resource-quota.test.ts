/** Cases of plugin/pkg/admission/resourcequota/admission_test.go (v1.32), with its names and values. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim, Pod, ResourceQuota, Service } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import { attrs, fakeLookup } from '../_testing.js';
import type { AdmissionLookup } from '../types.js';
import { create } from './resource-quota.js';

function quota(hard: Record<string, string>, used: Record<string, string>, extra: Partial<NonNullable<ResourceQuota['spec']>> = {}, name = 'quota'): ResourceQuota {
  return { metadata: { name, namespace: 'test', resourceVersion: '124' }, spec: { hard, ...extra }, status: { hard, used } };
}

/** `validPod(name, numContainers, resources)`. */
function validPod(name: string, n: number, requests: Record<string, string>, limits: Record<string, string> = {}): Pod {
  const containers = Array.from({ length: n }, (_, i) => ({
    name: `ctr-${i}`,
    image: 'image',
    resources: { ...(Object.keys(requests).length > 0 ? { requests } : {}), ...(Object.keys(limits).length > 0 ? { limits } : {}) },
  }));
  return { metadata: { name, namespace: 'test' }, spec: { containers } };
}

/** Records the status writes of a fake lookup. */
function recording(objs: { resourceQuotas: ResourceQuota[] }): { lookup: AdmissionLookup; writes: ResourceQuota[] } {
  const base = fakeLookup(objs);
  const writes: ResourceQuota[] = [];
  return {
    writes,
    lookup: {
      ...base,
      updateResourceQuotaStatus: async (q) => {
        writes.push(structuredClone(q));
        return base.updateResourceQuotaStatus(q);
      },
    },
  };
}

test('TestAdmissionIgnoresDelete: deletes are admitted', async () => {
  const { lookup, writes } = recording({ resourceQuotas: [quota({ pods: '0' }, { pods: '0' })] });
  await create().validate(attrs(undefined, { operation: 'DELETE', namespace: 'test', name: 'name' }), lookup);
  assert.equal(writes.length, 0);
});

test('TestAdmissionIgnoresSubresources: a pod over quota is refused, the same request to a subresource is not', async () => {
  const { lookup } = recording({ resourceQuotas: [quota({ memory: '2Gi' }, { memory: '1Gi' })] });
  const pod = validPod('123', 1, { cpu: '100m', memory: '2Gi' });
  await assert.rejects(create().validate(attrs(pod), lookup), { code: 403 });
  await create().validate(attrs(pod, { subresource: 'subresource' }), lookup);
});

test('TestAdmitBelowQuotaLimit: the pod usage is charged to the quota', async () => {
  const { lookup, writes } = recording({ resourceQuotas: [quota({ cpu: '3', memory: '100Gi', pods: '5' }, { cpu: '1', memory: '50Gi', pods: '3' })] });
  await create().validate(attrs(validPod('allowed-pod', 1, { cpu: '100m', memory: '2Gi' })), lookup);
  assert.equal(writes.length, 1);
  assert.deepEqual(writes[0]?.status?.used, { cpu: '1100m', memory: '52Gi', pods: '4' });
});

test('TestAdmitDryRun: dry-run is checked but not charged', async () => {
  const { lookup, writes } = recording({ resourceQuotas: [quota({ cpu: '3', memory: '100Gi', pods: '5' }, { cpu: '1', memory: '50Gi', pods: '3' })] });
  await create().validate({ ...attrs(validPod('allowed-pod', 1, { cpu: '100m', memory: '2Gi' })), dryRun: true }, lookup);
  await assert.rejects(create().validate({ ...attrs(validPod('too-large-pod', 1, { cpu: '100m', memory: '60Gi' })), dryRun: true }, lookup));
  assert.equal(writes.length, 0);
});

test('TestAdmitHandlesOldObjects: a LoadBalancer turned NodePort charges the node port, keeps the load balancer', async () => {
  const { lookup, writes } = recording({
    resourceQuotas: [quota({ services: '10', 'services.loadbalancers': '10', 'services.nodeports': '10' }, { services: '1', 'services.loadbalancers': '1', 'services.nodeports': '0' })],
  });
  const existing: Service = { metadata: { name: 'service', namespace: 'test', resourceVersion: '1' }, spec: { type: 'LoadBalancer' } };
  const updated: Service = { metadata: { name: 'service', namespace: 'test' }, spec: { type: 'NodePort', ports: [{ port: 1234 }] } };
  await create().validate(attrs(updated, { operation: 'UPDATE', resource: resources.services, oldObject: existing }), lookup);
  assert.deepEqual(writes[0]?.status?.used, { services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' });
});

const pvcQuota = (): ResourceQuota => quota({ persistentvolumeclaims: '3', 'requests.storage': '100Gi' }, { persistentvolumeclaims: '1', 'requests.storage': '10Gi' });
const pvc = (storage: string, rv?: string): PersistentVolumeClaim => ({
  metadata: { name: 'pvc-to-update', namespace: 'test', ...(rv !== undefined ? { resourceVersion: rv } : {}) },
  spec: { resources: { requests: { storage } } },
});

test('TestAdmitHandlesNegativePVCUpdates: shrinking a claim writes nothing', async () => {
  const { lookup, writes } = recording({ resourceQuotas: [pvcQuota()] });
  await create().validate(attrs(pvc('5Gi'), { operation: 'UPDATE', resource: resources.persistentvolumeclaims, oldObject: pvc('10Gi', '1') }), lookup);
  assert.equal(writes.length, 0);
});

test('TestAdmitHandlesPVCUpdates: growing a claim charges the difference', async () => {
  const { lookup, writes } = recording({ resourceQuotas: [pvcQuota()] });
  await create().validate(attrs(pvc('15Gi'), { operation: 'UPDATE', resource: resources.persistentvolumeclaims, oldObject: pvc('10Gi', '1') }), lookup);
  assert.deepEqual(writes[0]?.status?.used, { persistentvolumeclaims: '1', 'requests.storage': '15Gi' });
});

test('TestAdmitHandlesCreatingUpdates: an update without a prior resourceVersion is charged in full', async () => {
  const { lookup, writes } = recording({
    resourceQuotas: [quota({ services: '10', 'services.loadbalancers': '10', 'services.nodeports': '10' }, { services: '1', 'services.loadbalancers': '1', 'services.nodeports': '0' })],
  });
  const old: Service = { metadata: { name: 'service', namespace: 'test' }, spec: { type: 'LoadBalancer' } };
  const svc: Service = { metadata: { name: 'service', namespace: 'test' }, spec: { type: 'NodePort', ports: [{ port: 1234 }] } };
  await create().validate(attrs(svc, { operation: 'UPDATE', resource: resources.services, oldObject: old }), lookup);
  assert.deepEqual(writes[0]?.status?.used, { services: '2', 'services.loadbalancers': '1', 'services.nodeports': '1' });
});

test('TestAdmitExceedQuotaLimit: a pod over the limit is refused with the exceeded amounts', async () => {
  const { lookup } = recording({ resourceQuotas: [quota({ cpu: '3', memory: '100Gi', pods: '5' }, { cpu: '1', memory: '50Gi', pods: '3' })] });
  await assert.rejects(create().validate(attrs(validPod('not-allowed-pod', 3, { cpu: '2', memory: '2Gi' })), lookup), {
    message: 'pods "not-allowed-pod" is forbidden: exceeded quota: quota, requested: cpu=6, used: cpu=1, limited: cpu=3',
  });
});

test('TestAdmitEnforceQuotaConstraints: a quota on cpu and memory requires every container to set them', async () => {
  const { lookup } = recording({
    resourceQuotas: [quota({ cpu: '3', memory: '100Gi', 'limits.memory': '200Gi', pods: '5' }, { cpu: '1', memory: '50Gi', 'limits.memory': '100Gi', pods: '3' })],
  });
  await assert.rejects(create().validate(attrs(validPod('not-allowed-pod', 1, { cpu: '100m' }, { cpu: '200m' })), lookup), {
    message: 'pods "not-allowed-pod" is forbidden: failed quota: quota: must specify limits.memory for: ctr-0; memory for: ctr-0',
  });
});

test('TestAdmitPodInNamespaceWithoutQuota: no quota, no write', async () => {
  const { lookup, writes } = recording({ resourceQuotas: [{ ...quota({ cpu: '1' }, { cpu: '1' }), metadata: { name: 'quota', namespace: 'other', resourceVersion: '1' } }] });
  await create().validate(attrs(validPod('allowed-pod', 1, { cpu: '100m', memory: '2Gi' })), lookup);
  assert.equal(writes.length, 0);
});

test('TestAdmitBelowTerminatingQuotaLimit: only the Terminating quota is charged for a pod with activeDeadlineSeconds', async () => {
  const { lookup, writes } = recording({
    resourceQuotas: [
      quota({ cpu: '3', memory: '100Gi', pods: '5' }, { cpu: '1', memory: '50Gi', pods: '3' }, { scopes: ['NotTerminating'] }, 'quota-non-terminating'),
      quota({ cpu: '3', memory: '100Gi', pods: '4' }, { cpu: '1', memory: '50Gi', pods: '2' }, { scopes: ['Terminating'] }, 'quota-terminating'),
    ],
  });
  const pod = validPod('allowed-pod', 1, { cpu: '100m', memory: '2Gi' });
  (pod.spec ??= { containers: [] }).activeDeadlineSeconds = 60;
  await create().validate(attrs(pod), lookup);
  assert.deepEqual(writes.map((w) => [w.metadata?.name, w.status?.used]), [['quota-terminating', { cpu: '1100m', memory: '52Gi', pods: '3' }]]);
});

test('TestAdmitBelowBestEffortQuotaLimit: a best-effort pod is charged to the BestEffort quota only', async () => {
  const { lookup, writes } = recording({
    resourceQuotas: [
      quota({ pods: '5' }, { pods: '3' }, { scopes: ['BestEffort'] }, 'quota-besteffort'),
      quota({ pods: '5' }, { pods: '3' }, { scopes: ['NotBestEffort'] }, 'quota-not-besteffort'),
    ],
  });
  await create().validate(attrs(validPod('allowed-pod', 1, {})), lookup);
  assert.deepEqual(writes.map((w) => [w.metadata?.name, w.status?.used]), [['quota-besteffort', { pods: '4' }]]);
});

test('TestAdmitBestEffortQuotaLimitIgnoresBurstable: a burstable pod leaves a BestEffort quota alone', async () => {
  const { lookup, writes } = recording({ resourceQuotas: [quota({ pods: '5' }, { pods: '3' }, { scopes: ['BestEffort'] })] });
  await create().validate(attrs(validPod('allowed-pod', 1, { cpu: '100m', memory: '1Gi' })), lookup);
  assert.equal(writes.length, 0);
});

test('TestHasUsageStats: a quota whose usage is not known yet refuses what it tracks', async () => {
  const { lookup } = recording({ resourceQuotas: [quota({ pods: '5', 'limits.cpu': '2' }, { 'limits.cpu': '0' })] });
  await assert.rejects(create().validate(attrs(validPod('p', 1, { cpu: '1' }, { cpu: '1' })), lookup), {
    message: 'pods "p" is forbidden: status unknown for quota: quota, resources: limits.cpu,pods',
  });
});

test('TestAdmitRejectsNegativeUsage: negative requests are refused', async () => {
  const { lookup } = recording({ resourceQuotas: [quota({ persistentvolumeclaims: '3', 'requests.storage': '100Gi' }, { persistentvolumeclaims: '1', 'requests.storage': '10Gi' })] });
  await assert.rejects(create().validate(attrs(pvc('-1Gi'), { resource: resources.persistentvolumeclaims }), lookup), {
    message: 'persistentvolumeclaims "pvc-to-update" is forbidden: quota usage is negative for resource(s): requests.storage',
  });
});

test('TestAdmitWhenUnrelatedResourceExceedsQuota: a pod is admitted when only services are over quota', async () => {
  const { lookup } = recording({ resourceQuotas: [quota({ services: '3', pods: '4' }, { services: '4', pods: '1' })] });
  await create().validate(attrs(validPod('allowed-pod', 1, {})), lookup);
});

test('object counts: count/<resource>.<group> and the legacy configmaps name', async () => {
  const { lookup, writes } = recording({ resourceQuotas: [quota({ 'count/deployments.apps': '1', configmaps: '2' }, { 'count/deployments.apps': '1', configmaps: '0' })] });
  await assert.rejects(create().validate(attrs({ metadata: { name: 'web', namespace: 'test' } }, { resource: resources.deployments }), lookup), {
    message: 'deployments.apps "web" is forbidden: exceeded quota: quota, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1',
  });
  await create().validate(attrs({ metadata: { name: 'cm', namespace: 'test' } }, { resource: resources.configmaps }), lookup);
  assert.deepEqual(writes[0]?.status?.used, { configmaps: '1', 'count/deployments.apps': '1' });
});

test('concurrent creates in one namespace see each other: pods: 2 admits two of three', async () => {
  const { lookup } = recording({ resourceQuotas: [quota({ pods: '2' }, { pods: '0' })] });
  const plugin = create();
  const results = await Promise.allSettled([1, 2, 3].map((i) => plugin.validate(attrs(validPod(`p${i}`, 1, {})), lookup)));
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected']);
  assert.equal(((results[2] as PromiseRejectedResult).reason as Error).message, 'pods "p3" is forbidden: exceeded quota: quota, requested: pods=1, used: pods=2, limited: pods=2');
});

test('the quota message of the brief: limits.cpu exceeded', async () => {
  const { lookup } = recording({ resourceQuotas: [quota({ pods: '2', 'limits.cpu': '2' }, { pods: '1', 'limits.cpu': '1' }, {}, 'compute')] });
  await assert.rejects(create().validate(attrs(validPod('x', 1, { cpu: '2' }, { cpu: '2' })), lookup), {
    message: 'pods "x" is forbidden: exceeded quota: compute, requested: limits.cpu=2, used: limits.cpu=1, limited: limits.cpu=2',
  });
});
