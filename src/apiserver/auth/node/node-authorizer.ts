/**
 * The Node authorizer (plugin/pkg/auth/authorizer/node/node_authorizer.go), with the graph reduced to what
 * kubemix needs: a node (`system:node:<name>` in `system:nodes`) may read the secrets, configmaps and
 * persistent volume claims that pods bound to it reference, request tokens for their service accounts,
 * use its own Lease and CSINode, and otherwise do what `system:node`'s rules allow (register, report
 * status, read pods and services, write events, create CSRs). Writes to other nodes' objects are stopped
 * by the NodeRestriction admission plugin, as upstream.
 */
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { AuthorizationAttributes, Authorizer, Decision, RuleResolver, RulesForResult } from '../authz.js';
import type { UserInfo } from '../../registry/policy.js';
import { nodeIdentity } from '../../../admission/node-restriction/node-restriction.js';
import { rulesAllow } from '../rbac/rules.js';
import { nodeRules } from '../rbac/bootstrap-policy.js';

/** What the authorizer reads: pods bound to a node, and claims (the API server's caches; fakes in tests). */
export interface NodeGraphSource {
  podsOnNode(nodeName: string): Promise<Pod[]>;
  getPersistentVolumeClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>;
}

type Result = { decision: Decision; reason: string };
const noOpinion = (reason: string): Result => ({ decision: 'noOpinion', reason });
const allow: Result = { decision: 'allow', reason: '' };

type VertexType = 'secret' | 'configmap' | 'pvc' | 'pv' | 'serviceaccount';

/** The objects a pod references, by kind (graph_populator.go's edges). */
export function podReferences(pod: Pod): Record<VertexType, Set<string>> {
  const refs: Record<VertexType, Set<string>> = { secret: new Set(), configmap: new Set(), pvc: new Set(), pv: new Set(), serviceaccount: new Set() };
  const spec = pod.spec;
  if (spec === undefined) return refs;
  if (spec.serviceAccountName !== undefined && spec.serviceAccountName !== '') refs.serviceaccount.add(spec.serviceAccountName);
  for (const s of spec.imagePullSecrets ?? []) if (s.name !== undefined) refs.secret.add(s.name);
  const containers = [...(spec.initContainers ?? []), ...spec.containers, ...((spec.ephemeralContainers ?? []) as typeof spec.containers)];
  for (const c of containers) {
    for (const e of c.envFrom ?? []) {
      if (e.secretRef?.name !== undefined) refs.secret.add(e.secretRef.name);
      if (e.configMapRef?.name !== undefined) refs.configmap.add(e.configMapRef.name);
    }
    for (const e of c.env ?? []) {
      const s = e.valueFrom?.secretKeyRef?.name;
      if (s !== undefined) refs.secret.add(s);
      const m = e.valueFrom?.configMapKeyRef?.name;
      if (m !== undefined) refs.configmap.add(m);
    }
  }
  for (const v of spec.volumes ?? []) {
    if (v.secret?.secretName !== undefined) refs.secret.add(v.secret.secretName);
    if (v.configMap?.name !== undefined) refs.configmap.add(v.configMap.name);
    if (v.persistentVolumeClaim?.claimName !== undefined) refs.pvc.add(v.persistentVolumeClaim.claimName);
    if (v.ephemeral !== undefined) refs.pvc.add(`${pod.metadata?.name ?? ''}-${v.name}`);
    for (const src of v.projected?.sources ?? []) {
      if (src.secret?.name !== undefined) refs.secret.add(src.secret.name);
      if (src.configMap?.name !== undefined) refs.configmap.add(src.configMap.name);
    }
    const secretRefs = [v.azureFile?.secretName, v.cephfs?.secretRef?.name, v.cinder?.secretRef?.name, v.flexVolume?.secretRef?.name, v.iscsi?.secretRef?.name, v.rbd?.secretRef?.name, v.scaleIO?.secretRef.name, v.storageos?.secretRef?.name, v.csi?.nodePublishSecretRef?.name];
    for (const s of secretRefs) if (s !== undefined && s !== '') refs.secret.add(s);
  }
  return refs;
}

export class NodeAuthorizer implements Authorizer, RuleResolver {
  private readonly rules = nodeRules();

  constructor(private readonly source: NodeGraphSource) {}

  async rulesFor(user: UserInfo): Promise<RulesForResult> {
    const { isNode } = nodeIdentity(user);
    if (isNode) return { resourceRules: [], nonResourceRules: [], incomplete: true, errors: ['node authorizer does not support user rule resolution'] };
    return { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
  }

  async authorize(a: AuthorizationAttributes): Promise<Result> {
    const { nodeName, isNode } = nodeIdentity(a.user);
    if (!isNode) return noOpinion('');
    if (nodeName === '') return noOpinion(`unknown node for user "${a.user.username}"`);
    if (a.resourceRequest) {
      const gr = `${a.group}/${a.resource}`;
      switch (gr) {
        case '/secrets':
          return this.readNamespacedObject(nodeName, 'secret', a);
        case '/configmaps':
          return this.readNamespacedObject(nodeName, 'configmap', a);
        case '/persistentvolumeclaims':
          if (a.subresource === 'status') return this.statusUpdate(nodeName, 'pvc', a);
          return this.get(nodeName, 'pvc', a);
        case '/persistentvolumes':
          return this.get(nodeName, 'pv', a);
        case '/serviceaccounts':
          return this.createToken(nodeName, a);
        case 'coordination.k8s.io/leases':
          return authorizeLease(nodeName, a);
        case 'storage.k8s.io/csinodes':
          return authorizeCSINode(nodeName, a);
        default:
          break;
      }
    }
    return rulesAllow(a, this.rules) ? allow : noOpinion('');
  }

  private async statusUpdate(nodeName: string, type: VertexType, a: AuthorizationAttributes): Promise<Result> {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (a.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.related(nodeName, type, a);
  }

  private async get(nodeName: string, type: VertexType, a: AuthorizationAttributes): Promise<Result> {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource !== '') return noOpinion('cannot get subresource');
    return this.related(nodeName, type, a);
  }

  private async readNamespacedObject(nodeName: string, type: VertexType, a: AuthorizationAttributes): Promise<Result> {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (a.subresource !== '') return noOpinion('cannot read subresource');
    if (a.namespace === '') return noOpinion('can only read namespaced object of this type');
    return this.related(nodeName, type, a);
  }

  private async createToken(nodeName: string, a: AuthorizationAttributes): Promise<Result> {
    if (a.verb !== 'create' || a.name === '') return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return (await this.hasPath(nodeName, 'serviceaccount', a.namespace, a.name)) ? allow : noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  private async related(nodeName: string, type: VertexType, a: AuthorizationAttributes): Promise<Result> {
    if (a.name === '') return noOpinion('No Object name found');
    return (await this.hasPath(nodeName, type, a.namespace, a.name)) ? allow : noOpinion(`no relationship found between node '${nodeName}' and this object`);
  }

  private async hasPath(nodeName: string, type: VertexType, namespace: string, name: string): Promise<boolean> {
    const pods = await this.source.podsOnNode(nodeName);
    if (type === 'pv') {
      for (const pod of pods) {
        for (const claim of podReferences(pod).pvc) {
          const pvc = await this.source.getPersistentVolumeClaim(pod.metadata?.namespace ?? '', claim);
          if (pvc?.spec?.volumeName === name) return true;
        }
      }
      return false;
    }
    return pods.some((p) => (p.metadata?.namespace ?? '') === namespace && podReferences(p)[type].has(name));
  }
}

function authorizeLease(nodeName: string, a: AuthorizationAttributes): Result {
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
  if (a.namespace !== 'kube-node-lease') return noOpinion('can only access leases in the "kube-node-lease" system namespace');
  if (a.verb !== 'create' && a.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
  return allow;
}

function authorizeCSINode(nodeName: string, a: AuthorizationAttributes): Result {
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
  if (a.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
  if (a.verb !== 'create' && a.name !== nodeName) return noOpinion('can only access CSINode with the same name as the requesting node');
  return allow;
}
