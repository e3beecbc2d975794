/** Errors as `k8s.io/apiserver/pkg/admission` builds them. */
import { ApiError, apiErrors, isForbidden } from '../api/errors.js';
import type { AdmissionAttributes } from './types.js';

/**
 * `admission.NewForbidden(a, err)`: `<resource> "<name>" is forbidden: <err>`. The name is the request's,
 * else the object's name, else its generateName, else `Unknown` (upstream's `extractResourceName`).
 */
export function admissionForbidden(a: AdmissionAttributes, message: string): ApiError {
  let name = a.name;
  if (name === '') name = a.object?.metadata?.name ?? '';
  if (name === '') name = a.object?.metadata?.generateName ?? '';
  if (name === '') name = 'Unknown';
  return apiErrors.forbidden({ group: a.resource.group, resource: a.resource.resource }, name, message);
}

/** Re-throws an existing Forbidden unchanged (upstream does not double-wrap). */
export function asForbidden(a: AdmissionAttributes, e: unknown): ApiError {
  if (isForbidden(e)) return e as ApiError;
  return admissionForbidden(a, e instanceof Error ? e.message : String(e));
}

/** Whether the request targets the given resource (by group and plural), any version. */
export function isResource(a: AdmissionAttributes, group: string, resource: string): boolean {
  return a.resource.group === group && a.resource.resource === resource;
}
