/**
 * The Kubernetes authorization CEL library (k8s.io/apiserver `pkg/cel/library/authz.go`, in the base
 * environment since 1.27, with the `fieldSelector`/`labelSelector` functions of `AuthzSelectors`, whose
 * feature gate AuthorizeWithSelectors is on by default in 1.32): `authorizer.path(p).check(verb)`,
 * `authorizer.group(g).resource(r).subresource(s).namespace(ns).name(n).check(verb)`,
 * `authorizer.serviceAccount(ns, name)`, `authorizer.requestResource`, and a decision's `allowed()`,
 * `reason()`, `errored()` and `error()`.
 *
 * cel-go calls the authorizer synchronously from inside an evaluation; kubemix's authorizer answers a
 * promise. So an evaluation runs against an `AuthzSession` that remembers every decision: a check it has not
 * decided yet is recorded as pending and fails that run; `evaluateWithAuthz` then asks the authorizer for the
 * pending checks and runs the (side-effect free) evaluation again, until a run needs no new decision. As
 * upstream's per-request caching authorizer (validating/caching_authorizer.go), one session answers the same
 * check once per request.
 *
 * The library's types are opaque values (opaque.ts); their state sits in a side table keyed by the value.
 * kubemix's authorizers do not look at field or label selectors, so the selectors a check carries are
 * recorded but decide nothing (as upstream's RBAC authorizer ignores them).
 */
import { celMap, celMethod, CelScalar, type CelFunc, type CelMap } from '@bufbuild/cel';
import type { AuthorizationAttributes, Decision } from '../auth/authz.js';
import { makeGroupNames, makeUsername } from '../auth/serviceaccount/util.js';
import type { UserInfo } from '../registry/policy.js';
import { nameIsDNSLabel, nameIsDNSSubdomain } from '../validation/_names.js';
import { noSuchOverload, OPAQUE } from './opaque.js';

/** `authorizer.Authorize`: kubemix's `Authorizer.authorize`. */
export type AuthorizeFunc = (a: AuthorizationAttributes) => Promise<{ decision: Decision; reason: string }>;

/** What one check decided (`decisionVal`): an authorizer that failed gives `noOpinion` with its error. */
export interface AuthzDecision {
  decision: Decision;
  reason: string;
  error?: string;
}

/** The attributes of a check as the side table of values records them. */
interface ResourceCheck {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector: string;
  labelSelector: string;
}

type AuthzState =
  | { kind: 'authorizer'; session: AuthzSession; user: UserInfo }
  | { kind: 'path'; session: AuthzSession; user: UserInfo; path: string }
  | { kind: 'group'; session: AuthzSession; user: UserInfo; group: string }
  | ({ kind: 'resource'; session: AuthzSession; user: UserInfo } & ResourceCheck)
  | ({ kind: 'decision' } & AuthzDecision);

/** The opaque key of each library type (cel-go's `kubernetes.authorization.<Type>`). */
const typeKeys: Readonly<Record<AuthzState['kind'], string>> = {
  authorizer: '\u0000kubernetes.authorization.Authorizer',
  path: '\u0000kubernetes.authorization.PathCheck',
  group: '\u0000kubernetes.authorization.GroupCheck',
  resource: '\u0000kubernetes.authorization.ResourceCheck',
  decision: '\u0000kubernetes.authorization.Decision',
};

const states = new WeakMap<CelMap, AuthzState>();

function value(state: AuthzState, fields: [string, CelMap][] = []): CelMap {
  const m = celMap(new Map<string, CelMap | boolean>([[typeKeys[state.kind], true], ...fields]));
  states.set(m, state);
  return m;
}

/** The state of a library value of that kind; any other receiver has no such overload. */
function stateOf<K extends AuthzState['kind']>(m: CelMap, kind: K): Extract<AuthzState, { kind: K }> {
  const s = states.get(m);
  if (s === undefined || s.kind !== kind) throw noSuchOverload();
  return s as Extract<AuthzState, { kind: K }>;
}

/** Thrown by a check the session has not decided yet; the run that threw it is discarded. */
class PendingCheck extends Error {
  constructor() {
    super('authorization check pending');
  }
}

/**
 * The authorization checks of one request: decisions made so far, and the checks the last run needed but did
 * not have. Not safe to share between requests of different users (the user is part of each check anyway).
 */
export class AuthzSession {
  private readonly decided = new Map<string, AuthzDecision>();
  private readonly pending = new Map<string, AuthorizationAttributes>();

  constructor(private readonly authorize: AuthorizeFunc) {}

  /** The decision for `a`, or a pending check (thrown) when it has not been asked yet. */
  decide(a: AuthorizationAttributes): AuthzDecision {
    const key = JSON.stringify(a);
    const d = this.decided.get(key);
    if (d !== undefined) return d;
    this.pending.set(key, a);
    throw new PendingCheck();
  }

  /** Whether the last run met a check it had no decision for. */
  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  /** Asks the authorizer for every pending check (an authorizer error is the decision's `error()`). */
  async resolvePending(): Promise<void> {
    const asked = [...this.pending.entries()];
    this.pending.clear();
    await Promise.all(
      asked.map(async ([key, a]) => {
        let d: AuthzDecision;
        try {
          d = await this.authorize(a);
        } catch (e) {
          d = { decision: 'noOpinion', reason: '', error: e instanceof Error ? e.message : String(e) };
        }
        this.decided.set(key, d);
      }),
    );
  }
}

/**
 * Runs `evaluate` (which must have no side effects beyond the session) until it needs no authorization
 * decision it does not have, and answers its last result. Each repeated run has every decision the earlier runs
 * asked for, so the loop ends once the expression's checks are all decided.
 */
export async function evaluateWithAuthz<T>(session: AuthzSession, evaluate: () => T): Promise<T> {
  for (;;) {
    const r = evaluate();
    if (!session.hasPending) return r;
    await session.resolvePending();
  }
}

/** The request's resource as `authorizer.requestResource` sees it (`NewResourceAuthorizerVal`). */
export interface RequestResource {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/**
 * The `authorizer` variable for `user` (`NewAuthorizerVal`); with `requestResource`, its `requestResource`
 * field is the resource check of the request (`NewResourceAuthorizerVal`: group, resource, subresource,
 * namespace and name of the request).
 */
export function authorizerValue(session: AuthzSession, user: UserInfo, requestResource?: RequestResource): CelMap {
  const fields: [string, CelMap][] = [];
  if (requestResource !== undefined) {
    fields.push(['requestResource', value({ kind: 'resource', session, user, ...requestResource, fieldSelector: '', labelSelector: '' })]);
  }
  return value({ kind: 'authorizer', session, user }, fields);
}

function decisionValue(d: AuthzDecision): CelMap {
  return value({ kind: 'decision', ...d });
}

const STRING = CelScalar.STRING;

/** The authz library's functions (`authzLibraryDecls` and `authzSelectorsLibraryDecls`). */
export const authzFuncs: readonly CelFunc[] = [
  celMethod('path', OPAQUE, [STRING], OPAQUE, function (path) {
    const a = stateOf(this, 'authorizer');
    if (path.trim() === '') throw new Error('path must not be empty');
    return value({ kind: 'path', session: a.session, user: a.user, path });
  }),
  celMethod('group', OPAQUE, [STRING], OPAQUE, function (group) {
    const a = stateOf(this, 'authorizer');
    return value({ kind: 'group', session: a.session, user: a.user, group });
  }),
  celMethod('serviceAccount', OPAQUE, [STRING, STRING], OPAQUE, function (namespace, name) {
    const a = stateOf(this, 'authorizer');
    if (nameIsDNSSubdomain(name, false).length > 0) throw new Error('Invalid service account name');
    if (nameIsDNSLabel(namespace, false).length > 0) throw new Error('Invalid service account namespace');
    // serviceaccount.ServiceAccountInfo{Name, Namespace}.UserInfo(): no uid, no extra.
    return value({ kind: 'authorizer', session: a.session, user: { username: makeUsername(namespace, name), groups: makeGroupNames(namespace) } });
  }),
  celMethod('resource', OPAQUE, [STRING], OPAQUE, function (resource) {
    const g = stateOf(this, 'group');
    if (resource.trim() === '') throw new Error('resource must not be empty');
    return value({ kind: 'resource', session: g.session, user: g.user, group: g.group, resource, subresource: '', namespace: '', name: '', fieldSelector: '', labelSelector: '' });
  }),
  ...(['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'] as const).map((field) =>
    celMethod(field, OPAQUE, [STRING], OPAQUE, function (v) {
      return value({ ...stateOf(this, 'resource'), [field]: v });
    }),
  ),
  celMethod('check', OPAQUE, [STRING], OPAQUE, function (verb) {
    const s = states.get(this);
    if (s?.kind === 'path') {
      return decisionValue(s.session.decide({ user: s.user, verb, resourceRequest: false, group: '', version: '', resource: '', subresource: '', namespace: '', name: '', path: s.path }));
    }
    if (s?.kind === 'resource') {
      const attrs: AuthorizationAttributes = { user: s.user, verb, resourceRequest: true, group: s.group, version: '*', resource: s.resource, subresource: s.subresource, namespace: s.namespace, name: s.name, path: '' };
      return decisionValue(s.session.decide(attrs));
    }
    throw noSuchOverload();
  }),
  celMethod('allowed', OPAQUE, [], CelScalar.BOOL, function () {
    return stateOf(this, 'decision').decision === 'allow';
  }),
  celMethod('reason', OPAQUE, [], STRING, function () {
    return stateOf(this, 'decision').reason;
  }),
  celMethod('errored', OPAQUE, [], CelScalar.BOOL, function () {
    return stateOf(this, 'decision').error !== undefined;
  }),
  celMethod('error', OPAQUE, [], STRING, function () {
    return stateOf(this, 'decision').error ?? '';
  }),
];
