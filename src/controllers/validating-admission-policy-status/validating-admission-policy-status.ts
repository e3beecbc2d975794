/**
 * The ValidatingAdmissionPolicy status controller (pkg/controller/validatingadmissionpolicystatus and the
 * admission plugin's typechecking.go, v1.32): every policy whose `metadata.generation` is newer than its
 * `status.observedGeneration` gets, by a forced server-side apply of its status subresource, that generation and
 * the warnings of type checking its validations' `expression` and `messageExpression`.
 *
 * Upstream type checks each expression once per kind the policy's matchConstraints name (no wildcard; at most
 * ten), with `object` and `params` typed from those kinds' OpenAPI schemas. kubemix has no full CEL type
 * checker: an expression is checked as src/admission/validating-admission-policy/_compile.ts checks it
 * (undeclared references, undefined fields of `request`, `namespaceObject` and `variables`), once per kind
 * resolved from the built-in resources (custom resources are not resolved here, so a policy matching only
 * custom resources gets no warnings), and `params` is declared whenever the policy has a paramKind. A policy
 * without warnings gets `typeChecking: {}`, as upstream's.
 */
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { isNotFound } from '../../api/errors.js';
import { resources as builtinResources, type ResourceType } from '../../api/resources.js';
import { compileExpression } from '../../admission/validating-admission-policy/_compile.js';
import { runWorkers, type Controller, type ControllerContext } from '../_context.js';
import { names } from '../names.js';

export const validatingAdmissionPolicies: ResourceType = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingadmissionpolicies',
  kind: 'ValidatingAdmissionPolicy',
  namespaced: false,
};

/** The field manager of the status apply (1.32's `validatingadmissionpolicystatus.ControllerName`). */
export const FieldManager = 'validatingadmissionpolicy-status';

/** `ConcurrentPolicySyncs`' default. */
const workers = 5;
/** `maxTypesToCheck`. */
const maxTypesToCheck = 10;

/** `ExpressionWarning`. */
export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

interface GVK {
  group: string;
  version: string;
  kind: string;
}

/** `schema.GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
function gvkString(g: GVK): string {
  return `${g.group}/${g.version}, Kind=${g.kind}`;
}

type Rule = { apiGroups?: string[]; apiVersions?: string[]; resources?: string[] };

/**
 * `typesToCheck`: the kinds the matchConstraints' resourceRules name, resolved (here from the built-in
 * resources), sorted by group, version and kind. A rule with a wildcard group or version names none;
 * wildcard resources and subresources are skipped.
 */
export function typesToCheck(policy: ValidatingAdmissionPolicy, served: readonly ResourceType[] = Object.values(builtinResources)): GVK[] {
  const rules = (policy.spec?.matchConstraints?.resourceRules ?? []) as Rule[];
  const found = new Map<string, GVK>();
  const sorted = (): GVK[] =>
    [...found.values()].sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
  for (const rule of rules) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    if (groups.length === 0 || groups.some((g) => g.includes('*'))) continue;
    if (versions.length === 0 || versions.some((v) => v.includes('*'))) continue;
    const res = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    if (res.length === 0) continue;
    let count = 0;
    for (const group of [...groups].sort()) {
      for (const version of [...versions].sort()) {
        for (const resource of [...res].sort()) {
          const r = served.find((s) => s.group === group && s.version === version && s.resource === resource);
          if (r === undefined) continue;
          found.set(`${group}/${version}/${r.kind}`, { group, version, kind: r.kind });
          if (++count === maxTypesToCheck) return sorted();
        }
      }
    }
  }
  return sorted();
}

/**
 * `TypeChecker.Check`: the warnings of `spec.validations[i].expression` and `.messageExpression`, each the
 * issues of every kind checked (`<gvk>: <issues>\n`, joined by newlines). None when no kind resolves.
 */
export function typeCheck(policy: ValidatingAdmissionPolicy, served?: readonly ResourceType[]): ExpressionWarning[] {
  const gvks = typesToCheck(policy, served);
  if (gvks.length === 0) return [];
  const spec = policy.spec ?? {};
  const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
  // CompileAndStoreVariables: every variable is declared (a failing one still is), with its type when known.
  const variables: string[] = [];
  const variableTypes = new Map<string, string>();
  for (const v of spec.variables ?? []) {
    const r = compileExpression(v.expression ?? '', { hasParams, variables: [...variables], variableTypes: new Map(variableTypes) });
    variables.push(v.name ?? '');
    if (r.outputType !== undefined) variableTypes.set(v.name ?? '', r.outputType);
  }
  const check = (expression: string): string | undefined => {
    // The type checker does not enforce an output type (`celExpression.ReturnTypes` is AnyType).
    const r = compileExpression(expression, { hasParams, variables, variableTypes });
    if (r.error === undefined) return undefined;
    const issues = r.error.replace(/^compilation failed: /, '');
    // kubemix checks without the kinds' schemas: every kind gets the same issues.
    return gvks.map((g) => `${gvkString(g)}: ${issues}\n`).join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  (spec.validations ?? []).forEach((v, i) => {
    const w = check(v.expression ?? '');
    if (w !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if ((v.messageExpression ?? '') === '') return;
    const mw = check(v.messageExpression ?? '');
    if (mw !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: mw });
  });
  return warnings;
}

export class ValidatingAdmissionPolicyStatusController implements Controller {
  readonly name = names.ValidatingAdmissionPolicyStatus;
  private readonly queue;
  private readonly policies;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.policies = ctx.informer<ValidatingAdmissionPolicy>(validatingAdmissionPolicies);
  }

  start(): void {
    // Policies are cluster-scoped: the key is the name.
    this.policies.addHandlers({
      onAdd: (p) => this.queue.add(p.metadata?.name ?? ''),
      onUpdate: (_, p) => this.queue.add(p.metadata?.name ?? ''),
    });
    void runWorkers(this.queue, (name) => this.reconcile(name), workers);
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** `reconcile`: a policy whose status has seen its generation is left alone; a deleted one too. */
  async reconcile(name: string): Promise<void> {
    const policy = this.policies.get(name);
    if (policy === undefined) return;
    const generation = policy.metadata?.generation ?? 0;
    if (generation <= (policy.status?.observedGeneration ?? 0)) return;
    const warnings = typeCheck(policy);
    const apply = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      status: { observedGeneration: generation, typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {} },
    };
    try {
      await this.ctx.client.patch(validatingAdmissionPolicies, name, 'apply', apply, { subresource: 'status', fieldManager: FieldManager, force: true });
    } catch (e) {
      // Deleted meanwhile: nothing to report on.
      if (isNotFound(e)) return;
      throw e;
    }
  }
}

export function create(ctx: ControllerContext): Controller {
  return new ValidatingAdmissionPolicyStatusController(ctx);
}
