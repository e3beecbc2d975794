/**
 * The claim candidates of pod controllers (DaemonSet `getDaemonPods`, ReplicaSet `syncReplicaSet`): in a
 * namespace, the pods a controller may claim are those it controls (by controllerRef uid) and the orphans;
 * pods of other controllers are skipped by `ClaimObject` anyway. Indexing them keeps a sync of one
 * controller from walking every pod of its namespace (thousands of kube-system pods owned by the other
 * DaemonSets on a large cluster; 150,000 pods of 150 ReplicaSets in one namespace of the benchmark).
 *
 * Namespaces are indexed lazily, from the informer's cache, the first time a controller there asks; from
 * then on the index's own handlers on the pod informer keep it current. They are added when the index is
 * made, before the controller's, and run synchronously after each cache change, so index and cache never
 * disagree when a sync reads them.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { NamespaceIndex, objectKey, type Informer } from './_context.js';
import { controllerRef } from './_owner.js';

interface NamespacePods {
  /** Controlled pods by controllerRef uid; each map in informer order (an update moves a pod last). */
  byController: Map<string, Map<string, Pod>>;
  orphans: Map<string, Pod>;
  /** The tick of the last change to each controller's pods (kept after its last pod goes). */
  changedAt: Map<string, number>;
  /** The tick of the last change to the orphans. */
  orphansChangedAt: number;
}

function nsOf(p: Pod): string {
  return p.metadata?.namespace ?? 'default';
}

export class ClaimCandidateIndex {
  private readonly namespaces = new Map<string, NamespacePods>();
  /** Counts changes; every add or remove stamps what it changed with the next tick. */
  private tick = 0;

  constructor(private readonly pods: Informer<Pod>) {
    pods.addHandlers({
      onAdd: (p) => this.upsert(undefined, p),
      onUpdate: (o, p) => this.upsert(o, p),
      onDelete: (p) => this.delete(p),
    });
  }

  /** Pods controlled by `uid` in `namespace`, then the namespace's orphans. */
  candidates(namespace: string, uid: string): Pod[] {
    const ns = this.indexed(namespace);
    return [...(ns.byController.get(uid)?.values() ?? []), ...ns.orphans.values()];
  }

  /**
   * A number that changes whenever `candidates(namespace, uid)` may answer differently: a controller may
   * keep what it derived from the candidates for as long as their version stays the same.
   */
  candidatesVersion(namespace: string, uid: string): number {
    const ns = this.indexed(namespace);
    return Math.max(ns.changedAt.get(uid) ?? 0, ns.orphansChangedAt);
  }

  /** Pods controlled by `uid` in `namespace`. */
  controlledBy(namespace: string, uid: string): Pod[] {
    return [...(this.indexed(namespace).byController.get(uid)?.values() ?? [])];
  }

  private upsert(old: Pod | undefined, pod: Pod): void {
    const ns = this.namespaces.get(nsOf(pod));
    if (ns === undefined) return;
    const key = objectKey(pod);
    const tick = ++this.tick;
    if (old !== undefined) remove(ns, key, old, tick);
    remove(ns, key, pod, tick);
    add(ns, key, pod, tick);
  }

  private delete(pod: Pod): void {
    const ns = this.namespaces.get(nsOf(pod));
    if (ns !== undefined) remove(ns, objectKey(pod), pod, ++this.tick);
  }

  private indexed(namespace: string): NamespacePods {
    let ns = this.namespaces.get(namespace);
    if (ns === undefined) {
      ns = { byController: new Map(), orphans: new Map(), changedAt: new Map(), orphansChangedAt: 0 };
      const tick = ++this.tick;
      for (const p of this.pods.byIndex(NamespaceIndex, namespace)) add(ns, objectKey(p), p, tick);
      this.namespaces.set(namespace, ns);
    }
    return ns;
  }
}

function add(ns: NamespacePods, key: string, pod: Pod, tick: number): void {
  const ref = controllerRef(pod.metadata);
  if (ref === undefined) {
    ns.orphans.set(key, pod);
    ns.orphansChangedAt = tick;
    return;
  }
  ns.changedAt.set(ref.uid, tick);
  let owned = ns.byController.get(ref.uid);
  if (owned === undefined) ns.byController.set(ref.uid, (owned = new Map<string, Pod>()));
  owned.set(key, pod);
}

function remove(ns: NamespacePods, key: string, pod: Pod, tick: number): void {
  const ref = controllerRef(pod.metadata);
  if (ref === undefined) {
    if (ns.orphans.delete(key)) ns.orphansChangedAt = tick;
    return;
  }
  const owned = ns.byController.get(ref.uid);
  if (owned === undefined || !owned.delete(key)) return;
  ns.changedAt.set(ref.uid, tick);
  if (owned.size === 0) ns.byController.delete(ref.uid);
}
