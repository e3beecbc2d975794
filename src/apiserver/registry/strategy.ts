/**
 * Per-resource behaviour of the generic registry (kube-apiserver's `rest.RESTCreateStrategy` and friends):
 * what a create resets, what the main resource and the status subresource may each change, which kinds
 * track `metadata.generation`, how graceful deletion works, and the field labels of field selectors.
 */
import { createHash } from 'node:crypto';
import type { ResourceDef } from '../discovery/resource-defs.js';
import type { ObjectAttrs, StoredObject } from '../storage/watch-cache.js';
import { prepareClaimSpec } from './pvc-data-sources.js';

/** Kinds whose spec changes bump metadata.generation (those with a spec/status split and a controller). */
const generationTracked = new Set([
  '/replicationcontrollers', 'apps/deployments', 'apps/replicasets', 'apps/daemonsets', 'apps/statefulsets', 'batch/jobs', 'batch/cronjobs',
  'policy/poddisruptionbudgets', 'autoscaling/horizontalpodautoscalers', 'networking.k8s.io/ingresses',
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

/** The pod QoS class (`qos.GetPodQOS`): Guaranteed, Burstable or BestEffort. */
export function podQosClass(pod: StoredObject): string {
  const spec = (pod['spec'] ?? {}) as { containers?: Container[]; initContainers?: Container[] };
  const all = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  let anySet = false;
  let guaranteed = true;
  for (const c of all) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    for (const r of ['cpu', 'memory']) {
      if (req[r] !== undefined || lim[r] !== undefined) anySet = true;
      if (lim[r] === undefined) guaranteed = false;
      else if (req[r] !== undefined && req[r] !== lim[r]) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

interface Container {
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

/** `PrepareForCreate`: the status a new object starts with. */
export function prepareForCreate(def: ResourceDef, obj: StoredObject): void {
  const id = `${def.group}/${def.resource}`;
  switch (id) {
    case '/pods':
      obj['status'] = { phase: 'Pending', qosClass: podQosClass(obj) };
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
      obj['status'] = { phase: 'Pending' };
      return;
    case '/nodes':
    case '/events':
    case 'events.k8s.io/events':
      return;
    case '/services':
      obj['status'] = { loadBalancer: {} };
      return;
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
 * `PrepareForUpdate` of the main resource: status changes are ignored where a status subresource exists.
 * Of the status subresource: everything but status (and a few metadata fields) is kept from the old object.
 */
export function prepareForUpdate(def: ResourceDef, obj: StoredObject, old: StoredObject, subresource: string): StoredObject {
  if (subresource === 'status') {
    // Only status moves; spec and metadata stay as stored (kube-apiserver's status strategies).
    return { ...old, status: obj['status'], metadata: { ...old.metadata } };
  }
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
  return obj;
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

/** Everything but metadata and status, for generation bumps and no-op detection. */
export function specPart(obj: StoredObject): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'metadata' && k !== 'status' && k !== 'apiVersion' && k !== 'kind') rest[k] = v;
  return JSON.stringify(rest);
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
