/**
 * The service account token volume the ServiceAccount admission plugin mounts into pods
 * (`plugin/pkg/admission/serviceaccount`): its name prefix, mount path and projection. Every pod that
 * automounts its token carries the same projection, so readers that keep many pods read-only can hold it
 * once (`shareTokenProjection`).
 */
import type { ProjectedVolumeSource } from 'kubernetes-types/core/v1.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { jsonDeepEqual } from '../util/json-equal.js';

/** `ServiceAccountVolumeName`: the prefix of the token volume's name. */
export const serviceAccountVolumeName = 'kube-api-access';
/** `DefaultAPITokenMountPath`. */
export const defaultAPITokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
/** `serviceaccount.WarnOnlyBoundTokenExpirationSeconds`: one hour and seven seconds. */
const warnOnlyBoundTokenExpirationSeconds = 3607;

/** `TokenVolumeSource`: the bound token, the cluster CA and the namespace, with the default mode set explicitly. */
export function tokenVolumeSource(): ProjectedVolumeSource {
  return {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: warnOnlyBoundTokenExpirationSeconds } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

const sharedProjection = deepFreeze(tokenVolumeSource());

/**
 * Replaces the token projection of a pod's `kube-api-access-*` volume by one shared frozen copy when it is
 * the standard one: a cache of 150,000 pods then holds one projection, not 150,000 (about 700 bytes of
 * objects each). Only for pods nobody modifies (read-only watches).
 */
export function shareTokenProjection(obj: unknown): void {
  const o = obj as { kind?: unknown; spec?: { volumes?: unknown } } | null;
  if (o === null || typeof o !== 'object' || o.kind !== 'Pod' || !Array.isArray(o.spec?.volumes)) return;
  for (const v of o.spec.volumes as { name?: unknown; projected?: unknown }[]) {
    if (typeof v.name === 'string' && v.name.startsWith(`${serviceAccountVolumeName}-`) && v.projected !== sharedProjection && jsonDeepEqual(v.projected, sharedProjection)) {
      v.projected = sharedProjection;
    }
  }
}
