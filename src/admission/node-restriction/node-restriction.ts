/**
 * NodeRestriction (`plugin/pkg/admission/noderestriction`): a kubelet (user `system:node:<name>` in group
 * `system:nodes`) may only change its own Node (not its taints, and only kubelet labels), its own Lease in
 * `kube-node-lease`, the status of pods bound to it, evict or delete pods bound to it, and create mirror
 * pods bound to it that reference no other objects. Mutating phase only, as upstream (`Admit`).
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { ApiError, StatusReason } from '../../api/errors.js';
import { admissionForbidden, isResource } from '../_errors.js';
import { semanticDeepEqual } from '../../apiserver/validation/objectmeta.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, MutatingPlugin, UserInfo } from '../types.js';

export const name = names.NodeRestriction;

export const nodeUserNamePrefix = 'system:node:';
export const nodesGroup = 'system:nodes';
export const nodeLeaseNamespace = 'kube-node-lease';
const mirrorPodAnnotationKey = 'kubernetes.io/config.mirror';

/** `nodeidentifier.NodeIdentity`: the node name, and whether the user is a node at all. */
export function nodeIdentity(u: UserInfo): { nodeName: string; isNode: boolean } {
  if (!u.username.startsWith(nodeUserNamePrefix)) return { nodeName: '', isNode: false };
  if (!u.groups.includes(nodesGroup)) return { nodeName: '', isNode: false };
  return { nodeName: u.username.slice(nodeUserNamePrefix.length), isNode: true };
}

/** Labels a kubelet may set on its own Node (`kubeletapis.IsKubeletLabel`). */
const kubeletLabels = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const kubeletLabelNamespaces = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

function labelNamespace(label: string): string {
  const i = label.indexOf('/');
  return i < 0 ? '' : label.slice(0, i);
}

export function isKubeletLabel(label: string): boolean {
  if (kubeletLabels.has(label)) return true;
  const ns = labelNamespace(label);
  return kubeletLabelNamespaces.some((k) => ns === k || ns.endsWith(`.${k}`));
}

function isKubernetesLabel(label: string): boolean {
  const ns = labelNamespace(label);
  return ns === 'kubernetes.io' || ns.endsWith('.kubernetes.io') || ns === 'k8s.io' || ns.endsWith('.k8s.io');
}

/** Labels added, removed or changed between `old` and `cur`. */
function modifiedLabels(cur: Record<string, string> | undefined, old: Record<string, string> | undefined): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(cur ?? {})) if (old?.[k] !== v) out.add(k);
  for (const k of Object.keys(old ?? {})) if (cur?.[k] === undefined) out.add(k);
  return out;
}

/** `getForbiddenLabels`, sorted as `sets.String.List()`. */
export function forbiddenLabels(modified: Set<string>): string[] {
  const out = new Set<string>();
  for (const l of modified) {
    const ns = labelNamespace(l);
    if (ns === 'node-restriction.kubernetes.io' || ns.endsWith('.node-restriction.kubernetes.io')) out.add(l);
    if (isKubernetesLabel(l) && !isKubeletLabel(l)) out.add(l);
  }
  return [...out].sort();
}

function notFound(resource: string, objName: string): ApiError {
  return new ApiError(404, StatusReason.NotFound, `${resource} "${objName}" not found`, { name: objName, kind: resource });
}

export class NodeRestriction implements MutatingPlugin {
  readonly name = name;

  async admit(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    const { nodeName, isNode } = nodeIdentity(a.userInfo);
    if (!isNode) return;
    if (nodeName === '') throw admissionForbidden(a, `could not determine node from user "${a.userInfo.username}"`);
    if (isResource(a, '', 'pods')) {
      switch (a.subresource) {
        case '':
          return this.admitPod(nodeName, a, lookup);
        case 'status':
          return this.admitPodStatus(nodeName, a);
        case 'eviction':
          return this.admitPodEviction(nodeName, a, lookup);
        default:
          throw admissionForbidden(a, `unexpected pod subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
      }
    }
    if (isResource(a, '', 'nodes')) return this.admitNode(nodeName, a);
    if (isResource(a, 'coordination.k8s.io', 'leases')) return this.admitLease(nodeName, a);
  }

  private async admitPod(nodeName: string, a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    switch (a.operation) {
      case 'CREATE':
        return this.admitPodCreate(nodeName, a, lookup);
      case 'DELETE': {
        const existing = await lookup.getPod(a.namespace, a.name);
        if (existing === undefined) throw notFound('pod', a.name);
        if ((existing.spec?.nodeName ?? '') !== nodeName) throw admissionForbidden(a, `node "${nodeName}" can only delete pods with spec.nodeName set to itself`);
        return;
      }
      default:
        throw admissionForbidden(a, `unexpected operation "${a.operation}", node "${nodeName}" can only create and delete mirror pods`);
    }
  }

  private async admitPodCreate(nodeName: string, a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    const pod = a.object as Pod | undefined;
    if (pod === undefined) throw admissionForbidden(a, `unexpected type ${typeof a.object}`);
    if (pod.metadata?.annotations?.[mirrorPodAnnotationKey] === undefined) {
      throw admissionForbidden(a, `pod does not have "${mirrorPodAnnotationKey}" annotation, node "${nodeName}" can only create mirror pods`);
    }
    if ((pod.spec?.nodeName ?? '') !== nodeName) throw admissionForbidden(a, `node "${nodeName}" can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata.ownerReferences ?? [];
    if (owners.length > 1) throw admissionForbidden(a, `node "${nodeName}" can only create pods with a single owner reference set to itself`);
    const owner = owners[0];
    if (owner !== undefined) {
      if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName) {
        throw admissionForbidden(a, `node "${nodeName}" can only create pods with an owner reference set to itself`);
      }
      if (owner.controller !== true) throw admissionForbidden(a, `node "${nodeName}" can only create pods with a controller owner reference set to itself`);
      if (owner.blockOwnerDeletion === true) throw admissionForbidden(a, `node "${nodeName}" must not set blockOwnerDeletion on an owner reference`);
      const node = await lookup.getNode(nodeName);
      if (node === undefined) throw notFound('node', nodeName);
      if (owner.uid !== (node.metadata?.uid ?? '')) throw admissionForbidden(a, `node ${nodeName} UID mismatch: expected ${owner.uid} got ${node.metadata?.uid ?? ''}`);
    }
    const spec = pod.spec;
    if ((spec?.serviceAccountName ?? '') !== '') throw admissionForbidden(a, `node "${nodeName}" can not create pods that reference a service account`);
    const containers = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
    const hasSecrets =
      (spec?.imagePullSecrets ?? []).length > 0 ||
      (spec?.volumes ?? []).some((v) => v.secret !== undefined || (v.projected?.sources ?? []).some((s) => s.secret !== undefined)) ||
      containers.some((c) => (c.env ?? []).some((e) => e.valueFrom?.secretKeyRef !== undefined) || (c.envFrom ?? []).some((e) => e.secretRef !== undefined));
    if (hasSecrets) throw admissionForbidden(a, `node "${nodeName}" can not create pods that reference secrets`);
    const hasConfigMaps =
      (spec?.volumes ?? []).some((v) => v.configMap !== undefined || (v.projected?.sources ?? []).some((s) => s.configMap !== undefined)) ||
      containers.some((c) => (c.env ?? []).some((e) => e.valueFrom?.configMapKeyRef !== undefined) || (c.envFrom ?? []).some((e) => e.configMapRef !== undefined));
    if (hasConfigMaps) throw admissionForbidden(a, `node "${nodeName}" can not create pods that reference configmaps`);
    for (const v of spec?.volumes ?? []) {
      for (const src of v.projected?.sources ?? []) {
        if ((src as { clusterTrustBundle?: unknown }).clusterTrustBundle !== undefined) {
          throw admissionForbidden(a, `node "${nodeName}" can not create pods that reference clustertrustbundles`);
        }
      }
    }
    for (const v of spec?.volumes ?? []) {
      if (v.persistentVolumeClaim !== undefined) throw admissionForbidden(a, `node "${nodeName}" can not create pods that reference persistentvolumeclaims`);
    }
  }

  private admitPodStatus(nodeName: string, a: AdmissionAttributes): void {
    if (a.operation !== 'UPDATE') throw admissionForbidden(a, `unexpected operation "${a.operation}"`);
    const old = a.oldObject as Pod | undefined;
    if ((old?.spec?.nodeName ?? '') !== nodeName) throw admissionForbidden(a, `node "${nodeName}" can only update pod status for pods with spec.nodeName set to itself`);
    const cur = a.object as Pod | undefined;
    if (!semanticDeepEqual(old?.metadata?.labels ?? {}, cur?.metadata?.labels ?? {})) throw admissionForbidden(a, `node "${nodeName}" cannot update labels through pod status`);
  }

  private async admitPodEviction(nodeName: string, a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (a.operation !== 'CREATE') throw admissionForbidden(a, `unexpected operation ${a.operation}`);
    const podName = a.name !== '' ? a.name : (a.object?.metadata?.name ?? '');
    if (podName === '') throw admissionForbidden(a, 'could not determine pod from request data');
    const pod = await lookup.getPod(a.namespace, podName);
    if (pod === undefined) throw notFound('pod', podName);
    if ((pod.spec?.nodeName ?? '') !== nodeName) throw admissionForbidden(a, `node ${nodeName} can only evict pods with spec.nodeName set to itself`);
  }

  private admitNode(nodeName: string, a: AdmissionAttributes): void {
    const requested = a.name !== '' ? a.name : (a.object?.metadata?.name ?? '');
    if (requested !== nodeName) throw admissionForbidden(a, `node "${nodeName}" is not allowed to modify node "${requested}"`);
    if (a.operation === 'CREATE') {
      const node = a.object as Node | undefined;
      const forbidden = forbiddenLabels(modifiedLabels(node?.metadata?.labels, undefined));
      if (forbidden.length > 0) throw admissionForbidden(a, `node "${nodeName}" is not allowed to set the following labels: ${forbidden.join(', ')}`);
    }
    if (a.operation === 'UPDATE') {
      const node = a.object as Node | undefined;
      const old = a.oldObject as Node | undefined;
      if (!semanticDeepEqual(node?.spec?.taints ?? [], old?.spec?.taints ?? [])) throw admissionForbidden(a, `node "${nodeName}" is not allowed to modify taints`);
      const forbidden = forbiddenLabels(modifiedLabels(node?.metadata?.labels, old?.metadata?.labels));
      if (forbidden.length > 0) throw admissionForbidden(a, `is not allowed to modify labels: ${forbidden.join(', ')}`);
    }
  }

  private admitLease(nodeName: string, a: AdmissionAttributes): void {
    if (a.namespace !== nodeLeaseNamespace) throw admissionForbidden(a, `can only access leases in the "${nodeLeaseNamespace}" system namespace`);
    const leaseName = a.operation === 'CREATE' ? (a.object?.metadata?.name ?? '') : a.name;
    if (leaseName !== nodeName) throw admissionForbidden(a, 'can only access node lease with the same name as the requesting node');
  }
}

export function create(): NodeRestriction {
  return new NodeRestriction();
}
