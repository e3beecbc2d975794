/**
 * The smaller kinds: Node, Namespace, ConfigMap, Secret, ServiceAccount, Event, Endpoints, LimitRange,
 * ReplicationController (core/v1), RuntimeClass (node.k8s.io/v1), PriorityClass (scheduling.k8s.io/v1), Lease
 * (coordination.k8s.io/v1), EndpointSlice (discovery.k8s.io/v1).
 */
import type { ConfigMap, Endpoints, Event, LimitRange, Namespace, Node, ReplicationController, Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { type FieldError, fieldErrors, GoValue, Path } from '../../api/field-errors.js';
import { isConfigMapKey, isDNS1123Label, isValidIP, isValidPortNum, nameIsDNSLabel, nameIsDNSSubdomain } from './_names.js';
import { goIntOrString, goLabelSelector } from './_go.js';
import { validatePodTemplateSpecForReplicaSet } from './apps.js';
import { selectorFromSet } from '../../api/labels.js';
import { semanticDeepEqual, validateImmutableField, validateLabels, validateNonnegativeField, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validateResourceList, validateResourceRequirements } from './resources.js';
import { validateTaints, validateTolerations } from './scheduling.js';
import { validateLabelName } from './objectmeta.js';

/** `core.MaxSecretSize`: 1 MiB for a ConfigMap's or Secret's data. */
export const maxSecretSize = 1024 * 1024;

const clusterScoped = (nameFn = nameIsDNSSubdomain): { namespaced: false; nameFn: typeof nameFn } => ({ namespaced: false, nameFn });
const namespaced = (nameFn = nameIsDNSSubdomain): { namespaced: true; nameFn: typeof nameFn } => ({ namespaced: true, nameFn });

// ---- ReplicationController ----

/** `ValidateReplicationControllerSpec`: a non-empty selector its template's labels match. */
function validateReplicationControllerSpec(rc: ReplicationController, path: Path): FieldError[] {
  const spec = rc.spec ?? {};
  const errs = validateNonnegativeField(spec.minReadySeconds ?? 0, path.child('minReadySeconds'));
  const selector = selectorFromSet(spec.selector);
  if (selector.isEmpty()) errs.push(fieldErrors.required(path.child('selector'), ''));
  errs.push(...validateNonnegativeField(spec.replicas ?? 0, path.child('replicas')));
  errs.push(...validatePodTemplateSpecForReplicaSet(spec.template, selector, path.child('template'), 'ReplicationController', 'forbidden'));
  return errs;
}

/** `ValidateReplicationController`. */
export function validateReplicationController(rc: ReplicationController): FieldError[] {
  return [...validateObjectMeta(rc.metadata, namespaced()), ...validateReplicationControllerSpec(rc, Path.root('spec'))];
}

/** `ValidateReplicationControllerUpdate` (core keeps the selector mutable). */
export function validateReplicationControllerUpdate(rc: ReplicationController, old: ReplicationController): FieldError[] {
  return [...validateObjectMetaUpdate(rc.metadata, old.metadata), ...validateReplicationControllerSpec(rc, Path.root('spec'))];
}

/** `ValidateReplicationControllerStatusUpdate`: the counts are non-negative and ordered. */
export function validateReplicationControllerStatusUpdate(rc: ReplicationController, old: ReplicationController): FieldError[] {
  const errs = validateObjectMetaUpdate(rc.metadata, old.metadata);
  const st = rc.status ?? { replicas: 0 };
  const p = Path.root('status');
  errs.push(...validateNonnegativeField(st.replicas ?? 0, p.child('replicas')));
  errs.push(...validateNonnegativeField(st.fullyLabeledReplicas ?? 0, p.child('fullyLabeledReplicas')));
  errs.push(...validateNonnegativeField(st.readyReplicas ?? 0, p.child('readyReplicas')));
  errs.push(...validateNonnegativeField(st.availableReplicas ?? 0, p.child('availableReplicas')));
  errs.push(...validateNonnegativeField(st.observedGeneration ?? 0, p.child('observedGeneration')));
  const msg = 'cannot be greater than status.replicas';
  if ((st.fullyLabeledReplicas ?? 0) > (st.replicas ?? 0)) errs.push(fieldErrors.invalid(p.child('fullyLabeledReplicas'), st.fullyLabeledReplicas, msg));
  if ((st.readyReplicas ?? 0) > (st.replicas ?? 0)) errs.push(fieldErrors.invalid(p.child('readyReplicas'), st.readyReplicas, msg));
  if ((st.availableReplicas ?? 0) > (st.replicas ?? 0)) errs.push(fieldErrors.invalid(p.child('availableReplicas'), st.availableReplicas, msg));
  if ((st.availableReplicas ?? 0) > (st.readyReplicas ?? 0)) errs.push(fieldErrors.invalid(p.child('availableReplicas'), st.availableReplicas, 'cannot be greater than readyReplicas'));
  return errs;
}

// ---- Node ----

/** `ValidateNode`. */
export function validateNode(node: Node): FieldError[] {
  const errs = validateObjectMeta(node.metadata, clusterScoped());
  const sp = Path.root('spec');
  if ((node.spec?.taints ?? []).length > 0) errs.push(...validateTaints(node.spec?.taints, sp.child('taints')));
  const cidrs = node.spec?.podCIDRs ?? [];
  cidrs.forEach((c, i) => {
    if (!/^[0-9a-fA-F.:]+\/\d{1,3}$/.test(c)) errs.push(fieldErrors.invalid(sp.child('podCIDRs').index(i), c, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
  });
  if (cidrs.length > 2) errs.push(fieldErrors.invalid(sp.child('podCIDRs'), new GoValue(`[]string{${cidrs.map((c) => JSON.stringify(c)).join(', ')}}`), 'may specify no more than one CIDR for each IP family'));
  for (const [f, list] of [
    ['capacity', node.status?.capacity],
    ['allocatable', node.status?.allocatable],
  ] as const) {
    for (const k of Object.keys(list ?? {}).sort()) {
      for (const m of validateNonNegQuantity(String(list?.[k] ?? '0'))) errs.push(fieldErrors.invalid(Path.root('status').child(f).key(k), list?.[k], m));
    }
  }
  return errs;
}

function validateNonNegQuantity(s: string): string[] {
  return s.startsWith('-') ? ['must be greater than or equal to 0'] : [];
}

/** `ValidateNodeUpdate`: podCIDRs and providerID may only go from unset to set. */
export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const errs = validateObjectMetaUpdate(node.metadata, old.metadata);
  errs.push(...validateNode(node).filter((e) => !e.field.startsWith('metadata.')));
  const sp = Path.root('spec');
  const oldCIDRs = old.spec?.podCIDRs ?? [];
  if (oldCIDRs.length > 0 && !semanticDeepEqual(node.spec?.podCIDRs ?? [], oldCIDRs)) {
    errs.push(fieldErrors.forbidden(sp.child('podCIDRs'), 'node updates may not change podCIDR except from "" to valid'));
  }
  if ((old.spec?.providerID ?? '') !== '' && node.spec?.providerID !== old.spec?.providerID) {
    errs.push(fieldErrors.forbidden(sp.child('providerID'), 'node updates may not change providerID except from "" to valid'));
  }
  return errs;
}

// ---- Namespace ----

/** `ValidateNamespace`. */
export function validateNamespace(ns: Namespace): FieldError[] {
  const errs = validateObjectMeta(ns.metadata, clusterScoped(nameIsDNSLabel));
  (ns.spec?.finalizers ?? []).forEach((f) => errs.push(...validateFinalizerName(f, Path.root('spec').child('finalizers'))));
  return errs;
}

function validateFinalizerName(f: string, path: Path): FieldError[] {
  const errs = validateLabelName(f, path);
  if (!f.includes('/') && !['kubernetes', 'orphan', 'foregroundDeletion'].includes(f)) {
    errs.push(fieldErrors.invalid(path, f, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

/** `ValidateNamespaceUpdate` (spec changes go through `finalize`; status through `status`). */
export function validateNamespaceUpdate(ns: Namespace, old: Namespace): FieldError[] {
  return validateObjectMetaUpdate(ns.metadata, old.metadata);
}

/** `ValidateNamespaceStatusUpdate`. */
export function validateNamespaceStatusUpdate(ns: Namespace, old: Namespace): FieldError[] {
  const errs = validateObjectMetaUpdate(ns.metadata, old.metadata);
  if (old.metadata?.deletionTimestamp === undefined) {
    if (ns.status?.phase !== 'Active') errs.push(fieldErrors.invalid(Path.root('status').child('Phase'), ns.status?.phase ?? '', 'may only be \'Active\' if `deletionTimestamp` is empty'));
  } else if (ns.status?.phase !== 'Terminating') {
    errs.push(fieldErrors.invalid(Path.root('status').child('Phase'), ns.status?.phase ?? '', 'may only be \'Terminating\' if `deletionTimestamp` is not empty'));
  }
  return errs;
}

/** `ValidateNamespaceFinalizeUpdate`. */
export function validateNamespaceFinalizeUpdate(ns: Namespace, old: Namespace): FieldError[] {
  const errs = validateObjectMetaUpdate(ns.metadata, old.metadata);
  (ns.spec?.finalizers ?? []).forEach((f, i) => errs.push(...validateFinalizerName(f, Path.root('spec').child('finalizers').index(i))));
  return errs;
}

// ---- ConfigMap / Secret ----

function validateDataKeys(data: Record<string, string> | undefined, other: Record<string, string> | undefined, field: string, otherField: string): { errs: FieldError[]; size: number } {
  const errs: FieldError[] = [];
  let size = 0;
  for (const k of Object.keys(data ?? {}).sort()) {
    for (const m of isConfigMapKey(k)) errs.push(fieldErrors.invalid(Path.root(field).key(k), k, m));
    if (other !== undefined && Object.prototype.hasOwnProperty.call(other, k)) errs.push(fieldErrors.invalid(Path.root(field).key(k), k, `duplicate of key present in ${otherField}`));
    size += (data?.[k] ?? '').length;
  }
  return { errs, size };
}

/** `ValidateConfigMap`: keys, no key in both data and binaryData, total size at most 1 MiB. */
export function validateConfigMap(cm: ConfigMap): FieldError[] {
  const errs = validateObjectMeta(cm.metadata, namespaced());
  const a = validateDataKeys(cm.data, cm.binaryData, 'data', 'binaryData');
  const b = validateDataKeys(cm.binaryData, cm.data, 'binaryData', 'data');
  errs.push(...a.errs, ...b.errs);
  let binarySize = 0;
  for (const v of Object.values(cm.binaryData ?? {})) binarySize += Buffer.from(v, 'base64').length;
  if (a.size + binarySize > maxSecretSize) errs.push(fieldErrors.tooLong(Path.root(''), '', maxSecretSize));
  return errs;
}

/** `ValidateConfigMapUpdate`: immutable ConfigMaps may not change data. */
export function validateConfigMapUpdate(cm: ConfigMap, old: ConfigMap): FieldError[] {
  const errs = validateObjectMetaUpdate(cm.metadata, old.metadata);
  if (old.immutable === true) {
    if (cm.immutable !== true) errs.push(fieldErrors.forbidden(Path.root('immutable'), 'field is immutable when `immutable` is set'));
    if (!semanticDeepEqual(cm.data, old.data)) errs.push(fieldErrors.forbidden(Path.root('data'), 'field is immutable when `immutable` is set'));
    if (!semanticDeepEqual(cm.binaryData, old.binaryData)) errs.push(fieldErrors.forbidden(Path.root('binaryData'), 'field is immutable when `immutable` is set'));
  }
  errs.push(...validateConfigMap(cm).filter((e) => !e.field.startsWith('metadata.')));
  return errs;
}

/** `ValidateSecret`: keys, size, and the per-type required keys. */
export function validateSecret(s: Secret): FieldError[] {
  const errs = validateObjectMeta(s.metadata, namespaced());
  const dataPath = Path.root('data');
  let size = 0;
  const data = s.data ?? {};
  for (const k of Object.keys(data).sort()) {
    for (const m of isConfigMapKey(k)) errs.push(fieldErrors.invalid(dataPath.key(k), k, m));
    size += Buffer.from(data[k] ?? '', 'base64').length;
  }
  for (const [k, v] of Object.entries(s.stringData ?? {})) {
    for (const m of isConfigMapKey(k)) errs.push(fieldErrors.invalid(Path.root('stringData').key(k), k, m));
    size += Buffer.byteLength(v);
  }
  if (size > maxSecretSize) errs.push(fieldErrors.tooLong(dataPath, '', maxSecretSize));
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(data, k) || Object.prototype.hasOwnProperty.call(s.stringData ?? {}, k);
  switch (s.type ?? 'Opaque') {
    case 'kubernetes.io/service-account-token':
      if ((s.metadata?.annotations?.['kubernetes.io/service-account.name'] ?? '') === '') {
        errs.push(fieldErrors.required(Path.root('metadata').child('annotations').key('kubernetes.io/service-account.name'), ''));
      }
      break;
    case 'kubernetes.io/dockercfg':
      if (!has('.dockercfg')) errs.push(fieldErrors.required(dataPath.key('.dockercfg'), ''));
      break;
    case 'kubernetes.io/dockerconfigjson':
      if (!has('.dockerconfigjson')) errs.push(fieldErrors.required(dataPath.key('.dockerconfigjson'), ''));
      break;
    case 'kubernetes.io/basic-auth':
      if (!has('username') && !has('password')) errs.push(fieldErrors.required(dataPath.key('username'), ''), fieldErrors.required(dataPath.key('password'), ''));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!has('ssh-privatekey')) errs.push(fieldErrors.required(dataPath.key('ssh-privatekey'), ''));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.key')) errs.push(fieldErrors.required(dataPath.key('tls.key'), ''));
      if (!has('tls.crt')) errs.push(fieldErrors.required(dataPath.key('tls.crt'), ''));
      break;
    default:
  }
  return errs;
}

/** `ValidateSecretUpdate`: `type` is immutable; immutable secrets may not change data. */
export function validateSecretUpdate(s: Secret, old: Secret): FieldError[] {
  const errs = validateObjectMetaUpdate(s.metadata, old.metadata);
  errs.push(...validateImmutableField(s.type ?? '', old.type ?? '', Path.root('type')));
  if (old.immutable === true) {
    if (s.immutable !== true) errs.push(fieldErrors.forbidden(Path.root('immutable'), 'field is immutable when `immutable` is set'));
    if (!semanticDeepEqual(s.data, old.data)) errs.push(fieldErrors.forbidden(Path.root('data'), 'field is immutable when `immutable` is set'));
  }
  errs.push(...validateSecret(s).filter((e) => !e.field.startsWith('metadata.')));
  return errs;
}

/** `ValidateServiceAccount`. */
export function validateServiceAccount(sa: ServiceAccount): FieldError[] {
  return validateObjectMeta(sa.metadata, namespaced());
}

// ---- Event ----

/** `ValidateEventCreate` (core/v1): the involved object's namespace must match. */
export function validateEvent(ev: Event): FieldError[] {
  const errs = validateObjectMeta(ev.metadata, namespaced());
  const ns = ev.metadata?.namespace ?? '';
  const ions = ev.involvedObject?.namespace ?? '';
  if (ions === '') {
    if (ns !== '' && ns !== 'default') errs.push(fieldErrors.invalid(Path.root('involvedObject').child('namespace'), ions, 'does not match event.namespace'));
  } else if (ns !== ions) {
    errs.push(fieldErrors.invalid(Path.root('involvedObject').child('namespace'), ions, 'does not match event.namespace'));
  }
  if (ev.type !== undefined && ev.type !== '' && ev.type !== 'Normal' && ev.type !== 'Warning') {
    errs.push(fieldErrors.notSupported(Path.root('type'), ev.type, ['Normal', 'Warning']));
  }
  return errs;
}

// ---- Endpoints / EndpointSlice ----

/** `ValidateEndpoints` (addresses are IPs; ports valid). */
export function validateEndpoints(ep: Endpoints): FieldError[] {
  const errs = validateObjectMeta(ep.metadata, namespaced());
  (ep.subsets ?? []).forEach((ss, i) => {
    const p = Path.root('subsets').index(i);
    for (const [f, list] of [
      ['addresses', ss.addresses],
      ['notReadyAddresses', ss.notReadyAddresses],
    ] as const) {
      (list ?? []).forEach((a, j) => {
        for (const m of isValidIP(a.ip)) errs.push(fieldErrors.invalid(p.child(f).index(j).child('ip'), a.ip, m));
      });
    }
    const ports = ss.ports ?? [];
    ports.forEach((port, j) => {
      const pp = p.child('ports').index(j);
      if (ports.length > 1 && (port.name ?? '') === '') errs.push(fieldErrors.required(pp.child('name'), ''));
      for (const m of isValidPortNum(port.port)) errs.push(fieldErrors.invalid(pp.child('port'), port.port, m));
      const proto = port.protocol ?? '';
      if (proto === '') errs.push(fieldErrors.required(pp.child('protocol'), ''));
      else if (!['SCTP', 'TCP', 'UDP'].includes(proto)) errs.push(fieldErrors.notSupported(pp.child('protocol'), proto, ['SCTP', 'TCP', 'UDP']));
    });
  });
  return errs;
}

/** `ValidateEndpointSliceCreate` (basic shape). */
export function validateEndpointSlice(es: EndpointSlice): FieldError[] {
  const errs = validateObjectMeta(es.metadata, namespaced());
  const types = ['FQDN', 'IPv4', 'IPv6'];
  if (!types.includes(es.addressType)) errs.push(fieldErrors.notSupported(Path.root('addressType'), es.addressType, types));
  (es.endpoints ?? []).forEach((e, i) => {
    const p = Path.root('endpoints').index(i);
    if (e.addresses.length === 0) errs.push(fieldErrors.required(p.child('addresses'), 'must contain at least 1 address'));
    else if (e.addresses.length > 100) errs.push(fieldErrors.tooMany(p.child('addresses'), e.addresses.length, 100));
    if (es.addressType !== 'FQDN') {
      e.addresses.forEach((a, j) => {
        for (const m of isValidIP(a)) errs.push(fieldErrors.invalid(p.child('addresses').index(j), a, m));
      });
    }
    if (e.nodeName !== undefined) for (const m of nameIsDNSSubdomain(e.nodeName, false)) errs.push(fieldErrors.invalid(p.child('nodeName'), e.nodeName, m));
  });
  (es.ports ?? []).forEach((port, i) => {
    const p = Path.root('ports').index(i);
    if ((port.name ?? '') !== '') for (const m of isDNS1123Label(port.name ?? '')) errs.push(fieldErrors.invalid(p.child('name'), port.name, m));
    if (port.port !== undefined) for (const m of isValidPortNum(port.port)) errs.push(fieldErrors.invalid(p.child('port'), port.port, m));
  });
  return errs;
}

// ---- LimitRange ----

/** `ValidateLimitRange` (types and min <= default <= max per resource). */
export function validateLimitRange(lr: LimitRange): FieldError[] {
  const errs = validateObjectMeta(lr.metadata, namespaced());
  const types = ['Pod', 'Container', 'PersistentVolumeClaim'];
  (lr.spec?.limits ?? []).forEach((item, i) => {
    const p = Path.root('spec').child('limits').index(i);
    if (!types.includes(item.type)) errs.push(fieldErrors.notSupported(p.child('type'), item.type, types));
    for (const f of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const) {
      errs.push(...validateResourceList(item[f], p.child(f)));
    }
    if (item.type === 'Pod' && item.default !== undefined) errs.push(fieldErrors.forbidden(p.child('default'), 'may not be specified when `type` is \'Pod\''));
    if (item.type === 'Pod' && item.defaultRequest !== undefined) errs.push(fieldErrors.forbidden(p.child('defaultRequest'), 'may not be specified when `type` is \'Pod\''));
  });
  return errs;
}

// ---- RuntimeClass ----

/** `ValidateRuntimeClass` (node.k8s.io), including upstream's doubled `tolerations.tolerations` path. */
export function validateRuntimeClass(rc: RuntimeClass): FieldError[] {
  const errs = validateObjectMeta(rc.metadata, clusterScoped());
  for (const m of nameIsDNSLabel(rc.handler ?? '', false)) errs.push(fieldErrors.invalid(Path.root('handler'), rc.handler ?? '', m));
  if (rc.overhead !== undefined) {
    errs.push(...validateResourceRequirements({ limits: rc.overhead.podFixed ?? {} }, Path.root('overhead')));
  }
  if (rc.scheduling !== undefined) {
    const sp = Path.root('scheduling');
    if (rc.scheduling.nodeSelector !== undefined) errs.push(...validateLabels(rc.scheduling.nodeSelector, sp.child('nodeSelector')));
    const tp = sp.child('tolerations');
    const tols = rc.scheduling.tolerations ?? [];
    errs.push(...validateTolerations(tols, tp.child('tolerations')));
    const seen = new Set<string>();
    tols.forEach((t, i) => {
      const key = JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '']);
      if (seen.has(key)) {
        errs.push(
          fieldErrors.duplicate(
            tp.index(i),
            new GoValue(`core.Toleration{Key:${JSON.stringify(t.key ?? '')}, Operator:${JSON.stringify(t.operator ?? '')}, Value:${JSON.stringify(t.value ?? '')}, Effect:${JSON.stringify(t.effect ?? '')}, TolerationSeconds:${t.tolerationSeconds === undefined ? '(*int64)(nil)' : `(*int64)(${t.tolerationSeconds})`}}`),
          ),
        );
      }
      seen.add(key);
    });
  }
  return errs;
}

/** `ValidateRuntimeClassUpdate`: `handler` is immutable. */
export function validateRuntimeClassUpdate(rc: RuntimeClass, old: RuntimeClass): FieldError[] {
  const errs = validateObjectMetaUpdate(rc.metadata, old.metadata);
  errs.push(...validateImmutableField(rc.handler, old.handler, Path.root('handler')));
  return errs;
}

// ---- PriorityClass ----

export const systemPriorityClasses: Readonly<Record<string, number>> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};
export const highestUserDefinablePriority = 1000000000;

/** `ValidatePriorityClass`: `system-` names are reserved; user values at most 1000000000. */
export function validatePriorityClass(pc: PriorityClass): FieldError[] {
  const errs = validateObjectMeta(pc.metadata, clusterScoped());
  const name = pc.metadata?.name ?? '';
  if (name.startsWith('system-')) {
    const known = systemPriorityClasses[name];
    let err: string | undefined;
    if (known === undefined) err = `${name} is not a known system priority class`;
    else if (known !== pc.value) err = `value of ${name} PriorityClass must be ${known}`;
    else if (pc.globalDefault === true) err = `globalDefault of ${name} PriorityClass must be false`;
    if (err !== undefined) errs.push(fieldErrors.forbidden(Path.root('metadata').child('name'), `priority class names with 'system-' prefix are reserved for system use only. error: ${err}`));
  } else if (pc.value > highestUserDefinablePriority) {
    errs.push(fieldErrors.forbidden(Path.root('value'), `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
  }
  if (pc.preemptionPolicy !== undefined && pc.preemptionPolicy !== 'PreemptLowerPriority' && pc.preemptionPolicy !== 'Never') {
    errs.push(fieldErrors.notSupported(Path.root('preemptionPolicy'), pc.preemptionPolicy, ['PreemptLowerPriority', 'Never']));
  }
  return errs;
}

/** `ValidatePriorityClassUpdate`: value and preemptionPolicy may not change. */
export function validatePriorityClassUpdate(pc: PriorityClass, old: PriorityClass): FieldError[] {
  const errs = validateObjectMetaUpdate(pc.metadata, old.metadata);
  if (pc.value !== old.value) errs.push(fieldErrors.forbidden(Path.root('value'), 'may not be changed in an update.'));
  errs.push(...validateImmutableField(pc.preemptionPolicy, old.preemptionPolicy, Path.root('preemptionPolicy'), pc.preemptionPolicy ?? null));
  return errs;
}

// ---- Lease ----

/** `ValidateLease`. */
export function validateLease(l: Lease): FieldError[] {
  const errs = validateObjectMeta(l.metadata, namespaced());
  const sp = Path.root('spec');
  const d = l.spec?.leaseDurationSeconds;
  if (d !== undefined && d <= 0) errs.push(fieldErrors.invalid(sp.child('leaseDurationSeconds'), d, 'must be greater than 0'));
  const t = l.spec?.leaseTransitions;
  if (t !== undefined) errs.push(...validateNonnegativeField(t, sp.child('leaseTransitions')));
  return errs;
}

/** `ValidateLeaseUpdate`. */
export function validateLeaseUpdate(l: Lease, old: Lease): FieldError[] {
  const errs = validateObjectMetaUpdate(l.metadata, old.metadata);
  errs.push(...validateLease(l).filter((e) => !e.field.startsWith('metadata.')));
  return errs;
}

export { goIntOrString, goLabelSelector };
