/**
 * Ported from pkg/serviceaccount/claims_test.go (TestClaims, TestValidatePrivateClaims) and
 * openidmetadata_test.go (TestNewOpenIDMetadata), v1.32; plus the bound-token authenticator end to end
 * (audiences, issuers, the user and its extras).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod, Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { BoundTokenValidator, claims, type PrivateClaims } from './claims.js';
import { JwtTokenAuthenticator, JwtTokenGenerator, StaticPublicKeys, type PublicClaims } from './jwt.js';
import { userInfoOf } from './util.js';
import { newOpenIDMetadata } from './openid-metadata.js';
import { ServiceAccountTokenAuthenticator } from './authenticator.js';
import { ecdsaPrivateKey, ecdsaPublicKey, fakeGetter, rsaPrivateKey, rsaPublicKey } from './_testing.js';

const nowUnix = 1514764800;
const now = new Date(nowUnix * 1000);

test('TestClaims', async (t) => {
  const sa: ServiceAccount = { metadata: { namespace: 'myns', name: 'mysvcacct', uid: 'mysvcacct-uid' } };
  const pod: Pod = { metadata: { namespace: 'myns', name: 'mypod', uid: 'mypod-uid' } };
  const sec: Secret = { metadata: { namespace: 'myns', name: 'mysecret', uid: 'mysecret-uid' } };
  const node: Node = { metadata: { name: 'mynode', uid: 'mynode-uid' } };
  const std = (exp: number, aud?: string[]): PublicClaims => ({
    sub: 'system:serviceaccount:myns:mysvcacct',
    ...(aud !== undefined ? { aud } : {}),
    iat: nowUnix,
    nbf: nowUnix,
    exp: nowUnix + exp,
    jti: 'fixed',
  });
  const saRef = { name: 'mysvcacct', uid: 'mysvcacct-uid' };
  const cases: { name: string; pod?: Pod; sec?: Secret; node?: Node; exp: number; warnafter?: number; aud: string[]; err?: string; sc?: PublicClaims; pc?: PrivateClaims }[] = [
    { name: 'pod and secret', pod, sec, exp: 0, aud: [], err: 'internal error, token can only be bound to one object type' },
    { name: 'pod', pod, exp: 100, aud: [], sc: std(100), pc: { 'kubernetes.io': { namespace: 'myns', serviceaccount: saRef, pod: { name: 'mypod', uid: 'mypod-uid' } } } },
    { name: 'secret', sec, exp: 100, aud: ['1'], sc: std(100, ['1']), pc: { 'kubernetes.io': { namespace: 'myns', serviceaccount: saRef, secret: { name: 'mysecret', uid: 'mysecret-uid' } } } },
    { name: 'no obj binding', exp: 100, aud: ['1', '2'], sc: std(100, ['1', '2']), pc: { 'kubernetes.io': { namespace: 'myns', serviceaccount: saRef } } },
    {
      name: 'warn after provided',
      pod,
      exp: 60 * 60 * 24,
      warnafter: 60 * 60,
      aud: [],
      sc: std(60 * 60 * 24),
      pc: { 'kubernetes.io': { namespace: 'myns', serviceaccount: saRef, pod: { name: 'mypod', uid: 'mypod-uid' }, warnafter: nowUnix + 60 * 60 } },
    },
    { name: 'node alone', node, exp: 0, aud: [], sc: std(0), pc: { 'kubernetes.io': { namespace: 'myns', serviceaccount: saRef, node: { name: 'mynode', uid: 'mynode-uid' } } } },
    {
      name: 'node and pod',
      pod,
      node,
      exp: 0,
      aud: [],
      sc: std(0),
      pc: { 'kubernetes.io': { namespace: 'myns', serviceaccount: saRef, pod: { name: 'mypod', uid: 'mypod-uid' }, node: { name: 'mynode', uid: 'mynode-uid' } } },
    },
    { name: 'node and secret should error', sec, node, exp: 0, aud: [], err: 'internal error, token can only be bound to one object type' },
    { name: 'ensure JTI is set', exp: 0, aud: [], sc: std(0), pc: { 'kubernetes.io': { namespace: 'myns', serviceaccount: saRef } } },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const make = (): ReturnType<typeof claims> =>
        claims({ serviceAccount: sa, pod: c.pod, secret: c.sec, node: c.node, expirationSeconds: c.exp, warnAfter: c.warnafter ?? 0, audiences: c.aud, now, newUUID: () => 'fixed' });
      if (c.err !== undefined) {
        assert.throws(make, { message: c.err });
        return;
      }
      const got = make();
      assert.deepEqual(got.public, c.sc);
      assert.deepEqual(got.private, c.pc);
    });
  }
});

test('TestValidatePrivateClaims', async (t) => {
  const serviceAccount: ServiceAccount = { metadata: { name: 'saname', namespace: 'ns', uid: 'sauid' } };
  const secret: Secret = { metadata: { name: 'secretname', namespace: 'ns', uid: 'secretuid' } };
  const pod: Pod = { metadata: { name: 'podname', namespace: 'ns', uid: 'poduid' } };
  const node: Node = { metadata: { name: 'nodename', uid: 'nodeuid' } };
  const saRef = { name: 'saname', uid: 'sauid' };
  type Case = { name: string; getter: Parameters<typeof fakeGetter>[0]; private: PrivateClaims; expiry?: number; notBefore?: number; expectErr: string };
  const cases: Case[] = [
    { name: 'good', getter: { serviceAccounts: [serviceAccount] }, private: { 'kubernetes.io': { serviceaccount: saRef, namespace: 'ns' } }, expectErr: '' },
    {
      name: 'expired',
      getter: { serviceAccounts: [serviceAccount] },
      private: { 'kubernetes.io': { serviceaccount: saRef, namespace: 'ns' } },
      expiry: nowUnix - 1000 * 3600,
      expectErr: 'service account token has expired',
    },
    {
      name: 'not yet valid',
      getter: { serviceAccounts: [serviceAccount] },
      private: { 'kubernetes.io': { serviceaccount: saRef, namespace: 'ns' } },
      notBefore: nowUnix + 1000 * 3600,
      expectErr: 'service account token is not valid yet',
    },
    { name: 'missing serviceaccount', getter: {}, private: { 'kubernetes.io': { serviceaccount: saRef, namespace: 'ns' } }, expectErr: 'serviceaccounts "saname" not found' },
    {
      name: 'missing secret',
      getter: { serviceAccounts: [serviceAccount] },
      private: { 'kubernetes.io': { serviceaccount: saRef, secret: { name: 'secretname', uid: 'secretuid' }, namespace: 'ns' } },
      expectErr: 'service account token has been invalidated',
    },
    {
      name: 'missing pod',
      getter: { serviceAccounts: [serviceAccount] },
      private: { 'kubernetes.io': { serviceaccount: saRef, pod: { name: 'podname', uid: 'poduid' }, namespace: 'ns' } },
      expectErr: 'service account token has been invalidated',
    },
    {
      name: 'missing node',
      getter: { serviceAccounts: [serviceAccount] },
      private: { 'kubernetes.io': { serviceaccount: saRef, node: { name: 'nodename', uid: 'nodeuid' }, namespace: 'ns' } },
      expectErr: 'service account token has been invalidated',
    },
    {
      name: 'different uid serviceaccount',
      getter: { serviceAccounts: [serviceAccount] },
      private: { 'kubernetes.io': { serviceaccount: { name: 'saname', uid: 'sauidold' }, namespace: 'ns' } },
      expectErr: 'service account UID (sauid) does not match claim (sauidold)',
    },
    {
      name: 'different uid secret',
      getter: { serviceAccounts: [serviceAccount], secrets: [secret] },
      private: { 'kubernetes.io': { serviceaccount: saRef, secret: { name: 'secretname', uid: 'secretuidold' }, namespace: 'ns' } },
      expectErr: 'secret UID (secretuid) does not match service account secret ref claim (secretuidold)',
    },
    {
      name: 'different uid pod',
      getter: { serviceAccounts: [serviceAccount], pods: [pod] },
      private: { 'kubernetes.io': { serviceaccount: saRef, pod: { name: 'podname', uid: 'poduidold' }, namespace: 'ns' } },
      expectErr: 'pod UID (poduid) does not match service account pod ref claim (poduidold)',
    },
  ];
  const deletions: { name: string; time?: number; expectErr?: boolean }[] = [
    { name: 'valid' },
    { name: 'deleted now', time: nowUnix },
    { name: 'deleted near past', time: nowUnix - 1 },
    { name: 'deleted near future', time: nowUnix + 1 },
    { name: 'deleted now-leeway', time: nowUnix - 60 },
    { name: 'deleted now-leeway-1', time: nowUnix - 61, expectErr: true },
  ];
  for (const d of deletions) {
    const deleted = <T extends { metadata?: object }>(o: T): T =>
      d.time === undefined ? o : { ...o, metadata: { ...o.metadata, deletionTimestamp: new Date(d.time * 1000).toISOString().replace('.000', '') } };
    const saDeletedErr = d.expectErr === true ? 'service account ns/saname has been deleted' : '';
    const deletedErr = d.expectErr === true ? 'service account token has been invalidated' : '';
    cases.push(
      { name: `${d.name} serviceaccount`, getter: { serviceAccounts: [deleted(serviceAccount)] }, private: { 'kubernetes.io': { serviceaccount: saRef, namespace: 'ns' } }, expectErr: saDeletedErr },
      {
        name: `${d.name} secret`,
        getter: { serviceAccounts: [serviceAccount], secrets: [deleted(secret)] },
        private: { 'kubernetes.io': { serviceaccount: saRef, secret: { name: 'secretname', uid: 'secretuid' }, namespace: 'ns' } },
        expectErr: deletedErr,
      },
      {
        name: `${d.name} pod`,
        getter: { serviceAccounts: [serviceAccount], pods: [deleted(pod)] },
        private: { 'kubernetes.io': { serviceaccount: saRef, pod: { name: 'podname', uid: 'poduid' }, namespace: 'ns' } },
        expectErr: deletedErr,
      },
      {
        name: `${d.name} node`,
        getter: { serviceAccounts: [serviceAccount], nodes: [deleted(node)] },
        private: { 'kubernetes.io': { serviceaccount: saRef, node: { name: 'nodename', uid: 'nodeuid' }, namespace: 'ns' } },
        expectErr: deletedErr,
      },
    );
  }
  for (const tc of cases) {
    await t.test(tc.name, async () => {
      const v = new BoundTokenValidator(fakeGetter(tc.getter), () => now);
      const got = await v.validate('', { exp: tc.expiry ?? nowUnix, nbf: tc.notBefore ?? 0 }, tc.private);
      if (tc.expectErr === '') assert.equal(got.ok, true, got.ok ? '' : got.error);
      else assert.deepEqual(got, { ok: false, error: tc.expectErr });
    });
  }
});

test('a bound token authenticates for its audiences with the pod, node and credential extras', async (t) => {
  const issuer = 'https://kubernetes.default.svc.cluster.local';
  const sa: ServiceAccount = { metadata: { namespace: 'default', name: 'default', uid: 'sa-uid' } };
  const pod: Pod = { metadata: { namespace: 'default', name: 'p', uid: 'pod-uid' } };
  const node: Node = { metadata: { name: 'n1', uid: 'node-uid' } };
  const gen = new JwtTokenGenerator(issuer, rsaPrivateKey);
  const sign = (c: ReturnType<typeof claims>): string => gen.generateToken(c.public, c.private as Record<string, unknown>);
  let clock = new Date();
  const base = { serviceAccount: sa, expirationSeconds: 3600, now: clock, newUUID: () => 'jti-1' };
  const apiToken = sign(claims({ ...base, pod, node, audiences: [issuer] }));
  const fooToken = sign(claims({ ...base, audiences: ['foo'] }));
  const authn = new ServiceAccountTokenAuthenticator({
    issuers: [issuer],
    apiAudiences: [issuer],
    publicKeyPems: [rsaPublicKey],
    getter: fakeGetter({ serviceAccounts: [sa], pods: [pod], nodes: [node] }),
    now: () => clock,
  });

  await t.test('the API audience: the user, its groups and extras', async () => {
    assert.deepEqual(await authn.authenticateToken(apiToken), {
      username: 'system:serviceaccount:default:default',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default'],
      extra: {
        'authentication.kubernetes.io/pod-name': ['p'],
        'authentication.kubernetes.io/pod-uid': ['pod-uid'],
        'authentication.kubernetes.io/credential-id': ['JTI=jti-1'],
        'authentication.kubernetes.io/node-name': ['n1'],
        'authentication.kubernetes.io/node-uid': ['node-uid'],
      },
    });
  });
  await t.test('another audience does not authenticate to the API server', async () => {
    assert.equal(await authn.authenticateToken(fooToken), undefined);
    assert.deepEqual(await authn.authenticate(fooToken), {
      ok: false,
      error: 'token audiences ["foo"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]',
    });
  });
  await t.test('but does for a review asking for it', async () => {
    const r = await authn.authenticate(fooToken, ['foo', 'bar']);
    assert.equal(r?.ok, true);
    assert.deepEqual(r?.ok === true ? r.audiences : undefined, ['foo']);
  });
  await t.test('a token of another issuer is not a service account token of this server', async () => {
    const other = new JwtTokenGenerator('https://elsewhere', rsaPrivateKey);
    const c = claims({ ...base, audiences: [issuer] });
    assert.equal(await authn.authenticate(other.generateToken(c.public, c.private as Record<string, unknown>)), undefined);
  });
  await t.test('a tampered payload fails the signature', async () => {
    const [h, p, s] = apiToken.split('.');
    const payload = JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Record<string, unknown>;
    payload['sub'] = 'system:serviceaccount:kube-system:admin';
    const forged = `${h ?? ''}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s ?? ''}`;
    assert.deepEqual(await authn.authenticate(forged), { ok: false, error: 'go-jose/go-jose: error in cryptographic primitive' });
  });
  await t.test('an expired token (past the minute of leeway)', async () => {
    clock = new Date(clock.getTime() + 3661_000);
    assert.deepEqual(await authn.authenticate(apiToken), { ok: false, error: 'service account token has expired' });
  });
});

test('TestNewOpenIDMetadata', async (t) => {
  const exampleIssuer = 'https://issuer.example.com';
  const defaultKeys = new StaticPublicKeys([rsaPublicKey, ecdsaPublicKey]);
  const wantKeyset =
    '{"keys":[{"use":"sig","kty":"RSA","kid":"JHJehTTTZlsspKHT-GaJxK7Kd1NQgZJu3fyK6K_QDYU","alg":"RS256","n":"249XwEo9k4tM8fMxV7zxOhcrP-WvXn917koM5Qr2ZXs4vo26e4ytdlrV0bQ9SlcLpQVSYjIxNfhTZdDt-ecIzshKuv1gKIxbbLQMOuK1eA_4HALyEkFgmS_tleLJrhc65tKPMGD-pKQ_xhmzRuCG51RoiMgbQxaCyYxGfNLpLAZK9L0Tctv9a0mJmGIYnIOQM4kC1A1I1n3EsXMWmeJUj7OTh_AjjCnMnkgvKT2tpKxYQ59PgDgU8Ssc7RDSmSkLxnrv-OrN80j6xrw0OjEiB4Ycr0PqfzZcvy8efTtFQ_Jnc4Bp1zUtFXt7-QeevePtQ2EcyELXE0i63T1CujRMWw","e":"AQAB"},{"use":"sig","kty":"EC","kid":"SoABiieYuNx4UdqYvZRVeuC6SihxgLrhLy9peHMHpTc","crv":"P-256","alg":"ES256","x":"H6cuzP8XuD5wal6wf9M6xDljTOPLX2i8uIp_C_ASqiI","y":"BlHnikLV9PyEd6gl8k4T_3Wwoh6xd79XLoQTh2PAi1Y"}]}';
  const config = (issuer: string, jwks: string): string =>
    `{"issuer":"${issuer}","jwks_uri":"${jwks}","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}`;
  const cases: { name: string; issuerURL: string; jwksURI?: string; externalAddress?: string; keys?: StaticPublicKeys; wantConfig?: string; err?: boolean }[] = [
    { name: 'valid inputs', issuerURL: exampleIssuer, jwksURI: `${exampleIssuer}/openid/v1/jwks`, wantConfig: config(exampleIssuer, 'https://issuer.example.com/openid/v1/jwks') },
    { name: 'valid inputs, default JWKSURI to external address', issuerURL: exampleIssuer, externalAddress: '192.0.2.1:80', wantConfig: config(exampleIssuer, 'https://192.0.2.1:80/openid/v1/jwks') },
    { name: 'valid inputs, IP addresses instead of domains', issuerURL: 'https://192.0.2.1:80', jwksURI: 'https://192.0.2.1:80/openid/v1/jwks', wantConfig: config('https://192.0.2.1:80', 'https://192.0.2.1:80/openid/v1/jwks') },
    {
      name: 'response only contains public keys, even when private keys are provided',
      issuerURL: exampleIssuer,
      jwksURI: `${exampleIssuer}/openid/v1/jwks`,
      keys: new StaticPublicKeys([rsaPrivateKey, ecdsaPrivateKey]),
      wantConfig: config(exampleIssuer, 'https://issuer.example.com/openid/v1/jwks'),
    },
    { name: 'issuer missing https', issuerURL: 'http://issuer.example.com', jwksURI: `${exampleIssuer}/openid/v1/jwks`, err: true },
    { name: 'issuer missing scheme', issuerURL: 'issuer.example.com', jwksURI: `${exampleIssuer}/openid/v1/jwks`, err: true },
    { name: 'issuer includes query', issuerURL: 'https://issuer.example.com?foo=bar', jwksURI: `${exampleIssuer}/openid/v1/jwks`, err: true },
    { name: 'issuer includes fragment', issuerURL: 'https://issuer.example.com#baz', jwksURI: `${exampleIssuer}/openid/v1/jwks`, err: true },
    { name: 'issuer includes query and fragment', issuerURL: 'https://issuer.example.com?foo=bar#baz', jwksURI: `${exampleIssuer}/openid/v1/jwks`, err: true },
    { name: 'issuer is not a valid URL', issuerURL: 'issuer', jwksURI: `${exampleIssuer}/openid/v1/jwks`, err: true },
    { name: 'jwks missing https', issuerURL: exampleIssuer, jwksURI: 'http://issuer.example.com/openid/v1/jwks', err: true },
    { name: 'jwks missing scheme', issuerURL: exampleIssuer, jwksURI: 'issuer.example.com/openid/v1/jwks', err: true },
    { name: 'jwks is not a valid URL', issuerURL: exampleIssuer, jwksURI: 'issuer/openid/v1/jwks', err: true },
    { name: 'external address also has a scheme', issuerURL: exampleIssuer, externalAddress: 'https://192.0.2.1:80', err: true },
    { name: 'missing external address and jwks', issuerURL: exampleIssuer, err: true },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const md = newOpenIDMetadata(tc.issuerURL, tc.jwksURI ?? '', tc.externalAddress ?? '', tc.keys ?? defaultKeys);
      if (tc.err === true) {
        assert.equal(md.ok, false);
        return;
      }
      assert.equal(md.ok, true, md.ok ? '' : md.error);
      if (!md.ok) return;
      assert.equal(md.config.body, tc.wantConfig);
      assert.equal(md.jwks.body, wantKeyset);
      assert.equal(md.jwks.contentType, 'application/jwk-set+json');
    });
  }
});

test('a validator is given the issuer-verified claims only for its own issuers', async () => {
  const gen = new JwtTokenGenerator('https://a', ecdsaPrivateKey);
  const sa: ServiceAccount = { metadata: { namespace: 'ns', name: 'sa', uid: 'u' } };
  const c = claims({ serviceAccount: sa, expirationSeconds: 600, audiences: ['x'], now: new Date() });
  const token = gen.generateToken(c.public, c.private as Record<string, unknown>);
  const authn = new JwtTokenAuthenticator(['https://a'], new StaticPublicKeys([ecdsaPublicKey]), ['x'], new BoundTokenValidator(fakeGetter({ serviceAccounts: [sa] })));
  const r = await authn.authenticate(token);
  assert.equal(r?.ok, true);
  assert.equal(r?.ok === true ? userInfoOf(r.info).username : '', 'system:serviceaccount:ns:sa');
});
