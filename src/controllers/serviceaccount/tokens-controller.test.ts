/**
 * The token controller (pkg/controller/serviceaccount/tokens_controller_test.go, v1.32): token Secrets are
 * filled with a legacy token, the CA and the namespace; Secrets of missing service accounts are deleted;
 * a deleted service account takes its token Secrets along; a deleted Secret leaves its service account's
 * `secrets`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { FakeClient } from '../_testing/fake-client.js';
import { startController } from '../_testing/fakes.js';
import { resources } from '../../api/resources.js';
import { JwtTokenAuthenticator, StaticPublicKeys } from '../../apiserver/auth/serviceaccount/jwt.js';
import { LegacyValidator, legacyIssuer } from '../../apiserver/auth/serviceaccount/legacy.js';
import { fakeGetter, rsaPrivateKey, rsaPublicKey } from '../../apiserver/auth/serviceaccount/_testing.js';
import { TokensController, secretTypeServiceAccountToken, serviceAccountNameKey, serviceAccountUIDKey } from './tokens-controller.js';

const rootCA = '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n';

function tokenSecret(name: string, sa: string, extra: Partial<Secret> = {}): Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default', annotations: { [serviceAccountNameKey]: sa } }, type: secretTypeServiceAccountToken, ...extra };
}

const text = (s: Secret, k: string): string => Buffer.from(s.data?.[k] ?? '', 'base64').toString();

async function setup(t: { after(fn: () => void): void }, o: { key?: boolean } = {}): Promise<{ client: FakeClient; settle: () => Promise<void>; sa: ServiceAccount }> {
  const client = new FakeClient();
  const sa = await client.create<ServiceAccount>(resources.serviceaccounts, { metadata: { name: 'default', namespace: 'default' } });
  const ctx = await startController(t, client, (c) => new TokensController(c, { ...(o.key !== false ? { privateKeyPem: rsaPrivateKey } : {}), rootCAPem: rootCA }));
  return { client, settle: () => ctx.settle(), sa };
}

test('a token Secret is filled with a legacy token, the CA, the namespace and the service account UID', async (t) => {
  const { client, settle, sa } = await setup(t);
  await client.create(resources.secrets, tokenSecret('default-token', 'default'));
  await settle();
  const s = await client.get<Secret>(resources.secrets, 'default-token', { namespace: 'default' });
  assert.deepEqual(s.metadata?.annotations, { [serviceAccountNameKey]: 'default', [serviceAccountUIDKey]: sa.metadata?.uid });
  assert.deepEqual(Object.keys(s.data ?? {}).sort(), ['ca.crt', 'namespace', 'token']);
  assert.equal(text(s, 'ca.crt'), rootCA);
  assert.equal(text(s, 'namespace'), 'default');
  const token = text(s, 'token');
  assert.deepEqual(JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()), {
    iss: 'kubernetes/serviceaccount',
    'kubernetes.io/serviceaccount/namespace': 'default',
    'kubernetes.io/serviceaccount/secret.name': 'default-token',
    'kubernetes.io/serviceaccount/service-account.name': 'default',
    'kubernetes.io/serviceaccount/service-account.uid': sa.metadata?.uid,
    sub: 'system:serviceaccount:default:default',
  });
  // The token authenticates against the Secret it was written to.
  const authn = new JwtTokenAuthenticator([legacyIssuer], new StaticPublicKeys([rsaPublicKey]), ['api'], new LegacyValidator({ getter: fakeGetter({ serviceAccounts: [sa], secrets: [s] }) }));
  assert.equal((await authn.authenticate(token))?.ok, true);
});

test('an existing token is kept, a stale CA is replaced', async (t) => {
  const { client, settle } = await setup(t);
  await client.create(resources.secrets, tokenSecret('mine', 'default', { data: { token: Buffer.from('my-token').toString('base64'), 'ca.crt': Buffer.from('old').toString('base64') } }));
  await settle();
  const s = await client.get<Secret>(resources.secrets, 'mine', { namespace: 'default' });
  assert.equal(text(s, 'token'), 'my-token');
  assert.equal(text(s, 'ca.crt'), rootCA);
  assert.equal(text(s, 'namespace'), 'default');
});

test('a token Secret of a service account that does not exist is deleted', async (t) => {
  const { client, settle } = await setup(t);
  await client.create(resources.secrets, tokenSecret('orphan', 'nobody'));
  await client.create(resources.secrets, tokenSecret('stale-uid', 'default', { metadata: { name: 'stale-uid', namespace: 'default', annotations: { [serviceAccountNameKey]: 'default', [serviceAccountUIDKey]: 'old-uid' } } }));
  await client.create<Secret>(resources.secrets, { metadata: { name: 'opaque', namespace: 'default', annotations: { [serviceAccountNameKey]: 'nobody' } }, type: 'Opaque' });
  await settle();
  const left = (await client.list<Secret>(resources.secrets, { namespace: 'default' })).items.map((s) => s.metadata?.name);
  assert.deepEqual(left, ['opaque']);
});

test('deleting a service account deletes its token Secrets', async (t) => {
  const { client, settle } = await setup(t);
  await client.create<ServiceAccount>(resources.serviceaccounts, { metadata: { name: 'other', namespace: 'default' } });
  await client.create(resources.secrets, tokenSecret('default-token', 'default'));
  await client.create(resources.secrets, tokenSecret('other-token', 'other'));
  await settle();
  await client.delete(resources.serviceaccounts, 'default', { namespace: 'default' });
  await settle();
  const left = (await client.list<Secret>(resources.secrets, { namespace: 'default' })).items.map((s) => s.metadata?.name);
  assert.deepEqual(left, ['other-token']);
});

test('a deleted token Secret is removed from its service account\'s secrets', async (t) => {
  const { client, settle } = await setup(t);
  await client.create(resources.secrets, tokenSecret('default-token', 'default'));
  await settle();
  const sa = await client.get<ServiceAccount>(resources.serviceaccounts, 'default', { namespace: 'default' });
  await client.update(resources.serviceaccounts, { ...sa, secrets: [{ name: 'default-token' }, { name: 'kept' }] }, { namespace: 'default' });
  await settle();
  await client.delete(resources.secrets, 'default-token', { namespace: 'default' });
  await settle();
  const after = await client.get<ServiceAccount>(resources.serviceaccounts, 'default', { namespace: 'default' });
  assert.deepEqual(after.secrets, [{ name: 'kept' }]);
});

test('without a private key the controller is disabled', async (t) => {
  const { client, settle } = await setup(t, { key: false });
  await client.create(resources.secrets, tokenSecret('orphan', 'nobody'));
  await settle();
  const s = await client.get<Secret>(resources.secrets, 'orphan', { namespace: 'default' });
  assert.equal(s.data, undefined);
});
