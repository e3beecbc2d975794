/**
 * Quota evaluators: how much of each quota resource an object uses, and which quotas it falls under.
 * - pods: `pkg/quota/v1/evaluator/core/pods.go` (compute resources, scopes, terminal pods);
 * - services: `services.go` (`services`, `services.nodeports`, `services.loadbalancers`);
 * - persistentvolumeclaims: `persistent_volume_claims.go` (storage, per storage class);
 * - everything else: `k8s.io/apiserver/pkg/quota/v1/generic` object counts (`count/<resource>.<group>`),
 *   with the legacy names of `core/registry.go` (`configmaps`, `secrets`, ...).
 * Shared by the ResourceQuota admission plugin and the resource quota controller.
 */
import type { Container, PersistentVolumeClaim, Pod, ResourceQuota, ScopedResourceSelectorRequirement, Service, WeightedPodAffinityTerm, PodAffinityTerm } from 'kubernetes-types/core/v1.js';
import type { KubeObject } from '../client/client.js';
import { claimClass } from '../api/pv-helpers.js';
import { podQOSClass } from '../api/qos.js';
import { podLimits as aggregatePodLimits, podRequests as aggregatePodRequests, type Amounts } from '../api/pod-resources.js';
import { add, addQuantity, containsPrefix, count, fromWire, intersection, zero, type ResourceList } from './resources.js';
import { isQuantity, parseQuantity, type Quantity } from '../api/quantity.js';

export interface GroupResource {
  group: string;
  resource: string;
}

/** What an evaluator sees of an admission request (`admission.Attributes`). */
export interface QuotaAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  subresource: string;
}

/** `quota.Evaluator`. Scope matching throws on a malformed scope selector. */
export interface Evaluator {
  readonly groupResource: GroupResource;
  /** A message when `obj` does not meet the quota's requirements (pods must set tracked cpu/memory). */
  constraints(required: readonly string[], obj: KubeObject): string | undefined;
  /** Whether a request can change usage tracked by this evaluator. */
  handles(a: QuotaAttributes): boolean;
  /** Whether the quota tracks `obj`: it names a resource of this evaluator and all its scopes match. */
  matches(quota: ResourceQuota, obj: KubeObject): boolean;
  /** The names of `input` this evaluator measures. */
  matchingResources(input: readonly string[]): string[];
  /** The selectors `obj` matches. */
  matchingScopes(obj: KubeObject, selectors: readonly ScopedResourceSelectorRequirement[]): ScopedResourceSelectorRequirement[];
  /** Whether `obj` matches one scope selector (`MatchesScopeFunc`). */
  matchesScope(selector: ScopedResourceSelectorRequirement, obj: KubeObject): boolean;
  /** The usage of one object; `now` (ms) decides whether a deleted pod's grace period is over. */
  usage(obj: KubeObject, now: number): ResourceList;
}

/** `generic.ObjectCountQuotaResourceNameFor`. */
export function objectCountName(gr: GroupResource): string {
  return gr.group === '' ? `count/${gr.resource}` : `count/${gr.resource}.${gr.group}`;
}

/** The group-resource a `count/<resource>[.<group>]` name counts, or undefined for other names. */
export function parseObjectCountName(name: string): GroupResource | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** `getScopeSelectorsFromQuota`: `spec.scopes` as Exists selectors, then `spec.scopeSelector`. */
export function scopeSelectorsOf(quota: ResourceQuota): ScopedResourceSelectorRequirement[] {
  const out: ScopedResourceSelectorRequirement[] = (quota.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' }));
  out.push(...(quota.spec?.scopeSelector?.matchExpressions ?? []));
  return out;
}

/** `generic.Matches`. */
function genericMatches(quota: ResourceQuota, obj: KubeObject, ev: Pick<Evaluator, 'matchingResources' | 'matchesScope'>): boolean {
  const matchResource = ev.matchingResources(Object.keys(quota.status?.hard ?? {})).length > 0;
  let matchScope = true;
  for (const s of scopeSelectorsOf(quota)) matchScope = ev.matchesScope(s, obj) && matchScope;
  return matchResource && matchScope;
}

// ---------------------------------------------------------------- object counts

class ObjectCountEvaluator implements Evaluator {
  private readonly names: string[];
  constructor(
    readonly groupResource: GroupResource,
    alias?: string,
  ) {
    this.names = [objectCountName(groupResource), ...(alias !== undefined ? [alias] : [])];
  }
  constraints(): string | undefined {
    return undefined;
  }
  handles(a: QuotaAttributes): boolean {
    return a.operation === 'CREATE';
  }
  matches(quota: ResourceQuota, obj: KubeObject): boolean {
    return genericMatches(quota, obj, this);
  }
  matchingResources(input: readonly string[]): string[] {
    return intersection(input, this.names);
  }
  matchingScopes(): ScopedResourceSelectorRequirement[] {
    return [];
  }
  matchesScope(): boolean {
    return false;
  }
  usage(): ResourceList {
    return new Map(this.names.map((n) => [n, count(1)]));
  }
}

// ---------------------------------------------------------------- pods

const podObjectCountName = 'count/pods';
const podResources = [
  podObjectCountName, 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods',
];
const podResourcePrefixes = ['hugepages-', 'requests.hugepages-'];
const requestedResourcePrefixes = ['hugepages-'];
/** The cpu and memory names a pod must set on every container when a quota tracks them (a historical mistake upstream keeps). */
const validationSet = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** `helper.IsNativeResource`: no domain, or a `kubernetes.io/` one. */
function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

const qualifiedName = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `helper.IsExtendedResourceName`: a domain-prefixed, non-native name that is valid as `requests.<name>`. */
function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  const full = `requests.${name}`;
  const slash = full.indexOf('/');
  const prefix = slash < 0 ? '' : full.slice(0, slash);
  const rest = slash < 0 ? full : full.slice(slash + 1);
  return (prefix === '' || (prefix.length <= 253 && dns1123Subdomain.test(prefix))) && rest.length <= 63 && qualifiedName.test(rest);
}

/** `isExtendedResourceNameForQuota`: only `requests.<extended>` is a valid quota name for extended resources. */
function isExtendedResourceNameForQuota(name: string): boolean {
  return !isNativeResource(name) && name.startsWith('requests.');
}

/** Quota's amounts: quantities that keep their format when added (`Quantity.Add`). */
const quantityAmounts: Amounts<Quantity> = {
  parse: (q) => (isQuantity(String(q)) ? parseQuantity(String(q)) : undefined),
  add: addQuantity,
  greater: (a, b) => a.nanos > b.nanos,
};

/** `resourcehelper.PodRequests`: containers, init containers and `spec.overhead`. */
export function podRequests(pod: Pod): ResourceList {
  return aggregatePodRequests(pod, quantityAmounts);
}

/** `resourcehelper.PodLimits`: overhead is added only to limits that are set. */
export function podLimits(pod: Pod): ResourceList {
  return aggregatePodLimits(pod, quantityAmounts);
}

/** `podComputeUsageHelper`. */
export function podComputeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const result: ResourceList = new Map([['pods', count(1)]]);
  const set = (name: string, q: Quantity | undefined, ...as: string[]): void => {
    if (q === undefined) return;
    result.set(name, q);
    for (const a of as) result.set(a, q);
  };
  set('cpu', requests.get('cpu'), 'requests.cpu');
  set('limits.cpu', limits.get('cpu'));
  set('memory', requests.get('memory'), 'requests.memory');
  set('limits.memory', limits.get('memory'));
  set('ephemeral-storage', requests.get('ephemeral-storage'), 'requests.ephemeral-storage');
  set('limits.ephemeral-storage', limits.get('ephemeral-storage'));
  for (const [name, q] of requests) {
    if (containsPrefix(requestedResourcePrefixes, name)) {
      result.set(name, q);
      result.set(`requests.${name}`, q);
    }
    if (isExtendedResourceName(name)) result.set(`requests.${name}`, q);
  }
  return result;
}

/** `QuotaV1Pod`: terminal pods, and deleted pods past their grace period, are not charged. */
export function quotaV1Pod(pod: Pod, now: number): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const ts = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (ts !== undefined && grace !== undefined && now > Date.parse(ts) + grace * 1000) return false;
  return true;
}

/** `PodUsageFunc`: `count/pods` always; the compute resources while the pod is charged. */
export function podUsage(pod: Pod, now: number): ResourceList {
  const result: ResourceList = new Map([[podObjectCountName, count(1)]]);
  if (!quotaV1Pod(pod, now)) return result;
  return add(result, podComputeUsage(podRequests(pod), podLimits(pod)));
}

function isTerminating(pod: Pod): boolean {
  const ads = pod.spec?.activeDeadlineSeconds;
  return ads !== undefined && ads >= 0;
}

function isBestEffort(pod: Pod): boolean {
  return podQOSClass(pod) === 'BestEffort';
}

function crossNamespaceTerm(t: PodAffinityTerm): boolean {
  return (t.namespaces ?? []).length !== 0 || t.namespaceSelector !== undefined;
}

function crossNamespaceTerms(req: PodAffinityTerm[] | undefined, pref: WeightedPodAffinityTerm[] | undefined): boolean {
  return (req ?? []).some(crossNamespaceTerm) || (pref ?? []).some((w) => crossNamespaceTerm(w.podAffinityTerm));
}

function usesCrossNamespacePodAffinity(pod: Pod): boolean {
  const a = pod.spec?.affinity;
  if (a === undefined) return false;
  return (
    crossNamespaceTerms(a.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, a.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution) ||
    crossNamespaceTerms(a.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution, a.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution)
  );
}

/** `podMatchesSelector`: the scope selector as a label selector over `{PriorityClass: <name>}`. */
function podMatchesSelector(pod: Pod, s: ScopedResourceSelectorRequirement): boolean {
  const pc = pod.spec?.priorityClassName ?? '';
  const has = pc !== '';
  const values = s.values ?? [];
  switch (s.operator) {
    case 'In':
      return has && values.includes(pc);
    case 'NotIn':
      return !has || !values.includes(pc);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      throw new Error(`failed to parse and convert selector: ${JSON.stringify(s.operator)} is not a valid scope selector operator`);
  }
}

/** `podMatchesScopeFunc`. */
export function podMatchesScope(s: ScopedResourceSelectorRequirement, pod: Pod): boolean {
  switch (s.scopeName) {
    case 'Terminating':
      return isTerminating(pod);
    case 'NotTerminating':
      return !isTerminating(pod);
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'PriorityClass':
      if (s.operator === 'Exists') return (pod.spec?.priorityClassName ?? '') !== '';
      return podMatchesSelector(pod, s);
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespacePodAffinity(pod);
    default:
      return false;
  }
}

function enforceContainer(c: Container, required: Set<string>, missing: Map<string, Set<string>>): void {
  const usage = podComputeUsage(fromWire(c.resources?.requests), fromWire(c.resources?.limits));
  for (const r of required) {
    if (usage.has(r)) continue;
    let names = missing.get(r);
    if (names === undefined) missing.set(r, (names = new Set()));
    names.add(c.name);
  }
}

class PodEvaluator implements Evaluator {
  readonly groupResource = { group: '', resource: 'pods' };

  /** `Constraints`: with cpu/memory tracked, every container must set them: `must specify limits.cpu for: a,b; ...`. */
  constraints(required: readonly string[], obj: KubeObject): string | undefined {
    const pod = obj as Pod;
    const req = new Set(required.filter((r) => validationSet.has(r)));
    const missing = new Map<string, Set<string>>();
    for (const c of pod.spec?.containers ?? []) enforceContainer(c, req, missing);
    for (const c of pod.spec?.initContainers ?? []) enforceContainer(c, req, missing);
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...(missing.get(r) ?? [])].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  }

  /** Pods are charged on create only (in-place resize is off by default in 1.32). */
  handles(a: QuotaAttributes): boolean {
    return a.operation === 'CREATE';
  }

  matches(quota: ResourceQuota, obj: KubeObject): boolean {
    return genericMatches(quota, obj, this);
  }

  matchingResources(input: readonly string[]): string[] {
    const result = intersection(input, podResources);
    for (const r of input) {
      if (containsPrefix(podResourcePrefixes, r)) result.push(r);
      if (isExtendedResourceNameForQuota(r)) result.push(r);
    }
    return result;
  }

  matchingScopes(obj: KubeObject, selectors: readonly ScopedResourceSelectorRequirement[]): ScopedResourceSelectorRequirement[] {
    return selectors.filter((s) => this.matchesScope(s, obj));
  }

  matchesScope(s: ScopedResourceSelectorRequirement, obj: KubeObject): boolean {
    return podMatchesScope(s, obj as Pod);
  }

  usage(obj: KubeObject, now: number): ResourceList {
    return podUsage(obj as Pod, now);
  }
}

// ---------------------------------------------------------------- services

const serviceResources = ['count/services', 'services', 'services.nodeports', 'services.loadbalancers'];

/** `GetQuotaServiceType`: the service types quota distinguishes. */
export function quotaServiceType(svc: Service): string {
  const t = svc.spec?.type;
  return t === 'NodePort' || t === 'LoadBalancer' ? t : '';
}

/**
 * An evaluator of a kind that quota scopes do not apply to and that needs no constraints: creates and
 * updates are charged (services and claims, whose usage an update can change).
 */
abstract class UnscopedEvaluator implements Evaluator {
  abstract readonly groupResource: { group: string; resource: string };
  abstract matchingResources(input: readonly string[]): string[];
  abstract usage(obj: KubeObject): ResourceList;
  constraints(): string | undefined {
    return undefined;
  }
  handles(a: QuotaAttributes): boolean {
    return a.operation === 'CREATE' || a.operation === 'UPDATE';
  }
  matches(quota: ResourceQuota, obj: KubeObject): boolean {
    return genericMatches(quota, obj, this);
  }
  matchingScopes(): ScopedResourceSelectorRequirement[] {
    return [];
  }
  matchesScope(): boolean {
    return false;
  }
}

class ServiceEvaluator extends UnscopedEvaluator {
  readonly groupResource = { group: '', resource: 'services' };
  matchingResources(input: readonly string[]): string[] {
    return intersection(input, serviceResources);
  }
  usage(obj: KubeObject): ResourceList {
    const svc = obj as Service;
    const ports = svc.spec?.ports ?? [];
    const result: ResourceList = new Map([
      ['count/services', count(1)],
      ['services', count(1)],
      ['services.loadbalancers', zero],
      ['services.nodeports', zero],
    ]);
    if (svc.spec?.type === 'NodePort') result.set('services.nodeports', count(ports.length));
    if (svc.spec?.type === 'LoadBalancer') {
      // Without node port allocation only the ports that name one explicitly are counted.
      const n = svc.spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => (p.nodePort ?? 0) !== 0).length : ports.length;
      result.set('services.nodeports', count(n));
      result.set('services.loadbalancers', count(1));
    }
    return result;
  }
}

// ---------------------------------------------------------------- persistent volume claims

const pvcResources = ['persistentvolumeclaims', 'count/persistentvolumeclaims', 'requests.storage'];
const storageClassSuffix = '.storageclass.storage.k8s.io/';

/** Storage is charged in whole bytes (`RoundUp(0)`). */
function roundUpBytes(q: Quantity): Quantity {
  const unit = 1_000_000_000n;
  const rem = q.nanos % unit;
  return rem === 0n ? q : { nanos: q.nanos - rem + (q.nanos > 0n ? unit : 0n), format: q.format };
}

class PersistentVolumeClaimEvaluator extends UnscopedEvaluator {
  readonly groupResource = { group: '', resource: 'persistentvolumeclaims' };
  matchingResources(input: readonly string[]): string[] {
    return input.filter((r) => pvcResources.includes(r) || pvcResources.some((p) => r.endsWith(storageClassSuffix + p)));
  }
  usage(obj: KubeObject): ResourceList {
    const pvc = obj as PersistentVolumeClaim;
    const result: ResourceList = new Map([
      ['persistentvolumeclaims', count(1)],
      ['count/persistentvolumeclaims', count(1)],
    ]);
    const cls = claimClass(pvc);
    if (cls !== '') result.set(`${cls}${storageClassSuffix}persistentvolumeclaims`, count(1));
    let storage = fromWire(pvc.spec?.resources?.requests).get('storage');
    if (storage !== undefined) {
      storage = roundUpBytes(storage);
      // RecoverVolumeExpansionFailure (beta, on in 1.32): a larger allocated size is charged.
      const allocated = fromWire(pvc.status?.allocatedResources).get('storage');
      if (allocated !== undefined && allocated.nanos > storage.nanos) storage = roundUpBytes(allocated);
      result.set('requests.storage', storage);
      if (cls !== '') result.set(`${cls}${storageClassSuffix}requests.storage`, storage);
    }
    return result;
  }
}

// ---------------------------------------------------------------- registry

/**
 * Resources quota never evaluates (`install/registry.go`'s ignoredResources): virtual resources that are
 * not stored, and events.
 */
const ignored = new Set([
  '/bindings',
  '/componentstatuses',
  'authentication.k8s.io/tokenreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  '/events',
  'events.k8s.io/events',
]);

export function isIgnoredResource(gr: GroupResource): boolean {
  return ignored.has(`${gr.group}/${gr.resource}`);
}

/** The legacy names of object counts (`legacyObjectCountAliases` of `core/registry.go`). */
const legacyAliases: Record<string, string> = {
  configmaps: 'configmaps',
  resourcequotas: 'resourcequotas',
  replicationcontrollers: 'replicationcontrollers',
  secrets: 'secrets',
};

/** The evaluator of a group-resource: pods, services and claims have their own; the rest count objects. */
export function evaluatorFor(gr: GroupResource): Evaluator {
  if (gr.group === '') {
    if (gr.resource === 'pods') return podEvaluator;
    if (gr.resource === 'services') return serviceEvaluator;
    if (gr.resource === 'persistentvolumeclaims') return pvcEvaluator;
    const alias = legacyAliases[gr.resource];
    if (alias !== undefined) return new ObjectCountEvaluator(gr, alias);
  }
  return new ObjectCountEvaluator(gr);
}

const podEvaluator = new PodEvaluator();
const serviceEvaluator = new ServiceEvaluator();
const pvcEvaluator = new PersistentVolumeClaimEvaluator();

/** The evaluators kube-controller-manager always has (`core.NewEvaluators`). */
export function builtinEvaluators(): Evaluator[] {
  return [podEvaluator, serviceEvaluator, pvcEvaluator, ...Object.keys(legacyAliases).map((r) => evaluatorFor({ group: '', resource: r }))];
}

export interface UsageStatsOptions {
  scopes: readonly string[];
  scopeSelector: readonly ScopedResourceSelectorRequirement[];
  /** The tracked names: each starts at zero. */
  resources: readonly string[];
  now: number;
}

/**
 * `generic.CalculateUsageStats`: the usage of the objects matching every scope (scopes as `ScopeName`
 * only, then the selector's expressions). A scope that cannot be evaluated ends the count where it is,
 * as upstream does.
 */
export function calculateUsageStats(ev: Evaluator, items: readonly KubeObject[], o: UsageStatsOptions): ResourceList {
  let used: ResourceList = new Map(o.resources.map((r) => [r, zero]));
  for (const item of items) {
    let matches = true;
    try {
      for (const s of o.scopes) if (!ev.matchesScope({ scopeName: s, operator: '' }, item)) matches = false;
      for (const s of o.scopeSelector) matches = ev.matchesScope(s, item) && matches;
    } catch {
      return used;
    }
    if (matches) used = add(used, ev.usage(item, o.now));
  }
  return used;
}
