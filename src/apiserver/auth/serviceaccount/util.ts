/**
 * Service account user names, groups and the user they authenticate as
 * (staging/src/k8s.io/apiserver/pkg/authentication/serviceaccount/util.go, v1.32).
 */
import type { UserInfo } from '../../registry/policy.js';

export const serviceAccountUsernamePrefix = 'system:serviceaccount:';
export const serviceAccountUsernameSeparator = ':';
export const serviceAccountGroupPrefix = 'system:serviceaccounts:';
export const allServiceAccountsGroup = 'system:serviceaccounts';

/** Keys of the user's `extra` a service account token sets. */
export const extraKeys = {
  podName: 'authentication.kubernetes.io/pod-name',
  podUID: 'authentication.kubernetes.io/pod-uid',
  nodeName: 'authentication.kubernetes.io/node-name',
  nodeUID: 'authentication.kubernetes.io/node-uid',
  credentialID: 'authentication.kubernetes.io/credential-id',
} as const;


export function makeUsername(namespace: string, name: string): string {
  return serviceAccountUsernamePrefix + namespace + serviceAccountUsernameSeparator + name;
}

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The namespace and name of a `system:serviceaccount:<ns>:<name>` user, undefined when the user name is not
 * one (`SplitUsername`: the namespace must be a DNS-1123 label, the name a DNS-1123 subdomain).
 */
export function splitUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountUsernamePrefix)) return undefined;
  const parts = username.slice(serviceAccountUsernamePrefix.length).split(serviceAccountUsernameSeparator);
  if (parts.length !== 2) return undefined;
  const [namespace = '', name = ''] = parts;
  if (namespace.length > 63 || !dns1123Label.test(namespace)) return undefined;
  if (name.length > 253 || !dns1123Subdomain.test(name)) return undefined;
  return { namespace, name };
}

export function makeGroupNames(namespace: string): string[] {
  return [allServiceAccountsGroup, serviceAccountGroupPrefix + namespace];
}

/** `CredentialIDForJTI`: `JTI=<jti>`, empty for a token without one. */
export function credentialIDForJTI(jti: string): string {
  return jti === '' ? '' : `JTI=${jti}`;
}

/** What a validated service account token says about its bearer (`ServiceAccountInfo`). */
export interface ServiceAccountInfo {
  name: string;
  namespace: string;
  uid: string;
  podName?: string;
  podUID?: string;
  nodeName?: string;
  nodeUID?: string;
  credentialID?: string;
}

/** `ServiceAccountInfo.UserInfo()`: the user, its groups and the pod, node and credential extras. */
export function userInfoOf(sa: ServiceAccountInfo): UserInfo {
  const extra: Record<string, string[]> = {};
  if ((sa.podName ?? '') !== '' && (sa.podUID ?? '') !== '') {
    extra[extraKeys.podName] = [sa.podName ?? ''];
    extra[extraKeys.podUID] = [sa.podUID ?? ''];
  }
  if ((sa.credentialID ?? '') !== '') extra[extraKeys.credentialID] = [sa.credentialID ?? ''];
  if ((sa.nodeName ?? '') !== '') {
    extra[extraKeys.nodeName] = [sa.nodeName ?? ''];
    // The node UID is optional and only set together with the node name.
    if ((sa.nodeUID ?? '') !== '') extra[extraKeys.nodeUID] = [sa.nodeUID ?? ''];
  }
  return {
    username: makeUsername(sa.namespace, sa.name),
    uid: sa.uid,
    groups: makeGroupNames(sa.namespace),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}
