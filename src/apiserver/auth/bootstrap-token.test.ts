import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret } from 'kubernetes-types/core/v1.js';
import { BootstrapTokenAuthenticator } from './bootstrap-token.js';

// Cases of plugin/pkg/auth/authenticator/token/bootstrap/bootstrap_test.go.
const tokenID = 'foobar';
const tokenSecret = 'circumnavigation';
const b64 = (s: string): string => Buffer.from(s).toString('base64');
function secret(data: Record<string, string>, extra: Partial<Secret> = {}): Secret {
  const d: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) d[k] = b64(v);
  return { metadata: { name: `bootstrap-token-${tokenID}`, namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token', data: d, ...extra };
}
const valid = { 'token-id': tokenID, 'token-secret': tokenSecret, 'usage-bootstrap-authentication': 'true' };
const now = new Date('2026-01-01T00:00:00Z');

const cases: { name: string; secret: Secret; token: string; want?: { username: string; groups: string[] } }[] = [
  { name: 'valid token', secret: secret(valid), token: `${tokenID}.${tokenSecret}`, want: { username: 'system:bootstrap:foobar', groups: ['system:bootstrappers'] } },
  { name: 'valid token with extra group', secret: secret({ ...valid, 'auth-extra-groups': 'system:bootstrappers:foo' }), token: `${tokenID}.${tokenSecret}`, want: { username: 'system:bootstrap:foobar', groups: ['system:bootstrappers', 'system:bootstrappers:foo'] } },
  { name: 'invalid group', secret: secret({ ...valid, 'auth-extra-groups': 'foo' }), token: `${tokenID}.${tokenSecret}` },
  { name: 'invalid secret name', secret: { ...secret(valid), metadata: { name: 'bad-name', namespace: 'kube-system' } }, token: `${tokenID}.${tokenSecret}` },
  { name: 'no usage', secret: secret({ 'token-id': tokenID, 'token-secret': tokenSecret }), token: `${tokenID}.${tokenSecret}` },
  { name: 'wrong token', secret: secret(valid), token: 'barfoo.circumnavigation' },
  { name: 'wrong secret', secret: secret(valid), token: `${tokenID}.circumnavigatio2` },
  { name: 'deleted token', secret: secret(valid, { metadata: { name: `bootstrap-token-${tokenID}`, namespace: 'kube-system', deletionTimestamp: '2025-12-31T00:00:00Z' } }), token: `${tokenID}.${tokenSecret}` },
  { name: 'expired token', secret: secret({ ...valid, expiration: '2025-12-31T00:00:00Z' }), token: `${tokenID}.${tokenSecret}` },
  { name: 'not expired token', secret: secret({ ...valid, expiration: '2026-01-02T00:00:00Z' }), token: `${tokenID}.${tokenSecret}`, want: { username: 'system:bootstrap:foobar', groups: ['system:bootstrappers'] } },
  { name: 'token id does not match secret', secret: secret({ ...valid, 'token-id': 'foobaz' }), token: `${tokenID}.${tokenSecret}` },
  { name: 'wrong secret type', secret: secret(valid, { type: 'Opaque' }), token: `${tokenID}.${tokenSecret}` },
];

for (const tc of cases) {
  test(tc.name, async () => {
    const a = new BootstrapTokenAuthenticator({ getSecret: async (name) => (tc.secret.metadata?.name === name ? tc.secret : undefined), now: () => now });
    assert.deepEqual(await a.authenticateToken(tc.token), tc.want);
  });
}
