/**
 * ServiceAccount (`plugin/pkg/admission/serviceaccount`): on pod CREATE sets `spec.serviceAccountName` to
 * `default` when empty, requires the service account to exist, mounts the service account token volume
 * (`kube-api-access-xxxxx`, a projected volume of a bound token, the cluster CA and the namespace) into every
 * container unless the pod or its service account turns automounting off, and copies the service account's
 * imagePullSecrets. Mirror pods may reference no service account, no secrets and no token projection.
 */
import type { Container, Pod, ServiceAccount as ServiceAccountObject } from 'kubernetes-types/core/v1.js';
import { defaultAPITokenMountPath, serviceAccountVolumeName, tokenVolumeSource } from '../../api/service-account-token.js';
import { randomSuffix } from '../../apiserver/registry/strategy.js';
import { admissionForbidden, isResource } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, MutatingPlugin, ValidatingPlugin } from '../types.js';

export const name = names.ServiceAccount;
export const defaultServiceAccountName = 'default';
const mirrorPodAnnotationKey = 'kubernetes.io/config.mirror';
/** `shouldAutomount`: the pod's preference wins, then the service account's, else true. */
function shouldAutomount(sa: ServiceAccountObject, pod: Pod): boolean {
  return pod.spec?.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
}

/**
 * `mountServiceAccountToken`: every container (init containers first) without a mount at the token path
 * gets one of the token volume, which is added unless a volume named `kube-api-access-*` is already there.
 */
function mountServiceAccountToken(pod: Pod): void {
  const spec = (pod.spec ??= { containers: [] });
  const existing = (spec.volumes ?? []).find((v) => v.name.startsWith(`${serviceAccountVolumeName}-`));
  const volumeName = existing?.name ?? `${serviceAccountVolumeName}-${randomSuffix()}`;
  let needsTokenVolume = false;
  const mount = (containers: Container[] | undefined): void => {
    for (const c of containers ?? []) {
      if ((c.volumeMounts ?? []).some((m) => m.mountPath === defaultAPITokenMountPath)) continue;
      (c.volumeMounts ??= []).push({ name: volumeName, readOnly: true, mountPath: defaultAPITokenMountPath });
      needsTokenVolume = true;
    }
  };
  mount(spec.initContainers);
  mount(spec.containers);
  if (existing === undefined && needsTokenVolume) (spec.volumes ??= []).push({ name: volumeName, projected: tokenVolumeSource() });
}

function isMirror(pod: Pod): boolean {
  return pod.metadata?.annotations?.[mirrorPodAnnotationKey] !== undefined;
}

function referencesSecrets(pod: Pod): boolean {
  const spec = pod.spec;
  if (spec === undefined) return false;
  if ((spec.imagePullSecrets ?? []).length > 0) return true;
  if ((spec.volumes ?? []).some((v) => v.secret !== undefined || (v.projected?.sources ?? []).some((s) => s.secret !== undefined))) return true;
  const containers = [...spec.containers, ...(spec.initContainers ?? [])];
  return containers.some((c) => (c.env ?? []).some((e) => e.valueFrom?.secretKeyRef !== undefined) || (c.envFrom ?? []).some((e) => e.secretRef !== undefined));
}

export class ServiceAccount implements MutatingPlugin, ValidatingPlugin {
  readonly name = name;

  private shouldIgnore(a: AdmissionAttributes): boolean {
    return a.operation !== 'CREATE' || a.subresource !== '' || !isResource(a, '', 'pods') || a.object === undefined;
  }

  async admit(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (this.shouldIgnore(a)) return;
    const pod = a.object as Pod;
    if (isMirror(pod)) return this.validate(a, lookup);
    const spec = (pod.spec ??= { containers: [] });
    if ((spec.serviceAccountName ?? '') === '') spec.serviceAccountName = defaultServiceAccountName;
    const saName = spec.serviceAccountName ?? defaultServiceAccountName;
    // The v1 API mirrors the name into the deprecated `serviceAccount` field on output.
    spec.serviceAccount = saName;
    const sa = await lookup.getServiceAccount(a.namespace, saName);
    if (sa === undefined) {
      throw admissionForbidden(a, `error looking up service account ${a.namespace}/${saName}: serviceaccount "${saName}" not found`);
    }
    if (shouldAutomount(sa, pod)) mountServiceAccountToken(pod);
    if ((spec.imagePullSecrets ?? []).length === 0 && (sa.imagePullSecrets ?? []).length > 0) {
      spec.imagePullSecrets = (sa.imagePullSecrets ?? []).map((s) => ({ name: s.name ?? '' }));
    }
    return this.validate(a, lookup);
  }

  async validate(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (this.shouldIgnore(a)) return;
    const pod = a.object as Pod;
    if (isMirror(pod)) {
      if ((pod.spec?.serviceAccountName ?? '') !== '') throw admissionForbidden(a, 'a mirror pod may not reference service accounts');
      if (referencesSecrets(pod)) throw admissionForbidden(a, 'a mirror pod may not reference secrets');
      if ((pod.spec?.volumes ?? []).some((v) => (v.projected?.sources ?? []).some((s) => s.serviceAccountToken !== undefined))) {
        throw admissionForbidden(a, 'a mirror pod may not use ServiceAccountToken volume projections');
      }
      return;
    }
    const saName = pod.spec?.serviceAccountName ?? '';
    if (saName === '') throw admissionForbidden(a, 'no service account specified for pod ' + `${a.namespace}/${pod.metadata?.name ?? ''}`);
    if ((await lookup.getServiceAccount(a.namespace, saName)) === undefined) {
      throw admissionForbidden(a, `error looking up service account ${a.namespace}/${saName}: serviceaccount "${saName}" not found`);
    }
  }
}

export function create(): ServiceAccount {
  return new ServiceAccount();
}
