import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateToken, hasExpired, parseDuration, parseToken, secretGroups, secretUsages, secretValue, tokenSecret } from './token.js';

test('tokens parse only in the <6>.<16> lower-case form', () => {
  assert.deepEqual(parseToken('abcdef.0123456789abcdef'), { id: 'abcdef', secret: '0123456789abcdef' });
  for (const bad of ['ABCDEF.0123456789abcdef', 'abcdef.0123456789abcde', 'abcdef:0123456789abcdef', 'abcdef.0123456789abcdef ', '']) assert.equal(parseToken(bad), undefined, bad);
  const t = generateToken();
  assert.match(`${t.id}.${t.secret}`, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
});

test("the token Secret carries kubeadm's keys, usages, group and a 24 h expiration", () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const s = tokenSecret({ token: { id: 'abcdef', secret: '0123456789abcdef' }, now });
  assert.equal(s.metadata?.name, 'bootstrap-token-abcdef');
  assert.equal(s.metadata?.namespace, 'kube-system');
  assert.equal(s.type, 'bootstrap.kubernetes.io/token');
  assert.equal(secretValue(s, 'token-id'), 'abcdef');
  assert.equal(secretValue(s, 'token-secret'), '0123456789abcdef');
  assert.equal(secretValue(s, 'expiration'), '2026-01-02T00:00:00Z');
  assert.equal(secretValue(s, 'usage-bootstrap-signing'), 'true');
  assert.equal(secretValue(s, 'usage-bootstrap-authentication'), 'true');
  assert.deepEqual(secretUsages(s), ['authentication', 'signing']);
  assert.deepEqual(secretGroups(s), ['system:bootstrappers:kubeadm:default-node-token']);
  assert.equal(hasExpired(s, now), false);
  assert.equal(hasExpired(s, new Date('2026-01-02T00:00:01Z')), true);
  assert.equal(secretValue(tokenSecret({ token: { id: 'abcdef', secret: '0123456789abcdef' }, ttlMs: 0 }), 'expiration'), undefined);
});

test('durations parse as Go durations', () => {
  assert.equal(parseDuration('24h'), 86_400_000);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('2s'), 2000);
  assert.equal(parseDuration('0'), 0);
  assert.equal(parseDuration('1d'), undefined);
  assert.equal(parseDuration(''), undefined);
});
