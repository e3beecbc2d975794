/**
 * Object metadata and the generic field helpers of apimachinery (`ValidateObjectMeta`,
 * `ValidateObjectMetaUpdate`, `ValidateLabels`, `ValidateAnnotations`, `ValidateLabelSelector`,
 * `ValidateImmutableField`) plus core's finalizer-name rule.
 */
import type { Condition, LabelSelector, ObjectMeta, OwnerReference } from 'kubernetes-types/meta/v1.js';
import { type FieldError, fieldErrors, GoValue, goStringMap, Path } from '../../api/field-errors.js';
import { jsonDeepEqual } from '../../util/json-equal.js';
import { isQualifiedName, isValidLabelValue, type NameValidator, nameIsDNSLabel, regexError } from './_names.js';

/** `TotalAnnotationSizeLimitB`: 256 KiB over all keys and values. */
export const totalAnnotationSizeLimitB = 256 * 1024;

const isNegativeErrorMsg = 'must be greater than or equal to 0';

/** `ValidateNonnegativeField`. */
export function validateNonnegativeField(value: number, path: Path): FieldError[] {
  return value < 0 ? [fieldErrors.invalid(path, value, isNegativeErrorMsg)] : [];
}

/** `ValidateImmutableField`: `field is immutable` when the values differ (deep equality). */
export function validateImmutableField(newVal: unknown, oldVal: unknown, path: Path, shown: unknown = newVal): FieldError[] {
  return semanticDeepEqual(newVal, oldVal) ? [] : [fieldErrors.invalid(path, shown, 'field is immutable')];
}

/** `ValidateLabelName`: a qualified name. */
export function validateLabelName(name: string, path: Path): FieldError[] {
  return isQualifiedName(name).map((m) => fieldErrors.invalid(path, name, m));
}

/** `ValidateQualifiedName`. */
export const validateQualifiedName = validateLabelName;

/** `ValidateLabels`: keys are qualified names, values label values; errors on the map's own path. */
export function validateLabels(labels: Record<string, string> | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of Object.keys(labels ?? {}).sort()) {
    errs.push(...validateLabelName(k, path));
    const v = labels?.[k] ?? '';
    for (const m of isValidLabelValue(v)) errs.push(fieldErrors.invalid(path, v, m));
  }
  return errs;
}

/** `ValidateAnnotations`: keys are qualified names (lower-cased first); total size at most 256 KiB. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const k of Object.keys(annotations ?? {}).sort()) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, m));
    total += Buffer.byteLength(k) + Buffer.byteLength(annotations?.[k] ?? '');
  }
  if (total > totalAnnotationSizeLimitB) errs.push(fieldErrors.tooLong(path, '', totalAnnotationSizeLimitB));
  return errs;
}

/** metav1validation's `LabelSelectorValidationOptions`. */
export interface LabelSelectorValidationOptions {
  /** Skip the label-value check of `matchExpressions` values (ratcheting: the stored object has such values). */
  allowInvalidLabelValueInSelector?: boolean;
}

/** `ValidateLabelSelector` (values must be valid label values unless the options allow otherwise). */
export function validateLabelSelector(sel: LabelSelector | undefined, path: Path, opts: LabelSelectorValidationOptions = {}): FieldError[] {
  if (sel === undefined) return [];
  const errs = validateLabels(sel.matchLabels, path.child('matchLabels'));
  (sel.matchExpressions ?? []).forEach((r, i) => {
    const p = path.child('matchExpressions').index(i);
    switch (r.operator) {
      case 'In':
      case 'NotIn':
        if ((r.values ?? []).length === 0) errs.push(fieldErrors.required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if ((r.values ?? []).length > 0) errs.push(fieldErrors.forbidden(p.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(p.child('operator'), r.operator ?? '', 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(r.key, p.child('key')));
    if (opts.allowInvalidLabelValueInSelector === true) return;
    (r.values ?? []).forEach((v, j) => {
      for (const m of isValidLabelValue(v)) errs.push(fieldErrors.invalid(p.child('values').index(j), v, m));
    });
  });
  return errs;
}

const conditionReasonFmt = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const conditionReasonErrMsg =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const conditionReasonRe = new RegExp(`^${conditionReasonFmt}$`);
const maxConditionReasonLen = 1024;
const maxConditionMessageLen = 32 * 1024;

/** metav1validation's `ValidateConditions`: types unique and qualified names, statuses True/False/Unknown, reasons CamelCase. */
export function validateConditions(conditions: readonly Condition[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (conditions ?? []).forEach((c, i) => {
    const p = path.index(i);
    const type = c.type ?? '';
    if (seen.has(type)) errs.push(fieldErrors.duplicate(p.child('type'), type));
    seen.add(type);
    errs.push(...validateLabelName(type, p.child('type')));
    const status = c.status ?? '';
    if (!['False', 'True', 'Unknown'].includes(status)) errs.push(fieldErrors.notSupported(p.child('status'), status, ['False', 'True', 'Unknown']));
    if ((c.observedGeneration ?? 0) < 0) errs.push(fieldErrors.invalid(p.child('observedGeneration'), c.observedGeneration, 'must be greater than or equal to zero'));
    const ltt = c.lastTransitionTime ?? '';
    if (ltt === '' || ltt.startsWith('0001-01-01T00:00:00')) errs.push(fieldErrors.required(p.child('lastTransitionTime'), 'must be set'));
    const reason = c.reason ?? '';
    if (reason === '') {
      errs.push(fieldErrors.required(p.child('reason'), 'must be set'));
    } else {
      if (!conditionReasonRe.test(reason)) {
        errs.push(fieldErrors.invalid(p.child('reason'), reason, regexError(conditionReasonErrMsg, conditionReasonFmt, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
      }
      if (reason.length > maxConditionReasonLen) errs.push(fieldErrors.tooLong(p.child('reason'), reason, maxConditionReasonLen));
    }
    if ((c.message ?? '').length > maxConditionMessageLen) errs.push(fieldErrors.tooLong(p.child('message'), c.message, maxConditionMessageLen));
  });
  return errs;
}

/** apimachinery's `ValidateFinalizers`: qualified names; `orphan` and `foregroundDeletion` exclude each other. */
export function validateFinalizers(finalizers: readonly string[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const list = finalizers ?? [];
  list.forEach((f, i) => {
    for (const m of isQualifiedName(f)) errs.push(fieldErrors.invalid(path.index(i), f, m));
  });
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    errs.push(fieldErrors.invalid(path, new GoValue(`[]string{${list.map((f) => JSON.stringify(f)).join(', ')}}`), 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

const standardFinalizers = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/**
 * Core's `validateKubeFinalizerName`, which `pkg/apis/core/validation.ValidateObjectMeta(Update)` adds for
 * the built-in kinds after the generic checks: a finalizer without a `/` must be `kubernetes`, `orphan` or
 * `foregroundDeletion`. Custom resources and CRDs (apiextensions validates with apimachinery's generic
 * ObjectMeta rules) skip it and only get a warning upstream, so e.g. `customresourcecleanup.apiextensions.k8s.io`
 * stays valid there.
 */
export function validateKubeFinalizerNames(finalizers: readonly string[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  (finalizers ?? []).forEach((f, i) => {
    if (!f.includes('/') && !standardFinalizers.has(f)) errs.push(fieldErrors.invalid(path.index(i), f, 'name is neither a standard finalizer name nor is it fully qualified'));
  });
  return errs;
}

function validateOwnerReferences(refs: readonly OwnerReference[] | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const controllers: string[] = [];
  for (const r of refs ?? []) {
    if ((r.apiVersion ?? '') === '') errs.push(fieldErrors.invalid(path.child('apiVersion'), r.apiVersion ?? '', 'version must not be empty'));
    if ((r.kind ?? '') === '') errs.push(fieldErrors.invalid(path.child('kind'), r.kind ?? '', 'kind must not be empty'));
    if ((r.name ?? '') === '') errs.push(fieldErrors.invalid(path.child('name'), r.name ?? '', 'name must not be empty'));
    if ((r.uid ?? '') === '') errs.push(fieldErrors.invalid(path.child('uid'), r.uid ?? '', 'uid must not be empty'));
    if (r.controller === true) controllers.push(`${r.kind}/${r.name}`);
  }
  if (controllers.length > 1) {
    errs.push(
      fieldErrors.invalid(path, new GoValue('[]v1.OwnerReference{...}'), `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`),
    );
  }
  return errs;
}

export interface ObjectMetaOptions {
  /** Whether the kind is namespaced. */
  namespaced: boolean;
  /** The kind's name rule (`NameIsDNSSubdomain` for most). */
  nameFn: NameValidator;
  /** Apply core's standard-finalizer rule (built-in kinds: true, the default; custom resources and CRDs: false). */
  kubeFinalizers?: boolean;
}

/** `ValidateObjectMeta`. */
export function validateObjectMeta(meta: ObjectMeta | undefined, opts: ObjectMetaOptions, path: Path = Path.root('metadata')): FieldError[] {
  const m = meta ?? {};
  const errs: FieldError[] = [];
  if ((m.generateName ?? '') !== '') {
    for (const msg of opts.nameFn(m.generateName ?? '', true)) errs.push(fieldErrors.invalid(path.child('generateName'), m.generateName, msg));
  }
  if ((m.name ?? '') === '') {
    errs.push(fieldErrors.required(path.child('name'), 'name or generateName is required'));
  } else {
    for (const msg of opts.nameFn(m.name ?? '', false)) errs.push(fieldErrors.invalid(path.child('name'), m.name, msg));
  }
  if (opts.namespaced) {
    if ((m.namespace ?? '') === '') errs.push(fieldErrors.required(path.child('namespace'), ''));
    else for (const msg of nameIsDNSLabel(m.namespace ?? '', false)) errs.push(fieldErrors.invalid(path.child('namespace'), m.namespace, msg));
  } else if ((m.namespace ?? '') !== '') {
    errs.push(fieldErrors.forbidden(path.child('namespace'), 'not allowed on this type'));
  }
  if (m.generation !== undefined) errs.push(...validateNonnegativeField(m.generation, path.child('generation')));
  errs.push(...validateLabels(m.labels, path.child('labels')));
  errs.push(...validateAnnotations(m.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(m.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateFinalizers(m.finalizers, path.child('finalizers')));
  if (opts.kubeFinalizers !== false) errs.push(...validateKubeFinalizerNames(m.finalizers, path.child('finalizers')));
  return errs;
}

/**
 * `ValidateObjectMetaUpdate`. The registry fills an empty `resourceVersion` from the stored object before
 * validating (unconditional update), so the `must be specified for an update` rule is not repeated here.
 */
export function validateObjectMetaUpdate(
  newMeta: ObjectMeta | undefined,
  oldMeta: ObjectMeta | undefined,
  path: Path = Path.root('metadata'),
  opts: { kubeFinalizers?: boolean } = {},
): FieldError[] {
  const n = newMeta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp !== undefined) {
    const old = new Set(o.finalizers ?? []);
    for (const f of n.finalizers ?? []) {
      if (!old.has(f)) errs.push(fieldErrors.forbidden(path.child('finalizers'), `no new finalizers can be added if the object is being deleted, found new finalizers []string{${JSON.stringify(f)}}`));
    }
  }
  if ((n.generation ?? 0) < (o.generation ?? 0)) errs.push(fieldErrors.invalid(path.child('generation'), n.generation ?? 0, 'must not be decremented'));
  errs.push(...validateImmutableField(n.name ?? '', o.name ?? '', path.child('name')));
  errs.push(...validateImmutableField(n.namespace ?? '', o.namespace ?? '', path.child('namespace')));
  errs.push(...validateImmutableField(n.uid ?? '', o.uid ?? '', path.child('uid')));
  errs.push(...validateImmutableField(n.creationTimestamp, o.creationTimestamp, path.child('creationTimestamp'), n.creationTimestamp ?? null));
  errs.push(...validateImmutableField(n.deletionTimestamp, o.deletionTimestamp, path.child('deletionTimestamp'), n.deletionTimestamp ?? null));
  errs.push(...validateImmutableField(n.deletionGracePeriodSeconds, o.deletionGracePeriodSeconds, path.child('deletionGracePeriodSeconds'), n.deletionGracePeriodSeconds ?? null));
  errs.push(...validateLabels(n.labels, path.child('labels')));
  errs.push(...validateAnnotations(n.annotations, path.child('annotations')));
  errs.push(...validateOwnerReferences(n.ownerReferences, path.child('ownerReferences')));
  errs.push(...validateFinalizers(n.finalizers, path.child('finalizers')));
  if (opts.kubeFinalizers !== false) errs.push(...validateKubeFinalizerNames(n.finalizers, path.child('finalizers')));
  return errs;
}

function prune(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(prune);
  if (v === null || v === '') return undefined;
  if (typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const p = prune(x);
    if (p !== undefined) out[k] = p;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * `apiequality.Semantic.DeepEqual` over JSON: as the internal Go types see it, an absent field, `null`,
 * `""`, `[]` and `{}` are the same (empty and nil slices and maps compare equal; strings are values).
 */
export function semanticDeepEqual(a: unknown, b: unknown): boolean {
  // Values equal as they are are equal once pruned (pruning is a function of the value): most updates
  // compare unchanged values, which then cost no pruned copies.
  return jsonDeepEqual(a, b) || jsonDeepEqual(prune(a), prune(b));
}

export { goStringMap };
