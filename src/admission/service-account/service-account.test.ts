import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { attrs, fakeLookup } from '../_testing.js';
import { create } from './service-account.js';

const lookup = fakeLookup({ serviceAccounts: [{ metadata: { name: 'default', namespace: 'ns' }, imagePullSecrets: [{ name: 'regcred' }] }] });

test('pods get the default service account and its image pull secrets', async () => {
  const pod: Pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [] } };
  await create().admit(attrs(pod), lookup);
  assert.equal(pod.spec?.serviceAccountName, 'default');
  assert.equal(pod.spec?.serviceAccount, 'default');
  assert.deepEqual(pod.spec?.imagePullSecrets, [{ name: 'regcred' }]);
  assert.equal(pod.spec?.volumes, undefined, 'no token volume');
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
});
