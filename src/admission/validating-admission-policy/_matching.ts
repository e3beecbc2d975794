/**
 * Whether a policy's matchConstraints or a binding's matchResources select a request (policy/matching
 * matching.go, with webhook/predicates: rules/rules.go, namespace/matcher.go, object/matcher.go).
 *
 * `matchPolicy: Equivalent` matches the request's own resource only: kubemix serves each resource in one
 * version (it has no conversion to offer an equivalent version of the object).
 */
import { isNotFound } from '../../api/errors.js';
import { labelSelectorAsSelector, type Labels } from '../../api/labels.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { AdmissionAttributes, AdmissionLookup } from '../types.js';
import type { MatchResources, NamedRuleWithOperations, RuleWithOperations } from './_api.js';

/** `rules.Matcher.Matches`: scope, operation, group, version and resource (with subresource) of one rule. */
export function ruleMatches(rule: RuleWithOperations, a: AdmissionAttributes): boolean {
  return scopeMatches(rule.scope, a) && anyOf(rule.operations, a.operation) && anyOf(rule.apiGroups, a.resource.group) && anyOf(rule.apiVersions, a.resource.version) && resourceMatches(rule.resources, a);
}

function anyOf(list: readonly string[] | undefined, value: string): boolean {
  for (const x of list ?? []) if (x === '*' || x === value) return true;
  return false;
}

function isNamespaceResource(a: AdmissionAttributes): boolean {
  return a.resource.group === '' && a.resource.resource === 'namespaces';
}

function scopeMatches(scope: string | undefined, a: AdmissionAttributes): boolean {
  switch (scope ?? '*') {
    case '*':
      return true;
    // Namespace objects are cluster-scoped, though their requests carry their own name as namespace.
    case 'Namespaced':
      return !isNamespaceResource(a) && a.namespace !== '';
    case 'Cluster':
      return isNamespaceResource(a) || a.namespace === '';
    default:
      return false;
  }
}

function resourceMatches(resources: readonly string[] | undefined, a: AdmissionAttributes): boolean {
  for (const r of resources ?? []) {
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const sub = slash < 0 ? '' : r.slice(slash + 1);
    if ((res === '*' || res === a.resource.resource) && (sub === '*' || sub === a.subresource)) return true;
  }
  return false;
}

/** `matchesResourceRules`: a rule matches and its resourceNames (if any) name the request's object. */
function matchesResourceRules(rules: readonly NamedRuleWithOperations[] | undefined, a: AdmissionAttributes): boolean {
  for (const rule of rules ?? []) {
    if (!ruleMatches(rule, a)) continue;
    const names = rule.resourceNames ?? [];
    if (names.length === 0 || names.includes(a.name)) return true;
  }
  return false;
}

/** A match error: upstream's StatusError text (a missing namespace is its 404, a bad selector an internal error). */
export class MatchError extends Error {}

function selectorOf(ls: LabelSelector | undefined): ReturnType<typeof labelSelectorAsSelector> {
  try {
    return labelSelectorAsSelector(ls ?? {});
  } catch (e) {
    throw new MatchError(`Internal error occurred: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** `GetNamespaceLabels`: a namespace create or update carries its own labels; others are read from the cache. */
async function namespaceLabels(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<Labels> {
  if (isNamespaceResource(a) && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) return a.object?.metadata?.labels;
  const name = isNamespaceResource(a) ? a.name : a.namespace;
  const ns = await lookup.getNamespace(name);
  if (ns === undefined) throw new MatchError(`namespaces "${name}" not found`);
  return ns.metadata?.labels;
}

/** `matchObject`: an object (new or old) whose labels the selector matches. */
function objectMatches(obj: AdmissionAttributes['object'], sel: ReturnType<typeof labelSelectorAsSelector>): boolean {
  return obj !== undefined && obj !== null && sel.matches(obj.metadata?.labels ?? {});
}

/**
 * `Matcher.Matches`: the namespace selector (cluster-scoped objects other than namespaces always pass), the
 * object selector (new or old object), not excluded, and a resource rule (none: every resource). Selector
 * errors count only when the rest matches; they throw `MatchError`.
 */
export async function matchesCriteria(m: MatchResources, a: AdmissionAttributes, lookup: AdmissionLookup): Promise<boolean> {
  let nsErr: MatchError | undefined;
  let nsMatches = true;
  if (a.namespace !== '' || isNamespaceResource(a)) {
    try {
      const sel = selectorOf(m.namespaceSelector);
      if (!sel.isEmpty()) nsMatches = sel.matches(await namespaceLabels(a, lookup));
    } catch (e) {
      if (!(e instanceof MatchError) && !isNotFound(e)) throw e;
      nsErr = e instanceof MatchError ? e : new MatchError(e instanceof Error ? e.message : String(e));
      nsMatches = false;
    }
  }
  if (!nsMatches && nsErr === undefined) return false;

  let objErr: MatchError | undefined;
  let objMatches = true;
  try {
    const sel = selectorOf(m.objectSelector);
    if (!sel.isEmpty()) objMatches = objectMatches(a.object, sel) || objectMatches(a.oldObject, sel);
  } catch (e) {
    if (!(e instanceof MatchError)) throw e;
    objErr = e;
    objMatches = false;
  }
  if (!objMatches && objErr === undefined) return false;

  if (matchesResourceRules(m.excludeResourceRules, a)) return false;
  if ((m.resourceRules ?? []).length > 0 && !matchesResourceRules(m.resourceRules, a)) return false;
  if (nsErr !== undefined) throw nsErr;
  if (objErr !== undefined) throw objErr;
  return true;
}
