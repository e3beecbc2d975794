/**
 * The RBAC objects `kubeadm init` creates for TLS bootstrap (cmd/kubeadm/app/phases/bootstraptoken/node):
 * bootstrap tokens may create CSRs and have node client CSRs auto-approved, nodes may renew their own
 * certificates, and joining nodes may get nodes.
 */
import type { ClusterRole, ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import { kubeadmDefaultNodeTokenGroup } from './token.js';

const rbacGroup = 'rbac.authorization.k8s.io';

function binding(name: string, role: string, group: string): ClusterRoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: rbacGroup, kind: 'Group', name: group }],
  };
}

export function kubeadmBootstrapClusterRoles(): ClusterRole[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'kubeadm:get-nodes' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }],
    },
  ];
}

export function kubeadmBootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    binding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', kubeadmDefaultNodeTokenGroup),
    binding('kubeadm:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', kubeadmDefaultNodeTokenGroup),
    binding('kubeadm:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', 'system:nodes'),
    binding('kubeadm:get-nodes', 'kubeadm:get-nodes', kubeadmDefaultNodeTokenGroup),
  ];
}
