/**
 * Resource lists and requirements (`ValidateResourceRequirements`, `ValidateResourceQuantityValue`) and the
 * decode-time quantity syntax check the API server performs before validation.
 */
import type { ResourceRequirements } from 'kubernetes-types/core/v1.js';
import { type FieldError, fieldErrors, GoValue, type Path } from '../../api/field-errors.js';
import { compareQuantities, formatQuantity, isQuantity, parseQuantity, type Quantity } from '../../api/quantity.js';
import { isQualifiedName } from './_names.js';
import { visitQuantities } from '../protobuf/quantity-fields.js';

type ResourceList = Record<string, string | number>;

const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);

function isHugePageResourceName(name: string): boolean {
  return name.startsWith('hugepages-');
}

/** `helper.IsNativeResource`: no domain, or a `kubernetes.io/` domain. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** `helper.IsExtendedResourceName`. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

/** `helper.IsOvercommitAllowed`: native, non-hugepage resources. */
function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePageResourceName(name);
}

function isIntegerResourceName(name: string): boolean {
  return isExtendedResourceName(name);
}

function q(v: string | number): Quantity | undefined {
  const s = String(v);
  return isQuantity(s) ? parseQuantity(s) : undefined;
}

function qString(v: string | number): string {
  const parsed = q(v);
  return parsed === undefined ? String(v) : formatQuantity(parsed);
}

const standardResources = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);

/** `helper.IsStandardResourceName`: a quota or compute resource kube knows, or a hugepage one. */
function isStandardResourceName(name: string): boolean {
  return standardResources.has(name) || isHugePageResourceName(name) || name.startsWith('requests.hugepages-');
}

/**
 * `validateResourceName`: a qualified name and, without a prefix, a standard resource. The name is a
 * `ResourceName`, which field errors print through its `String()`: unquoted.
 */
function validateResourceName(name: string, path: Path): FieldError[] {
  const shown = new GoValue(name);
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, shown, m));
  if (errs.length === 0 && !name.includes('/') && !isStandardResourceName(name)) {
    errs.push(fieldErrors.invalid(path, shown, 'must be a standard resource type or fully qualified'));
  }
  return errs;
}

/**
 * `validateContainerResourceName` (and v1's `ValidateContainerResourceName`, the same rules, which HPA
 * container metrics use): `validateResourceName`, then unprefixed a container resource, prefixed a native
 * or extended one.
 */
export function validateContainerResourceName(name: string, path: Path): FieldError[] {
  const shown = new GoValue(name);
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !isHugePageResourceName(name)) errs.push(fieldErrors.invalid(path, shown, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(fieldErrors.invalid(path, shown, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** `ValidateResourceQuantityValue`: non-negative; whole numbers for extended resources. */
export function validateResourceQuantityValue(name: string, value: string | number, path: Path): FieldError[] {
  const parsed = q(value);
  if (parsed === undefined) return [];
  const errs: FieldError[] = [];
  if (parsed.nanos < 0n) errs.push(fieldErrors.invalid(path, formatQuantity(parsed), 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name) && parsed.nanos % 1_000_000_000n !== 0n) {
    errs.push(fieldErrors.invalid(path, formatQuantity(parsed), 'must be an integer'));
  }
  return errs;
}

/** `ValidateResourceRequirements`: names, values, and requests no greater than limits. */
export function validateResourceRequirements(req: ResourceRequirements | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const limits: ResourceList = (req?.limits ?? {});
  const requests: ResourceList = (req?.requests ?? {});
  const limPath = path.child('limits');
  const reqPath = path.child('requests');
  let cpuOrMemory = false;
  let hugePages = false;
  for (const name of Object.keys(limits).sort()) {
    const p = limPath.key(name);
    errs.push(...validateContainerResourceName(name, p));
    errs.push(...validateResourceQuantityValue(name, limits[name] ?? 0, p));
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
    if (isHugePageResourceName(name)) hugePages = true;
  }
  for (const name of Object.keys(requests).sort()) {
    const p = reqPath.key(name);
    const value = requests[name] ?? 0;
    errs.push(...validateContainerResourceName(name, p));
    errs.push(...validateResourceQuantityValue(name, value, p));
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
    if (isHugePageResourceName(name)) hugePages = true;
    const limit = Object.prototype.hasOwnProperty.call(limits, name) ? limits[name] : undefined;
    const rq = q(value);
    if (limit !== undefined) {
      const lq = q(limit);
      if (rq === undefined || lq === undefined) continue;
      const cmp = compareQuantities(rq, lq);
      if (cmp !== 0 && !isOvercommitAllowed(name)) {
        errs.push(fieldErrors.invalid(reqPath, qString(value), `must be equal to ${name} limit of ${qString(limit)}`));
      } else if (cmp > 0) {
        errs.push(fieldErrors.invalid(reqPath, qString(value), `must be less than or equal to ${name} limit of ${qString(limit)}`));
      }
    } else if (!isOvercommitAllowed(name)) {
      errs.push(fieldErrors.required(limPath, 'Limit must be set for non overcommitable resources'));
    }
  }
  if (hugePages && !cpuOrMemory) errs.push(fieldErrors.forbidden(path, 'HugePages require cpu or memory'));
  return errs;
}

/** A resource list such as `spec.overhead` or a RuntimeClass's `overhead.podFixed`. */
export function validateResourceList(list: Record<string, string | number> | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const name of Object.keys(list ?? {}).sort()) {
    errs.push(...validateContainerResourceName(name, path.key(name)));
    errs.push(...validateResourceQuantityValue(name, list?.[name] ?? 0, path.key(name)));
  }
  return errs;
}

/** The message upstream's decoder gives for a malformed quantity (a 400, before validation). */
export const quantityDecodeMessage = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/**
 * Upstream's decoder message for the first malformed quantity of an object of a built-in kind, in the
 * fields its schema declares as quantities (`visitQuantities`); undefined when every one parses.
 * kube-apiserver answers such a body with 400 `<Kind> in version "<version>" cannot be handled as a
 * <Kind>: <message>`, before defaulting or validation.
 */
export function malformedQuantity(kind: { group: string; version: string; kind: string }, obj: unknown): string | undefined {
  let found: string | undefined;
  visitQuantities(kind, obj, (_holder, _key, value) => {
    if (found === undefined && (typeof value === 'string' || typeof value === 'number') && !isQuantity(String(value))) found = quantityDecodeMessage;
  });
  return found;
}
