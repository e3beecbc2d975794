/**
 * ValidatingAdmissionPolicy (k8s.io/apiserver/pkg/admission/plugin/policy/validating: plugin.go,
 * dispatcher.go, validator.go; policy/generic: policy_source.go, policy_matcher.go, `CollectParams`): every
 * binding whose policy exists, whose policy's matchConstraints and whose own matchResources select the request,
 * is evaluated once per param object; a failed validation is denied, warned about or (no audit log here)
 * only evaluated, as the binding's validationActions say.
 *
 * Policies and bindings are read from the watch cache on every request (none: the request passes at once) and
 * compiled once per resourceVersion. The CEL `authorizer` asks the API server's authorizer (`lookup.authorize`)
 * as the requesting user, each check once per request (src/apiserver/cel/authz.ts). Not done: audit annotations and the Audit action's `validation_failure` annotation (no
 * audit log; the expressions are still evaluated, and their errors still deny under failurePolicy Fail), cost
 * budgets, and matchPolicy Equivalent's conversion to another version of the resource.
 */
import { celMap, isCelError, isCelList, isCelMap, isCelUint, type CelInput, type CelValue } from '@bufbuild/cel';
import { ApiError, apiErrors, StatusReason } from '../../api/errors.js';
import { labelSelectorAsSelector } from '../../api/labels.js';
import type { ResourceType } from '../../api/resources.js';
import type { KubeObject } from '../../client/client.js';
import { authorizerValue, AuthzSession, evaluateWithAuthz, runtimeErrorMessage } from '../../apiserver/cel/index.js';
import { admissionForbidden } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, ValidatingPlugin } from '../types.js';
import type { ParamRef, ValidatingAdmissionPolicy as Policy, ValidatingAdmissionPolicyBinding as Binding, ValidationAction } from './_api.js';
import { AuthorizerVarName, compilePolicy, NamespaceVarName, ObjectVarName, OldObjectVarName, ParamsVarName, RequestVarName, VariableVarName, type CompiledExpression, type CompiledPolicy } from './_compile.js';
import { MatchError, matchesCriteria } from './_matching.js';
import { jsonToCel } from './_values.js';

export const PluginName = names.ValidatingAdmissionPolicy;

/** `celconfig.MaxEvaluatedMessageExpressionSizeBytes`. */
const maxEvaluatedMessageExpressionSizeBytes = 5 * 1024;

/**
 * Resources no admission policy sees: the admission configuration itself (`IsExemptAdmissionConfigurationResource`)
 * and the review resources kube-apiserver always excludes (`AlwaysExcludedAdmissionResources`).
 */
const exemptResources = new Set([
  'admissionregistration.k8s.io/validatingwebhookconfigurations',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingadmissionpolicies',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'admissionregistration.k8s.io/mutatingadmissionpolicies',
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings',
  'authentication.k8s.io/selfsubjectreviews',
  'authentication.k8s.io/tokenreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authorization.k8s.io/subjectaccessreviews',
]);

/** `PolicyDecision`: what one validation (or a configuration error) decided. */
interface PolicyDecision {
  action: 'admit' | 'deny';
  evaluation: 'admit' | 'deny' | 'error';
  message: string;
  reason?: string;
}

interface DeniedDecision extends PolicyDecision {
  policy: Policy;
  binding: Binding | undefined;
}

/** `reasonToCode`: the HTTP code of a validation's reason. */
export function reasonToCode(reason: string): number {
  switch (reason) {
    case StatusReason.Forbidden:
      return 403;
    case StatusReason.Unauthorized:
      return 401;
    case StatusReason.RequestEntityTooLarge:
      return 413;
    default:
      return 422;
  }
}

/** Thrown by `collectParams`: a binding's misconfiguration (`failed to configure binding: ...`). */
class ConfigurationError extends Error {}

export class ValidatingAdmissionPolicy implements ValidatingPlugin {
  readonly name = PluginName;
  /** Compiled policies by name, recompiled when the policy's resourceVersion changes (`compilePolicyLocked`). */
  private readonly compiled = new Map<string, { resourceVersion: string; policy: CompiledPolicy }>();

  async validate(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    const bindings = (await lookup.listValidatingAdmissionPolicyBindings()) as Binding[];
    if (bindings.length === 0) return;
    if (exemptResources.has(`${a.resource.group}/${a.resource.resource}`)) return;
    const policies = (await lookup.listValidatingAdmissionPolicies()) as Policy[];
    const byName = new Map(policies.map((p) => [p.metadata?.name ?? '', p]));
    this.prune(byName);

    const denied: DeniedDecision[] = [];
    // One per request, as upstream's caching authorizer: a check repeated by several policies is asked once.
    const authz = new AuthzSession((attrs) => lookup.authorize(attrs));
    const configError = (message: string, policy: Policy, binding: Binding | undefined): void => {
      if ((policy.spec?.failurePolicy ?? 'Fail') === 'Ignore') return;
      denied.push({ action: 'deny', evaluation: 'error', message: `${binding === undefined ? 'failed to configure policy' : 'failed to configure binding'}: ${message}`, policy, binding });
    };

    for (const [policy, policyBindings] of hooks(byName, bindings)) {
      const spec = policy.spec ?? {};
      let matches: boolean;
      try {
        matches = spec.matchConstraints !== undefined && spec.matchConstraints !== null && (await matchesCriteria(spec.matchConstraints, a, lookup));
      } catch (e) {
        // dispatcher.go drops the policy's own match errors: the policy does not apply.
        if (e instanceof MatchError) continue;
        throw e;
      }
      if (!matches) continue;
      let paramResource: ResourceType | undefined;
      if (spec.paramKind !== undefined && spec.paramKind !== null) {
        paramResource = lookup.resourceForKind(spec.paramKind.apiVersion ?? '', spec.paramKind.kind ?? '');
        if (paramResource === undefined) {
          configError(`failed to find resource referenced by paramKind: '${paramKindString(spec.paramKind.apiVersion ?? '', spec.paramKind.kind ?? '')}'`, policy, undefined);
          continue;
        }
      }
      const compiled = this.compile(policy);
      for (const binding of policyBindings) {
        const bspec = binding.spec ?? {};
        try {
          if (bspec.matchResources !== undefined && bspec.matchResources !== null && !(await matchesCriteria(bspec.matchResources, a, lookup))) continue;
        } catch (e) {
          if (e instanceof MatchError) {
            configError(e.message, policy, binding);
            continue;
          }
          throw e;
        }
        let params: (KubeObject | null)[];
        try {
          params = await collectParams(paramResource, spec.paramKind, bspec.paramRef, a.namespace, lookup);
        } catch (e) {
          if (e instanceof ConfigurationError) {
            configError(e.message, policy, binding);
            continue;
          }
          throw e;
        }
        if (params.length === 0) continue;
        const namespaceObject = await namespaceObjectFor(a, lookup);
        for (const param of params) {
          const decisions = await evaluateWithAuthz(authz, () => evaluatePolicy(compiled, policy, a, param, namespaceObject, authz));
          for (const d of decisions) {
            if (d.action !== 'deny') continue;
            for (const action of bspec.validationActions ?? []) {
              applyAction(action, d, policy, binding, a, denied);
            }
          }
        }
      }
    }
    if (denied.length > 0) throw deniedError(a, denied[0] as DeniedDecision);
  }

  private compile(policy: Policy): CompiledPolicy {
    const name = policy.metadata?.name ?? '';
    const rv = policy.metadata?.resourceVersion ?? '';
    const hit = this.compiled.get(name);
    if (hit !== undefined && hit.resourceVersion === rv && rv !== '') return hit.policy;
    const compiled = compilePolicy(policy.spec ?? {});
    this.compiled.set(name, { resourceVersion: rv, policy: compiled });
    return compiled;
  }

  /** Forgets compiled policies that no longer exist. */
  private prune(policies: ReadonlyMap<string, Policy>): void {
    if (this.compiled.size <= policies.size) return;
    for (const name of this.compiled.keys()) if (!policies.has(name)) this.compiled.delete(name);
  }
}

/** The policies that have bindings, each with its bindings (a binding whose policy is missing is skipped), by name. */
function hooks(policies: ReadonlyMap<string, Policy>, bindings: readonly Binding[]): [Policy, Binding[]][] {
  const out = new Map<string, [Policy, Binding[]]>();
  for (const b of bindings) {
    const name = b.spec?.policyName ?? '';
    const p = policies.get(name);
    if (p === undefined) continue;
    let entry = out.get(name);
    if (entry === undefined) out.set(name, (entry = [p, []]));
    entry[1].push(b);
  }
  const byName = (x: { metadata?: { name?: string } }, y: { metadata?: { name?: string } }): number => ((x.metadata?.name ?? '') < (y.metadata?.name ?? '') ? -1 : 1);
  for (const [, [, bs]] of out) bs.sort(byName);
  return [...out.values()].sort((x, y) => byName(x[0], y[0]));
}

/** `schema.GroupVersionKind.String()`: `group/version, Kind=kind`. */
function paramKindString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${kind}`;
}

/**
 * `CollectParams`: the param objects a binding evaluates its policy with (`[null]` when the policy has no
 * paramKind or the binding no paramRef; none when none is found and parameterNotFoundAction is Allow).
 */
async function collectParams(resource: ResourceType | undefined, paramKind: { apiVersion?: string; kind?: string } | undefined, ref: ParamRef | undefined, namespace: string, lookup: AdmissionLookup): Promise<(KubeObject | null)[]> {
  if (resource === undefined || paramKind === undefined || ref === undefined || ref === null) return [null];
  let paramsNamespace = '';
  if (resource.namespaced) {
    paramsNamespace = (ref.namespace ?? '') !== '' ? (ref.namespace ?? '') : namespace;
    if (paramsNamespace === '') throw new ConfigurationError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if ((ref.namespace ?? '') !== '') {
    throw new ConfigurationError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  let params: KubeObject[];
  if ((ref.name ?? '') !== '') {
    if (ref.selector !== undefined && ref.selector !== null) throw new ConfigurationError('paramRef.name and paramRef.selector are mutually exclusive');
    const p = await lookup.getObject(resource, paramsNamespace, ref.name ?? '');
    params = p === undefined ? [] : [p];
  } else if (ref.selector !== undefined && ref.selector !== null) {
    let selector;
    try {
      selector = labelSelectorAsSelector(ref.selector);
    } catch (e) {
      throw new ConfigurationError(e instanceof Error ? e.message : String(e));
    }
    params = (await lookup.listObjects(resource, paramsNamespace)).filter((o) => selector.matches(o.metadata?.labels ?? {}));
  } else {
    throw new ConfigurationError('one of name or selector must be provided');
  }
  if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') throw new ConfigurationError('no params found for policy binding with `Deny` parameterNotFoundAction');
  // wrappedParam: a param always carries its apiVersion and kind.
  return params.map((p) => (p.apiVersion !== undefined && p.kind !== undefined ? p : { ...p, apiVersion: paramKind.apiVersion ?? '', kind: paramKind.kind ?? '' }));
}

/**
 * The request's namespace for `namespaceObject` (`CreateNamespaceObject`: its meta, spec and status), or null
 * for cluster-scoped requests and namespaces themselves. A namespace that does not exist fails the request.
 */
async function namespaceObjectFor(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<Record<string, unknown> | null> {
  if (a.namespace === '' || (a.resource.group === '' && a.resource.resource === 'namespaces')) return null;
  const ns = await lookup.getNamespace(a.namespace);
  if (ns === undefined) throw apiErrors.notFound({ group: '', resource: 'namespaces' }, a.namespace);
  const md = ns.metadata ?? {};
  const meta: Record<string, unknown> = {};
  for (const k of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers'] as const) {
    if (md[k] !== undefined) meta[k] = md[k];
  }
  return { metadata: meta, spec: ns.spec ?? {}, status: ns.status ?? {} };
}

/** `CreateAdmissionRequest` as unstructured: the admission.k8s.io/v1 AdmissionRequest, empty fields omitted. */
function admissionRequest(a: AdmissionAttributes): Record<string, unknown> {
  const r = a.resource;
  const kind = { group: r.group, version: r.version, kind: r.kind };
  const resource = { group: r.group, version: r.version, resource: r.resource };
  const req: Record<string, unknown> = { uid: '', kind, resource, requestKind: kind, requestResource: resource };
  if (a.subresource !== '') {
    req['subResource'] = a.subresource;
    req['requestSubResource'] = a.subresource;
  }
  const name = a.name !== '' ? a.name : (a.object?.metadata?.name ?? '');
  if (name !== '') req['name'] = name;
  if (a.namespace !== '') req['namespace'] = a.namespace;
  req['operation'] = a.operation;
  const userInfo: Record<string, unknown> = {};
  if (a.userInfo.username !== '') userInfo['username'] = a.userInfo.username;
  if (a.userInfo.groups.length > 0) userInfo['groups'] = a.userInfo.groups;
  req['userInfo'] = userInfo;
  req['dryRun'] = a.dryRun;
  const optionsKind = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' }[a.operation as 'CREATE'];
  if (optionsKind !== undefined) req['options'] = { kind: optionsKind, apiVersion: 'meta.k8s.io/v1', ...(a.dryRun ? { dryRun: ['All'] } : {}) };
  return req;
}

/** The result of one expression: its value, or upstream's error text (`expression 'x' resulted in error: ...`). */
function run(e: CompiledExpression, vars: Record<string, CelInput>): { value: CelValue } | { error: string } {
  if (e.program === undefined) return { error: `compilation error: ${e.error ?? 'unexpected internal error compiling expression'}` };
  let message: string;
  try {
    const v = e.program(vars);
    if (!isCelError(v)) return { value: v };
    message = v.message;
  } catch (err) {
    message = err instanceof Error ? err.message : String(err);
  }
  return { error: `expression '${e.expression}' resulted in error: ${runtimeErrorMessage(message)}` };
}

/** The lazily evaluated `variables` of one evaluation (composition.go `Variables`): each computed once, when read. */
class LazyVariables implements ReadonlyMap<string, CelInput> {
  private readonly memo = new Map<string, CelInput>();
  private vars: Record<string, CelInput> = {};

  constructor(private readonly compiled: CompiledPolicy['variables']) {}

  /** The activation the variables are evaluated in (which holds this map as `variables`). */
  bind(vars: Record<string, CelInput>): void {
    this.vars = vars;
  }

  get size(): number {
    return this.compiled.length;
  }

  get(key: unknown): CelInput | undefined {
    if (typeof key !== 'string') return undefined;
    if (this.memo.has(key)) return this.memo.get(key);
    const v = this.compiled.find((c) => c.name === key);
    if (v === undefined) return undefined;
    if (v.expression.program === undefined) throw new Error(`composited variable "${key}" fails to compile: ${v.expression.error ?? ''}`);
    let message: string;
    try {
      const out = v.expression.program(this.vars);
      if (!isCelError(out)) {
        this.memo.set(key, out);
        return out;
      }
      message = out.message;
    } catch (e) {
      message = e instanceof Error ? e.message : String(e);
    }
    throw new Error(`composited variable "${key}" fails to evaluate: ${runtimeErrorMessage(message)}`);
  }

  has(key: unknown): boolean {
    return typeof key === 'string' && this.compiled.some((c) => c.name === key);
  }

  forEach(cb: (value: CelInput, key: string, map: ReadonlyMap<string, CelInput>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) cb.call(thisArg, v, k, this);
  }

  *entries(): MapIterator<[string, CelInput]> {
    for (const c of this.compiled) yield [c.name, this.get(c.name) ?? null];
  }

  *keys(): MapIterator<string> {
    for (const c of this.compiled) yield c.name;
  }

  *values(): MapIterator<CelInput> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): MapIterator<[string, CelInput]> {
    return this.entries();
  }
}

/**
 * The activation of one policy evaluation: object, oldObject, request, namespaceObject, params, variables and
 * the requesting user's `authorizer`, whose `requestResource` is the request's resource (plugin.go).
 */
function activation(compiled: CompiledPolicy, a: AdmissionAttributes, param: KubeObject | null, namespaceObject: Record<string, unknown> | null, authz: AuthzSession): Record<string, CelInput> {
  const variables = new LazyVariables(compiled.variables);
  const requestResource = { group: a.resource.group, resource: a.resource.resource, subresource: a.subresource, namespace: a.namespace, name: a.name !== '' ? a.name : (a.object?.metadata?.name ?? '') };
  const vars: Record<string, CelInput> = {
    [ObjectVarName]: jsonToCel(a.object ?? null),
    [OldObjectVarName]: jsonToCel(a.oldObject ?? null),
    [RequestVarName]: jsonToCel(admissionRequest(a)),
    [NamespaceVarName]: jsonToCel(namespaceObject),
    [VariableVarName]: celMap(variables),
    [AuthorizerVarName]: authorizerValue(authz, { username: a.userInfo.username, groups: a.userInfo.groups }, requestResource),
  };
  if (compiled.hasParams) vars[ParamsVarName] = jsonToCel(param);
  variables.bind(vars);
  return vars;
}

/** cel-go's name of a value's type (the audit annotation error). */
function celTypeName(v: CelValue): string {
  if (v === null) return 'null_type';
  switch (typeof v) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    default:
      if (v instanceof Uint8Array) return 'bytes';
      if (isCelUint(v)) return 'uint';
      if (isCelList(v)) return 'list';
      if (isCelMap(v)) return 'map';
      return 'dyn';
  }
}

/**
 * `validator.Validate` for one param: matchConditions (any false: no decision; errors: per failurePolicy), then
 * each validation, then the audit annotations, whose errors deny under failurePolicy Fail. Free of side
 * effects, so that `evaluateWithAuthz` may run it again once the authorization checks it met are decided.
 */
function evaluatePolicy(compiled: CompiledPolicy, policy: Policy, a: AdmissionAttributes, param: KubeObject | null, namespaceObject: Record<string, unknown> | null, authz: AuthzSession): PolicyDecision[] {
  const fail = (policy.spec?.failurePolicy ?? 'Fail') !== 'Ignore';
  const errorDecision = (message: string): PolicyDecision => ({ action: fail ? 'deny' : 'admit', evaluation: 'error', message });
  const vars = activation(compiled, a, param, namespaceObject, authz);

  if (compiled.matchConditions.length > 0) {
    const errors: string[] = [];
    for (const m of compiled.matchConditions) {
      const r = run(m.expression, vars);
      if ('error' in r) errors.push(r.error);
      else if (r.value === false) return [];
    }
    if (errors.length > 0) return fail ? [errorDecision(errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`)] : [];
  }

  const decisions: PolicyDecision[] = [];
  for (const v of compiled.validations) {
    const r = run(v.expression, vars);
    if ('error' in r) {
      decisions.push(errorDecision(r.error));
    } else if (r.value !== true) {
      decisions.push({ action: 'deny', evaluation: 'deny', reason: v.reason ?? StatusReason.Invalid, message: validationMessage(v, vars) });
    } else {
      decisions.push({ action: 'admit', evaluation: 'admit', message: '' });
    }
  }

  for (const ann of compiled.auditAnnotations) {
    const r = run(ann.expression, vars);
    let error: string | undefined;
    if ('error' in r) error = r.error;
    else if (r.value !== null && typeof r.value !== 'string') {
      error = `valueExpression '${ann.expression.expression}' resulted in unsupported return type: ${celTypeName(r.value)}. Return type must be either string or null.`;
    }
    if (error !== undefined && fail) decisions.push({ action: 'deny', evaluation: 'error', message: error });
  }
  return decisions;
}

/** A failed validation's message: its messageExpression's (a one-line string), else its message, else the expression. */
function validationMessage(v: CompiledPolicy['validations'][number], vars: Record<string, CelInput>): string {
  let message = '';
  if (v.messageExpression !== undefined) {
    const r = run(v.messageExpression, vars);
    if ('value' in r && typeof r.value === 'string') {
      message = r.value.trim();
      if (Buffer.byteLength(message) > maxEvaluatedMessageExpressionSizeBytes || message.includes('\n')) message = '';
    }
  }
  if (message === '' && v.message !== '') message = v.message.trim();
  if (message === '') message = `failed expression: ${v.expression.expression.trim()}`;
  return message;
}

/** A denied decision under one of the binding's validationActions. */
function applyAction(action: ValidationAction, d: PolicyDecision, policy: Policy, binding: Binding, a: AdmissionAttributes, denied: DeniedDecision[]): void {
  switch (action) {
    case 'Deny':
      denied.push({ ...d, policy, binding });
      return;
    case 'Warn': {
      const w = `Validation failed for ValidatingAdmissionPolicy '${policy.metadata?.name ?? ''}' with binding '${binding.metadata?.name ?? ''}': ${d.message}`;
      if (a.warnings !== undefined && !a.warnings.includes(w)) a.warnings.push(w);
      return;
    }
    case 'Audit':
      // kubemix keeps no audit log: the validation_failure annotation has nowhere to go.
      return;
  }
}

/** The first denial as the request's error: `admission.NewForbidden` with the decision's reason and code. */
function deniedError(a: AdmissionAttributes, d: DeniedDecision): ApiError {
  const policyName = d.policy.metadata?.name ?? '';
  const message =
    d.binding !== undefined
      ? `ValidatingAdmissionPolicy '${policyName}' with binding '${d.binding.metadata?.name ?? ''}' denied request: ${d.message}`
      : `ValidatingAdmissionPolicy '${policyName}' denied request: ${d.message}`;
  const forbidden = admissionForbidden(a, message);
  const reason = d.reason !== undefined && d.reason !== '' ? d.reason : StatusReason.Invalid;
  return new ApiError(reasonToCode(reason), reason as ApiError['reason'], forbidden.message, { ...forbidden.details, causes: [...(forbidden.details?.causes ?? []), { message }] });
}

export function create(): ValidatingAdmissionPolicy {
  return new ValidatingAdmissionPolicy();
}
