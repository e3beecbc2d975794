/**
 * Defaulting as kube-apiserver 1.32 applies it when decoding a request (`SetDefaults_*` of the versioned
 * types), plus the few create-time fields the registry strategies set that `kubectl get -o yaml` shows
 * (namespace finalizers, pod status phase and QoS class). Every function mutates its argument in place and
 * is idempotent.
 *
 * Not here, on purpose, because upstream sets them elsewhere:
 * - pod `priority`/`preemptionPolicy` and `serviceAccountName`: admission (Priority, ServiceAccount);
 * - service `clusterIP(s)`, `ipFamilies`, `ipFamilyPolicy`, node ports: the allocator
 *   (`../allocators/service-allocation.ts`).
 * Nor these, because 1.32 shows nothing of them: `SetDefaults_ConfigMap` (an empty `data` map, which Go's
 * `omitempty` never writes), and the defaults behind gates that are off in 1.32 (PodLevelResources' pod-level
 * requests and limits, ImageVolume's pull policy).
 */
import type { Container, PodSpec, PodTemplateSpec, Pod, Service, Node, Namespace, Secret, Endpoints, LimitRange, Probe, ReplicationController, Volume, PersistentVolume, PersistentVolumeClaim, PersistentVolumeClaimSpec } from 'kubernetes-types/core/v1.js';
import type { Deployment, ReplicaSet, DaemonSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Job, CronJob, JobSpec } from 'kubernetes-types/batch/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec, HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HorizontalPodAutoscalerV1, HorizontalPodAutoscalerSpec as HorizontalPodAutoscalerSpecV1 } from 'kubernetes-types/autoscaling/v1.js';
import type { IngressClass, NetworkPolicy, NetworkPolicySpec } from 'kubernetes-types/networking/v1.js';
import type { CSIDriver, StorageClass, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import type { ClusterRoleBinding, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { FlowSchema, FlowSchemaSpec, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import type { APIService } from '../local-apiservices.js';
import type { KubeObject } from '../../client/client.js';
import { canonicalQuantity, isQuantity } from '../../api/quantity.js';
import { visitQuantities } from '../protobuf/quantity-fields.js';
import { externallyAccessible } from './service.js';
import { given, unset } from '../../util/go-nil.js';

/** `ParseImageName`'s tag: `latest` when neither tag nor digest is given. */
export function imageTag(image: string): string {
  const at = image.indexOf('@');
  const hasDigest = at >= 0;
  const name = hasDigest ? image.slice(0, at) : image;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.indexOf(':', lastSlash + 1);
  const tag = colon >= 0 ? name.slice(colon + 1) : '';
  if (tag === '' && !hasDigest) return 'latest';
  return tag;
}

function defaultProbe(p: Probe | undefined): void {
  if (p === undefined) return;
  p.timeoutSeconds ??= 1;
  p.periodSeconds ??= 10;
  p.successThreshold ??= 1;
  p.failureThreshold ??= 3;
  if (p.httpGet !== undefined) {
    p.httpGet.path ??= '/';
    p.httpGet.scheme ??= 'HTTP';
  }
}

/** `SetDefaults_Container` and its nested defaults (ports, probes, env field refs). */
export function defaultContainer(c: Container): void {
  if ((c.imagePullPolicy ?? '') === '') c.imagePullPolicy = imageTag(c.image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
  if ((c.terminationMessagePath ?? '') === '') c.terminationMessagePath = '/dev/termination-log';
  if ((c.terminationMessagePolicy ?? '') === '') c.terminationMessagePolicy = 'File';
  c.resources ??= {};
  for (const p of c.ports ?? []) if ((p.protocol ?? '') === '') p.protocol = 'TCP';
  for (const e of c.env ?? []) {
    const fr = e.valueFrom?.fieldRef;
    if (fr !== undefined && (fr.apiVersion ?? '') === '') fr.apiVersion = 'v1';
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  for (const h of [c.lifecycle?.postStart, c.lifecycle?.preStop]) {
    if (h?.httpGet !== undefined) {
      h.httpGet.path ??= '/';
      h.httpGet.scheme ??= 'HTTP';
    }
  }
}

function defaultVolume(v: Volume): void {
  if (v.secret !== undefined) v.secret.defaultMode ??= 420;
  if (v.configMap !== undefined) v.configMap.defaultMode ??= 420;
  if (v.downwardAPI !== undefined) {
    v.downwardAPI.defaultMode ??= 420;
    for (const item of v.downwardAPI.items ?? []) if (item.fieldRef !== undefined) item.fieldRef.apiVersion ??= 'v1';
  }
  if (v.projected !== undefined) {
    v.projected.defaultMode ??= 420;
    for (const s of v.projected.sources ?? []) {
      for (const item of s.downwardAPI?.items ?? []) if (item.fieldRef !== undefined) item.fieldRef.apiVersion ??= 'v1';
      if (s.serviceAccountToken !== undefined) s.serviceAccountToken.expirationSeconds ??= 3600;
    }
  }
  defaultVolumeSources(v);
  const claim = v.ephemeral?.volumeClaimTemplate;
  if (given(claim)) defaultPersistentVolumeClaimSpec((claim.spec ??= {}));
  if (volumeSourceCount(v) === 0) v.emptyDir = {};
}

/** The volume sources a pod volume and a PersistentVolume share and upstream defaults (core/v1). */
interface DefaultedVolumeSources {
  hostPath?: { type?: string } | null;
  iscsi?: { iscsiInterface?: string } | null;
  rbd?: { pool?: string; user?: string; keyring?: string } | null;
  azureDisk?: { cachingMode?: string; fsType?: string; readOnly?: boolean; kind?: string } | null;
  scaleIO?: { storageMode?: string; fsType?: string } | null;
}

/**
 * The nested defaulters `SetObjectDefaults_Pod`, `_PersistentVolume` and `_VolumeAttachment` run on volume
 * sources: `SetDefaults_HostPathVolumeSource` (type ""), `SetDefaults_ISCSI(Persistent)VolumeSource`, and
 * the declarative `+default` markers of the RBD, AzureDisk and ScaleIO sources (the values the 1.32 OpenAPI
 * documents as `default`; ScaleIO's storageMode is ThinProvisioned there).
 */
function defaultVolumeSources(s: DefaultedVolumeSources): void {
  if (given(s.hostPath)) s.hostPath.type ??= '';
  if (given(s.rbd)) {
    if (unset(s.rbd.pool)) s.rbd.pool = 'rbd';
    if (unset(s.rbd.user)) s.rbd.user = 'admin';
    if (unset(s.rbd.keyring)) s.rbd.keyring = '/etc/ceph/keyring';
  }
  if (given(s.iscsi) && unset(s.iscsi.iscsiInterface)) s.iscsi.iscsiInterface = 'default';
  if (given(s.azureDisk)) {
    s.azureDisk.cachingMode ??= 'ReadWrite';
    s.azureDisk.fsType ??= 'ext4';
    s.azureDisk.readOnly ??= false;
    s.azureDisk.kind ??= 'Shared';
  }
  if (given(s.scaleIO)) {
    if (unset(s.scaleIO.storageMode)) s.scaleIO.storageMode = 'ThinProvisioned';
    if (unset(s.scaleIO.fsType)) s.scaleIO.fsType = 'xfs';
  }
}

function volumeSourceCount(v: Volume): number {
  return Object.keys(v).filter((k) => k !== 'name').length;
}

/** `SetDefaults_PodSpec` (shared by pods and pod templates). */
export function defaultPodSpec(spec: PodSpec): void {
  if ((spec.dnsPolicy ?? '') === '') spec.dnsPolicy = 'ClusterFirst';
  if ((spec.restartPolicy ?? '') === '') spec.restartPolicy = 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  if ((spec.schedulerName ?? '') === '') spec.schedulerName = 'default-scheduler';
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of spec.containers) defaultContainer(c);
  // SetDefaults_EphemeralContainer is SetDefaults_Container on the shared fields, with the same nested defaults.
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c);
  for (const v of spec.volumes ?? []) defaultVolume(v);
  // The v1 conversion keeps the deprecated alias in step with serviceAccountName.
  if ((spec.serviceAccountName ?? '') === '' && (spec.serviceAccount ?? '') !== '') spec.serviceAccountName = spec.serviceAccount ?? '';
  if ((spec.serviceAccountName ?? '') !== '') spec.serviceAccount = spec.serviceAccountName ?? '';
}

/** `SetDefaults_Pod`: requests default to limits, `enableServiceLinks` true, host ports for hostNetwork, then the pod spec. */
export function defaultPod(pod: Pod): void {
  pod.spec ??= { containers: [] };
  const spec = pod.spec;
  for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
    const limits = c.resources?.limits;
    if (limits !== undefined) {
      c.resources ??= {};
      const requests = (c.resources.requests ??= {});
      for (const [k, v] of Object.entries(limits)) if (!(k in requests)) requests[k] = v;
    }
  }
  spec.enableServiceLinks ??= true;
  // With host networking, container ports default to host ports (Pods only; the template form is gated off in 1.32).
  if (spec.hostNetwork === true) {
    for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) for (const p of c.ports ?? []) if ((p.hostPort ?? 0) === 0) p.hostPort = p.containerPort;
  }
  defaultPodSpec(spec);
}

/** Template metadata as the API serializes it in 1.32 (`creationTimestamp: null`). */
function defaultTemplateMeta(tpl: PodTemplateSpec): void {
  tpl.metadata ??= {};
  if (!('creationTimestamp' in tpl.metadata)) (tpl.metadata as Record<string, unknown>)['creationTimestamp'] = null;
}

/** Pod template defaults (no `enableServiceLinks`, no request-from-limit defaulting: those are Pod-only). */
export function defaultPodTemplateSpec(tpl: PodTemplateSpec | undefined): void {
  if (tpl === undefined) return;
  defaultTemplateMeta(tpl);
  tpl.spec ??= { containers: [] };
  defaultPodSpec(tpl.spec);
}

/** `SetDefaults_Deployment` (apps/v1). */
export function defaultDeployment(d: Deployment): void {
  d.spec ??= { selector: {}, template: {} } as NonNullable<Deployment['spec']>;
  const spec = d.spec;
  spec.replicas ??= 1;
  spec.strategy ??= {};
  if ((spec.strategy.type ?? '') === '') spec.strategy.type = 'RollingUpdate';
  if (spec.strategy.type === 'RollingUpdate') {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
    spec.strategy.rollingUpdate.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  defaultPodTemplateSpec(spec.template);
}

/** `SetDefaults_ReplicaSet` (apps/v1). */
export function defaultReplicaSet(rs: ReplicaSet): void {
  rs.spec ??= { selector: {} } as NonNullable<ReplicaSet['spec']>;
  rs.spec.replicas ??= 1;
  defaultPodTemplateSpec(rs.spec.template ?? (rs.spec.template = {}));
}

/**
 * `SetDefaults_ReplicationController` (core/v1): the template's labels stand in for an empty selector and
 * empty labels; one replica.
 */
export function defaultReplicationController(rc: ReplicationController): void {
  const spec = (rc.spec ??= {});
  const labels = spec.template?.metadata?.labels;
  if (labels !== undefined) {
    if (Object.keys(spec.selector ?? {}).length === 0) spec.selector = { ...labels };
    const md = (rc.metadata ??= {});
    if (Object.keys(md.labels ?? {}).length === 0) md.labels = { ...labels };
  }
  spec.replicas ??= 1;
  if (spec.template !== undefined) defaultPodTemplateSpec(spec.template);
}

/** `SetDefaults_DaemonSet` (apps/v1). */
export function defaultDaemonSet(ds: DaemonSet): void {
  ds.spec ??= { selector: {}, template: {} } as NonNullable<DaemonSet['spec']>;
  const spec = ds.spec;
  spec.updateStrategy ??= {};
  if ((spec.updateStrategy.type ?? '') === '') spec.updateStrategy.type = 'RollingUpdate';
  if (spec.updateStrategy.type === 'RollingUpdate') {
    spec.updateStrategy.rollingUpdate ??= {};
    spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
    spec.updateStrategy.rollingUpdate.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultPodTemplateSpec(spec.template);
}

function defaultPVCTemplate(pvc: PersistentVolumeClaim): void {
  pvc.apiVersion ??= 'v1';
  pvc.kind ??= 'PersistentVolumeClaim';
  pvc.metadata ??= {};
  if (!('creationTimestamp' in pvc.metadata)) (pvc.metadata as Record<string, unknown>)['creationTimestamp'] = null;
  defaultPersistentVolumeClaim(pvc);
}

/** `SetDefaults_StatefulSet` (apps/v1). */
export function defaultStatefulSet(sts: StatefulSet): void {
  sts.spec ??= { selector: {}, serviceName: '', template: {} } as NonNullable<StatefulSet['spec']>;
  const spec = sts.spec;
  if ((spec.podManagementPolicy ?? '') === '') spec.podManagementPolicy = 'OrderedReady';
  spec.updateStrategy ??= {};
  if ((spec.updateStrategy.type ?? '') === '') {
    spec.updateStrategy.type = 'RollingUpdate';
    spec.updateStrategy.rollingUpdate ??= {};
  }
  if (spec.updateStrategy.type === 'RollingUpdate' && spec.updateStrategy.rollingUpdate !== undefined) {
    spec.updateStrategy.rollingUpdate.partition ??= 0;
  }
  spec.persistentVolumeClaimRetentionPolicy ??= {};
  spec.persistentVolumeClaimRetentionPolicy.whenDeleted ??= 'Retain';
  spec.persistentVolumeClaimRetentionPolicy.whenScaled ??= 'Retain';
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  for (const pvc of spec.volumeClaimTemplates ?? []) defaultPVCTemplate(pvc);
  defaultPodTemplateSpec(spec.template);
}

function defaultJobSpec(spec: JobSpec): void {
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? 2147483647 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy !== undefined ? 'Failed' : 'TerminatingOrFailed';
  spec.manualSelector ??= false;
  for (const r of spec.podFailurePolicy?.rules ?? []) for (const c of r.onPodConditions ?? []) c.status ??= 'True';
  defaultPodTemplateSpec(spec.template);
}

/** `SetDefaults_Job` (batch/v1); the Job's labels default to the template's. */
export function defaultJob(job: Job): void {
  job.spec ??= { template: {} };
  defaultJobSpec(job.spec);
  const labels = job.spec.template.metadata?.labels;
  if (labels !== undefined && Object.keys(job.metadata?.labels ?? {}).length === 0) {
    job.metadata ??= {};
    job.metadata.labels = { ...labels };
  }
}

/** `SetDefaults_CronJob` (batch/v1). */
export function defaultCronJob(cj: CronJob): void {
  cj.spec ??= { schedule: '', jobTemplate: {} };
  const spec = cj.spec;
  spec.concurrencyPolicy ??= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  const jt = spec.jobTemplate;
  jt.metadata ??= {};
  if (!('creationTimestamp' in jt.metadata)) (jt.metadata as Record<string, unknown>)['creationTimestamp'] = null;
  // SetDefaults_Job takes a Job, so a CronJob's job template only gets its nested defaults.
  if (jt.spec !== undefined) {
    for (const r of jt.spec.podFailurePolicy?.rules ?? []) for (const c of r.onPodConditions ?? []) c.status ??= 'True';
    defaultPodTemplateSpec(jt.spec.template);
  }
}

/** `SetDefaults_Service` (core/v1). */
export function defaultService(svc: Service): void {
  svc.spec ??= {};
  const spec = svc.spec;
  if ((spec.sessionAffinity ?? '') === '') spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    spec.sessionAffinityConfig ??= {};
    spec.sessionAffinityConfig.clientIP ??= {};
    spec.sessionAffinityConfig.clientIP.timeoutSeconds ??= 10800;
  }
  if ((spec.type ?? '') === '') spec.type = 'ClusterIP';
  for (const p of spec.ports ?? []) {
    if ((p.protocol ?? '') === '') p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (externallyAccessible(svc) && (spec.externalTrafficPolicy ?? '') === '') spec.externalTrafficPolicy = 'Cluster';
  if (spec.internalTrafficPolicy === undefined && (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP')) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
  for (const ing of svc.status?.loadBalancer?.ingress ?? []) {
    if (spec.type === 'LoadBalancer' && (ing.ip ?? '') !== '') ing.ipMode ??= 'VIP';
  }
}

/**
 * The service strategy's `PrepareForUpdate` (`dropTypeDependentFields`): when the type changes, fields
 * the old type needed and the user did not touch are cleared (node ports when leaving NodePort or
 * LoadBalancer, cluster IPs and families when becoming ExternalName, ...).
 */
export function prepareServiceForUpdate(svc: Service, old: Service): void {
  const n = (svc.spec ??= {});
  const o = old.spec ?? {};
  if (n.type === o.type) return;
  const needsClusterIP = (t: string | undefined): boolean => t !== 'ExternalName';
  const needsNodePort = (t: string | undefined, alloc: boolean | undefined): boolean => t === 'NodePort' || (t === 'LoadBalancer' && alloc !== false);
  if (needsClusterIP(o.type) && !needsClusterIP(n.type)) {
    if (n.clusterIP === o.clusterIP) delete n.clusterIP;
    if (JSON.stringify(n.clusterIPs) === JSON.stringify(o.clusterIPs)) delete n.clusterIPs;
    if (JSON.stringify(n.ipFamilies) === JSON.stringify(o.ipFamilies)) delete n.ipFamilies;
    if (n.ipFamilyPolicy === o.ipFamilyPolicy) delete n.ipFamilyPolicy;
  }
  if (needsNodePort(o.type, o.allocateLoadBalancerNodePorts) && !needsNodePort(n.type, n.allocateLoadBalancerNodePorts)) {
    const oldPorts = new Set((o.ports ?? []).map((p) => p.nodePort ?? 0));
    for (const p of n.ports ?? []) if (p.nodePort !== undefined && oldPorts.has(p.nodePort)) delete p.nodePort;
  }
  if (n.type !== 'LoadBalancer') {
    if (n.healthCheckNodePort === o.healthCheckNodePort) delete n.healthCheckNodePort;
    if (n.allocateLoadBalancerNodePorts === o.allocateLoadBalancerNodePorts) delete n.allocateLoadBalancerNodePorts;
    if (n.loadBalancerClass === o.loadBalancerClass) delete n.loadBalancerClass;
  }
  if (!externallyAccessible(svc) && n.externalTrafficPolicy === o.externalTrafficPolicy) delete n.externalTrafficPolicy;
  if (n.type === 'ExternalName' && n.internalTrafficPolicy === o.internalTrafficPolicy) delete n.internalTrafficPolicy;
}

/** `SetDefaults_NodeStatus`: allocatable defaults to capacity. */
export function defaultNode(node: Node): void {
  const st = node.status;
  if (st?.capacity !== undefined && st.allocatable === undefined) st.allocatable = { ...st.capacity };
}

/** `SetDefaults_Namespace`/`NamespaceStatus` plus the strategy's create-time `kubernetes` finalizer. */
export function defaultNamespace(ns: Namespace, opts: { create?: boolean } = {}): void {
  ns.metadata ??= {};
  const name = ns.metadata.name ?? '';
  if (name !== '') {
    ns.metadata.labels ??= {};
    ns.metadata.labels['kubernetes.io/metadata.name'] = name;
  }
  ns.status ??= {};
  if ((ns.status.phase ?? '') === '') ns.status.phase = 'Active';
  if (opts.create === true) {
    ns.status = { phase: 'Active' };
    ns.spec ??= {};
    const fin = (ns.spec.finalizers ??= []);
    if (!fin.includes('kubernetes')) fin.push('kubernetes');
  }
}

/** `SetDefaults_Secret`: type Opaque. */
export function defaultSecret(s: Secret): void {
  if ((s.type ?? '') === '') s.type = 'Opaque';
}

/** `SetDefaults_PriorityClass`: preemptionPolicy PreemptLowerPriority. */
export function defaultPriorityClass(pc: PriorityClass): void {
  pc.preemptionPolicy ??= 'PreemptLowerPriority';
}

/** `SetDefaults_EndpointPort`: protocol TCP. */
export function defaultEndpoints(ep: Endpoints): void {
  for (const ss of ep.subsets ?? []) for (const p of ss.ports ?? []) if ((p.protocol ?? '') === '') p.protocol = 'TCP';
}

/** discovery/v1 `SetDefaults_EndpointPort`: name "" and protocol TCP. */
export function defaultEndpointSlice(es: EndpointSlice): void {
  for (const p of es.ports ?? []) {
    p.name ??= '';
    p.protocol ??= 'TCP';
  }
}

/** `SetDefaults_LimitRangeItem`: container defaults from max, default requests from defaults or min. */
export function defaultLimitRange(lr: LimitRange): void {
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    const def = (item.default ??= {});
    const defReq = (item.defaultRequest ??= {});
    for (const [k, v] of Object.entries(item.max ?? {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
    for (const [k, v] of Object.entries(item.min ?? {})) if (!(k in defReq)) defReq[k] = v;
  }
}

/**
 * Rewrites every quantity the kind's schema declares (resource lists such as `resources.limits`, `overhead`,
 * `status.capacity`, LimitRange items; single ones such as `emptyDir.sizeLimit`, a downward API `divisor`,
 * an HPA target's `averageValue`) to its canonical string, as the API server stores and returns it
 * (`cpu: .1` -> `100m`, `memory: 1.5Gi` -> `1536Mi`, `cpu: 1` -> `"1"`). Other fields keep their text.
 * Malformed values are left alone (`malformedQuantity` refuses them first).
 */
export function canonicalizeQuantities(kind: DefaultedKind, obj: KubeObject): void {
  // `v1` of the kind's group when neither the kind nor the object names a version.
  visitQuantities({ group: kind.group, version: versionOf(kind, obj) || 'v1', kind: kind.kind }, obj, (holder, key, value) => {
    if ((typeof value === 'string' || typeof value === 'number') && isQuantity(String(value))) holder[key] = canonicalQuantity(String(value));
  });
}

type Rule = { scope?: string };
type MatchResources = { matchPolicy?: string; namespaceSelector?: object; objectSelector?: object; resourceRules?: Rule[]; excludeResourceRules?: Rule[] };
type Webhook = MatchResources & {
  failurePolicy?: string;
  timeoutSeconds?: number;
  reinvocationPolicy?: string;
  rules?: Rule[];
  clientConfig?: { service?: { port?: number } };
};

/** `SetDefaults_Rule`: rules of webhooks and policies cover every scope unless told. */
function defaultRules(rules: Rule[] | undefined): void {
  for (const r of rules ?? []) r.scope ??= '*';
}

/** `SetDefaults_MatchResources` (admissionregistration/v1), with the rules inside. */
function defaultMatchResources(m: MatchResources | undefined): void {
  if (m === undefined || m === null) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  defaultRules(m.resourceRules);
  defaultRules(m.excludeResourceRules);
}

/** `SetDefaults_ValidatingWebhook` / `SetDefaults_MutatingWebhook`, their rules and service references. */
export function defaultWebhookConfiguration(obj: { webhooks?: Webhook[] }, mutating: boolean): void {
  for (const w of obj.webhooks ?? []) {
    w.failurePolicy ??= 'Fail';
    w.matchPolicy ??= 'Equivalent';
    w.namespaceSelector ??= {};
    w.objectSelector ??= {};
    w.timeoutSeconds ??= 10;
    if (mutating) w.reinvocationPolicy ??= 'Never';
    defaultRules(w.rules);
    const svc = w.clientConfig?.service;
    if (svc !== undefined && svc !== null) svc.port ??= 443;
  }
}

/** `SetDefaults_ValidatingAdmissionPolicySpec` and the match resources of policies and their bindings. */
type AdmissionPolicy = { spec?: { failurePolicy?: string; matchConstraints?: MatchResources; matchResources?: MatchResources } };

export function defaultAdmissionPolicy(obj: AdmissionPolicy, isBinding: boolean): void {
  const spec = obj.spec;
  if (spec === undefined) return;
  if (!isBinding) spec.failurePolicy ??= 'Fail';
  defaultMatchResources(isBinding ? spec.matchResources : spec.matchConstraints);
}

/**
 * `SetDefaults_CustomResourceDefinition` (v1): `SetDefaults_CustomResourceDefinitionSpec`, the
 * `SetDefaults_ServiceReference` of its conversion webhook, and the first storage version as the stored one.
 */
type CrdForDefaults = {
  spec?: {
    names?: { kind?: string; singular?: string; listKind?: string };
    conversion?: { strategy?: string; webhook?: { clientConfig?: { service?: { port?: number } | null } | null } | null } | null;
    versions?: { name?: string; storage?: boolean }[] | null;
  };
  status?: { storedVersions?: string[] | null } | null;
};

export function defaultCustomResourceDefinition(obj: CrdForDefaults): void {
  const spec = obj.spec;
  if (spec === undefined || spec === null) return;
  const names = (spec.names ??= {});
  if ((names.singular ?? '') === '') names.singular = (names.kind ?? '').toLowerCase();
  if ((names.listKind ?? '') === '' && (names.kind ?? '') !== '') names.listKind = `${names.kind ?? ''}List`;
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  const svc = spec.conversion.webhook?.clientConfig?.service;
  if (svc !== undefined && svc !== null) svc.port ??= 443;
  const storage = (spec.versions ?? []).find((v) => v.storage === true);
  if (storage !== undefined && (obj.status?.storedVersions ?? []).length === 0) {
    obj.status = { ...obj.status, storedVersions: [storage.name ?? ''] };
  }
}

/** `SetDefaults_PersistentVolumeClaimSpec`: volumeMode Filesystem (claims, claim templates, ephemeral volumes). */
function defaultPersistentVolumeClaimSpec(spec: PersistentVolumeClaimSpec): void {
  spec.volumeMode ??= 'Filesystem';
}

/** `SetObjectDefaults_PersistentVolumeClaim`: `SetDefaults_PersistentVolumeClaim` (phase Pending), then the spec's. */
export function defaultPersistentVolumeClaim(pvc: PersistentVolumeClaim): void {
  defaultPersistentVolumeClaimSpec((pvc.spec ??= {}));
  const status = statusOf(pvc);
  if (unset(status.phase)) status.phase = 'Pending';
}

/** The status of an object whose type marks it read-only (kubernetes-types): defaulting writes it all the same. */
function statusOf<S extends object>(obj: { readonly status?: S }): S {
  const writable = obj as { status?: S };
  return (writable.status ??= {} as S);
}

/**
 * `SetObjectDefaults_PersistentVolume`: `SetDefaults_PersistentVolume` (phase Pending, reclaim policy
 * Retain, volumeMode Filesystem), then the defaults of its volume source.
 */
export function defaultPersistentVolume(pv: PersistentVolume): void {
  const spec = (pv.spec ??= {});
  if (unset(spec.persistentVolumeReclaimPolicy)) spec.persistentVolumeReclaimPolicy = 'Retain';
  spec.volumeMode ??= 'Filesystem';
  defaultVolumeSources(spec);
  const status = statusOf(pv);
  if (unset(status.phase)) status.phase = 'Pending';
}

/**
 * autoscaling/v1 `SetDefaults_HorizontalPodAutoscaler`: minReplicas 1. That an object without a CPU target
 * reads back with 80% is the conversion's doing (see `defaultHorizontalPodAutoscaler`), not a v1 default.
 */
export function defaultHorizontalPodAutoscalerV1(hpa: HorizontalPodAutoscalerV1): void {
  const spec = (hpa.spec ??= {} as HorizontalPodAutoscalerSpecV1);
  spec.minReplicas ??= 1;
}

/** `autoscaling.DefaultCPUUtilization`. */
const defaultCPUUtilization = 80;

/**
 * autoscaling/v2 `SetDefaults_HorizontalPodAutoscaler`: minReplicas 1, a CPU utilization target of 80%
 * when no metric is given, then `SetDefaults_HorizontalPodAutoscalerBehavior`. An autoscaling/v1 object
 * gets the same CPU target from its conversion (`Convert_v1_HorizontalPodAutoscaler_To_autoscaling_...`
 * fills it in when there is no metric at all), which kubemix's store runs before these defaults.
 */
export function defaultHorizontalPodAutoscaler(hpa: HorizontalPodAutoscaler): void {
  const spec = (hpa.spec ??= {} as HorizontalPodAutoscalerSpec);
  spec.minReplicas ??= 1;
  if ((spec.metrics ?? []).length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCPUUtilization } } }];
  }
  // SetDefaults_HorizontalPodAutoscalerBehavior: rules are filled in only where a behavior is given.
  const behavior = spec.behavior;
  if (given(behavior)) {
    behavior.scaleUp = generateHPAScaleUpRules(behavior.scaleUp);
    behavior.scaleDown = generateHPAScaleDownRules(behavior.scaleDown);
  }
}

/** `GenerateHPAScaleUpRules`: `defaultHPAScaleUpRules` (no stabilization; the larger of 4 pods and 100% per 15s) under the rules given. */
export function generateHPAScaleUpRules(rules: HPAScalingRules | null | undefined): HPAScalingRules {
  const defaults: HPAScalingRules = {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
  };
  return copyHPAScalingRules(rules, defaults);
}

/**
 * `GenerateHPAScaleDownRules`: `defaultHPAScaleDownRules` (100% per 15s) under the rules given. The
 * stabilization window stays unset: the controller's `--horizontal-pod-autoscaler-downscale-stabilization` applies.
 */
export function generateHPAScaleDownRules(rules: HPAScalingRules | null | undefined): HPAScalingRules {
  const defaults: HPAScalingRules = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };
  return copyHPAScalingRules(rules, defaults);
}

/** `copyHPAScalingRules`: every field set in `from` replaces the default in `to` (an empty policy list too). */
function copyHPAScalingRules(from: HPAScalingRules | null | undefined, to: HPAScalingRules): HPAScalingRules {
  if (!given(from)) return to;
  if (given(from.selectPolicy)) to.selectPolicy = from.selectPolicy;
  if (given(from.stabilizationWindowSeconds)) to.stabilizationWindowSeconds = from.stabilizationWindowSeconds;
  if (given(from.policies)) to.policies = from.policies;
  return to;
}

/**
 * `SetObjectDefaults_NetworkPolicy`: `SetDefaults_NetworkPolicy` (policyTypes Ingress, plus Egress when
 * egress rules are given), then `SetDefaults_NetworkPolicyPort` (protocol TCP) on every ingress and egress port.
 */
export function defaultNetworkPolicy(np: NetworkPolicy): void {
  const spec = (np.spec ??= {} as NetworkPolicySpec);
  if ((spec.policyTypes ?? []).length === 0) {
    spec.policyTypes = (spec.egress ?? []).length !== 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) for (const port of rule.ports ?? []) port.protocol ??= 'TCP';
}

/** `SetDefaults_IngressClass`: a parameters reference without a scope is cluster-scoped. */
export function defaultIngressClass(ic: IngressClass): void {
  const parameters = ic.spec?.parameters;
  if (given(parameters)) parameters.scope ??= 'Cluster';
}

/** `SetDefaults_StorageClass`: reclaimPolicy Delete, volumeBindingMode Immediate. */
export function defaultStorageClass(sc: StorageClass): void {
  sc.reclaimPolicy ??= 'Delete';
  sc.volumeBindingMode ??= 'Immediate';
}

/**
 * `SetDefaults_CSIDriver`, in its order. seLinuxMount is defaulted behind SELinuxMountReadWriteOncePod,
 * beta and on by default since 1.28.
 */
export function defaultCSIDriver(driver: CSIDriver): void {
  const spec = (driver.spec ??= {});
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if ((spec.volumeLifecycleModes ?? []).length === 0) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
}

/** `SetObjectDefaults_VolumeAttachment`: the volume source defaults of an inline (migrated) volume spec. */
export function defaultVolumeAttachment(va: VolumeAttachment): void {
  const inline = va.spec?.source?.inlineVolumeSpec;
  if (given(inline)) defaultVolumeSources(inline);
}

const rbacGroup = 'rbac.authorization.k8s.io';

/**
 * `SetObjectDefaults_RoleBinding` / `_ClusterRoleBinding`: the role reference's apiGroup, then
 * `SetDefaults_Subject` on each subject (User and Group in the RBAC group; a ServiceAccount keeps "").
 */
export function defaultRoleBinding(binding: RoleBinding | ClusterRoleBinding): void {
  const roleRef = (binding.roleRef ??= { apiGroup: '', kind: '', name: '' });
  if (unset(roleRef.apiGroup)) roleRef.apiGroup = rbacGroup;
  for (const subject of binding.subjects ?? []) {
    if (unset(subject.apiGroup) && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = rbacGroup;
  }
}

/** flowcontrol/v1 `SetDefaults_FlowSchemaSpec`: matchingPrecedence 1000. */
export function defaultFlowSchema(fs: FlowSchema): void {
  const spec = (fs.spec ??= {} as FlowSchemaSpec);
  if ((spec.matchingPrecedence ?? 0) === 0) spec.matchingPrecedence = 1000;
}

/**
 * flowcontrol/v1 `SetObjectDefaults_PriorityLevelConfiguration`: `SetDefaults_LimitedPriorityLevelConfiguration`
 * (30 shares, lending 0%) and `SetDefaults_QueuingConfiguration` (8 of 64 queues, 50 long), then
 * `SetDefaults_ExemptPriorityLevelConfiguration` (0 shares, lending 0%).
 */
export function defaultPriorityLevelConfiguration(plc: PriorityLevelConfiguration): void {
  const limited = plc.spec?.limited;
  if (given(limited)) {
    limited.nominalConcurrencyShares ??= 30;
    limited.lendablePercent ??= 0;
    const queuing = limited.limitResponse?.queuing;
    if (given(queuing)) {
      if ((queuing.handSize ?? 0) === 0) queuing.handSize = 8;
      if ((queuing.queues ?? 0) === 0) queuing.queues = 64;
      if ((queuing.queueLengthLimit ?? 0) === 0) queuing.queueLengthLimit = 50;
    }
  }
  const exempt = plc.spec?.exempt;
  if (given(exempt)) {
    exempt.nominalConcurrencyShares ??= 0;
    exempt.lendablePercent ??= 0;
  }
}

/** apiregistration/v1 `SetObjectDefaults_APIService`: `SetDefaults_ServiceReference` (port 443) of its service. */
export function defaultAPIService(apiService: APIService): void {
  const service = apiService.spec?.service;
  if (given(service)) service.port ??= 443;
}

/**
 * The kind, and the version the object is in: kube-apiserver defaults a request as it decodes it, in the
 * version the client sent and before converting it to the storage version. Without a version, the
 * object's own apiVersion tells.
 */
export interface DefaultedKind {
  group: string;
  kind: string;
  version?: string;
}

/** Applies the defaults of the given kind in the given version, then canonicalizes its quantities. */
export function applyDefaults(kind: DefaultedKind, obj: KubeObject): void {
  applyKindDefaults(kind, obj);
  canonicalizeQuantities(kind, obj);
}

function versionOf(kind: DefaultedKind, obj: KubeObject): string {
  if (kind.version !== undefined) return kind.version;
  const apiVersion = obj.apiVersion ?? '';
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

function applyKindDefaults(kind: DefaultedKind, obj: KubeObject): void {
  switch (`${kind.group}/${kind.kind}`) {
    case '/Pod':
      return defaultPod(obj as Pod);
    case '/PodTemplate':
      return defaultPodTemplateSpec((obj as { template?: PodTemplateSpec }).template);
    case '/Service':
      return defaultService(obj as Service);
    case '/Node':
      return defaultNode(obj as Node);
    case '/Namespace':
      return defaultNamespace(obj as Namespace);
    case '/Secret':
      return defaultSecret(obj as Secret);
    case '/Endpoints':
      return defaultEndpoints(obj as Endpoints);
    case '/LimitRange':
      return defaultLimitRange(obj as LimitRange);
    case '/ReplicationController':
      return defaultReplicationController(obj as ReplicationController);
    case '/PersistentVolume':
      return defaultPersistentVolume(obj as PersistentVolume);
    case '/PersistentVolumeClaim':
      return defaultPersistentVolumeClaim(obj as PersistentVolumeClaim);
    case 'apps/Deployment':
      return defaultDeployment(obj as Deployment);
    case 'apps/ReplicaSet':
      return defaultReplicaSet(obj as ReplicaSet);
    case 'apps/DaemonSet':
      return defaultDaemonSet(obj as DaemonSet);
    case 'apps/StatefulSet':
      return defaultStatefulSet(obj as StatefulSet);
    case 'batch/Job':
      return defaultJob(obj as Job);
    case 'batch/CronJob':
      return defaultCronJob(obj as CronJob);
    case 'scheduling.k8s.io/PriorityClass':
      return defaultPriorityClass(obj as PriorityClass);
    case 'discovery.k8s.io/EndpointSlice':
      return defaultEndpointSlice(obj as EndpointSlice);
    case 'admissionregistration.k8s.io/ValidatingWebhookConfiguration':
      return defaultWebhookConfiguration(obj as { webhooks?: Webhook[] }, false);
    case 'apiextensions.k8s.io/CustomResourceDefinition':
      return defaultCustomResourceDefinition(obj as CrdForDefaults);
    case 'admissionregistration.k8s.io/MutatingWebhookConfiguration':
      return defaultWebhookConfiguration(obj as { webhooks?: Webhook[] }, true);
    case 'admissionregistration.k8s.io/ValidatingAdmissionPolicy':
      return defaultAdmissionPolicy(obj as AdmissionPolicy, false);
    case 'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding':
      return defaultAdmissionPolicy(obj as AdmissionPolicy, true);
    case 'autoscaling/HorizontalPodAutoscaler':
      return versionOf(kind, obj) === 'v1' ? defaultHorizontalPodAutoscalerV1(obj as HorizontalPodAutoscalerV1) : defaultHorizontalPodAutoscaler(obj as HorizontalPodAutoscaler);
    case 'networking.k8s.io/NetworkPolicy':
      return defaultNetworkPolicy(obj as NetworkPolicy);
    case 'networking.k8s.io/IngressClass':
      return defaultIngressClass(obj as IngressClass);
    case 'storage.k8s.io/StorageClass':
      return defaultStorageClass(obj as StorageClass);
    case 'storage.k8s.io/CSIDriver':
      return defaultCSIDriver(obj as CSIDriver);
    case 'storage.k8s.io/VolumeAttachment':
      return defaultVolumeAttachment(obj as VolumeAttachment);
    case 'rbac.authorization.k8s.io/RoleBinding':
    case 'rbac.authorization.k8s.io/ClusterRoleBinding':
      return defaultRoleBinding(obj as RoleBinding);
    case 'flowcontrol.apiserver.k8s.io/FlowSchema':
      return defaultFlowSchema(obj as FlowSchema);
    case 'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration':
      return defaultPriorityLevelConfiguration(obj as PriorityLevelConfiguration);
    case 'apiregistration.k8s.io/APIService':
      return defaultAPIService(obj);
    default:
  }
}
