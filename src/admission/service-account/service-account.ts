/**
 * ServiceAccount (`plugin/pkg/admission/serviceaccount`): on pod CREATE sets `spec.serviceAccountName` to
 * `default` when empty, requires the service account to exist, and copies its imagePullSecrets. Token
 * volumes are not mounted (kubemix runs no real containers). Mirror pods may reference no service account
 * and no secrets.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { admissionForbidden, isResource } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, MutatingPlugin, ValidatingPlugin } from '../types.js';

export const name = names.ServiceAccount;
export const defaultServiceAccountName = 'default';
const mirrorPodAnnotationKey = 'kubernetes.io/config.mirror';

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
