import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, VolumeMount } from 'kubernetes-types/core/v1.js';
import { attrs, fakeLookup } from '../_testing.js';
import { create } from './service-account.js';

const lookup = fakeLookup({ serviceAccounts: [{ metadata: { name: 'default', namespace: 'ns' }, imagePullSecrets: [{ name: 'regcred' }] }] });

test('pods get the default service account and its image pull secrets', async () => {
  const pod: Pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [] } };
  await create().admit(attrs(pod), lookup);
  assert.equal(pod.spec?.serviceAccountName, 'default');
  assert.equal(pod.spec?.serviceAccount, 'default');
  assert.deepEqual(pod.spec?.imagePullSecrets, [{ name: 'regcred' }]);
  assert.equal(pod.spec?.volumes, undefined, 'no container needs the token volume');
});

const tokenMount = (name: string): VolumeMount => ({ name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' });

test('every container gets the token volume kube-api-access-xxxxx: the bound token, the cluster CA and the namespace', async () => {
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'ns' },
    spec: {
      initContainers: [{ name: 'init', image: 'busybox' }],
      containers: [
        { name: 'a', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data' }] },
        { name: 'b', image: 'nginx' },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  };
  await create().admit(attrs(pod), lookup);
  const volume = pod.spec?.volumes?.[1];
  assert.match(volume?.name ?? '', /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  const name = volume?.name ?? '';
  assert.deepEqual(volume, {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  });
  assert.deepEqual(pod.spec?.initContainers?.[0]?.volumeMounts, [tokenMount(name)]);
  assert.deepEqual(pod.spec?.containers[0]?.volumeMounts, [{ name: 'data', mountPath: '/data' }, tokenMount(name)]);
  assert.deepEqual(pod.spec?.containers[1]?.volumeMounts, [tokenMount(name)]);
});

test('a mount at the token path keeps the token away from that container; an existing kube-api-access volume is reused', async () => {
  const own: Pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'a', volumeMounts: [{ name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }] } };
  await create().admit(attrs(own), lookup);
  assert.equal(own.spec?.volumes, undefined);
  assert.deepEqual(own.spec?.containers[0]?.volumeMounts, [{ name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
  const reuse: Pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'a' }], volumes: [{ name: 'kube-api-access-abcde', emptyDir: {} }] } };
  await create().admit(attrs(reuse), lookup);
  assert.deepEqual(reuse.spec?.volumes, [{ name: 'kube-api-access-abcde', emptyDir: {} }]);
  assert.deepEqual(reuse.spec?.containers[0]?.volumeMounts, [tokenMount('kube-api-access-abcde')]);
});

test('automountServiceAccountToken: the pod decides first, then its service account', async () => {
  const optedOut = fakeLookup({ serviceAccounts: [{ metadata: { name: 'default', namespace: 'ns' }, automountServiceAccountToken: false }] });
  const cases: [string, boolean | undefined, typeof lookup, boolean][] = [
    ['the service account says no', undefined, optedOut, false],
    ['the pod says yes over its service account', true, optedOut, true],
    ['the pod says no', false, lookup, false],
    ['neither says: mounted', undefined, lookup, true],
  ];
  for (const [what, podSays, sas, mounted] of cases) {
    const pod: Pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'a' }], ...(podSays !== undefined ? { automountServiceAccountToken: podSays } : {}) } };
    await create().admit(attrs(pod), sas);
    assert.equal(pod.spec?.volumes !== undefined, mounted, what);
  }
});

test('a missing service account is forbidden', async () => {
  const pod: Pod = { metadata: { name: 'p', namespace: 'other' }, spec: { containers: [] } };
  await assert.rejects(create().admit(attrs(pod), lookup), {
    message: 'pods "p" is forbidden: error looking up service account other/default: serviceaccount "default" not found',
  });
});

test('mirror pods may not reference service accounts or secrets and get none', async () => {
  const mirror: Pod = { metadata: { name: 'm', namespace: 'ns', annotations: { 'kubernetes.io/config.mirror': 'x' } }, spec: { containers: [] } };
  await create().admit(attrs(mirror), lookup);
  assert.equal(mirror.spec?.serviceAccountName, undefined);
  const withSecret: Pod = { metadata: { name: 'm', namespace: 'ns', annotations: { 'kubernetes.io/config.mirror': 'x' } }, spec: { containers: [], volumes: [{ name: 's', secret: { secretName: 's' } }] } };
  await assert.rejects(create().admit(attrs(withSecret), lookup), { message: 'pods "m" is forbidden: a mirror pod may not reference secrets' });
  const withToken: Pod = {
    metadata: { name: 'm', namespace: 'ns', annotations: { 'kubernetes.io/config.mirror': 'x' } },
    spec: { containers: [], volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] },
  };
  await assert.rejects(create().admit(attrs(withToken), lookup), { message: 'pods "m" is forbidden: a mirror pod may not use ServiceAccountToken volume projections' });
});
