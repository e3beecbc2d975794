/**
 * The `cluster-info` ConfigMap in `kube-public` (kubeadm's bootstraptoken/clusterinfo phase): a kubeconfig
 * with only the cluster (server and CA), readable anonymously through the Role/RoleBinding
 * `kubeadm:bootstrap-signer-clusterinfo`, and signed per token under `jws-kubeconfig-<id>` (by the
 * bootstrap signer controller).
 */
import { stringify } from 'yaml';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';

export const clusterInfoName = 'cluster-info';
export const clusterInfoNamespace = 'kube-public';
export const kubeconfigKey = 'kubeconfig';
export const jwsSignatureKeyPrefix = 'jws-kubeconfig-';
export const bootstrapSignerClusterRoleName = 'kubeadm:bootstrap-signer-clusterinfo';

/** The kubeconfig kubeadm puts in cluster-info (no users, no contexts' credentials). */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(caPem).toString('base64'), server }, name: '' }],
    contexts: null,
    'current-context': '',
    kind: 'Config',
    preferences: {},
    users: null,
  });
}

export function clusterInfoConfigMap(server: string, caPem: string): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: clusterInfoName, namespace: clusterInfoNamespace },
    data: { [kubeconfigKey]: clusterInfoKubeconfig(server, caPem) },
  };
}

/** `CreateClusterInfoRBACRules`: anonymous may get cluster-info. */
export function clusterInfoRbac(): { role: Role; binding: RoleBinding } {
  return {
    role: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: bootstrapSignerClusterRoleName, namespace: clusterInfoNamespace },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [clusterInfoName] }],
    },
    binding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: bootstrapSignerClusterRoleName, namespace: clusterInfoNamespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: bootstrapSignerClusterRoleName },
      subjects: [{ kind: 'User', name: 'system:anonymous' }],
    },
  };
}

/** The CA PEM and server of a cluster-info kubeconfig. */
export function parseClusterInfoKubeconfig(doc: unknown): { server: string; caPem: string } | undefined {
  const clusters = (doc as { clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[] } | null)?.clusters;
  const c = clusters?.[0]?.cluster;
  if (c?.server === undefined || c['certificate-authority-data'] === undefined) return undefined;
  return { server: c.server, caPem: Buffer.from(c['certificate-authority-data'], 'base64').toString('utf8') };
}
