/** Small fixture builders for controller tests. */
import type { Node, Pod, PodTemplateSpec, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';

export function template(labels: Record<string, string>, image = 'nginx:1.27'): PodTemplateSpec {
  return { metadata: { labels: { ...labels } }, spec: { containers: [{ name: 'c', image }] } };
}

export function replicaSet(name: string, replicas: number, labels: Record<string, string> = { app: name }): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: 'default' },
    spec: { replicas, selector: { matchLabels: { ...labels } }, template: template(labels) },
  };
}

export class PodBuilder {
  readonly pod: Pod;
  constructor(name: string, namespace = 'default') {
    this.pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'nginx' }] }, status: {} };
  }
  labels(l: Record<string, string>): this {
    (this.pod.metadata as { labels?: Record<string, string> }).labels = { ...l };
    return this;
  }
  node(n: string): this {
    (this.pod.spec as { nodeName?: string }).nodeName = n;
    return this;
  }
  phase(p: string): this {
    (this.pod.status as { phase?: string }).phase = p;
    return this;
  }
  ready(since?: string): this {
    (this.pod.status as { conditions?: unknown[] }).conditions = [
      { type: 'Ready', status: 'True', ...(since !== undefined ? { lastTransitionTime: since } : {}) },
    ];
    return this;
  }
  created(t: string): this {
    (this.pod.metadata as { creationTimestamp?: string }).creationTimestamp = t;
    return this;
  }
  uid(u: string): this {
    (this.pod.metadata as { uid?: string }).uid = u;
    return this;
  }
  restarts(n: number): this {
    (this.pod.status as { containerStatuses?: unknown[] }).containerStatuses = [
      { name: 'c', image: 'nginx', imageID: '', ready: false, restartCount: n },
    ];
    return this;
  }
  annotate(k: string, v: string): this {
    const m = this.pod.metadata as { annotations?: Record<string, string> };
    m.annotations = { ...(m.annotations ?? {}), [k]: v };
    return this;
  }
  tolerate(t: Toleration): this {
    const s = this.pod.spec as { tolerations?: Toleration[] };
    s.tolerations = [...(s.tolerations ?? []), t];
    return this;
  }
  obj(): Pod {
    return structuredClone(this.pod);
  }
}

export function makePod(name: string, namespace = 'default'): PodBuilder {
  return new PodBuilder(name, namespace);
}

export function makeNode(name: string, opts: { labels?: Record<string, string>; taints?: Taint[]; ready?: boolean } = {}): Node {
  const n: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...(opts.labels ?? {}) } }, spec: {}, status: {} };
  if (opts.taints !== undefined) (n.spec as { taints?: Taint[] }).taints = opts.taints;
  if (opts.ready !== undefined) {
    (n.status as { conditions?: unknown[] }).conditions = [
      { type: 'Ready', status: opts.ready ? 'True' : 'False', reason: opts.ready ? 'KubeletReady' : 'KubeletNotReady' },
    ];
  }
  return n;
}
