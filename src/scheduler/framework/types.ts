/**
 * `framework.PodInfo`, `framework.NodeInfo` and friends (pkg/scheduler/framework/types.go): the
 * scheduler's pre-digested view of pods and nodes. Objects are treated as immutable; NodeInfo changes go
 * through addPodInfo/removePod/setNode, each bumping `generation` so snapshots copy only changed nodes.
 */
import type { Node, Pod, PodAffinityTerm, Taint, WeightedPodAffinityTerm } from 'kubernetes-types/core/v1.js';
import { labelSelectorAsSelector, type Labels, type Selector } from '../../api/labels.js';
import { podPriority } from './corev1.js';
import { Resource, calculatePodResource } from './resources.js';

/** `framework.AffinityTerm`: a parsed PodAffinityTerm. */
export interface AffinityTerm {
  namespaces: Set<string>;
  selector: Selector;
  topologyKey: string;
  namespaceSelector: Selector;
}

export interface WeightedAffinityTerm {
  term: AffinityTerm;
  weight: number;
}

/** `AffinityTerm.Matches`. */
export function affinityTermMatches(t: AffinityTerm, pod: Pod, nsLabels: Labels): boolean {
  const ns = pod.metadata?.namespace ?? '';
  if (t.namespaces.has(ns) || t.namespaceSelector.matches(nsLabels)) return t.selector.matches(pod.metadata?.labels);
  return false;
}

function newAffinityTerm(pod: Pod, term: PodAffinityTerm): AffinityTerm {
  const namespaces = new Set<string>();
  if ((term.namespaces?.length ?? 0) === 0 && term.namespaceSelector === undefined) namespaces.add(pod.metadata?.namespace ?? '');
  else for (const n of term.namespaces ?? []) namespaces.add(n);
  return {
    namespaces,
    selector: labelSelectorAsSelector(term.labelSelector),
    topologyKey: term.topologyKey,
    namespaceSelector: labelSelectorAsSelector(term.namespaceSelector),
  };
}

function terms(pod: Pod, ts: readonly PodAffinityTerm[] | undefined): AffinityTerm[] {
  return (ts ?? []).map((t) => newAffinityTerm(pod, t));
}

function weightedTerms(pod: Pod, ts: readonly WeightedPodAffinityTerm[] | undefined): WeightedAffinityTerm[] {
  return (ts ?? []).map((t) => ({ term: newAffinityTerm(pod, t.podAffinityTerm), weight: t.weight }));
}

/** A normalised host port use: protocol/port on an IP. */
export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/** Ports a pod's containers claim on the host (`hostPort > 0`). */
export function podHostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      if ((p.hostPort ?? 0) <= 0) continue;
      out.push({ ip: p.hostIP === undefined || p.hostIP === '' ? defaultBindAllHostIP : p.hostIP, protocol: p.protocol === undefined || p.protocol === '' ? 'TCP' : p.protocol, port: p.hostPort ?? 0 });
    }
  }
  return out;
}

export const defaultBindAllHostIP = '0.0.0.0';

/** A node's pods by namespace and by the value of one label key (terminating pods left out). */
export type PodLabelIndex = Map<string, Map<string, PodInfo[]>>;

/** What a plugin derived from a NodeInfo's pods, kept until they change (`NodeInfo.podsMemo`). */
export interface PodsMemo {
  owner: object;
  answers: Map<number, number>;
  /** Per label key, its `PodLabelIndex`, built on first need. */
  podsByLabel: Map<string, PodLabelIndex> | undefined;
}

/** `framework.PodInfo`. Construct once per pod object; the parsed terms and requests are cached. */
export class PodInfo {
  readonly requiredAffinityTerms: AffinityTerm[];
  readonly requiredAntiAffinityTerms: AffinityTerm[];
  readonly preferredAffinityTerms: WeightedAffinityTerm[];
  readonly preferredAntiAffinityTerms: WeightedAffinityTerm[];
  private res: ReturnType<typeof calculatePodResource> | undefined;
  private ports: HostPort[] | undefined;
  /** `podKey(pod)`, computed once: NodeInfo.removePod compares it for every pod of the node. */
  readonly uid: string;

  constructor(readonly pod: Pod) {
    this.uid = podKey(pod);
    const a = pod.spec?.affinity;
    this.requiredAffinityTerms = terms(pod, a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
    this.requiredAntiAffinityTerms = terms(pod, a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
    this.preferredAffinityTerms = weightedTerms(pod, a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    this.preferredAntiAffinityTerms = weightedTerms(pod, a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
  }


  /** Requests (`Requested`) and non-zero cpu/memory (`NonZeroRequested`) of the pod. */
  get resource(): ReturnType<typeof calculatePodResource> {
    this.res ??= calculatePodResource(this.pod);
    return this.res;
  }

  /**
   * Takes `other`'s computed requests: for a newer object of the same pod whose containers' and init
   * containers' requests, restart policies and overhead are unchanged (`sameResourceFields`).
   */
  adoptResource(other: PodInfo): void {
    this.res ??= other.res;
  }

  get hostPorts(): HostPort[] {
    this.ports ??= podHostPorts(this.pod);
    return this.ports;
  }

  /** Has pod affinity or anti-affinity of any kind (`podWithAffinity`). */
  hasAffinity(): boolean {
    const a = this.pod.spec?.affinity;
    return a !== undefined && (a.podAffinity !== undefined || a.podAntiAffinity !== undefined);
  }
}

function sameList(a: Readonly<Record<string, string | number>> | undefined, b: Readonly<Record<string, string | number>> | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!Object.prototype.hasOwnProperty.call(b, k) || a[k] !== b[k]) return false;
  return true;
}

/** True when `calculatePodResource` must give both pods the same answer (the fields it reads are equal). */
export function sameResourceFields(a: Pod, b: Pod): boolean {
  const as = a.spec;
  const bs = b.spec;
  if (as === bs) return true;
  if (as === undefined || bs === undefined || !sameList(as.overhead, bs.overhead)) return false;
  const ac = as.containers ?? [];
  const bc = bs.containers ?? [];
  if (ac.length !== bc.length) return false;
  for (let i = 0; i < ac.length; i++) if (!sameList(ac[i]?.resources?.requests, bc[i]?.resources?.requests)) return false;
  const ai = as.initContainers ?? [];
  const bi = bs.initContainers ?? [];
  if (ai.length !== bi.length) return false;
  for (let i = 0; i < ai.length; i++) {
    if (ai[i]?.restartPolicy !== bi[i]?.restartPolicy || !sameList(ai[i]?.resources?.requests, bi[i]?.resources?.requests)) return false;
  }
  return true;
}

/** `framework.GetPodKey`: the uid (pods without one, e.g. in tests, fall back to namespace/name). */
export function podKey(pod: Pod): string {
  const uid = pod.metadata?.uid;
  if (uid !== undefined && uid !== '') return uid;
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** `framework.HostPortInfo`: ip -> set of "protocol/port". */
export class HostPortInfo {
  private readonly byIP = new Map<string, Set<string>>();

  add(ip: string, protocol: string, port: number): void {
    if (port <= 0) return;
    const key = `${protocol === '' ? 'TCP' : protocol}/${port}`;
    const i = ip === '' ? defaultBindAllHostIP : ip;
    let s = this.byIP.get(i);
    if (s === undefined) this.byIP.set(i, (s = new Set()));
    s.add(key);
  }

  remove(ip: string, protocol: string, port: number): void {
    if (port <= 0) return;
    const i = ip === '' ? defaultBindAllHostIP : ip;
    const s = this.byIP.get(i);
    if (s === undefined) return;
    s.delete(`${protocol === '' ? 'TCP' : protocol}/${port}`);
    if (s.size === 0) this.byIP.delete(i);
  }

  /** `CheckConflict`: same protocol/port on the same IP, or on 0.0.0.0 on either side. */
  checkConflict(ip: string, protocol: string, port: number): boolean {
    if (port <= 0) return false;
    const key = `${protocol === '' ? 'TCP' : protocol}/${port}`;
    const i = ip === '' ? defaultBindAllHostIP : ip;
    if (i === defaultBindAllHostIP) {
      for (const s of this.byIP.values()) if (s.has(key)) return true;
      return false;
    }
    return (this.byIP.get(defaultBindAllHostIP)?.has(key) ?? false) || (this.byIP.get(i)?.has(key) ?? false);
  }

  len(): number {
    let n = 0;
    for (const s of this.byIP.values()) n += s.size;
    return n;
  }

  clone(): HostPortInfo {
    const c = new HostPortInfo();
    for (const [ip, s] of this.byIP) c.byIP.set(ip, new Set(s));
    return c;
  }
}

/** `framework.ImageStateSummary`: an image's size and on how many nodes it is present. */
export interface ImageStateSummary {
  size: number;
  numNodes: number;
}

/** The taints of untainted nodes: one shared (frozen) array, so reading its length stays in cache. */
const noTaints: readonly Taint[] = Object.freeze([]);

/**
 * `framework.NodeInfo`. `labels` and `taints` are the node's, pre-extracted for the filters' hot path.
 */
export class NodeInfo {
  node: Node | undefined = undefined;
  name = '';
  labels: Record<string, string> = {};
  taints: readonly Taint[] = noTaints;
  /** The node's `spec.unschedulable` (pre-extracted like `labels` and `taints`). */
  unschedulable = false;
  pods: PodInfo[] = [];
  podsWithAffinity: PodInfo[] = [];
  podsWithRequiredAntiAffinity: PodInfo[] = [];
  usedPorts = new HostPortInfo();
  requested = new Resource();
  nonZeroRequested = new Resource();
  allocatable = new Resource();
  imageStates = new Map<string, ImageStateSummary>();
  generation = 0;
  /**
   * Answers a plugin derived from `pods` (PodTopologySpread's selector match counts), keyed by the
   * plugin's own question ids and tagged with its owner; dropped whenever the pods change.
   */
  podsMemo: PodsMemo | undefined = undefined;
  /**
   * Set by the scheduler cache: equal stamps mean equal namespaces, labels and deletion timestamps of the
   * pods (a status-only pod update keeps it), so a snapshot copy may keep `podsMemo` (see `copyFrom`).
   * 0: unknown.
   */
  podsMatchStamp = 0;
  /** Position in the snapshot list holding this NodeInfo (set by the snapshot; -1 outside one). */
  snapshotIndex = -1;
  /**
   * `allocatable` minus `requested` (and the pod count), kept on the object itself: NodeResourcesFit's
   * Filter reads them for every node it visits, and three other objects per node cost cache misses.
   */
  freeMilliCPU = 0;
  freeMemory = 0;
  freeEphemeralStorage = 0;
  freePods = 0;
  /**
   * Copies of `allocatable`, `requested` and `nonZeroRequested` cpu and memory for the scorers
   * (NodeResourcesFit, NodeResourcesBalancedAllocation), kept beside the free amounts for the same reason.
   */
  allocatableMilliCPU = 0;
  allocatableMemory = 0;
  requestedMilliCPU = 0;
  requestedMemory = 0;
  nonZeroMilliCPU = 0;
  nonZeroMemory = 0;
  /** `lowestPodPriority()` once asked; dropped whenever the pods change. */
  private lowestPriority: number | undefined = undefined;

  constructor(...pods: Pod[]) {
    for (const p of pods) this.addPod(p);
  }

  setNode(node: Node): void {
    this.node = node;
    this.name = node.metadata?.name ?? '';
    this.labels = node.metadata?.labels ?? {};
    this.taints = node.spec?.taints ?? noTaints;
    this.unschedulable = node.spec?.unschedulable === true;
    this.allocatable = Resource.fromList(node.status?.allocatable);
    this.refreshFree();
  }

  private refreshFree(): void {
    const a = this.allocatable;
    const r = this.requested;
    this.freeMilliCPU = a.milliCPU - r.milliCPU;
    this.freeMemory = a.memory - r.memory;
    this.freeEphemeralStorage = a.ephemeralStorage - r.ephemeralStorage;
    this.freePods = a.allowedPodNumber - this.pods.length;
    this.allocatableMilliCPU = a.milliCPU;
    this.allocatableMemory = a.memory;
    this.requestedMilliCPU = r.milliCPU;
    this.requestedMemory = r.memory;
    this.nonZeroMilliCPU = this.nonZeroRequested.milliCPU;
    this.nonZeroMemory = this.nonZeroRequested.memory;
  }

  /**
   * The lowest priority among the node's pods (Infinity without pods): preemption skips nodes with no
   * lower-priority pod than the preemptor without looking at each pod.
   */
  lowestPodPriority(): number {
    if (this.lowestPriority === undefined) {
      let min = Infinity;
      for (const p of this.pods) {
        const prio = podPriority(p.pod);
        if (prio < min) min = prio;
      }
      this.lowestPriority = min;
    }
    return this.lowestPriority;
  }

  /** Removes the node object, keeping pods (a node deleted while its pods are still cached). */
  removeNode(): void {
    this.node = undefined;
  }

  addPod(pod: Pod): void {
    this.addPodInfo(new PodInfo(pod));
  }

  addPodInfo(pi: PodInfo): void {
    this.pods.push(pi);
    if (pi.hasAffinity()) this.podsWithAffinity.push(pi);
    if (pi.requiredAntiAffinityTerms.length > 0) this.podsWithRequiredAntiAffinity.push(pi);
    this.update(pi, 1);
  }

  /**
   * Removes this PodInfo, found by identity (a scan of pointers, no object read), else by its pod's key;
   * returns false when it is not on this node.
   */
  removePodInfo(pi: PodInfo): boolean {
    const i = this.pods.indexOf(pi);
    return i < 0 ? this.removePod(pi.pod) : this.removePodAt(i);
  }

  /** Removes by pod key; returns false when the pod is not on this node. */
  removePod(pod: Pod): boolean {
    const key = podKey(pod);
    const i = this.pods.findIndex((p) => p.uid === key);
    return i >= 0 && this.removePodAt(i);
  }

  /** Removes `pods[i]`, and the same PodInfo from the affinity lists (which hold the objects of `pods`). */
  private removePodAt(i: number): true {
    const pi = this.pods[i] as PodInfo;
    this.pods.splice(i, 1);
    if (this.podsWithAffinity.length > 0) {
      const j = this.podsWithAffinity.indexOf(pi);
      if (j >= 0) this.podsWithAffinity.splice(j, 1);
    }
    if (this.podsWithRequiredAntiAffinity.length > 0) {
      const k = this.podsWithRequiredAntiAffinity.indexOf(pi);
      if (k >= 0) this.podsWithRequiredAntiAffinity.splice(k, 1);
    }
    this.update(pi, -1);
    return true;
  }

  private update(pi: PodInfo, sign: 1 | -1): void {
    const r = pi.resource;
    this.requested.addResource(r.requests, sign);
    this.nonZeroRequested.milliCPU += sign * r.nonZeroMilliCPU;
    this.nonZeroRequested.memory += sign * r.nonZeroMemory;
    for (const hp of pi.hostPorts) {
      if (sign > 0) this.usedPorts.add(hp.ip, hp.protocol, hp.port);
      else this.usedPorts.remove(hp.ip, hp.protocol, hp.port);
    }
    this.podsMemo = undefined;
    this.lowestPriority = undefined;
    this.refreshFree();
    this.generation++;
  }

  /** Makes this object a copy of `o` (snapshots keep their NodeInfo objects stable across updates). */
  copyFrom(o: NodeInfo): void {
    this.node = o.node;
    this.name = o.name;
    this.labels = o.labels;
    this.taints = o.taints;
    this.unschedulable = o.unschedulable;
    this.pods = o.pods;
    this.podsWithAffinity = o.podsWithAffinity;
    this.podsWithRequiredAntiAffinity = o.podsWithRequiredAntiAffinity;
    this.usedPorts = o.usedPorts;
    this.requested = o.requested;
    this.nonZeroRequested = o.nonZeroRequested;
    this.allocatable = o.allocatable;
    this.imageStates = o.imageStates;
    this.generation = o.generation;
    // Keep the memo only for a copy of the same pods' selector-relevant fields (`o` is a fresh clone).
    if (o.podsMatchStamp === 0 || o.podsMatchStamp !== this.podsMatchStamp) this.podsMemo = o.podsMemo;
    this.podsMatchStamp = o.podsMatchStamp;
    this.lowestPriority = o.lowestPriority;
    this.freeMilliCPU = o.freeMilliCPU;
    this.freeMemory = o.freeMemory;
    this.freeEphemeralStorage = o.freeEphemeralStorage;
    this.freePods = o.freePods;
    this.allocatableMilliCPU = o.allocatableMilliCPU;
    this.allocatableMemory = o.allocatableMemory;
    this.requestedMilliCPU = o.requestedMilliCPU;
    this.requestedMemory = o.requestedMemory;
    this.nonZeroMilliCPU = o.nonZeroMilliCPU;
    this.nonZeroMemory = o.nonZeroMemory;
  }

  /** `NodeInfo.Snapshot()`: a copy whose lists and accounting can change independently. */
  snapshot(): NodeInfo {
    const c = new NodeInfo();
    c.node = this.node;
    c.name = this.name;
    c.labels = this.labels;
    c.taints = this.taints;
    c.unschedulable = this.unschedulable;
    c.pods = this.pods.slice();
    c.podsWithAffinity = this.podsWithAffinity.slice();
    c.podsWithRequiredAntiAffinity = this.podsWithRequiredAntiAffinity.slice();
    c.usedPorts = this.usedPorts.clone();
    c.requested = this.requested.clone();
    c.nonZeroRequested = this.nonZeroRequested.clone();
    c.allocatable = this.allocatable;
    c.imageStates = this.imageStates;
    c.generation = this.generation;
    c.podsMatchStamp = this.podsMatchStamp;
    c.freeMilliCPU = this.freeMilliCPU;
    c.freeMemory = this.freeMemory;
    c.freeEphemeralStorage = this.freeEphemeralStorage;
    c.freePods = this.freePods;
    c.allocatableMilliCPU = this.allocatableMilliCPU;
    c.allocatableMemory = this.allocatableMemory;
    c.requestedMilliCPU = this.requestedMilliCPU;
    c.requestedMemory = this.requestedMemory;
    c.nonZeroMilliCPU = this.nonZeroMilliCPU;
    c.nonZeroMemory = this.nonZeroMemory;
    return c;
  }
}
