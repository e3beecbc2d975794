/**
 * Ported from pkg/serviceaccount/jwt_test.go (v1.32): TestTokenGenerateAndValidate with the legacy
 * validator, the stable key ids, and TestMakeSplitUsername.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { JwtTokenAuthenticator, JwtTokenGenerator, StaticPublicKeys, goJson, keyIDFromPublicKey, type JwtAuthentication } from './jwt.js';
import { LegacyValidator, legacyClaims, legacyIssuer, invalidSinceLabelKey } from './legacy.js';
import { makeUsername, splitUsername, userInfoOf } from './util.js';
import { ecdsaKeyID, ecdsaPrivateKey, ecdsaPublicKey, fakeGetter, otherPublicKey, rsaKeyID, rsaPrivateKey, rsaPublicKey } from './_testing.js';

function kidOf(token: string): unknown {
  return (JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as { kid?: unknown }).kid;
}

function withToken(s: Secret, token: string): Secret {
  return { ...s, data: { token: Buffer.from(token).toString('base64') } };
}

test('the key id derived from a public key is stable', () => {
  assert.equal(keyIDFromPublicKey(createPublicKey(rsaPublicKey)), rsaKeyID);
  assert.equal(keyIDFromPublicKey(createPublicKey(ecdsaPublicKey)), ecdsaKeyID);
});

test('payloads are encoded as Go encodes a map: sorted keys, HTML characters escaped', () => {
  assert.equal(goJson({ b: 1, a: { d: '<&>', c: [2] } }), '{"a":{"c":[2],"d":"\\u003c\\u0026\\u003e"},"b":1}');
});

const serviceAccount: ServiceAccount = { metadata: { name: 'my-service-account', uid: '12345', namespace: 'test' } };
const rsaGenerator = new JwtTokenGenerator(legacyIssuer, rsaPrivateKey);
const sign = (g: JwtTokenGenerator, secret: Secret): string => {
  const c = legacyClaims(serviceAccount, secret);
  return g.generateToken(c.public, c.private as unknown as Record<string, unknown>);
};
const rsaSecretMeta: Secret = { metadata: { name: 'my-rsa-secret', namespace: 'test' } };
const rsaToken = sign(rsaGenerator, rsaSecretMeta);
const rsaSecret = withToken(rsaSecretMeta, rsaToken);
const invalidAutoSecretMeta: Secret = { metadata: { name: 'my-rsa-secret', namespace: 'test', labels: { [invalidSinceLabelKey]: '2022-12-20' } } };
const invalidAutoSecretToken = sign(rsaGenerator, invalidAutoSecretMeta);
const invalidAutoSecret = withToken(invalidAutoSecretMeta, invalidAutoSecretToken);
const ecdsaSecretMeta: Secret = { metadata: { name: 'my-ecdsa-secret', namespace: 'test' } };
const ecdsaToken = sign(new JwtTokenGenerator(legacyIssuer, ecdsaPrivateKey), ecdsaSecretMeta);
const ecdsaSecret = withToken(ecdsaSecretMeta, ecdsaToken);
const badIssuerToken = sign(new JwtTokenGenerator('foo', rsaPrivateKey), rsaSecretMeta);
const differentIssuerToken = sign(new JwtTokenGenerator('bar', rsaPrivateKey), rsaSecretMeta);
// A JWS in JSON serialization with a compact-looking `iss` smuggled in: not a compact token.
const [eh, ep, es] = sign(new JwtTokenGenerator('panda', ecdsaPrivateKey), ecdsaSecretMeta).split('.');
const ecdsaTokenMalformedIss = JSON.stringify({ payload: ep, protected: eh, signature: es, malformed_iss: `.${Buffer.from('{"iss":"bar"}').toString('base64url')}.` });

test('tokens carry the key id of their signing key', () => {
  assert.equal(kidOf(rsaToken), rsaKeyID);
  assert.equal(kidOf(invalidAutoSecretToken), rsaKeyID);
  assert.equal(kidOf(ecdsaToken), ecdsaKeyID);
});

const expectedUser = { username: 'system:serviceaccount:test:my-service-account', uid: '12345', groups: ['system:serviceaccounts', 'system:serviceaccounts:test'] };
type Want = 'not handled' | { error: string } | typeof expectedUser;

const cases: { name: string; token: string; keys: string[]; lookup?: Parameters<typeof fakeGetter>[0]; want: Want }[] = [
  { name: 'no keys', token: rsaToken, keys: [], want: { error: 'invalid signature, no keys found' } },
  { name: 'invalid keys (rsa)', token: rsaToken, keys: [otherPublicKey, ecdsaPublicKey], want: { error: 'invalid signature, no keys found' } },
  { name: 'invalid keys (ecdsa)', token: ecdsaToken, keys: [otherPublicKey, rsaPublicKey], want: { error: 'invalid signature, no keys found' } },
  { name: 'valid key (rsa)', token: rsaToken, keys: [rsaPublicKey], want: expectedUser },
  { name: 'valid key, invalid issuer (rsa)', token: badIssuerToken, keys: [rsaPublicKey], want: 'not handled' },
  { name: 'valid key, different issuer (rsa)', token: differentIssuerToken, keys: [rsaPublicKey], want: expectedUser },
  { name: 'valid key (ecdsa)', token: ecdsaToken, keys: [ecdsaPublicKey], want: expectedUser },
  { name: 'rotated keys (rsa)', token: rsaToken, keys: [otherPublicKey, ecdsaPublicKey, rsaPublicKey], want: expectedUser },
  { name: 'rotated keys (ecdsa)', token: ecdsaToken, keys: [otherPublicKey, rsaPublicKey, ecdsaPublicKey], want: expectedUser },
  { name: 'valid lookup', token: rsaToken, keys: [rsaPublicKey], lookup: { serviceAccounts: [serviceAccount], secrets: [rsaSecret, ecdsaSecret] }, want: expectedUser },
  { name: 'invalid secret lookup', token: rsaToken, keys: [rsaPublicKey], lookup: { serviceAccounts: [serviceAccount] }, want: { error: 'Token has been invalidated' } },
  {
    name: 'invalid serviceaccount lookup',
    token: rsaToken,
    keys: [rsaPublicKey],
    lookup: { secrets: [rsaSecret, ecdsaSecret] },
    want: { error: 'serviceaccounts "my-service-account" not found' },
  },
  {
    name: 'secret is marked as invalid',
    token: invalidAutoSecretToken,
    keys: [rsaPublicKey],
    lookup: { serviceAccounts: [serviceAccount], secrets: [invalidAutoSecret] },
    want: {
      error:
        "the token in secret test/my-rsa-secret for service account test/my-service-account has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token",
    },
  },
  { name: 'malformed iss', token: ecdsaTokenMalformedIss, keys: [ecdsaPublicKey], want: 'not handled' },
  // Beyond upstream's table: what lookups add.
  {
    name: 'a token that is not the Secret\'s copy',
    token: rsaToken,
    keys: [rsaPublicKey],
    lookup: { serviceAccounts: [serviceAccount], secrets: [withToken(rsaSecretMeta, 'other')] },
    want: { error: "Token does not match server's copy" },
  },
  {
    name: 'a recreated service account',
    token: rsaToken,
    keys: [rsaPublicKey],
    lookup: { serviceAccounts: [{ metadata: { ...serviceAccount.metadata, uid: '67890' } }], secrets: [rsaSecret] },
    want: { error: 'ServiceAccount UID (67890) does not match claim (12345)' },
  },
];

for (const tc of cases) {
  test(tc.name, async () => {
    const authn = new JwtTokenAuthenticator(
      [legacyIssuer, 'bar'],
      new StaticPublicKeys(tc.keys),
      ['api'],
      new LegacyValidator({ lookup: tc.lookup !== undefined, getter: fakeGetter(tc.lookup ?? {}) }),
    );
    // An invalid, non-JWT token is never handled.
    assert.equal(await authn.authenticate('invalid token', ['api']), undefined);
    const got: JwtAuthentication = await authn.authenticate(tc.token, ['api']);
    if (tc.want === 'not handled') assert.equal(got, undefined);
    else if ('error' in tc.want) assert.deepEqual(got, { ok: false, error: tc.want.error });
    else {
      assert.equal(got?.ok, true);
      if (got?.ok === true) {
        assert.deepEqual(userInfoOf(got.info), tc.want);
        assert.deepEqual(got.audiences, ['api']);
      }
    }
  });
}

test('a legacy token in use is marked with the day of its last use, at most once a day', async () => {
  const marked: string[] = [];
  const v = new LegacyValidator({
    getter: fakeGetter({ serviceAccounts: [serviceAccount], secrets: [rsaSecret] }),
    markLastUsed: async (ns, name, _uid, date) => {
      marked.push(`${ns}/${name}=${date}`);
    },
    now: () => new Date('2026-03-04T23:59:00Z'),
  });
  const authn = new JwtTokenAuthenticator([legacyIssuer], new StaticPublicKeys([rsaPublicKey]), ['api'], v);
  assert.equal((await authn.authenticate(rsaToken))?.ok, true);
  assert.deepEqual(marked, ['test/my-rsa-secret=2026-03-04']);
  const labelled = { ...rsaSecret, metadata: { ...rsaSecret.metadata, labels: { 'kubernetes.io/legacy-token-last-used': '2026-03-04' } } };
  const v2 = new LegacyValidator({ getter: fakeGetter({ serviceAccounts: [serviceAccount], secrets: [labelled] }), markLastUsed: async () => void marked.push('again'), now: () => new Date('2026-03-04T23:59:00Z') });
  assert.equal((await new JwtTokenAuthenticator([legacyIssuer], new StaticPublicKeys([rsaPublicKey]), ['api'], v2).authenticate(rsaToken))?.ok, true);
  assert.equal(marked.length, 1);
});

test('MakeUsername and SplitUsername round-trip, and malformed names do not split', () => {
  const username = makeUsername('ns', 'name');
  assert.deepEqual(splitUsername(username), { namespace: 'ns', name: 'name' });
  for (const n of ['test', 'system:serviceaccount', 'system:serviceaccount:', 'system:serviceaccount:ns', 'system:serviceaccount:ns:name:extra']) {
    assert.equal(splitUsername(n), undefined, n);
  }
});
