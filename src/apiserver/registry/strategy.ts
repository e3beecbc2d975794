/**
 * Per-resource behaviour of the generic registry (kube-apiserver's `rest.RESTCreateStrategy` and friends):
 * what a create resets, what the main resource and the status subresource may each change, which kinds
 * track `metadata.generation`, how graceful deletion works, and the field labels of field selectors.
 */
import { createHash } from 'node:crypto';
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { computePodQOS } from '../../api/qos.js';
import { jsonDeepEqual } from '../../util/json-equal.js';
import type { ResourceDef } from '../discovery/resource-defs.js';
import type { ObjectAttrs, StoredObject } from '../storage/watch-cache.js';
import { dropRoundTripHorizontalPodAutoscalerAnnotations } from './hpa-conversion.js';
import { prepareClaimSpec } from './pvc-data-sources.js';
import { malformedQuantity } from '../validation/resources.js';

/**
 * Kinds whose strategies set metadata.generation to 1 on create and bump it on spec changes. 1.32's
 * HorizontalPodAutoscaler strategy does neither (the `HPAGeneration` gate came much later).
 */
const generationTracked = new Set([
  '/replicationcontrollers', 'apps/deployments', 'apps/replicasets', 'apps/daemonsets', 'apps/statefulsets', 'batch/jobs', 'batch/cronjobs',
  'policy/poddisruptionbudgets', 'networking.k8s.io/ingresses',
  'networking.k8s.io/networkpolicies', 'apiextensions.k8s.io/customresourcedefinitions',
  'flowcontrol.apiserver.k8s.io/flowschemas', 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations', 'admissionregistration.k8s.io/validatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingadmissionpolicies', 'admissionregistration.k8s.io/validatingadmissionpolicybindings',
]);

export function tracksGeneration(def: ResourceDef): boolean {
  return def.custom || generationTracked.has(`${def.group}/${def.resource}`);
}

/** Whether the main resource ignores status (it has a status subresource). */
export function hasStatusSubresource(def: ResourceDef): boolean {
  return def.subresources.has('status');
}

/** `PrepareForCreate`: the status a new object starts with. */
export function prepareForCreate(def: ResourceDef, obj: StoredObject, now: Date = new Date()): void {
  const id = `${def.group}/${def.resource}`;
  switch (id) {
    case '/pods':
      // podStrategy.PrepareForCreate: `qos.ComputePodQOS` of the defaulted spec.
      obj['status'] = { phase: 'Pending', qosClass: computePodQOS((obj['spec'] ?? {}) as PodSpec) };
      return;
    case '/namespaces':
      // namespaceStrategy.PrepareForCreate: every namespace starts with the `kubernetes` finalizer.
      obj['spec'] = { ...((obj['spec'] ?? {})), finalizers: ['kubernetes'] };
      obj['status'] = { phase: 'Active' };
      return;
    case '/persistentvolumeclaims':
      obj['status'] = { phase: 'Pending' };
      prepareClaimSpec((obj['spec'] ??= {}));
      return;
    case '/persistentvolumes':
      // persistentvolumeStrategy.PrepareForCreate with PersistentVolumeLastPhaseTransitionTime (GA in 1.31).
      obj['status'] = { phase: 'Pending', lastPhaseTransitionTime: metav1Time(now) };
      return;
    case '/nodes':
    case '/events':
    case 'events.k8s.io/events':
      return;
    case '/services':
      obj['status'] = { loadBalancer: {} };
      return;
    case 'apps/daemonsets': {
      // daemonSetStrategy.PrepareForCreate: templateGeneration (carried in apps/v1 as an annotation) is at least 1.
      obj['status'] = {};
      const templateGeneration = templateGenerationOf(obj);
      setTemplateGeneration(obj, templateGeneration < 1n ? 1n : templateGeneration);
      return;
    }
    case 'apiextensions.k8s.io/customresourcedefinitions':
      obj['status'] = {};
      recordStorageVersion(obj);
      (obj.metadata ??= {}).finalizers = [...new Set([...(obj.metadata.finalizers ?? []), 'customresourcecleanup.apiextensions.k8s.io'])];
      return;
    default:
      if (hasStatusSubresource(def) || def.custom) {
        if (def.custom) delete obj['status'];
        else obj['status'] = {};
      }
  }
}

/**
 * The ObjectMeta fields a client can send on a status update: upstream's generic registry keeps them from
 * the request unless the kind's status strategy resets them. The rest of metadata (name, uid,
 * creationTimestamp, deletion*, generation, resourceVersion) the store keeps from the stored object for
 * every update, as `rest.BeforeUpdate` does.
 */
export type StatusMetadataField = 'labels' | 'annotations' | 'finalizers' | 'ownerReferences';

/** `metav1.ResetObjectMetaForStatus` (apimachinery pkg/apis/meta/v1/helpers.go), less what the store resets anyway. */
const objectMetaForStatus: readonly StatusMetadataField[] = ['labels', 'annotations', 'finalizers', 'ownerReferences'];

/**
 * Per kind, the metadata its 1.32 status strategy's `PrepareForUpdate` resets to the stored values (every
 * one of them also resets spec, as the status branch of `prepareForUpdate` does for all kinds). Kinds
 * with a status subresource that are missing here, and custom resources, keep all stored metadata.
 */
const statusMetadataResets: Readonly<Record<string, readonly StatusMetadataField[]>> = {
  // pkg/registry/core/pod/strategy.go podStatusStrategy: Spec, DeletionTimestamp = nil, OwnerReferences
  // ("old kubelets corrupt them in a way that breaks garbage collection").
  '/pods': ['ownerReferences'],
  // pkg/registry/core/{node,namespace,persistentvolume,persistentvolumeclaim,replicationcontroller,
  // resourcequota,service}/strategy.go: Spec only.
  '/nodes': [],
  '/namespaces': [],
  '/persistentvolumes': [],
  '/persistentvolumeclaims': [],
  '/replicationcontrollers': [],
  '/resourcequotas': [],
  '/services': [],
  // pkg/registry/apps/deployment/strategy.go deploymentStatusStrategy: Spec and Labels. Annotations go
  // through: the deployment controller writes `deployment.kubernetes.io/revision` with UpdateStatus.
  'apps/deployments': ['labels'],
  // pkg/registry/apps/{daemonset,replicaset,statefulset}/strategy.go: Spec only.
  'apps/daemonsets': [],
  'apps/replicasets': [],
  'apps/statefulsets': [],
  // pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go: Spec only.
  'autoscaling/horizontalpodautoscalers': [],
  // pkg/registry/batch/{job,cronjob}/strategy.go: Spec only.
  'batch/jobs': [],
  'batch/cronjobs': [],
  // pkg/registry/certificates/certificates/strategy.go csrStatusStrategy: Spec (and the approval conditions).
  'certificates.k8s.io/certificatesigningrequests': [],
  // pkg/registry/networking/ingress/strategy.go: Spec only.
  'networking.k8s.io/ingresses': [],
  // pkg/registry/policy/poddisruptionbudget/strategy.go: Spec only.
  'policy/poddisruptionbudgets': [],
  // pkg/registry/storage/volumeattachment/strategy.go: Spec, metav1.ResetObjectMetaForStatus.
  'storage.k8s.io/volumeattachments': objectMetaForStatus,
  // pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go: Spec, ResetObjectMetaForStatus.
  'admissionregistration.k8s.io/validatingadmissionpolicies': objectMetaForStatus,
  // apiextensions-apiserver customresourcedefinition/strategy.go statusStrategy: Spec, then
  // `metav1.ResetObjectMetaForStatus(&newObj.ObjectMeta, &newObj.ObjectMeta)`, new against new, which
  // resets nothing (the CRD finalizer controller removes its finalizer through UpdateStatus).
  'apiextensions.k8s.io/customresourcedefinitions': [],
  // kube-aggregator apiservice/strategy.go apiServerStatusStrategy: Spec, Labels, Annotations, Finalizers,
  // OwnerReferences.
  'apiregistration.k8s.io/apiservices': ['labels', 'annotations', 'finalizers', 'ownerReferences'],
  // pkg/registry/flowcontrol/{flowschema,prioritylevelconfiguration}/strategy.go: the whole ObjectMeta but
  // managedFields, and Spec.
  'flowcontrol.apiserver.k8s.io/flowschemas': objectMetaForStatus,
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': objectMetaForStatus,
};

/**
 * The metadata fields a status update of this kind resets to the stored object; `all` where the status
 * strategy keeps the whole stored object but status (custom resources: customresource/strategy.go
 * statusStrategy) or the kind is not in the table.
 */
export function statusMetadataReset(def: Pick<ResourceDef, 'group' | 'resource' | 'custom'>): readonly StatusMetadataField[] | 'all' {
  if (def.custom) return 'all';
  return statusMetadataResets[`${def.group}/${def.resource}`] ?? 'all';
}

/**
 * The fields the field manager leaves out of a status update's managedFields entry (the strategies'
 * `GetResetFields`): spec, and metadata or the metadata fields the status strategy resets.
 */
export function statusResetFields(def: Pick<ResourceDef, 'group' | 'resource' | 'custom'>): string[][] {
  const reset = statusMetadataReset(def);
  if (reset === 'all') return [['spec'], ['metadata']];
  return [['spec'], ...reset.map((f) => ['metadata', f])];
}

/**
 * The status subresource's `PrepareForUpdate`: status comes from the request, everything else but
 * metadata from the stored object; of metadata, the fields in `statusMetadataReset` come from the stored
 * object and the rest from the request (the store then restores the server-owned ones).
 */
function prepareForStatusUpdate(def: ResourceDef, obj: StoredObject, old: StoredObject, now: Date): StoredObject {
  const reset = statusMetadataReset(def);
  if (reset === 'all') return { ...old, status: obj['status'], metadata: { ...old.metadata } };
  const md: ObjectMeta = { ...obj.metadata };
  const oldMd = old.metadata ?? {};
  for (const f of reset) {
    if (oldMd[f] === undefined) delete md[f];
    else (md as Record<string, unknown>)[f] = oldMd[f];
  }
  const next: StoredObject = { ...old, status: obj['status'], metadata: md };
  if (def.group === '' && def.resource === 'persistentvolumes') next['status'] = persistentVolumePhaseTransition(next['status'], old['status'], now);
  if (def.group === '' && def.resource === 'pods') {
    // podStatusStrategy: "the Pod QoS is immutable and populated at creation time by the kube-apiserver";
    // backfilled for old kubelets that dropped it.
    const status = (next['status'] ?? {}) as { qosClass?: string };
    const oldQos = ((old['status'] ?? {}) as { qosClass?: string }).qosClass;
    if ((status.qosClass ?? '') === '' && oldQos !== undefined) next['status'] = { ...status, qosClass: oldQos };
  }
  return next;
}

/** metav1.Time on the wire: RFC 3339 in whole seconds. */
function metav1Time(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * persistentvolumeStatusStrategy.PrepareForUpdate: `lastPhaseTransitionTime` is kept while the phase
 * stays, and set to now when the phase changes unless the client set a new time itself.
 */
function persistentVolumePhaseTransition(status: unknown, oldStatus: unknown, now: Date): unknown {
  type PVStatus = { phase?: string; lastPhaseTransitionTime?: string };
  const next: PVStatus = { ...((status ?? {}) as PVStatus) };
  const old = (oldStatus ?? {}) as PVStatus;
  if (old.phase === next.phase && next.lastPhaseTransitionTime === undefined) {
    if (old.lastPhaseTransitionTime === undefined) delete next.lastPhaseTransitionTime;
    else next.lastPhaseTransitionTime = old.lastPhaseTransitionTime;
  } else if (old.phase !== next.phase && (next.lastPhaseTransitionTime === undefined || sameSecond(next.lastPhaseTransitionTime, old.lastPhaseTransitionTime))) {
    next.lastPhaseTransitionTime = metav1Time(now);
  }
  return next;
}

function sameSecond(a: string, b: string | undefined): boolean {
  return b !== undefined && Math.floor(Date.parse(a) / 1000) === Math.floor(Date.parse(b) / 1000);
}

/**
 * `PrepareForUpdate` of the main resource: status changes are ignored where a status subresource exists.
 * Of the status subresource: see `prepareForStatusUpdate`.
 */
export function prepareForUpdate(def: ResourceDef, obj: StoredObject, old: StoredObject, subresource: string, now: Date = new Date()): StoredObject {
  if (subresource === 'status') return prepareForStatusUpdate(def, obj, old, now);
  if (subresource === 'approval') {
    // CSR approval moves only status.conditions (csrApprovalStrategy.PrepareForUpdate).
    const conditions = ((obj['status'] ?? {}) as { conditions?: unknown }).conditions;
    return { ...obj, spec: old['spec'], status: { ...((old['status'] ?? {}) as Record<string, unknown>), conditions } };
  }
  if (hasStatusSubresource(def)) {
    if (old['status'] === undefined) delete obj['status'];
    else obj['status'] = old['status'];
  }
  if (def.resource === 'namespaces' && def.group === '') {
    obj['status'] = old['status'];
  }
  if (def.resource === 'persistentvolumeclaims' && def.group === '') prepareClaimSpec((obj['spec'] ??= {}), (old['spec'] ?? {}));
  if (def.resource === 'customresourcedefinitions' && def.group === 'apiextensions.k8s.io') recordStorageVersion(obj);
  if (def.resource === 'daemonsets' && def.group === 'apps') {
    // daemonSetStrategy.PrepareForUpdate: clients cannot set templateGeneration; a template change bumps it.
    let templateGeneration = templateGenerationOf(old);
    if (!semanticDeepEqual(specOf(obj)['template'], specOf(old)['template'])) templateGeneration += 1n;
    setTemplateGeneration(obj, templateGeneration);
  }
  return obj;
}

/**
 * Whether an update of the main resource (or its scale subresource, which updates the main resource)
 * bumps metadata.generation, per kind as each strategy's PrepareForUpdate decides. Only for kinds that
 * track generation (`tracksGeneration`); `obj` has been through `prepareForUpdate`.
 */
export function bumpsGeneration(def: ResourceDef, obj: StoredObject, old: StoredObject): boolean {
  // customResourceStrategy: any change but to metadata, status included when there is no status
  // subresource; unstructured content, so `[]`, `null` and absent all differ.
  if (def.custom) return !jsonDeepEqual(withoutTypeAndMetadata(obj), withoutTypeAndMetadata(old));
  switch (`${def.group}/${def.resource}`) {
    case 'apps/deployments':
      // "annotation updates bump the generation because annotations are copied from deployments to their replica sets"
      return !semanticDeepEqual(obj['spec'], old['spec']) || !semanticDeepEqual(annotationsOf(obj), annotationsOf(old));
    case 'networking.k8s.io/networkpolicies':
      // reflect.DeepEqual, not Semantic: an empty list differs from an absent one.
      return !jsonDeepEqual(obj['spec'], old['spec']);
    case 'admissionregistration.k8s.io/mutatingwebhookconfigurations':
    case 'admissionregistration.k8s.io/validatingwebhookconfigurations':
      return !jsonDeepEqual(obj['webhooks'], old['webhooks']);
    default:
      // apiequality.Semantic.DeepEqual(old.Spec, new.Spec); the DaemonSet's template check implies this one.
      return !semanticDeepEqual(obj['spec'], old['spec']);
  }
}

function withoutTypeAndMetadata(obj: StoredObject): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') rest[k] = v;
  return rest;
}

function specOf(obj: StoredObject): Record<string, unknown> {
  const spec = obj['spec'];
  return typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>) : {};
}

/** The annotations, with an empty map as none (Semantic.DeepEqual holds nil and empty maps equal). */
function annotationsOf(obj: StoredObject): Record<string, string> | undefined {
  const a = obj.metadata?.annotations;
  return a === undefined || a === null || Object.keys(a).length === 0 ? undefined : a;
}

function isEmptyJson(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0);
}

/**
 * `apiequality.Semantic.DeepEqual` of two decoded Go values, on their JSON: key order is ignored, and an
 * absent member, `null` and `[]` are equal (a nil and an empty slice are, and `null` decodes to nil).
 * Without the Go types `{}` cannot be told from a pointer to an empty struct, so it stays unequal to absent.
 */
export function semanticDeepEqual(a: unknown, b: unknown): boolean {
  if (isEmptyJson(a) && isEmptyJson(b)) return true;
  const aObject = typeof a === 'object' && a !== null;
  const bObject = typeof b === 'object' && b !== null;
  if (!aObject || !bObject) return jsonDeepEqual(a, b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => semanticDeepEqual(v, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k of Object.keys(x)) if (!semanticDeepEqual(x[k], Object.hasOwn(y, k) ? y[k] : undefined)) return false;
  for (const k of Object.keys(y)) if (!Object.hasOwn(x, k) && !isEmptyJson(y[k])) return false;
  return true;
}

/**
 * apps/v1 carries the internal DaemonSet's `spec.templateGeneration` as this annotation
 * (pkg/apis/apps/v1/conversion.go); the DaemonSet controller labels its pods with it.
 */
export const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** Go's `strconv.ParseInt(s, 10, 64)`: the value, or the error's text. */
export function parseInt64(s: string): { value: bigint } | { error: string } {
  if (!/^[+-]?[0-9]+$/.test(s)) return { error: `strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax` };
  const value = BigInt(s);
  if (value < int64Min || value > int64Max) return { error: `strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range` };
  return { value };
}

/** A DaemonSet's templateGeneration as conversion reads it; 0 (Go's zero value) when absent or unreadable. */
function templateGenerationOf(ds: StoredObject): bigint {
  const text = ds.metadata?.annotations?.[templateGenerationAnnotation];
  if (typeof text !== 'string') return 0n;
  const parsed = parseInt64(text);
  return 'value' in parsed ? parsed.value : 0n;
}

/** `Convert_apps_DaemonSet_To_v1_DaemonSet`: the annotation is always written, from templateGeneration. */
function setTemplateGeneration(ds: StoredObject, templateGeneration: bigint): void {
  const md = (ds.metadata ??= {});
  md.annotations = { ...(md.annotations ?? {}), [templateGenerationAnnotation]: templateGeneration.toString() };
}

/**
 * What kube-apiserver's decoding does to a request body beyond JSON: conversions into the internal type
 * (and back, for what is stored and what field ownership is computed from) that move or drop fields.
 * Runs on every create and update, before field ownership is recorded, as decoding precedes it:
 * - apps/v1 DaemonSet: the template generation annotation is parsed into templateGeneration and written
 *   back as its canonical decimal, "0" when absent (so the writer owns it, as on a real server), and
 *   the strategy then sets its value;
 * - autoscaling/v2 HorizontalPodAutoscaler: the v1 round-trip annotations are dropped;
 * - every built-in kind: a malformed quantity fails Quantity's decoder.
 * Returns the conversion error a request gets as a 400 (`... cannot be handled as a DaemonSet: ...`).
 */
export function convertRequestObject(def: ResourceDef, obj: StoredObject): string | undefined {
  if (!def.custom) {
    const malformed = malformedQuantity(def, obj);
    if (malformed !== undefined) return malformed;
  }
  if (def.group === 'apps' && def.resource === 'daemonsets') {
    const text = obj.metadata?.annotations?.[templateGenerationAnnotation];
    if (text === undefined) {
      setTemplateGeneration(obj, 0n);
      return undefined;
    }
    const parsed = parseInt64(String(text));
    if ('error' in parsed) return parsed.error;
    setTemplateGeneration(obj, parsed.value);
    return undefined;
  }
  if (def.group === 'autoscaling' && def.resource === 'horizontalpodautoscalers' && def.version !== 'v1') {
    // autoscaling/v1 writes reach the store converted (hpaV1ToV2 reads these annotations, then drops them).
    dropRoundTripHorizontalPodAutoscalerAnnotations(obj);
  }
  return undefined;
}

/**
 * An object's metadata as the internal object holds it, which is what Tables and PartialObjectMetadata
 * show (kube-apiserver builds them from the internal object, unconverted): a DaemonSet's template
 * generation is a spec field there, not an annotation.
 */
export function internalMetadata(group: string, resource: string, metadata: ObjectMeta | undefined): ObjectMeta {
  const md = metadata ?? {};
  if (group !== 'apps' || resource !== 'daemonsets' || md.annotations?.[templateGenerationAnnotation] === undefined) return md;
  const { [templateGenerationAnnotation]: _templateGeneration, ...annotations } = md.annotations;
  const { annotations: _all, ...rest } = md;
  return Object.keys(annotations).length === 0 ? rest : { ...rest, annotations };
}

/**
 * The CRD strategy's PrepareForCreate/PrepareForUpdate: the first version marked storage joins
 * `status.storedVersions` if not there yet. Versions leave the list only through the status subresource
 * (a storage migration), so validation can insist the storage version is in it.
 */
function recordStorageVersion(crd: StoredObject): void {
  const spec = (crd['spec'] ?? {}) as { versions?: { name?: string; storage?: boolean }[] };
  const storage = (spec.versions ?? []).find((v) => v.storage === true);
  if (storage === undefined) return;
  const status = ((crd['status'] ??= {}) as { storedVersions?: string[] });
  const stored = status.storedVersions ?? [];
  if (!stored.includes(storage.name ?? '')) status.storedVersions = [...stored, storage.name ?? ''];
}

/** An object's labels and selectable fields, what list and watch filters match (`GetAttrs`). */
export function objectAttrs(def: ResourceDef, obj: StoredObject): ObjectAttrs {
  return { labels: obj.metadata?.labels, fields: selectableFields(def, obj) };
}

/** Field labels for field selectors (`GetAttrs` / `ToSelectableFields`). Unknown labels are refused. */
export function selectableFields(def: ResourceDef, obj: StoredObject): Record<string, string> {
  const md = obj.metadata ?? {};
  const f: Record<string, string> = { 'metadata.name': md.name ?? '' };
  if (def.namespaced) f['metadata.namespace'] = md.namespace ?? '';
  const spec = (obj['spec'] ?? {}) as Record<string, unknown>;
  const status = (obj['status'] ?? {}) as Record<string, unknown>;
  const id = `${def.group}/${def.resource}`;
  switch (id) {
    case '/pods':
      f['spec.nodeName'] = str(spec['nodeName']);
      f['spec.restartPolicy'] = str(spec['restartPolicy']);
      f['spec.schedulerName'] = str(spec['schedulerName']);
      f['spec.serviceAccountName'] = str(spec['serviceAccountName']);
      f['spec.hostNetwork'] = String(spec['hostNetwork'] === true);
      f['status.phase'] = str(status['phase']);
      f['status.podIP'] = str((status['podIPs'] as { ip?: string }[] | undefined)?.[0]?.ip ?? status['podIP']);
      f['status.nominatedNodeName'] = str(status['nominatedNodeName']);
      break;
    case '/nodes':
      f['spec.unschedulable'] = String(spec['unschedulable'] === true);
      break;
    case '/namespaces':
      f['status.phase'] = str(status['phase']);
      break;
    case '/secrets':
      f['type'] = str(obj['type']);
      break;
    case '/events': {
      const io = (obj['involvedObject'] ?? {}) as Record<string, unknown>;
      for (const k of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) f[`involvedObject.${k}`] = str(io[k]);
      f['reason'] = str(obj['reason']);
      f['reportingComponent'] = str(obj['reportingComponent']);
      f['source'] = str((obj['source'] as { component?: string } | undefined)?.component);
      f['type'] = str(obj['type']);
      break;
    }
    case 'events.k8s.io/events': {
      const r = (obj['regarding'] ?? {}) as Record<string, unknown>;
      for (const k of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) f[`regarding.${k}`] = str(r[k]);
      f['reason'] = str(obj['reason']);
      f['reportingController'] = str(obj['reportingController']);
      f['type'] = str(obj['type']);
      break;
    }
    case 'apps/replicasets':
      f['status.replicas'] = String((status['replicas'] as number | undefined) ?? 0);
      break;
    case 'batch/jobs':
      f['status.successful'] = String((status['succeeded'] as number | undefined) ?? 0);
      break;
    case 'certificates.k8s.io/certificatesigningrequests':
      f['spec.signerName'] = str(spec['signerName']);
      break;
    default:
      break;
  }
  return f;
}

function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

/** Resources whose DELETE answers the object rather than a Status (`ReturnDeletedObject`). */
export function returnsDeletedObject(def: ResourceDef): boolean {
  return def.group === '' && (def.resource === 'pods' || def.resource === 'services' || def.resource === 'namespaces');
}

/**
 * `CheckGracefulDelete` for pods: the grace period a DELETE gets. Unscheduled and terminated pods go at
 * once; others get the request's period, else the pod's `terminationGracePeriodSeconds` (default 30).
 */
export function podGracePeriod(pod: StoredObject, requested: number | undefined): number {
  const spec = (pod['spec'] ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = ((pod['status'] ?? {}) as { phase?: string }).phase;
  if (spec.nodeName === undefined || spec.nodeName === '') return 0;
  if (phase === 'Succeeded' || phase === 'Failed') return 0;
  const g = requested ?? spec.terminationGracePeriodSeconds ?? 30;
  return g < 0 ? 0 : g;
}

/** A 5-character suffix from kube-apiserver's alphabet (no vowels, no confusable digits). */
export function randomSuffix(n = 5, random: () => number = Math.random): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(random() * alphabet.length)] ?? 'x';
  return s;
}

/** A stable short hash (used for Table row hashes and openapi `hash=`). */
export function shortHash(data: string): string {
  return createHash('sha512').update(data).digest('hex').slice(0, 128).toUpperCase();
}
