/**
 * `serviceaccounts/token` (pkg/registry/core/serviceaccount/storage/token.go and its storage_test.go, v1.32):
 * defaults, validation and bound-object errors worded as kube-apiserver's, and the claims of the issued
 * token.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, apiErrors } from '../api/errors.js';
import type { StoredObject } from './storage/watch-cache.js';
import { TokenRequestRest, type TokenRequest } from './token-request.js';
import { JwtTokenGenerator } from './auth/serviceaccount/jwt.js';
import { rsaPrivateKey } from './auth/serviceaccount/_testing.js';

const issuer = 'https://kubernetes.default.svc.cluster.local';
const now = new Date('2026-01-02T03:04:05Z');
const nowUnix = now.getTime() / 1000;

const objects: Record<string, StoredObject[]> = {
  serviceaccounts: [{ metadata: { namespace: 'ns', name: 'sa', uid: 'sa-uid' } }],
  pods: [
    { metadata: { namespace: 'ns', name: 'pod', uid: 'pod-uid' }, spec: { serviceAccountName: 'sa', nodeName: 'node' } },
    { metadata: { namespace: 'ns', name: 'other-pod', uid: 'other-pod-uid' }, spec: { serviceAccountName: 'other' } },
    { metadata: { namespace: 'ns', name: 'orphan-pod', uid: 'orphan-pod-uid' }, spec: { serviceAccountName: 'sa', nodeName: 'gone' } },
  ],
  secrets: [{ metadata: { namespace: 'ns', name: 'secret', uid: 'secret-uid' } }],
  nodes: [{ metadata: { name: 'node', uid: 'node-uid' } }],
};

function rest(o: { maxExpirationSeconds?: number } = {}): TokenRequestRest {
  return new TokenRequestRest({
    issuer: new JwtTokenGenerator(issuer, rsaPrivateKey),
    apiAudiences: [issuer],
    get: async (resource, namespace, name) => {
      const found = objects[resource]?.find((x) => (x.metadata?.namespace ?? '') === namespace && x.metadata?.name === name);
      if (found === undefined) throw apiErrors.notFound({ group: '', resource }, name);
      return found;
    },
    now: () => now,
    newUUID: () => 'jti',
    ...o,
  });
}

function payload(tr: TokenRequest): Record<string, unknown> {
  return JSON.parse(Buffer.from(tr.status?.token?.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

test('an empty request gets an hour-long token for the API audiences', async () => {
  const out = await rest().create('ns', 'sa', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: null, expirationSeconds: null, boundObjectRef: null } });
  assert.deepEqual({ ...out, status: { ...out.status, token: '' } }, {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name: 'sa', namespace: 'ns', creationTimestamp: '2026-01-02T03:04:05Z' },
    spec: { audiences: [issuer], expirationSeconds: 3600, boundObjectRef: null },
    status: { token: '', expirationTimestamp: '2026-01-02T04:04:05Z' },
  });
  assert.deepEqual(payload(out), {
    aud: [issuer],
    exp: nowUnix + 3600,
    iat: nowUnix,
    iss: issuer,
    jti: 'jti',
    'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'sa', uid: 'sa-uid' } },
    nbf: nowUnix,
    sub: 'system:serviceaccount:ns:sa',
  });
  assert.deepEqual(Object.keys(payload(out)), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
});

const errorCases: { name: string; sa?: string; body: unknown; code: number; reason: string; message: string }[] = [
  {
    name: 'a duration under ten minutes',
    body: { spec: { expirationSeconds: 300 } },
    code: 422,
    reason: 'Invalid',
    message: 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes',
  },
  {
    name: 'a duration over 2^32 seconds',
    body: { spec: { expirationSeconds: 2 ** 32 + 1 } },
    code: 422,
    reason: 'Invalid',
    message: 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
  },
  { name: 'a missing service account', sa: 'nope', body: {}, code: 404, reason: 'NotFound', message: 'serviceaccounts "nope" not found' },
  {
    name: 'a body naming another service account',
    body: { metadata: { name: 'other' } },
    code: 422,
    reason: 'Invalid',
    message: 'TokenRequest.authentication.k8s.io "sa" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
  },
  {
    name: 'a body naming another namespace',
    body: { metadata: { namespace: 'other' } },
    code: 422,
    reason: 'Invalid',
    message: 'TokenRequest.authentication.k8s.io "sa" is invalid: metadata.namespace: Invalid value: "other": must match the service account namespace if specified',
  },
  {
    name: 'a pod running as another service account',
    body: { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other-pod' } } },
    code: 400,
    reason: 'BadRequest',
    message: 'cannot bind token for serviceaccount "sa" to pod running with different serviceaccount name.',
  },
  { name: 'a missing pod', body: { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nope' } } }, code: 404, reason: 'NotFound', message: 'pods "nope" not found' },
  { name: 'a missing secret', body: { spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'nope' } } }, code: 404, reason: 'NotFound', message: 'secrets "nope" not found' },
  { name: 'a missing node', body: { spec: { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'nope' } } }, code: 404, reason: 'NotFound', message: 'nodes "nope" not found' },
  {
    name: 'an object of another kind',
    body: { spec: { boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'd' } } },
    code: 400,
    reason: 'BadRequest',
    message: 'cannot bind token to object of type apps/v1, Kind=Deployment',
  },
  {
    name: 'a stale UID',
    body: { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'pod', uid: 'old' } } },
    code: 409,
    reason: 'Conflict',
    message: 'Operation cannot be fulfilled on Pod "pod": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated',
  },
];

for (const tc of errorCases) {
  test(`refused: ${tc.name}`, async () => {
    await assert.rejects(rest().create('ns', tc.sa ?? 'sa', tc.body), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, tc.code);
      assert.equal(e.reason, tc.reason);
      assert.equal(e.message, tc.message);
      return true;
    });
  });
}

test('a pod-bound token names the pod and its node', async () => {
  const out = await rest().create('ns', 'sa', { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'pod', uid: 'pod-uid' }, audiences: ['a', 'b'], expirationSeconds: 600 } });
  assert.deepEqual(out.spec, { audiences: ['a', 'b'], expirationSeconds: 600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'pod', uid: 'pod-uid' } });
  const p = payload(out);
  assert.deepEqual(p['aud'], ['a', 'b']);
  assert.deepEqual(p['kubernetes.io'], {
    namespace: 'ns',
    node: { name: 'node', uid: 'node-uid' },
    pod: { name: 'pod', uid: 'pod-uid' },
    serviceaccount: { name: 'sa', uid: 'sa-uid' },
  });
});

test('a pod on a node that is gone names the node without a UID', async () => {
  const p = payload(await rest().create('ns', 'sa', { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'orphan-pod' } } }));
  assert.deepEqual((p['kubernetes.io'] as { node?: unknown }).node, { name: 'gone' });
});

test('secret- and node-bound tokens name their object', async () => {
  const s = payload(await rest().create('ns', 'sa', { spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'secret' } } }));
  assert.deepEqual((s['kubernetes.io'] as { secret?: unknown }).secret, { name: 'secret', uid: 'secret-uid' });
  const n = payload(await rest().create('ns', 'sa', { spec: { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'node' } } }));
  assert.deepEqual((n['kubernetes.io'] as { node?: unknown }).node, { name: 'node', uid: 'node-uid' });
});

test('a kubelet-projected token (pod-bound, 3607 s, API audience) lives a year and warns after the hour', async () => {
  const out = await rest().create('ns', 'sa', { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'pod' }, expirationSeconds: 3607 } });
  const p = payload(out);
  assert.equal(p['exp'], nowUnix + 365 * 24 * 3600);
  assert.equal((p['kubernetes.io'] as { warnafter?: unknown }).warnafter, nowUnix + 3607);
  // The status shows the requested expiration.
  assert.equal(out.status?.expirationTimestamp, '2026-01-02T04:04:12Z');
  const unbound = payload(await rest().create('ns', 'sa', { spec: { expirationSeconds: 3607 } }));
  assert.equal(unbound['exp'], nowUnix + 3607);
  assert.equal((unbound['kubernetes.io'] as { warnafter?: unknown }).warnafter, undefined);
});

test('--service-account-max-token-expiration shortens longer requests with a warning', async () => {
  const warnings: string[] = [];
  const out = await rest({ maxExpirationSeconds: 7200 }).create('ns', 'sa', { spec: { expirationSeconds: 86400 } }, warnings);
  assert.equal(out.spec?.expirationSeconds, 7200);
  assert.deepEqual(warnings, ['requested expiration of 86400 seconds shortened to 7200 seconds']);
});

test('a value of the wrong JSON type fails decoding, as encoding/json reports it', async () => {
  const cases: [unknown, string][] = [
    [{ spec: { expirationSeconds: 'long' } }, 'json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64'],
    [{ spec: { expirationSeconds: 700.5 } }, 'json: cannot unmarshal number 700.5 into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64'],
    [{ spec: { audiences: 'api' } }, 'json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.audiences of type []string'],
    [{ spec: { boundObjectRef: { kind: 'Pod', name: 7 } } }, 'json: cannot unmarshal number into Go struct field BoundObjectReference.spec.boundObjectRef.name of type string'],
  ];
  for (const [body, message] of cases) {
    await assert.rejects(rest().create('ns', 'sa', body), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 400);
      assert.equal(e.message, `TokenRequest in version "v1" cannot be handled as a TokenRequest: ${message}`);
      return true;
    });
  }
});
