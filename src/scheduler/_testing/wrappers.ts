/**
 * Test fixture builders in the style of upstream's pkg/scheduler/testing/wrappers.go:
 * `makePod('p').namespace('ns').req({cpu: '1'}).toleration(...).obj()`.
 */
import type { Container, Node, NodeSelectorRequirement, Pod, PodAffinityTerm, Taint, Toleration, TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';

/** kubernetes-types marks server-set fields readonly; fixtures set them anyway. */
function mut<T>(o: T): { -readonly [K in keyof T]: T[K] } {
  return o;
}

export class PodWrapper {
  private readonly p: Pod;
  constructor(name: string) {
    this.p = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: name }, spec: { containers: [] } };
  }
  private get spec(): NonNullable<Pod['spec']> {
    return this.p.spec as NonNullable<Pod['spec']>;
  }
  private get meta(): NonNullable<Pod['metadata']> {
    return this.p.metadata as NonNullable<Pod['metadata']>;
  }
  obj(): Pod {
    return this.p;
  }
  namespace(ns: string): this {
    this.meta.namespace = ns;
    return this;
  }
  uid(uid: string): this {
    mut(this.meta).uid = uid;
    return this;
  }
  label(k: string, v: string): this {
    this.meta.labels = { ...(this.meta.labels ?? {}), [k]: v };
    return this;
  }
  labels(l: Record<string, string>): this {
    this.meta.labels = { ...(this.meta.labels ?? {}), ...l };
    return this;
  }
  terminating(): this {
    mut(this.meta).deletionTimestamp = '2024-01-01T00:00:00Z';
    return this;
  }
  schedulerName(n: string): this {
    this.spec.schedulerName = n;
    return this;
  }
  node(n: string): this {
    this.spec.nodeName = n;
    return this;
  }
  nominatedNodeName(n: string): this {
    mut(this.p).status = { ...(this.p.status ?? {}), nominatedNodeName: n };
    return this;
  }
  startTime(t: string): this {
    mut(this.p).status = { ...(this.p.status ?? {}), startTime: t };
    return this;
  }
  priority(p: number): this {
    this.spec.priority = p;
    return this;
  }
  preemptionPolicy(p: 'Never' | 'PreemptLowerPriority'): this {
    this.spec.preemptionPolicy = p;
    return this;
  }
  nodeSelector(sel: Record<string, string>): this {
    this.spec.nodeSelector = sel;
    return this;
  }
  toleration(t: Toleration): this {
    this.spec.tolerations = [...(this.spec.tolerations ?? []), t];
    return this;
  }
  /** Adds a container requesting `req`. */
  req(req: Record<string, string>): this {
    this.spec.containers.push({ name: `c${this.spec.containers.length}`, image: 'pause', resources: { requests: req } });
    return this;
  }
  container(c: Container): this {
    this.spec.containers.push(c);
    return this;
  }
  initReq(req: Record<string, string>, restartPolicy?: 'Always'): this {
    const c: Container = { name: `init${this.spec.initContainers?.length ?? 0}`, image: 'pause', resources: { requests: req } };
    if (restartPolicy !== undefined) c.restartPolicy = restartPolicy;
    this.spec.initContainers = [...(this.spec.initContainers ?? []), c];
    return this;
  }
  overhead(o: Record<string, string>): this {
    this.spec.overhead = o;
    return this;
  }
  image(image: string): this {
    this.spec.containers.push({ name: `c${this.spec.containers.length}`, image });
    return this;
  }
  hostPort(port: number, protocol = 'TCP', hostIP = ''): this {
    const c: Container = { name: `c${this.spec.containers.length}`, image: 'pause', ports: [{ containerPort: port, hostPort: port, protocol, ...(hostIP !== '' ? { hostIP } : {}) }] };
    this.spec.containers.push(c);
    return this;
  }
  private nodeAffinityReq(): NonNullable<NonNullable<NonNullable<Pod['spec']>['affinity']>['nodeAffinity']> {
    this.spec.affinity ??= {};
    this.spec.affinity.nodeAffinity ??= {};
    return this.spec.affinity.nodeAffinity;
  }
  /** Adds a required node selector term with these expressions (and fields). */
  nodeAffinityTerm(matchExpressions: NodeSelectorRequirement[], matchFields?: NodeSelectorRequirement[]): this {
    const na = this.nodeAffinityReq();
    na.requiredDuringSchedulingIgnoredDuringExecution ??= { nodeSelectorTerms: [] };
    na.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.push({
      ...(matchExpressions.length > 0 ? { matchExpressions } : {}),
      ...(matchFields !== undefined ? { matchFields } : {}),
    });
    return this;
  }
  nodeAffinityIn(key: string, values: string[]): this {
    return this.nodeAffinityTerm([{ key, operator: 'In', values }]);
  }
  preferredNodeAffinity(weight: number, matchExpressions: NodeSelectorRequirement[]): this {
    const na = this.nodeAffinityReq();
    na.preferredDuringSchedulingIgnoredDuringExecution = [...(na.preferredDuringSchedulingIgnoredDuringExecution ?? []), { weight, preference: { matchExpressions } }];
    return this;
  }
  private term(topologyKey: string, selector: LabelSelector, namespaces?: string[]): PodAffinityTerm {
    return { topologyKey, labelSelector: selector, ...(namespaces !== undefined ? { namespaces } : {}) };
  }
  podAffinity(topologyKey: string, selector: LabelSelector, kind: 'required' | 'preferred' = 'required', weight = 1): this {
    this.spec.affinity ??= {};
    const pa = (this.spec.affinity.podAffinity ??= {});
    if (kind === 'required') pa.requiredDuringSchedulingIgnoredDuringExecution = [...(pa.requiredDuringSchedulingIgnoredDuringExecution ?? []), this.term(topologyKey, selector)];
    else pa.preferredDuringSchedulingIgnoredDuringExecution = [...(pa.preferredDuringSchedulingIgnoredDuringExecution ?? []), { weight, podAffinityTerm: this.term(topologyKey, selector) }];
    return this;
  }
  podAntiAffinity(topologyKey: string, selector: LabelSelector, kind: 'required' | 'preferred' = 'required', weight = 1): this {
    this.spec.affinity ??= {};
    const pa = (this.spec.affinity.podAntiAffinity ??= {});
    if (kind === 'required') pa.requiredDuringSchedulingIgnoredDuringExecution = [...(pa.requiredDuringSchedulingIgnoredDuringExecution ?? []), this.term(topologyKey, selector)];
    else pa.preferredDuringSchedulingIgnoredDuringExecution = [...(pa.preferredDuringSchedulingIgnoredDuringExecution ?? []), { weight, podAffinityTerm: this.term(topologyKey, selector) }];
    return this;
  }
  spreadConstraint(maxSkew: number, topologyKey: string, whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway', selector: LabelSelector | undefined, extra: Partial<TopologySpreadConstraint> = {}): this {
    const c: TopologySpreadConstraint = { maxSkew, topologyKey, whenUnsatisfiable, ...(selector !== undefined ? { labelSelector: selector } : {}), ...extra };
    this.spec.topologySpreadConstraints = [...(this.spec.topologySpreadConstraints ?? []), c];
    return this;
  }
  schedulingGates(...names: string[]): this {
    this.spec.schedulingGates = names.map((name) => ({ name }));
    return this;
  }
}

export const makePod = (name: string): PodWrapper => new PodWrapper(name);

export class NodeWrapper {
  private readonly n: Node;
  constructor(name: string) {
    this.n = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name } },
      spec: {},
      status: { allocatable: { cpu: '32', memory: '64Gi', pods: '110' }, capacity: { cpu: '32', memory: '64Gi', pods: '110' } },
    };
  }
  obj(): Node {
    return this.n;
  }
  label(k: string, v: string): this {
    this.n.metadata = { ...this.n.metadata, labels: { ...(this.n.metadata?.labels ?? {}), [k]: v } };
    return this;
  }
  taint(t: Taint): this {
    this.n.spec = { ...this.n.spec, taints: [...(this.n.spec?.taints ?? []), t] };
    return this;
  }
  unschedulable(u = true): this {
    this.n.spec = { ...this.n.spec, unschedulable: u };
    return this;
  }
  /** Sets allocatable (and capacity). */
  capacity(res: Record<string, string>): this {
    mut(this.n).status = { ...this.n.status, allocatable: res, capacity: res };
    return this;
  }
  images(images: Record<string, number>): this {
    mut(this.n).status = { ...this.n.status, images: Object.entries(images).map(([name, sizeBytes]) => ({ names: [name], sizeBytes })) };
    return this;
  }
}

export const makeNode = (name: string): NodeWrapper => new NodeWrapper(name);

/** A deterministic random source (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
