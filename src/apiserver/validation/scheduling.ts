/**
 * Scheduling-related pod fields as `pkg/apis/core/validation` checks them: tolerations, taints, node
 * selectors and (node/pod) affinity, topology spread constraints.
 */
import type {
  Affinity,
  NodeSelector,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  PodAffinityTerm,
  PreferredSchedulingTerm,
  Taint,
  Toleration,
  TopologySpreadConstraint,
  WeightedPodAffinityTerm,
} from 'kubernetes-types/core/v1.js';
import { type FieldError, fieldErrors, type Path } from '../../api/field-errors.js';
import { isValidLabelValue, nameIsDNSLabel, nameIsDNSSubdomain } from './_names.js';
import { goTaint, goToleration } from './_go.js';
import { jsonDeepEqual } from '../../util/json-equal.js';
import { validateLabelName, validateLabelSelector } from './objectmeta.js';

export const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

/** `validateTaintEffect`. */
export function validateTaintEffect(effect: string | undefined, allowEmpty: boolean, path: Path): FieldError[] {
  const e = effect ?? '';
  if (!allowEmpty && e === '') return [fieldErrors.required(path, '')];
  if (!(taintEffects as readonly string[]).includes(e)) return [fieldErrors.notSupported(path, e, taintEffects)];
  return [];
}

/** `ValidateTolerations`. */
export function validateTolerations(tolerations: readonly Toleration[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (tolerations ?? []).forEach((t, i) => {
    const p = path.index(i);
    const key = t.key ?? '';
    const op = t.operator ?? '';
    const value = t.value ?? '';
    if (key.length > 0) errs.push(...validateLabelName(key, p.child('key')));
    if (key.length === 0 && op !== 'Exists') {
      errs.push(fieldErrors.invalid(p.child('operator'), op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      errs.push(fieldErrors.invalid(p.child('effect'), t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (op) {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(value);
        if (msgs.length > 0) errs.push(fieldErrors.invalid(p.child('operator'), value, msgs.join(';')));
        break;
      }
      case 'Exists':
        if (value.length > 0) errs.push(fieldErrors.invalid(p.child('operator'), goToleration(t), "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(fieldErrors.notSupported(p.child('operator'), op, ['Equal', 'Exists']));
    }
    if ((t.effect ?? '') !== '') errs.push(...validateTaintEffect(t.effect, true, p.child('effect')));
  });
  return errs;
}

/** `validateOnlyAddedTolerations`: existing tolerations may only change their `tolerationSeconds`. */
export function validateOnlyAddedTolerations(newTols: readonly Toleration[] | undefined, oldTols: readonly Toleration[] | undefined, path: Path): FieldError[] {
  for (const old of oldTols ?? []) {
    const found = (newTols ?? []).some((n) => jsonDeepEqual(stripSeconds(old), stripSeconds(n)));
    if (!found) return [fieldErrors.forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return validateTolerations(newTols, path);
}

/** A toleration without its seconds, with Go's zero values for absent strings (`""` equals unset). */
function stripSeconds(t: Toleration): [string, string, string, string] {
  return [t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? ''];
}

/** `validateNodeTaints` (node spec). */
export function validateTaints(taints: readonly Taint[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  (taints ?? []).forEach((t, i) => {
    const p = path.index(i);
    errs.push(...validateLabelName(t.key ?? '', p.child('key')));
    const vmsgs = isValidLabelValue(t.value ?? '');
    if (vmsgs.length > 0) errs.push(fieldErrors.invalid(p.child('value'), t.value ?? '', vmsgs.join(';')));
    errs.push(...validateTaintEffect(t.effect, false, p.child('effect')));
    const keys = seen.get(t.effect ?? '') ?? new Set<string>();
    if (keys.has(t.key ?? '')) {
      errs.push({ ...fieldErrors.duplicate(p, goTaint(t)), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    keys.add(t.key ?? '');
    seen.set(t.effect ?? '', keys);
  });
  return errs;
}

/** `ValidateNodeSelectorRequirement`. */
export function validateNodeSelectorRequirement(rq: NodeSelectorRequirement, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const n = (rq.values ?? []).length;
  switch (rq.operator) {
    case 'In':
    case 'NotIn':
      if (n === 0) errs.push(fieldErrors.required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (n > 0) errs.push(fieldErrors.forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (n !== 1) errs.push(fieldErrors.required(path.child('values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(fieldErrors.invalid(path.child('operator'), rq.operator ?? '', 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(rq.key, path.child('key')));
  return errs;
}

const nodeFieldSelectorValidators: Record<string, (v: string, prefix: boolean) => string[]> = {
  'metadata.name': nameIsDNSSubdomain,
};

/** `ValidateNodeFieldSelectorRequirement`: only `metadata.name`, `In`/`NotIn` with exactly one value. */
export function validateNodeFieldSelectorRequirement(rq: NodeSelectorRequirement, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  switch (rq.operator) {
    case 'In':
    case 'NotIn':
      if ((rq.values ?? []).length !== 1) {
        errs.push(fieldErrors.required(path.child('values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
      }
      break;
    default:
      errs.push(fieldErrors.invalid(path.child('operator'), rq.operator ?? '', 'not a valid selector operator'));
  }
  const vf = Object.prototype.hasOwnProperty.call(nodeFieldSelectorValidators, rq.key) ? nodeFieldSelectorValidators[rq.key] : undefined;
  if (vf === undefined) {
    errs.push(fieldErrors.invalid(path.child('key'), rq.key, 'not a valid field selector key'));
  } else {
    (rq.values ?? []).forEach((v, i) => {
      for (const m of vf(v, false)) errs.push(fieldErrors.invalid(path.child('values').index(i), v, m));
    });
  }
  return errs;
}

/** `ValidateNodeSelectorTerm`. */
export function validateNodeSelectorTerm(term: NodeSelectorTerm, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (term.matchExpressions ?? []).forEach((r, j) => errs.push(...validateNodeSelectorRequirement(r, path.child('matchExpressions').index(j))));
  (term.matchFields ?? []).forEach((r, j) => errs.push(...validateNodeFieldSelectorRequirement(r, path.child('matchFields').index(j))));
  return errs;
}

/** `ValidateNodeSelector`: at least one term. */
export function validateNodeSelector(ns: NodeSelector, path: Path): FieldError[] {
  const termPath = path.child('nodeSelectorTerms');
  if (ns.nodeSelectorTerms.length === 0) return [fieldErrors.required(termPath, 'must have at least one node selector term')];
  const errs: FieldError[] = [];
  ns.nodeSelectorTerms.forEach((t, i) => errs.push(...validateNodeSelectorTerm(t, termPath.index(i))));
  return errs;
}

/** `ValidatePreferredSchedulingTerms`: weight 1-100. */
export function validatePreferredSchedulingTerms(terms: readonly PreferredSchedulingTerm[], path: Path): FieldError[] {
  const errs: FieldError[] = [];
  terms.forEach((t, i) => {
    if (t.weight <= 0 || t.weight > 100) errs.push(fieldErrors.invalid(path.index(i).child('weight'), t.weight, 'must be in the range 1-100'));
    errs.push(...validateNodeSelectorTerm(t.preference, path.index(i).child('preference')));
  });
  return errs;
}

function validatePodAffinityTerm(term: PodAffinityTerm, path: Path): FieldError[] {
  const errs = validateLabelSelector(term.labelSelector, path.child('labelSelector'));
  errs.push(...validateLabelSelector(term.namespaceSelector, path.child('namespaceSelector')));
  for (const ns of term.namespaces ?? []) {
    for (const m of nameIsDNSLabel(ns, false)) errs.push(fieldErrors.invalid(path.child('namespace'), ns, m));
  }
  if (term.topologyKey === '') errs.push(fieldErrors.required(path.child('topologyKey'), 'can not be empty'));
  errs.push(...validateLabelName(term.topologyKey, path.child('topologyKey')));
  return errs;
}

function validatePodAffinityTerms(terms: readonly PodAffinityTerm[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (terms ?? []).forEach((t, i) => errs.push(...validatePodAffinityTerm(t, path.index(i))));
  return errs;
}

function validateWeightedPodAffinityTerms(terms: readonly WeightedPodAffinityTerm[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (terms ?? []).forEach((t, j) => {
    if (t.weight <= 0 || t.weight > 100) errs.push(fieldErrors.invalid(path.index(j).child('weight'), t.weight, 'must be in the range 1-100'));
    errs.push(...validatePodAffinityTerm(t.podAffinityTerm, path.index(j).child('podAffinityTerm')));
  });
  return errs;
}

/** `validateAffinity`: node affinity, pod affinity and pod anti-affinity. */
export function validateAffinity(affinity: Affinity | undefined, path: Path): FieldError[] {
  if (affinity === undefined) return [];
  const errs: FieldError[] = [];
  const na = affinity.nodeAffinity;
  if (na !== undefined) {
    const p = path.child('nodeAffinity');
    if (na.requiredDuringSchedulingIgnoredDuringExecution !== undefined) {
      errs.push(...validateNodeSelector(na.requiredDuringSchedulingIgnoredDuringExecution, p.child('requiredDuringSchedulingIgnoredDuringExecution')));
    }
    if ((na.preferredDuringSchedulingIgnoredDuringExecution ?? []).length > 0) {
      errs.push(...validatePreferredSchedulingTerms(na.preferredDuringSchedulingIgnoredDuringExecution ?? [], p.child('preferredDuringSchedulingIgnoredDuringExecution')));
    }
  }
  for (const [field, value] of [
    ['podAffinity', affinity.podAffinity],
    ['podAntiAffinity', affinity.podAntiAffinity],
  ] as const) {
    if (value === undefined) continue;
    const p = path.child(field);
    errs.push(...validatePodAffinityTerms(value.requiredDuringSchedulingIgnoredDuringExecution, p.child('requiredDuringSchedulingIgnoredDuringExecution')));
    errs.push(...validateWeightedPodAffinityTerms(value.preferredDuringSchedulingIgnoredDuringExecution, p.child('preferredDuringSchedulingIgnoredDuringExecution')));
  }
  return errs;
}

const supportedScheduleActions = ['DoNotSchedule', 'ScheduleAnyway'];
const supportedPodTopologySpreadNodePolicies = ['Honor', 'Ignore'];

/** `validateTopologySpreadConstraints`. */
export function validateTopologySpreadConstraints(constraints: readonly TopologySpreadConstraint[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const list = constraints ?? [];
  list.forEach((c, i) => {
    const p = path.index(i);
    if (c.maxSkew <= 0) errs.push(fieldErrors.invalid(p.child('maxSkew'), c.maxSkew, 'must be greater than zero'));
    if (c.topologyKey === '') errs.push(fieldErrors.required(p.child('topologyKey'), 'can not be empty'));
    else errs.push(...validateLabelName(c.topologyKey, p.child('topologyKey')));
    if (!supportedScheduleActions.includes(c.whenUnsatisfiable)) {
      errs.push(fieldErrors.notSupported(p.child('whenUnsatisfiable'), c.whenUnsatisfiable, supportedScheduleActions));
    }
    if (list.slice(i + 1).some((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable)) {
      errs.push(fieldErrors.duplicate(p.child('{topologyKey, whenUnsatisfiable}'), `{${c.topologyKey}, ${c.whenUnsatisfiable}}`));
    }
    if (c.minDomains !== undefined) {
      if (c.minDomains <= 0) errs.push(fieldErrors.invalid(p.child('minDomains'), c.minDomains, 'must be greater than zero'));
      if (c.whenUnsatisfiable !== 'DoNotSchedule') {
        errs.push(fieldErrors.invalid(p.child('minDomains'), c.minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${c.whenUnsatisfiable}`));
      }
    }
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const) {
      const v = c[f];
      if (v !== undefined && !supportedPodTopologySpreadNodePolicies.includes(v)) {
        errs.push(fieldErrors.notSupported(p.child(f), v, supportedPodTopologySpreadNodePolicies));
      }
    }
    errs.push(...validateLabelSelector(c.labelSelector, p.child('labelSelector')));
  });
  return errs;
}
