/**
 * core/v1 PersistentVolumeClaims as `pkg/apis/core/validation` (v1.32) checks them, run the way the PVC
 * registry strategy (`pkg/registry/core/persistentvolumeclaim/strategy.go`) runs it: options from
 * `ValidationOptionsForPersistentVolumeClaim`, then `ValidatePersistentVolumeClaim` on create; on update
 * the same again followed by `ValidatePersistentVolumeClaimUpdate`; `ValidatePersistentVolumeClaimStatusUpdate`
 * for the status subresource.
 *
 * Feature gates are 1.32's defaults: VolumeAttributesClass (beta), CrossNamespaceVolumeDataSource (alpha)
 * and RecoverVolumeExpansionFailure (alpha) are off, so the strategy's `DropDisabledFields` /
 * `DropDisabledFieldsFromStatus` drop `spec.volumeAttributesClassName`, `spec.dataSourceRef.namespace` and
 * `status.allocatedResources`/`allocatedResourceStatuses` unless the stored claim already uses them. The
 * validators here see the claim as those drops leave it.
 */
import type { PersistentVolumeClaim, PersistentVolumeClaimSpec, PersistentVolumeClaimStatus, TypedLocalObjectReference, TypedObjectReference } from 'kubernetes-types/core/v1.js';
import { type FieldError, fieldErrors, GoValue, Path } from '../../api/field-errors.js';
import { compareQuantities, formatQuantity, isQuantity, parseQuantity, quantityValue, type Quantity } from '../../api/quantity.js';
import { isDNS1123Subdomain, isQualifiedName, nameIsDNSLabel, nameIsDNSSubdomain } from './_names.js';
import { type LabelSelectorValidationOptions, semanticDeepEqual, validateImmutableField, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { isNativeResource, validateResourceQuantityValue } from './resources.js';
import { podSpecDiff } from './pod.js';

/** `PersistentVolumeClaimSpecValidationOptions`. */
export interface PersistentVolumeClaimSpecValidationOptions extends LabelSelectorValidationOptions {
  /** Allow reducing the request down to status.capacity (RecoverVolumeExpansionFailure). */
  enableRecoverFromExpansionFailure: boolean;
  /** Skip the DNS-subdomain check of dataSource/dataSourceRef apiGroups. */
  allowInvalidAPIGroupInDataSourceOrRef: boolean;
  /** Validate `volumeAttributesClassName` (the gate, or a stored claim already using it). */
  enableVolumeAttributesClass: boolean;
}

const supportedAccessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const supportedVolumeModes = ['Block', 'Filesystem'];
const resizeStatuses = ['ControllerResizeInProgress', 'ControllerResizeInfeasible', 'NodeResizeInProgress', 'NodeResizeInfeasible', 'NodeResizePending'];
const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';
const metaOpts = { namespaced: true, nameFn: nameIsDNSSubdomain } as const;

type ResourceList = Record<string, string | number>;

function quantityOf(v: string | number | undefined): Quantity | undefined {
  return v !== undefined && isQuantity(String(v)) ? parseQuantity(v) : undefined;
}

/** A missing or unparsable entry reads as Go's zero `resource.Quantity`. */
function quantityOrZero(list: ResourceList | undefined, name: string): Quantity {
  return quantityOf(list?.[name]) ?? parseQuantity(0);
}

/** `helper.ClaimContainsAllocatedResources` || `helper.ClaimContainsAllocatedResourceStatus`. */
function claimContainsAllocated(pvc: PersistentVolumeClaim | undefined): boolean {
  return pvc?.status?.allocatedResources != null || pvc?.status?.allocatedResourceStatuses != null;
}

/** `allowInvalidAPIGroupInDataSourceOrRef`: an apiGroup set on either reference of the stored claim. */
function allowInvalidAPIGroupInDataSourceOrRef(spec: PersistentVolumeClaimSpec | undefined): boolean {
  return spec?.dataSource?.apiGroup != null || spec?.dataSourceRef?.apiGroup != null;
}

/** `ValidationOptionsForPersistentVolumeClaim`, with 1.32's gates off. */
export function validationOptionsForPersistentVolumeClaim(old: PersistentVolumeClaim | undefined): PersistentVolumeClaimSpecValidationOptions {
  const opts = { enableRecoverFromExpansionFailure: false, allowInvalidLabelValueInSelector: false, allowInvalidAPIGroupInDataSourceOrRef: false, enableVolumeAttributesClass: false };
  if (old === undefined) return opts;
  return {
    allowInvalidAPIGroupInDataSourceOrRef: allowInvalidAPIGroupInDataSourceOrRef(old.spec),
    enableVolumeAttributesClass: old.spec?.volumeAttributesClassName != null,
    allowInvalidLabelValueInSelector: validateLabelSelector(old.spec?.selector, Path.root('')).length > 0,
    enableRecoverFromExpansionFailure: claimContainsAllocated(old),
  };
}

/** `validateDataSource` and `validateDataSourceRef`: name and kind required, core refs only to claims. */
function validateDataSource(ref: TypedLocalObjectReference | TypedObjectReference, path: Path, allowInvalidAPIGroup: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if ((ref.name ?? '') === '') errs.push(fieldErrors.required(path.child('name'), ''));
  if ((ref.kind ?? '') === '') errs.push(fieldErrors.required(path.child('kind'), ''));
  const apiGroup = ref.apiGroup ?? '';
  if (apiGroup === '' && ref.kind !== 'PersistentVolumeClaim') {
    errs.push(fieldErrors.invalid(path, ref.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (apiGroup !== '' && !allowInvalidAPIGroup) {
    for (const m of isDNS1123Subdomain(apiGroup)) errs.push(fieldErrors.invalid(path.child('apiGroup'), apiGroup, m));
  }
  const namespace = 'namespace' in ref ? (ref.namespace ?? '') : '';
  if (namespace !== '') {
    for (const m of nameIsDNSLabel(namespace, false)) errs.push(fieldErrors.invalid(path.child('namespace'), namespace, m));
  }
  return errs;
}

/**
 * The bad value upstream passes for the dataSource conflicts is a `*field.Path`, which `ErrorBody` prints
 * with `%#v`, parent pointer included. The address differs per process; we print a fixed one.
 */
function goDataSourcePath(): GoValue {
  return new GoValue('field.Path{name:"dataSource", index:"", parent:(*field.Path)(0xc000000000)}');
}

/** `isDataSourceEqualDataSourceRef`: apiGroup (both unset or equal), kind and name. */
function isDataSourceEqualDataSourceRef(ds: TypedLocalObjectReference, ref: TypedObjectReference): boolean {
  return ds.apiGroup === ref.apiGroup && ds.kind === ref.kind && ds.name === ref.name;
}

/** `ValidatePositiveQuantityValue`: greater than zero, the value shown as `Quantity.String()`. */
function validatePositiveQuantityValue(q: Quantity, path: Path): FieldError[] {
  return q.nanos <= 0n ? [fieldErrors.invalid(path, formatQuantity(q), 'must be greater than zero')] : [];
}

/** `ValidatePersistentVolumeClaimSpec`. */
export function validatePersistentVolumeClaimSpec(spec: PersistentVolumeClaimSpec | undefined, path: Path, opts: PersistentVolumeClaimSpecValidationOptions): FieldError[] {
  const s = spec ?? {};
  const errs: FieldError[] = [];
  const modes = s.accessModes ?? [];
  if (modes.length === 0) errs.push(fieldErrors.required(path.child('accessModes'), 'at least 1 access mode is required'));
  if (s.selector != null) errs.push(...validateLabelSelector(s.selector, path.child('selector'), opts));
  let rwop = false;
  let other = false;
  for (const mode of modes) {
    const supported = supportedAccessModes.includes(mode);
    if (!supported) errs.push(fieldErrors.notSupported(path.child('accessModes'), mode, supportedAccessModes));
    if (mode === 'ReadWriteOncePod') rwop = true;
    else if (supported) other = true;
  }
  if (rwop && other) errs.push(fieldErrors.forbidden(path.child('accessModes'), 'may not use ReadWriteOncePod with other access modes'));

  const storagePath = path.child('resources').key('storage');
  const requests: ResourceList = s.resources?.requests ?? {};
  if (!Object.prototype.hasOwnProperty.call(requests, 'storage')) {
    errs.push(fieldErrors.required(storagePath, ''));
  } else {
    const storage = quantityOrZero(requests, 'storage');
    const positive = validatePositiveQuantityValue(storage, storagePath);
    errs.push(...(positive.length > 0 ? positive : validateResourceQuantityValue('storage', requests['storage'] ?? 0, storagePath)));
  }

  const sc = s.storageClassName ?? '';
  if (sc !== '') for (const m of nameIsDNSSubdomain(sc, false)) errs.push(fieldErrors.invalid(path.child('storageClassName'), sc, m));
  if (s.volumeMode != null && !supportedVolumeModes.includes(s.volumeMode)) errs.push(fieldErrors.notSupported(path.child('volumeMode'), s.volumeMode, supportedVolumeModes));

  if (s.dataSource != null) errs.push(...validateDataSource(s.dataSource, path.child('dataSource'), opts.allowInvalidAPIGroupInDataSourceOrRef));
  if (s.dataSourceRef != null) errs.push(...validateDataSource(s.dataSourceRef, path.child('dataSourceRef'), opts.allowInvalidAPIGroupInDataSourceOrRef));
  if ((s.dataSourceRef?.namespace ?? '') !== '') {
    if (s.dataSource != null) errs.push(fieldErrors.invalid(path, goDataSourcePath(), 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (s.dataSource != null && s.dataSourceRef != null && !isDataSourceEqualDataSourceRef(s.dataSource, s.dataSourceRef)) {
    errs.push(fieldErrors.invalid(path, goDataSourcePath(), 'must match dataSourceRef'));
  }
  const vac = s.volumeAttributesClassName ?? '';
  if (vac !== '' && opts.enableVolumeAttributesClass) {
    for (const m of nameIsDNSSubdomain(vac, false)) errs.push(fieldErrors.invalid(path.child('volumeAttributesClassName'), vac, m));
  }
  return errs;
}

/** `ValidatePersistentVolumeClaim`: metadata (names are DNS subdomains), then the spec. */
function validatePersistentVolumeClaimObject(pvc: PersistentVolumeClaim, opts: PersistentVolumeClaimSpecValidationOptions): FieldError[] {
  return [...validateObjectMeta(pvc.metadata, metaOpts), ...validatePersistentVolumeClaimSpec(pvc.spec, Path.root('spec'), opts)];
}

/**
 * `persistentvolumeclaimStrategy.Validate`, of a claim `PrepareForCreate` prepared (`prepareClaimSpec` in
 * registry/pvc-data-sources.ts dropped the disabled fields).
 */
export function validatePersistentVolumeClaim(pvc: PersistentVolumeClaim): FieldError[] {
  return validatePersistentVolumeClaimObject(pvc, validationOptionsForPersistentVolumeClaim(undefined));
}

/**
 * `validateStorageClassUpgradeFromAnnotation`: the class may move from the beta annotation into the spec
 * (old annotation set, old spec unset, new spec equal to it, new annotation absent or unchanged).
 */
function storageClassUpgradeFromAnnotation(old: PersistentVolumeClaim, pvc: PersistentVolumeClaim): boolean {
  const oldAnn = old.metadata?.annotations?.[betaStorageClassAnnotation];
  const newAnn = pvc.metadata?.annotations?.[betaStorageClassAnnotation];
  const sc = pvc.spec?.storageClassName;
  return oldAnn !== undefined && old.spec?.storageClassName == null && sc != null && sc === oldAnn && (newAnn === undefined || newAnn === oldAnn);
}

/** `validateStorageClassUpgradeFromNil`: an unset class may be set once (to the annotation's, if any). */
function storageClassUpgradeFromNil(old: PersistentVolumeClaim, pvc: PersistentVolumeClaim): boolean {
  const oldAnn = old.metadata?.annotations?.[betaStorageClassAnnotation];
  const sc = pvc.spec?.storageClassName;
  return sc != null && old.spec?.storageClassName == null && (oldAnn === undefined || sc === oldAnn);
}

/** Resource lists compared as `apiequality.Semantic` compares quantities: by value, not by spelling. */
function canonicalRequests(spec: PersistentVolumeClaimSpec): PersistentVolumeClaimSpec {
  const canon = (list: Record<string, string> | undefined): Record<string, string> | undefined =>
    list === undefined ? undefined : Object.fromEntries(Object.entries(list).map(([k, v]) => [k, quantityOf(v) !== undefined ? formatQuantity(parseQuantity(v)) : v]));
  if (spec.resources === undefined) return spec;
  const resources = { ...spec.resources };
  const requests = canon(spec.resources.requests);
  const limits = canon(spec.resources.limits);
  if (requests !== undefined) resources.requests = requests;
  if (limits !== undefined) resources.limits = limits;
  return { ...spec, resources };
}

/**
 * The immutability message: upstream appends `cmp.Diff(oldSpec, newSpec)`, whose whitespace go-cmp
 * randomizes on purpose, so no byte-exact copy is possible. The fixed first line is upstream's; the diff
 * after it is the readable approximation the pod update error uses (changed fields as `-`/`+` lines).
 */
function specImmutableMessage(oldSpec: PersistentVolumeClaimSpec, newSpec: PersistentVolumeClaimSpec): string {
  const diff = podSpecDiff(oldSpec as never, newSpec as never).replace('core.PodSpec{', 'core.PersistentVolumeClaimSpec{');
  return `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${diff}`;
}

/**
 * `ValidatePersistentVolumeClaimUpdate`: the spec is immutable except a first `volumeName`, the storage
 * class moving from annotation to spec or from unset, and, for claims whose (new, i.e. stored) phase is
 * Bound, the storage request and the volume attributes class. The request may not shrink.
 */
export function validatePersistentVolumeClaimUpdateRules(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim, opts: PersistentVolumeClaimSpecValidationOptions): FieldError[] {
  const errs = validateObjectMetaUpdate(pvc.metadata, old.metadata, Path.root('metadata'));
  errs.push(...validatePersistentVolumeClaimObject(pvc, opts));
  const newSpec: PersistentVolumeClaimSpec = { ...pvc.spec, resources: { ...pvc.spec?.resources } };
  const oldSpec: PersistentVolumeClaimSpec = { ...old.spec };
  if ((old.spec?.volumeName ?? '') === '') {
    if (newSpec.volumeName !== undefined) oldSpec.volumeName = newSpec.volumeName;
    else delete oldSpec.volumeName;
  }
  if (storageClassUpgradeFromAnnotation(old, pvc)) {
    delete newSpec.storageClassName;
  } else {
    const newAnn = pvc.metadata?.annotations?.[betaStorageClassAnnotation] ?? '';
    const oldAnn = old.metadata?.annotations?.[betaStorageClassAnnotation] ?? '';
    if (newAnn !== oldAnn) errs.push(fieldErrors.invalid(Path.root('metadata').child('annotations', betaStorageClassAnnotation), newAnn, 'field is immutable'));
    if (storageClassUpgradeFromNil(old, pvc)) delete newSpec.storageClassName;
  }
  const bound = pvc.status?.phase === 'Bound';
  const newRequests = pvc.spec?.resources?.requests;
  if (bound && newRequests !== undefined && newSpec.resources !== undefined) {
    const requests: Record<string, string> = { ...newRequests };
    const oldStorage = old.spec?.resources?.requests?.['storage'];
    if (oldStorage !== undefined) requests['storage'] = oldStorage;
    else delete requests['storage'];
    newSpec.resources.requests = requests;
  }
  if (bound && newSpec.volumeAttributesClassName != null) {
    if (oldSpec.volumeAttributesClassName != null) newSpec.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
    else delete newSpec.volumeAttributesClassName;
  }
  const [a, b] = [canonicalRequests(oldSpec), canonicalRequests(newSpec)];
  if (!semanticDeepEqual(b, a)) errs.push(fieldErrors.forbidden(Path.root('spec'), specImmutableMessage(a, b)));

  const requestPath = Path.root('spec').child('resources', 'requests', 'storage');
  const newSize = quantityOrZero(pvc.spec?.resources?.requests, 'storage');
  if (compareQuantities(newSize, quantityOrZero(old.spec?.resources?.requests, 'storage')) < 0) {
    if (!opts.enableRecoverFromExpansionFailure) {
      errs.push(fieldErrors.forbidden(requestPath, 'field can not be less than previous value'));
    } else if (compareQuantities(newSize, quantityOrZero(old.status?.capacity, 'storage')) <= 0) {
      // Shrinking is allowed down to (not to) the capacity recorded in status, to recover a failed expansion.
      errs.push(fieldErrors.forbidden(requestPath, 'field can not be less than status.capacity'));
    }
  }
  errs.push(...validateImmutableField(pvc.spec?.volumeMode ?? null, old.spec?.volumeMode ?? null, Path.root('volumeMode')));

  const newVac = pvc.spec?.volumeAttributesClassName;
  const oldVac = old.spec?.volumeAttributesClassName;
  if ((newVac ?? null) !== (oldVac ?? null)) {
    const vacPath = Path.root('spec').child('volumeAttributesClassName');
    errs.push(fieldErrors.forbidden(vacPath, 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
    if (opts.enableVolumeAttributesClass && oldVac != null) {
      if (newVac == null) errs.push(fieldErrors.forbidden(vacPath, 'update from non-nil value to nil is forbidden'));
      else if (newVac === '') errs.push(fieldErrors.forbidden(vacPath, 'update from non-nil value to an empty string is forbidden'));
    }
  }
  return errs;
}

/**
 * `persistentvolumeclaimStrategy.ValidateUpdate` (after `PrepareForUpdate`, which keeps the stored status
 * and drops disabled fields): `ValidatePersistentVolumeClaim`, then `ValidatePersistentVolumeClaimUpdate`,
 * which runs it again. The repeated errors are kept, as upstream's causes keep them; the message dedupes.
 */
export function validatePersistentVolumeClaimUpdate(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): FieldError[] {
  const opts = validationOptionsForPersistentVolumeClaim(old);
  return [...validatePersistentVolumeClaimObject(pvc, opts), ...validatePersistentVolumeClaimUpdateRules(pvc, old, opts)];
}

/** `validateBasicResource`: `Quantity.Value()` not negative. */
function validateBasicResource(v: string | number, path: Path): FieldError[] {
  const q = quantityOf(v);
  return q !== undefined && quantityValue(q) < 0 ? [fieldErrors.invalid(path, quantityValue(q), 'must be a valid resource quantity')] : [];
}

/** `validatePersistentVolumeClaimResourceKey`: a qualified name; unprefixed or kubernetes.io only `storage`. */
function validatePersistentVolumeClaimResourceKey(name: string, path: Path): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, name, m));
  if (errs.length === 0 && isNativeResource(name) && name !== 'storage') errs.push(fieldErrors.notSupported(path, name, ['storage']));
  return errs;
}

/**
 * The allocatedResources/allocatedResourceStatuses part of `ValidatePersistentVolumeClaimStatusUpdate`,
 * run only with `EnableRecoverFromExpansionFailure`. Go ranges over maps in random order; we sort keys.
 */
function validateAllocatedResources(status: PersistentVolumeClaimStatus | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const resizePath = Path.root('status').child('allocatedResourceStatus');
  const statuses = status?.allocatedResourceStatuses ?? {};
  for (const k of Object.keys(statuses).sort()) {
    errs.push(...validatePersistentVolumeClaimResourceKey(k, resizePath));
    // Upstream reports the key (a ResourceName, printed unquoted through its String()), not the status.
    if (!resizeStatuses.includes(statuses[k] ?? '')) errs.push(fieldErrors.notSupported(resizePath, new GoValue(k), resizeStatuses));
  }
  const allocPath = Path.root('status').child('allocatedResources');
  const allocated: ResourceList = status?.allocatedResources ?? {};
  for (const r of Object.keys(allocated).sort()) {
    const keyErrs = validatePersistentVolumeClaimResourceKey(r, allocPath);
    if (keyErrs.length > 0) {
      errs.push(...keyErrs);
      continue;
    }
    const basic = validateBasicResource(allocated[r] ?? 0, allocPath.key(r));
    errs.push(...(basic.length > 0 ? basic : validateResourceQuantityValue('storage', allocated[r] ?? 0, allocPath.key(r))));
  }
  return errs;
}

/**
 * `persistentvolumeclaimStatusStrategy.ValidateUpdate` → `ValidatePersistentVolumeClaimStatusUpdate`
 * (v1.32 checks no conditions). With RecoverVolumeExpansionFailure off, `DropDisabledFieldsFromStatus`
 * drops new allocated* fields unless the stored claim has them, which is also when the options enable
 * their validation.
 */
export function validatePersistentVolumeClaimStatusUpdate(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): FieldError[] {
  const errs = validateObjectMetaUpdate(pvc.metadata, old.metadata, Path.root('metadata'));
  if ((pvc.metadata?.resourceVersion ?? '') === '') errs.push(fieldErrors.required(Path.root('resourceVersion'), ''));
  if ((pvc.spec?.accessModes ?? []).length === 0) errs.push(fieldErrors.required(Path.root('Spec').child('accessModes'), ''));
  const capacity: ResourceList = pvc.status?.capacity ?? {};
  const capPath = Path.root('status').child('capacity');
  for (const r of Object.keys(capacity).sort()) errs.push(...validateBasicResource(capacity[r] ?? 0, capPath.key(r)));
  if (validationOptionsForPersistentVolumeClaim(old).enableRecoverFromExpansionFailure) errs.push(...validateAllocatedResources(pvc.status));
  return errs;
}
