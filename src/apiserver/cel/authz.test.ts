import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCelError, parse, plan } from '@bufbuild/cel';
import type { AuthorizationAttributes } from '../auth/authz.js';
import type { UserInfo } from '../registry/policy.js';
import { authorizerValue, AuthzSession, evaluateWithAuthz, type AuthorizeFunc, type RequestResource } from './authz.js';
import { newBaseEnv } from './expr.js';

const env = newBaseEnv();
const requester: UserInfo = { username: 'alice', groups: ['system:authenticated'] };

/** The attributes a fake matches; absent fields are the zero value, as in upstream's `AttributesRecord`. */
type Match = Partial<Omit<AuthorizationAttributes, 'user'>> & { user?: UserInfo };

/** `newAuthzAllowMatch`: allows exactly the check with these attributes, denies anything else. */
function allowMatch(m: Match): AuthorizeFunc {
  const want = { user: m.user ?? requester, verb: '', resourceRequest: false, group: '', version: '', resource: '', subresource: '', namespace: '', name: '', path: '', ...m };
  return async (a) => {
    try {
      assert.deepEqual(a, want);
      return { decision: 'allow', reason: '' };
    } catch {
      return { decision: 'deny', reason: '' };
    }
  };
}
const denyAll: AuthorizeFunc = async () => ({ decision: 'deny', reason: 'fake reason' });
const errorAll: AuthorizeFunc = async () => {
  throw new Error('fake authz error');
};

/** Evaluates `expr` with `authorizer` bound: its value, or the runtime error's message. */
async function evaluate(expr: string, authorize: AuthorizeFunc, requestResource?: RequestResource): Promise<unknown> {
  const session = new AuthzSession(authorize);
  const program = plan(env, parse(expr));
  const r = await evaluateWithAuthz(session, () => program({ authorizer: authorizerValue(session, requester, requestResource) }));
  return isCelError(r) ? { error: r.message } : r;
}

const endpointCreate: RequestResource = { group: '', resource: 'endpoints', subresource: '', namespace: 'default', name: 'endpoints1' };
const endpointStatusUpdate: RequestResource = { ...endpointCreate, subresource: 'status' };

interface Case {
  name: string;
  expressions: string[];
  results: unknown[];
  authorizer: AuthorizeFunc;
  requestResource?: RequestResource;
}

// admission/plugin/cel filter_test.go TestFilter: the authorizer cases.
const cases: Case[] = [
  {
    name: 'test authorizer allow resource check',
    expressions: ["authorizer.group('').resource('endpoints').check('create').allowed()", "authorizer.group('').resource('endpoints').check('create').errored()"],
    results: [true, false],
    authorizer: allowMatch({ resourceRequest: true, resource: 'endpoints', verb: 'create', version: '*' }),
  },
  {
    name: 'test authorizer allow resource check with all fields',
    expressions: ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()"],
    results: [true],
    authorizer: allowMatch({ resourceRequest: true, group: 'apps', resource: 'deployments', subresource: 'status', namespace: 'test', name: 'backend', verb: 'create', version: '*' }),
  },
  {
    name: 'test authorizer not allowed resource check one incorrect field',
    expressions: ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()"],
    results: [false],
    authorizer: allowMatch({ resourceRequest: true, group: 'apps', resource: 'deployments-xxxx', subresource: 'status', namespace: 'test', name: 'backend', verb: 'create', version: '*' }),
  },
  {
    name: 'test authorizer reason',
    expressions: ["authorizer.group('').resource('endpoints').check('create').reason() == 'fake reason'"],
    results: [true],
    authorizer: denyAll,
  },
  {
    name: 'test authorizer error',
    expressions: [
      "authorizer.group('').resource('endpoints').check('create').errored()",
      "authorizer.group('').resource('endpoints').check('create').error() == 'fake authz error'",
      "authorizer.group('').resource('endpoints').check('create').allowed()",
    ],
    results: [true, true, false],
    authorizer: errorAll,
  },
  {
    name: 'test authorizer allow path check',
    expressions: ["authorizer.path('/healthz').check('get').allowed()"],
    results: [true],
    authorizer: allowMatch({ path: '/healthz', verb: 'get' }),
  },
  {
    name: 'test authorizer decision is denied path check',
    expressions: ["authorizer.path('/healthz').check('get').allowed() == false"],
    results: [true],
    authorizer: denyAll,
  },
  {
    name: 'test request resource authorizer allow check',
    expressions: ["authorizer.requestResource.check('custom-verb').allowed()"],
    results: [true],
    requestResource: endpointCreate,
    authorizer: allowMatch({ resourceRequest: true, resource: 'endpoints', namespace: 'default', name: 'endpoints1', verb: 'custom-verb', version: '*' }),
  },
  {
    name: 'test subresource request resource authorizer allow check',
    expressions: ["authorizer.requestResource.check('custom-verb').allowed()"],
    results: [true],
    requestResource: endpointStatusUpdate,
    authorizer: allowMatch({ resourceRequest: true, resource: 'endpoints', subresource: 'status', namespace: 'default', name: 'endpoints1', verb: 'custom-verb', version: '*' }),
  },
  {
    name: 'test serviceAccount authorizer allow check',
    expressions: ["authorizer.serviceAccount('default', 'test-serviceaccount').group('').resource('endpoints').namespace('default').name('endpoints1').check('custom-verb').allowed()"],
    results: [true],
    requestResource: endpointCreate,
    authorizer: allowMatch({
      user: { username: 'system:serviceaccount:default:test-serviceaccount', groups: ['system:serviceaccounts', 'system:serviceaccounts:default'] },
      resourceRequest: true,
      resource: 'endpoints',
      namespace: 'default',
      name: 'endpoints1',
      verb: 'custom-verb',
      version: '*',
    }),
  },
  // authz.go's documented errors and the selector functions of AuthzSelectors (on in 1.32).
  {
    name: 'empty path is an error',
    expressions: ["authorizer.path('').check('get').allowed()", "authorizer.path('  ').check('get').allowed()"],
    results: [{ error: 'path must not be empty' }, { error: 'path must not be empty' }],
    authorizer: denyAll,
  },
  {
    name: 'empty resource is an error',
    expressions: ["authorizer.group('apps').resource('').check('get').allowed()", "authorizer.group('apps').resource('  ').check('get').allowed()"],
    results: [{ error: 'resource must not be empty' }, { error: 'resource must not be empty' }],
    authorizer: denyAll,
  },
  {
    name: 'invalid service account name and namespace',
    expressions: ["authorizer.serviceAccount('valid.example.com', 'invalid@*name') == authorizer", "authorizer.serviceAccount('not@a#valid!namespace', 'validname') == authorizer"],
    results: [{ error: 'Invalid service account name' }, { error: 'Invalid service account namespace' }],
    authorizer: denyAll,
  },
  {
    name: 'an empty subresource and name check the whole resource',
    expressions: ["authorizer.group('apps').resource('deployments').subresource('').namespace('test').name('').check('list').allowed()"],
    results: [true],
    authorizer: allowMatch({ resourceRequest: true, group: 'apps', resource: 'deployments', namespace: 'test', verb: 'list', version: '*' }),
  },
  {
    name: 'field and label selectors are carried by the check',
    expressions: [
      "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=mynode').check('list').allowed()",
      "authorizer.group('').resource('pods').labelSelector('app=example').check('list').allowed()",
    ],
    results: [true, true],
    authorizer: allowMatch({ resourceRequest: true, resource: 'pods', verb: 'list', version: '*' }),
  },
  {
    name: 'a check without an error has an empty error',
    expressions: ["authorizer.group('').resource('pods').check('get').error() == ''", "authorizer.path('/healthz').check('get').reason()"],
    results: [true, 'fake reason'],
    authorizer: denyAll,
  },
  {
    name: 'the library functions need their receiver types',
    expressions: ["authorizer.check('get')", "authorizer.group('').check('get')", "authorizer.group('').resource('pods').allowed()", "{'a': 1}.allowed()"],
    results: [{ error: 'no such overload' }, { error: 'no such overload' }, { error: 'no such overload' }, { error: 'no such overload' }],
    authorizer: denyAll,
  },
];

for (const tc of cases) {
  test(`TestFilter/${tc.name}`, async () => {
    const got = [];
    for (const e of tc.expressions) got.push(await evaluate(e, tc.authorizer, tc.requestResource));
    assert.deepEqual(got, tc.results);
  });
}

test('AuthzSession asks the authorizer once per distinct check and request', async () => {
  const asked: AuthorizationAttributes[] = [];
  const session = new AuthzSession(async (a) => {
    asked.push(a);
    return { decision: a.namespace === 'a' ? 'allow' : 'deny', reason: '' };
  });
  const program = plan(env, parse("['a', 'b', 'a'].map(ns, authorizer.group('').resource('pods').namespace(ns).check('create').allowed())"));
  let runs = 0;
  const run = (): unknown => {
    runs++;
    return program({ authorizer: authorizerValue(session, requester) });
  };
  const r = await evaluateWithAuthz(session, run);
  assert.deepEqual([...(r as Iterable<unknown>)], [true, false, true]);
  assert.deepEqual(asked.map((a) => a.namespace).sort(), ['a', 'b']);
  // map() stops at the first pending check: one run per new check, and a last run with every decision.
  assert.equal(runs, 3);
  // The same session answers again without asking.
  await evaluateWithAuthz(session, run);
  assert.equal(asked.length, 2);
  assert.equal(runs, 4);
});
