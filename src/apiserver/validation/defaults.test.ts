import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import type { Namespace, PersistentVolume, PersistentVolumeClaim, Pod, Secret, Service } from 'kubernetes-types/core/v1.js';
import { computePodQOS } from '../../api/qos.js';
import { applyDefaults, canonicalizeQuantities, type DefaultedKind, defaultCronJob, defaultDaemonSet, defaultDeployment, defaultNamespace, defaultPersistentVolume, defaultPersistentVolumeClaim, defaultPod, defaultPodTemplateSpec, defaultSecret, defaultService, defaultStatefulSet, imageTag, prepareServiceForUpdate } from './defaults.js';
import { malformedQuantity } from './resources.js';
import type { KubeObject } from '../../client/client.js';

test('imagePullPolicy: Always for :latest or no tag, IfNotPresent otherwise (ParseImageName)', () => {
  const cases: [string, string][] = [
    ['nginx', 'latest'],
    ['nginx:latest', 'latest'],
    ['nginx:1.27', '1.27'],
    ['registry:5000/team/app', 'latest'],
    ['registry:5000/team/app:v1', 'v1'],
    ['nginx@sha256:abcd', ''],
    ['nginx:1.27@sha256:abcd', '1.27'],
  ];
  for (const [image, tag] of cases) assert.equal(imageTag(image), tag, image);
  const pod: Pod = { spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx:1.27' }, { name: 'c', image: 'nginx@sha256:abcd' }] } };
  defaultPod(pod);
  assert.deepEqual(pod.spec?.containers.map((c) => c.imagePullPolicy), ['Always', 'IfNotPresent', 'IfNotPresent']);
});

test('a minimal pod is defaulted as kubectl get -o yaml shows on 1.32', () => {
  const pod: Pod = {
    metadata: { name: 'web', namespace: 'default' },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '500m', memory: '128Mi' } } }] },
  };
  defaultPod(pod);
  assert.deepEqual(pod.spec, {
    containers: [
      {
        name: 'nginx',
        image: 'nginx:1.27',
        imagePullPolicy: 'IfNotPresent',
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '500m', memory: '128Mi' } },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      },
    ],
    dnsPolicy: 'ClusterFirst',
    enableServiceLinks: true,
    restartPolicy: 'Always',
    schedulerName: 'default-scheduler',
    securityContext: {},
    terminationGracePeriodSeconds: 30,
  });
  // The limits became requests, which makes the pod Guaranteed.
  assert.equal(computePodQOS(pod.spec ?? { containers: [] }), 'Guaranteed');
});

test('Deployment defaults: replicas 1, RollingUpdate 25%/25%, history 10, deadline 600; template without enableServiceLinks', () => {
  const d: Deployment = { metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
  defaultDeployment(d);
  assert.equal(d.spec?.replicas, 1);
  assert.deepEqual(d.spec?.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.equal(d.spec?.revisionHistoryLimit, 10);
  assert.equal(d.spec?.progressDeadlineSeconds, 600);
  assert.equal(d.spec?.template.spec?.enableServiceLinks, undefined);
  assert.equal(d.spec?.template.spec?.schedulerName, 'default-scheduler');
  assert.equal((d.spec?.template.metadata as Record<string, unknown>)['creationTimestamp'], null);
  const recreate: Deployment = { spec: { selector: {}, template: {}, strategy: { type: 'Recreate' } } };
  defaultDeployment(recreate);
  assert.deepEqual(recreate.spec?.strategy, { type: 'Recreate' });
});

test('DaemonSet defaults: RollingUpdate maxUnavailable 1 maxSurge 0, history 10', () => {
  const ds: DaemonSet = { spec: { selector: {}, template: { spec: { containers: [] } } } };
  defaultDaemonSet(ds);
  assert.deepEqual(ds.spec?.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  assert.equal(ds.spec?.revisionHistoryLimit, 10);
});

test('CronJob defaults', () => {
  const cj: CronJob = { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { containers: [], restartPolicy: 'OnFailure' } } } } } };
  defaultCronJob(cj);
  assert.equal(cj.spec?.concurrencyPolicy, 'Allow');
  assert.equal(cj.spec?.suspend, false);
  assert.equal(cj.spec?.successfulJobsHistoryLimit, 3);
  assert.equal(cj.spec?.failedJobsHistoryLimit, 1);
  assert.equal(cj.spec?.jobTemplate.spec?.backoffLimit, undefined, 'SetDefaults_Job does not apply to job templates');
  assert.equal(cj.spec?.jobTemplate.spec?.template.spec?.dnsPolicy, 'ClusterFirst');
});

test('Service defaults: ClusterIP, None affinity, TCP, targetPort = port, Cluster traffic policies; LB node ports', () => {
  const s: Service = { spec: { ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] } };
  defaultService(s);
  assert.deepEqual(s.spec, {
    ports: [
      { port: 80, protocol: 'TCP', targetPort: 80 },
      { port: 53, protocol: 'UDP', targetPort: 'dns' },
    ],
    sessionAffinity: 'None',
    type: 'ClusterIP',
    internalTrafficPolicy: 'Cluster',
  });
  const lb: Service = { spec: { type: 'LoadBalancer', ports: [{ port: 443 }] } };
  defaultService(lb);
  assert.equal(lb.spec?.externalTrafficPolicy, 'Cluster');
  assert.equal(lb.spec?.allocateLoadBalancerNodePorts, true);
  const ext: Service = { spec: { type: 'ExternalName', externalName: 'x.example.com' } };
  defaultService(ext);
  assert.equal(ext.spec?.internalTrafficPolicy, undefined);
  const aff: Service = { spec: { sessionAffinity: 'ClientIP', ports: [{ port: 1 }] } };
  defaultService(aff);
  assert.deepEqual(aff.spec?.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
});

test('Service update from NodePort to ClusterIP clears the untouched node ports', () => {
  const old: Service = { spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }], externalTrafficPolicy: 'Cluster' } };
  const cur: Service = { spec: { type: 'ClusterIP', ports: [{ port: 80, nodePort: 30080 }], externalTrafficPolicy: 'Cluster' } };
  prepareServiceForUpdate(cur, old);
  assert.deepEqual(cur.spec, { type: 'ClusterIP', ports: [{ port: 80 }] });
});

test('Namespace: metadata.name label, Active phase, kubernetes finalizer on create', () => {
  const ns: Namespace = { metadata: { name: 'team-a' } };
  defaultNamespace(ns, { create: true });
  assert.deepEqual(ns, { metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
});

test('Secret type Opaque; applyDefaults dispatches by kind', () => {
  const s: Secret = {};
  defaultSecret(s);
  assert.equal(s.type, 'Opaque');
  const s2: Secret = {};
  applyDefaults({ group: '', kind: 'Secret' }, s2);
  assert.equal(s2.type, 'Opaque');
});

test('hostNetwork: container ports default to host ports on Pods, not on templates', () => {
  const pod: Pod = { spec: { hostNetwork: true, containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 9100 }] }] } };
  defaultPod(pod);
  assert.equal(pod.spec?.containers[0]?.ports?.[0]?.hostPort, 9100);
  const ds: DaemonSet = { spec: { selector: {}, template: { spec: { hostNetwork: true, containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 9100 }] }] } } } };
  defaultDaemonSet(ds);
  assert.equal(ds.spec?.template.spec?.containers[0]?.ports?.[0]?.hostPort, undefined);
});

test('quantities are stored in canonical form', () => {
  const pod = { spec: { containers: [{ name: 'a', image: 'i', resources: { limits: { cpu: 1, memory: '1.5Gi' }, requests: { cpu: '.1', memory: '300Mi' } } }], overhead: { cpu: '0.25' }, volumes: [{ name: 'v', emptyDir: { sizeLimit: '1000Mi' } }] } };
  applyDefaults({ group: '', kind: 'Pod' }, pod as unknown as Pod);
  assert.deepEqual(pod.spec.containers[0]?.resources, { limits: { cpu: '1', memory: '1536Mi' }, requests: { cpu: '100m', memory: '300Mi' } });
  assert.deepEqual(pod.spec.overhead, { cpu: '250m' });
  assert.equal(pod.spec.volumes[0]?.emptyDir.sizeLimit, '1000Mi');
});

const quantityCases: { name: string; kind: DefaultedKind; obj: unknown; want: unknown }[] = [
  {
    name: 'pod: requests, limits and overhead as numbers and strings, emptyDir sizeLimit, a downward API divisor',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    obj: {
      spec: {
        containers: [{ name: 'a', resources: { requests: { cpu: 0.1, memory: '1.5Gi' }, limits: { cpu: 1, memory: '1536Mi', 'nvidia.com/gpu': '2' } }, env: [{ name: 'M', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1024Ki' } } }] }],
        initContainers: [{ name: 'i', resources: { requests: { cpu: '.05' } } }],
        overhead: { cpu: 0.25 },
        volumes: [{ name: 'v', emptyDir: { sizeLimit: '1000M' } }, { name: 'w', emptyDir: { sizeLimit: 'lots' } }],
      },
      status: { containerStatuses: [{ name: 'a', allocatedResources: { cpu: '1000m' } }] },
    },
    want: {
      spec: {
        containers: [{ name: 'a', resources: { requests: { cpu: '100m', memory: '1536Mi' }, limits: { cpu: '1', memory: '1536Mi', 'nvidia.com/gpu': '2' } }, env: [{ name: 'M', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } }] }],
        initContainers: [{ name: 'i', resources: { requests: { cpu: '50m' } } }],
        overhead: { cpu: '250m' },
        volumes: [{ name: 'v', emptyDir: { sizeLimit: '1G' } }, { name: 'w', emptyDir: { sizeLimit: 'lots' } }],
      },
      status: { containerStatuses: [{ name: 'a', allocatedResources: { cpu: '1' } }] },
    },
  },
  {
    name: 'pod: metadata is no quantity, whatever its keys (annotations, managedFields)',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    obj: { metadata: { annotations: { sizeLimit: '1.0Gi', requests: '1' }, labels: { limits: '0.5' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': { 'f:overhead': { 'f:cpu': {} } } } }] } },
    want: { metadata: { annotations: { sizeLimit: '1.0Gi', requests: '1' }, labels: { limits: '0.5' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': { 'f:overhead': { 'f:cpu': {} } } } }] } },
  },
  {
    name: 'configmap: data keys named like quantity fields keep their text',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    obj: { data: { sizeLimit: '1.5Gi', limits: '0.5' } },
    want: { data: { sizeLimit: '1.5Gi', limits: '0.5' } },
  },
  {
    name: 'node capacity and allocatable',
    kind: { group: '', version: 'v1', kind: 'Node' },
    obj: { status: { capacity: { cpu: '8', memory: '32Gi', pods: 110 }, allocatable: { cpu: '7800m', memory: '31.5Gi' } } },
    want: { status: { capacity: { cpu: '8', memory: '32Gi', pods: '110' }, allocatable: { cpu: '7800m', memory: '32256Mi' } } },
  },
  {
    name: 'limit range items (max, min, default, defaultRequest, maxLimitRequestRatio)',
    kind: { group: '', version: 'v1', kind: 'LimitRange' },
    obj: { spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { cpu: '.05' }, default: { memory: '0.5Gi' }, defaultRequest: { cpu: 0.25 }, maxLimitRequestRatio: { cpu: '10' } }] } },
    want: { spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { cpu: '50m' }, default: { memory: '512Mi' }, defaultRequest: { cpu: '250m' }, maxLimitRequestRatio: { cpu: '10' } }] } },
  },
  {
    name: 'quota hard and used',
    kind: { group: '', version: 'v1', kind: 'ResourceQuota' },
    obj: { spec: { hard: { 'requests.cpu': '1000m', pods: '10' } }, status: { hard: { cpu: 1e3 }, used: { cpu: '0' } } },
    want: { spec: { hard: { 'requests.cpu': '1', pods: '10' } }, status: { hard: { cpu: '1k' }, used: { cpu: '0' } } },
  },
  {
    name: 'a deployment\'s pod template',
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    obj: { spec: { template: { spec: { containers: [{ name: 'a', resources: { limits: { memory: '0.5Gi' } } }] } } } },
    want: { spec: { template: { spec: { containers: [{ name: 'a', resources: { limits: { memory: '512Mi' } } }] } } } },
  },
  {
    name: 'a HorizontalPodAutoscaler\'s metric targets',
    kind: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
    obj: { spec: { metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1.5Gi' } } }, { type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: 0.5 } } }] } },
    want: { spec: { metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1536Mi' } } }, { type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '500m' } } }] } },
  },
  {
    name: 'a CSIStorageCapacity\'s capacity and maximum volume size',
    kind: { group: 'storage.k8s.io', version: 'v1', kind: 'CSIStorageCapacity' },
    obj: { storageClassName: 's', capacity: '1.5Gi', maximumVolumeSize: 1e9 },
    want: { storageClassName: 's', capacity: '1536Mi', maximumVolumeSize: '1G' },
  },
  {
    name: 'the version comes from the object when the kind names none',
    kind: { group: 'node.k8s.io', kind: 'RuntimeClass' },
    obj: { apiVersion: 'node.k8s.io/v1', handler: 'h', overhead: { podFixed: { cpu: '0.25' } } },
    want: { apiVersion: 'node.k8s.io/v1', handler: 'h', overhead: { podFixed: { cpu: '250m' } } },
  },
];

for (const tc of quantityCases) {
  test(`canonicalizeQuantities: ${tc.name}`, () => {
    const got = JSON.parse(JSON.stringify(tc.obj)) as KubeObject;
    canonicalizeQuantities(tc.kind, got);
    assert.deepEqual(got, tc.want);
  });
}

test('malformedQuantity: upstream\'s decoder message for a malformed quantity field, none for other fields', () => {
  const message = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const pod = { spec: { containers: [{ name: 'a', resources: { limits: { cpu: 'one' } } }] } };
  assert.equal(malformedQuantity({ group: '', version: 'v1', kind: 'Pod' }, pod), message);
  assert.equal(malformedQuantity({ group: '', version: 'v1', kind: 'Pod' }, { spec: { volumes: [{ name: 'v', emptyDir: { sizeLimit: 'lots' } }] } }), message);
  assert.equal(malformedQuantity({ group: '', version: 'v1', kind: 'Pod' }, { spec: { containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: 1e9 } } }] } }), undefined);
  assert.equal(malformedQuantity({ group: '', version: 'v1', kind: 'ConfigMap' }, { data: { sizeLimit: 'lots' }, metadata: { annotations: { requests: 'x' } } }), undefined);
  assert.equal(malformedQuantity({ group: 'example.com', version: 'v1', kind: 'Widget' }, { spec: { limits: { cpu: 'x' } } }), undefined);
});

test('webhook configurations and admission policies get admissionregistration/v1 defaults', () => {
  const vwc = { webhooks: [{ name: 'a.example.com', rules: [{ operations: ['CREATE'] }], clientConfig: { service: { namespace: 'ns', name: 'svc' } } }] };
  applyDefaults({ group: 'admissionregistration.k8s.io', kind: 'ValidatingWebhookConfiguration' }, vwc as never);
  assert.deepEqual(vwc.webhooks[0], {
    name: 'a.example.com',
    rules: [{ operations: ['CREATE'], scope: '*' }],
    clientConfig: { service: { namespace: 'ns', name: 'svc', port: 443 } },
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    timeoutSeconds: 10,
  });
  const mwc = { webhooks: [{ name: 'm.example.com', failurePolicy: 'Ignore', timeoutSeconds: 3, clientConfig: { url: 'https://x' } }] };
  applyDefaults({ group: 'admissionregistration.k8s.io', kind: 'MutatingWebhookConfiguration' }, mwc as never);
  assert.deepEqual(mwc.webhooks[0], {
    name: 'm.example.com',
    failurePolicy: 'Ignore',
    timeoutSeconds: 3,
    clientConfig: { url: 'https://x' },
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    reinvocationPolicy: 'Never',
  });
  const vap = { spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'] }] } } };
  applyDefaults({ group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicy' }, vap as never);
  assert.deepEqual(vap.spec, {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ apiGroups: ['apps'], scope: '*' }], matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} },
  });
  const binding = { spec: { policyName: 'p' } };
  applyDefaults({ group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicyBinding' }, binding as never);
  assert.deepEqual(binding.spec, { policyName: 'p' });
});

// core/v1 defaults_test.go: TestSetDefaultPersistentVolume, TestSetDefaultPersistentVolumeClaim and
// TestSetDefaultEphemeral share one table of volume modes.
const volumeModeCases: { name: string; volumeMode: string | undefined; expectedVolumeMode: string }[] = [
  { name: 'volume mode nil', volumeMode: undefined, expectedVolumeMode: 'Filesystem' },
  { name: 'volume mode filesystem', volumeMode: 'Filesystem', expectedVolumeMode: 'Filesystem' },
  { name: 'volume mode block', volumeMode: 'Block', expectedVolumeMode: 'Block' },
];

for (const tc of volumeModeCases) {
  test(`SetDefaults_PersistentVolume: ${tc.name}`, () => {
    const pv: PersistentVolume = { spec: tc.volumeMode === undefined ? {} : { volumeMode: tc.volumeMode } };
    defaultPersistentVolume(pv);
    assert.equal(pv.status?.phase, 'Pending');
    assert.equal(pv.spec?.persistentVolumeReclaimPolicy, 'Retain');
    assert.equal(pv.spec?.volumeMode, tc.expectedVolumeMode);
  });

  test(`SetDefaults_PersistentVolumeClaim: ${tc.name}`, () => {
    const pvc: PersistentVolumeClaim = { spec: tc.volumeMode === undefined ? {} : { volumeMode: tc.volumeMode } };
    defaultPersistentVolumeClaim(pvc);
    assert.equal(pvc.status?.phase, 'Pending');
    assert.equal(pvc.spec?.volumeMode, tc.expectedVolumeMode);
  });

  test(`SetDefaults_PersistentVolumeClaimSpec of an ephemeral volume's claim template: ${tc.name}`, () => {
    const spec = tc.volumeMode === undefined ? {} : { volumeMode: tc.volumeMode };
    const pod: Pod = { spec: { containers: [], volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec } } }] } };
    defaultPod(pod);
    assert.equal(pod.spec?.volumes?.[0]?.ephemeral?.volumeClaimTemplate?.spec.volumeMode, tc.expectedVolumeMode);
  });
}

test('SetDefaults_PersistentVolume keeps a reclaim policy and a phase that are set', () => {
  const pv = { spec: { persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block' }, status: { phase: 'Bound' } };
  applyDefaults({ group: '', kind: 'PersistentVolume' }, pv as never);
  assert.deepEqual(pv, { spec: { persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block' }, status: { phase: 'Bound' } });
});

test('SetDefaults_PersistentVolumeClaim through applyDefaults: Pending, Filesystem, canonical requests', () => {
  const pvc = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1.5Gi' } } } };
  applyDefaults({ group: '', kind: 'PersistentVolumeClaim' }, pvc);
  assert.deepEqual(pvc, {
    metadata: { name: 'data' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1536Mi' } }, volumeMode: 'Filesystem' },
    status: { phase: 'Pending' },
  });
});

test('a StatefulSet claim template with a status but no phase gets phase Pending (SetDefaults_PersistentVolumeClaim)', () => {
  const sts = { spec: { selector: {}, serviceName: 's', template: {}, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {}, status: { capacity: { storage: '1Gi' } } }] } };
  defaultStatefulSet(sts);
  assert.deepEqual(sts.spec.volumeClaimTemplates[0], {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data', creationTimestamp: null },
    spec: { volumeMode: 'Filesystem' },
    status: { capacity: { storage: '1Gi' }, phase: 'Pending' },
  });
});

// The declarative `+default` markers of core/v1 volume sources (zz_generated.defaults.go), as the 1.32
// OpenAPI documents them, for pod volumes and for the same sources of a PersistentVolume.
const volumeSourceCases: { name: string; source: Record<string, unknown>; want: Record<string, unknown> }[] = [
  { name: 'hostPath: type "" (HostPathUnset)', source: { hostPath: { path: '/data' } }, want: { hostPath: { path: '/data', type: '' } } },
  { name: 'iscsi: iscsiInterface default', source: { iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } }, want: { iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0, iscsiInterface: 'default' } } },
  { name: 'iscsi: an empty iscsiInterface is defaulted too', source: { iscsi: { iscsiInterface: '' } }, want: { iscsi: { iscsiInterface: 'default' } } },
  { name: 'rbd: pool rbd, user admin, keyring /etc/ceph/keyring', source: { rbd: { monitors: ['10.0.0.2:6789'], image: 'img' } }, want: { rbd: { monitors: ['10.0.0.2:6789'], image: 'img', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' } } },
  { name: 'rbd: set values are kept', source: { rbd: { monitors: ['m'], image: 'img', pool: 'p', user: 'u', keyring: '/k' } }, want: { rbd: { monitors: ['m'], image: 'img', pool: 'p', user: 'u', keyring: '/k' } } },
  { name: 'azureDisk: cachingMode ReadWrite, fsType ext4, readOnly false, kind Shared', source: { azureDisk: { diskName: 'd', diskURI: 'u' } }, want: { azureDisk: { diskName: 'd', diskURI: 'u', cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' } } },
  { name: 'azureDisk: set values are kept', source: { azureDisk: { diskName: 'd', diskURI: 'u', cachingMode: 'None', fsType: 'xfs', readOnly: true, kind: 'Managed' } }, want: { azureDisk: { diskName: 'd', diskURI: 'u', cachingMode: 'None', fsType: 'xfs', readOnly: true, kind: 'Managed' } } },
  { name: 'scaleIO: storageMode ThinProvisioned, fsType xfs', source: { scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'x' } } }, want: { scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'x' }, storageMode: 'ThinProvisioned', fsType: 'xfs' } } },
];

for (const tc of volumeSourceCases) {
  test(`pod volume sources: ${tc.name}`, () => {
    const pod = { spec: { containers: [], volumes: [{ name: 'v', ...structuredClone(tc.source) }] } };
    defaultPod(pod);
    assert.deepEqual(pod.spec.volumes[0], { name: 'v', ...tc.want });
  });

  test(`PersistentVolume sources: ${tc.name}`, () => {
    const pv = { spec: { persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', ...structuredClone(tc.source) }, status: { phase: 'Available' } };
    defaultPersistentVolume(pv);
    assert.deepEqual(pv.spec, { persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', ...tc.want });
  });
}

test('pod templates default their volume sources too (SetObjectDefaults_PodTemplate)', () => {
  const tpl = { spec: { containers: [], volumes: [{ name: 'v', rbd: { monitors: ['m'], image: 'i' } }] } };
  defaultPodTemplateSpec(tpl);
  assert.deepEqual(tpl.spec.volumes[0], { name: 'v', rbd: { monitors: ['m'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' } });
});

test('ephemeral containers get SetDefaults_EphemeralContainer (the container defaults) with their nested defaults', () => {
  const pod: Pod = {
    spec: {
      containers: [{ name: 'app', image: 'app:1' }],
      ephemeralContainers: [{ name: 'debugger', image: 'busybox', ports: [{ containerPort: 8080 }], env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }], readinessProbe: { httpGet: { port: 8080 } } }],
    },
  };
  defaultPod(pod);
  assert.deepEqual(pod.spec?.ephemeralContainers?.[0], {
    name: 'debugger',
    image: 'busybox',
    imagePullPolicy: 'Always',
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    resources: {},
    ports: [{ containerPort: 8080, protocol: 'TCP' }],
    env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName', apiVersion: 'v1' } } }],
    readinessProbe: { httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
  });
});
