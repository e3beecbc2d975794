import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { resources } from '../api/resources.js';
import { attrs, fakeLookup } from './_testing.js';
import { defaultAdmissionChain, defaultRegistry, Registry, runMutating, runValidating } from './registry.js';

test('the default chain is in upstream order, each plugin in the phases it implements', () => {
  const chain = defaultAdmissionChain();
  assert.deepEqual(
    chain.mutating.map((p) => p.name),
    ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'NodeRestriction', 'TaintNodesByCondition', 'Priority', 'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'RuntimeClass', 'DefaultIngressClass'],
  );
  assert.deepEqual(chain.validating.map((p) => p.name), ['LimitRanger', 'ServiceAccount', 'PodSecurity', 'Priority', 'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateSubjectRestriction', 'ValidatingAdmissionPolicy', 'ResourceQuota']);
});

test('registering a name twice throws; unknown names are refused', () => {
  assert.throws(() => new Registry().register('X', () => defaultAdmissionChain().mutating[0]!).register('X', () => defaultAdmissionChain().mutating[0]!), /registered twice/);
  assert.throws(() => defaultRegistry().chain(['Nope']), /unknown admission plugin/);
});

test('a pod through the whole chain: service account, priority, default tolerations, RuntimeClass scheduling', async () => {
  const lookup = fakeLookup({
    namespaces: [{ metadata: { name: 'default' }, status: { phase: 'Active' } }],
    serviceAccounts: [{ metadata: { name: 'default', namespace: 'default' } }],
    runtimeClasses: [
      {
        metadata: { name: 'windows-2019' },
        handler: 'runhcs-wcow-process',
        scheduling: { nodeSelector: { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' }, tolerations: [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }] },
      },
    ],
  });
  const pod: Pod = { metadata: { name: 'iis', namespace: 'default' }, spec: { runtimeClassName: 'windows-2019', containers: [{ name: 'iis', image: 'mcr.microsoft.com/windows/servercore/iis' }] } };
  const chain = defaultAdmissionChain();
  const a = attrs(pod);
  await runMutating(chain, a, lookup);
  await runValidating(chain, a, lookup);
  assert.equal(pod.spec?.serviceAccountName, 'default');
  assert.equal(pod.spec?.priority, 0);
  assert.deepEqual(pod.spec?.nodeSelector, { 'kubernetes.io/os': 'windows', 'node.kubernetes.io/windows-build': '10.0.17763' });
  assert.deepEqual(pod.spec?.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' },
  ]);
});

test('TaintNodesByCondition: new nodes get the not-ready NoSchedule taint once', async () => {
  const chain = defaultAdmissionChain();
  const node: Node = { metadata: { name: 'n1' }, spec: { taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] } };
  await runMutating(chain, attrs(node, { resource: resources.nodes }), fakeLookup());
  assert.deepEqual(node.spec?.taints, [
    { key: 'os', value: 'windows', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' },
  ]);
  await runMutating(chain, attrs(node, { resource: resources.nodes }), fakeLookup());
  assert.equal(node.spec?.taints?.length, 2);
});
