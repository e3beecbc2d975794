import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { Authenticator, StaticTokenAuthenticator } from './authn.js';
import type { Authorizer } from './authz.js';

function req(headers: Record<string, string | string[]>): IncomingMessage {
  const lower: Record<string, string | string[]> = {};
  const distinct: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(headers)) {
    lower[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    distinct[k.toLowerCase()] = Array.isArray(v) ? v : [v];
  }
  return { headers: lower, headersDistinct: distinct, socket: {} } as unknown as IncomingMessage;
}

const tokens = new StaticTokenAuthenticator(new Map([
  ['alice-token', { username: 'alice', groups: ['devs'] }],
  ['admin-token', { username: 'admin', groups: ['system:masters'] }],
]));
/** Allows admin to impersonate anyone, and alice to impersonate the user bob only. */
const impersonation: Authorizer = {
  async authorize(a) {
    if (a.verb !== 'impersonate') return { decision: 'noOpinion', reason: '' };
    if (a.user.username === 'admin') return { decision: 'allow', reason: '' };
    if (a.user.username === 'alice' && a.resource === 'users' && a.name === 'bob') return { decision: 'allow', reason: '' };
    return { decision: 'noOpinion', reason: '' };
  },
};

test('bearer tokens authenticate; unknown ones fail; no credentials are anonymous', async () => {
  const a = new Authenticator([tokens]);
  assert.deepEqual(await a.authenticate(req({ Authorization: 'Bearer alice-token' })), { kind: 'user', user: { username: 'alice', groups: ['devs', 'system:authenticated'] } });
  assert.deepEqual(await a.authenticate(req({ Authorization: 'Bearer nope' })), { kind: 'failed' });
  assert.deepEqual(await a.authenticate(req({})), { kind: 'anonymous' });
});

test('with anonymous auth on, no credentials are system:anonymous in system:unauthenticated', async () => {
  const a = new Authenticator([tokens], { anonymousAuth: true });
  assert.deepEqual(await a.authenticate(req({})), { kind: 'user', user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
});

test('impersonation switches the user when allowed and adds system:authenticated', async () => {
  const a = new Authenticator([tokens], { impersonationAuthorizer: impersonation });
  assert.deepEqual(await a.authenticate(req({ Authorization: 'Bearer admin-token', 'Impersonate-User': 'carol', 'Impersonate-Group': ['g1', 'g2'] })), {
    kind: 'user',
    user: { username: 'carol', groups: ['g1', 'g2', 'system:authenticated'] },
  });
  assert.deepEqual(await a.authenticate(req({ Authorization: 'Bearer admin-token', 'Impersonate-User': 'system:serviceaccount:ns:sa' })), {
    kind: 'user',
    user: { username: 'system:serviceaccount:ns:sa', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'] },
  });
  assert.deepEqual(await a.authenticate(req({ Authorization: 'Bearer alice-token', 'Impersonate-User': 'bob' })), { kind: 'user', user: { username: 'bob', groups: ['system:authenticated'] } });
});

test('impersonation that is not allowed is forbidden with the upstream message', async () => {
  const a = new Authenticator([tokens], { impersonationAuthorizer: impersonation });
  await assert.rejects(a.authenticate(req({ Authorization: 'Bearer alice-token', 'Impersonate-User': 'carol' })), {
    code: 403,
    message: 'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
  });
  await assert.rejects(a.authenticate(req({ Authorization: 'Bearer alice-token', 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' })), {
    code: 403,
    message: 'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
  });
});

test('a verified client certificate wins over a bearer token beside it, as in the union authenticator (x509 first)', async () => {
  const a = new Authenticator([tokens]);
  const withCert = (headers: Record<string, string>): IncomingMessage => {
    const r = req(headers);
    (r as unknown as { socket: object }).socket = { authorized: true, getPeerCertificate: () => ({ subject: { CN: 'kubernetes-admin', O: 'system:masters' } }) };
    return r;
  };
  const admin = { kind: 'user', user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] } };
  assert.deepEqual(await a.authenticate(withCert({ Authorization: 'Bearer nope' })), admin);
  assert.deepEqual(await a.authenticate(withCert({ Authorization: 'Bearer alice-token' })), admin);
});
