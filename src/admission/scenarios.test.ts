/**
 * The shared scenarios' manifests (shared/scenarios/runtimeclass-windows-2019.yaml, runtimeclass-v1beta1.yaml),
 * inlined, through defaulting, admission, allocation and validation as the API server runs them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import { resources } from '../api/resources.js';
import { aggregateMessage } from '../api/field-errors.js';
import { ServiceAllocation } from '../apiserver/allocators/service-allocation.js';
import { applyDefaults, defaultPod, validate } from '../apiserver/validation/index.js';
import { attrs, fakeLookup } from './_testing.js';
import { defaultAdmissionChain, runMutating, runValidating } from './registry.js';

const runtimeClassYaml = `
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: windows-2019
handler: example-container-runtime-handler
scheduling:
  nodeSelector:
    kubernetes.io/os: 'windows'
    kubernetes.io/arch: 'amd64'
    node.kubernetes.io/windows-build: '10.0.17763'
  tolerations:
  - effect: NoSchedule
    key: os
    operator: Equal
    value: "windows"
`;

const deploymentYaml = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: iis-2019
  namespace: default
  labels:
    app: iis-2019
spec:
  replicas: 1
  template:
    metadata:
      name: iis-2019
      labels:
        app: iis-2019
    spec:
      runtimeClassName: windows-2019
      containers:
      - name: iis
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019
        resources:
          limits:
            cpu: 1
            memory: 800Mi
          requests:
            cpu: .1
            memory: 300Mi
        ports:
          - containerPort: 80
  selector:
    matchLabels:
      app: iis-2019
`;

const serviceYaml = `
apiVersion: v1
kind: Service
metadata:
  name: iis
  namespace: default
spec:
  type: LoadBalancer
  ports:
  - protocol: TCP
    port: 80
  selector:
    app: iis-2019
`;

test('scenario 2: the RuntimeClass, Deployment and LoadBalancer Service are valid; a pod of the Deployment gets the Windows 2019 constraints', async () => {
  const rc = parse(runtimeClassYaml) as RuntimeClass;
  assert.deepEqual(validate({ group: 'node.k8s.io', kind: 'RuntimeClass' }, rc), []);

  const d = parse(deploymentYaml) as Deployment;
  applyDefaults({ group: 'apps', kind: 'Deployment' }, d);
  assert.deepEqual(validate({ group: 'apps', kind: 'Deployment' }, d), []);

  const svc = parse(serviceYaml) as Service;
  applyDefaults({ group: '', kind: 'Service' }, svc);
  new ServiceAllocation().allocateCreate(svc).commit();
  assert.deepEqual(validate({ group: '', kind: 'Service' }, svc), []);
  assert.ok((svc.spec?.ports?.[0]?.nodePort ?? 0) >= 30000);

  const pod: Pod = { metadata: { name: 'iis-2019-abc', namespace: 'default', labels: { app: 'iis-2019' } }, spec: structuredClone(d.spec?.template.spec) ?? { containers: [] } };
  defaultPod(pod);
  const lookup = fakeLookup({ runtimeClasses: [rc], namespaces: [{ metadata: { name: 'default' }, status: { phase: 'Active' } }], serviceAccounts: [{ metadata: { name: 'default', namespace: 'default' } }] });
  const chain = defaultAdmissionChain();
  const a = attrs(pod, { resource: resources.pods });
  await runMutating(chain, a, lookup);
  assert.deepEqual(validate({ group: '', kind: 'Pod' }, pod), []);
  await runValidating(chain, a, lookup);
  assert.deepEqual(pod.spec?.nodeSelector, { 'kubernetes.io/os': 'windows', 'kubernetes.io/arch': 'amd64', 'node.kubernetes.io/windows-build': '10.0.17763' });
  assert.deepEqual(pod.spec?.tolerations?.at(-1), { effect: 'NoSchedule', key: 'os', operator: 'Equal', value: 'windows' });
  assert.deepEqual(pod.spec?.containers[0]?.resources, { limits: { cpu: '1', memory: '800Mi' }, requests: { cpu: '100m', memory: '300Mi' } });
});

test('scenario 4: the guide Deployment without spec.selector is rejected as invalid', () => {
  const d = parse(deploymentYaml.replace(/ {2}selector:\n {4}matchLabels:\n {6}app: iis-2019\n/, '')) as Deployment;
  assert.equal(d.spec?.selector, undefined);
  applyDefaults({ group: 'apps', kind: 'Deployment' }, d);
  assert.equal(
    aggregateMessage(validate({ group: 'apps', kind: 'Deployment' }, d)),
    '[spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"iis-2019"}: `selector` does not match template `labels`]',
  );
});
