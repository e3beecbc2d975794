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
}

function nsOf(p: Pod): string {
  return p.metadata?.namespace ?? 'default';
}

export class ClaimCandidateIndex {
  private readonly namespaces = new Map<string, NamespacePods>();

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

  /** Pods controlled by `uid` in `namespace`. */
  controlledBy(namespace: string, uid: string): Pod[] {
    return [...(this.indexed(namespace).byController.get(uid)?.values() ?? [])];
  }

  private upsert(old: Pod | undefined, pod: Pod): void {
    const ns = this.namespaces.get(nsOf(pod));
    if (ns === undefined) return;
    const key = objectKey(pod);
    if (old !== undefined) remove(ns, key, old);
    remove(ns, key, pod);
    add(ns, key, pod);
  }

  private delete(pod: Pod): void {
    const ns = this.namespaces.get(nsOf(pod));
    if (ns !== undefined) remove(ns, objectKey(pod), pod);
  }

  private indexed(namespace: string): NamespacePods {
    let ns = this.namespaces.get(namespace);
    if (ns === undefined) {
      ns = { byController: new Map(), orphans: new Map() };
      for (const p of this.pods.byIndex(NamespaceIndex, namespace)) add(ns, objectKey(p), p);
      this.namespaces.set(namespace, ns);
    }
    return ns;
  }
}

function add(ns: NamespacePods, key: string, pod: Pod): void {
  const ref = controllerRef(pod.metadata);
  if (ref === undefined) {
    ns.orphans.set(key, pod);
    return;
  }
  let owned = ns.byController.get(ref.uid);
  if (owned === undefined) ns.byController.set(ref.uid, (owned = new Map<string, Pod>()));
  owned.set(key, pod);
}

function remove(ns: NamespacePods, key: string, pod: Pod): void {
  const ref = controllerRef(pod.metadata);
  if (ref === undefined) {
    ns.orphans.delete(key);
    return;
  }
  const owned = ns.byController.get(ref.uid);
  if (owned === undefined) return;
  owned.delete(key);
  if (owned.size === 0) ns.byController.delete(ref.uid);
}
