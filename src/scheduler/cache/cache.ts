/**
 * The scheduler cache (pkg/scheduler/backend/cache/cache.go): NodeInfos kept up to date from node and
 * pod events, plus assumed pods (placed by a cycle, binding in flight). An assumed pod counts on its
 * node at once; it is confirmed when the informer reports it bound, or forgotten if binding fails.
 * Assumed pods never expire (kube-scheduler 1.32's default).
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { NodeInfo, PodInfo, podKey, sameResourceFields, type ImageStateSummary } from '../framework/types.js';
import { NodeTree } from './node-tree.js';
import { nodeInfoChange, type Snapshot } from './snapshot.js';

interface PodState {
  pod: Pod;
  /**
   * The pod's PodInfo on its node. Removing it there needs no search through the node's pods by key: on a
   * large heap each step of that search missed the CPU caches twice (the PodInfo, then its key), 8 µs a
   * search at 17 pods a node, and every informer update of an assigned pod searched.
   */
  info: PodInfo;
  assumed: boolean;
  bindingFinished: boolean;
}

interface ImageState {
  size: number;
  nodes: Set<string>;
}

export class CacheError extends Error {}

/** Same namespace, deletion timestamp and labels: every label selector counts both pods alike. */
function sameSelectorFields(a: Pod, b: Pod): boolean {
  const am = a.metadata;
  const bm = b.metadata;
  if (am?.namespace !== bm?.namespace || am?.deletionTimestamp !== bm?.deletionTimestamp) return false;
  const al = am?.labels;
  const bl = bm?.labels;
  if (al === bl) return true;
  if (al === undefined || bl === undefined) return false;
  const keys = Object.keys(al);
  if (keys.length !== Object.keys(bl).length) return false;
  for (const k of keys) if (!Object.prototype.hasOwnProperty.call(bl, k) || al[k] !== bl[k]) return false;
  return true;
}

/** Whether two node objects report the same images (names and sizes, in order). */
function sameImages(a: Node, b: Node): boolean {
  const x = a.status?.images ?? [];
  const y = b.status?.images ?? [];
  if (x === y) return true;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    const p = x[i];
    const q = y[i];
    if (p?.sizeBytes !== q?.sizeBytes) return false;
    const pn = p?.names ?? [];
    const qn = q?.names ?? [];
    if (pn.length !== qn.length || pn.some((n, j) => n !== qn[j])) return false;
  }
  return true;
}

export class Cache {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly podStates = new Map<string, PodState>();
  private readonly nodeTree = new NodeTree();
  private readonly imageStates = new Map<string, ImageState>();
  /**
   * The `imageStates` of every node reporting no images: one shared (never mutated) map, so ImageLocality's
   * check of its size stays in cache instead of reading one map per node.
   */
  private readonly noImageStates = new Map<string, ImageStateSummary>();
  /** Bumped whenever a node gains or loses an image in `imageStates` (so snapshot summaries can be reused). */
  private imageGeneration = 0;
  /** Each node's image summaries as last snapshotted, and the image generation they were counted at. */
  private readonly imageSummaries = new WeakMap<NodeInfo, { generation: number; summaries: Map<string, ImageStateSummary> }>();
  /** Nodes changed since the last snapshot update (names; the info may be gone). */
  private readonly dirty = new Set<string>();
  private lastSnapshot: Snapshot | undefined;
  private generation = 0;
  /** The node list's membership or order changed. */
  private treeChanged = true;

  private touch(name: string, info?: NodeInfo): void {
    this.generation++;
    if (info !== undefined) info.generation = this.generation;
    this.dirty.add(name);
  }

  private nodeInfoFor(name: string): NodeInfo {
    let ni = this.nodes.get(name);
    if (ni === undefined) {
      ni = new NodeInfo();
      ni.name = name;
      this.nodes.set(name, ni);
    }
    return ni;
  }

  // ---- nodes ----

  addNode(node: Node): void {
    this.updateNode(undefined, node);
  }

  /** The old object is not needed: the cache compares with the node it holds. */
  updateNode(_oldNode: Node | undefined, newNode: Node): void {
    const name = newNode.metadata?.name ?? '';
    const ni = this.nodeInfoFor(name);
    const prev = ni.node;
    if (prev === undefined) {
      this.nodeTree.addNode(newNode);
      this.treeChanged = true;
    } else if (this.nodeTree.updateNode(prev, newNode)) this.treeChanged = true;
    // Most node updates (status heartbeats) keep the image list: its states and counts stay as they are.
    if (prev === undefined || !sameImages(prev, newNode)) {
      if (prev !== undefined) this.removeNodeImageStates(prev);
      this.addNodeImageStates(newNode, ni);
    }
    ni.setNode(newNode);
    this.touch(name, ni);
  }

  removeNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const ni = this.nodes.get(name);
    if (ni === undefined) return;
    if (ni.node !== undefined) {
      this.removeNodeImageStates(ni.node);
      this.nodeTree.removeNode(ni.node);
      this.treeChanged = true;
    }
    // Pods still bound to a deleted node stay accounted until their deletion is observed.
    if (ni.pods.length === 0) this.nodes.delete(name);
    else ni.removeNode();
    this.touch(name, ni);
  }

  private addNodeImageStates(node: Node, ni: NodeInfo): void {
    const sum = new Map<string, ImageStateSummary>();
    const nodeName = node.metadata?.name ?? '';
    for (const img of node.status?.images ?? []) {
      for (const name of img.names ?? []) {
        let st = this.imageStates.get(name);
        if (st === undefined) this.imageStates.set(name, (st = { size: img.sizeBytes ?? 0, nodes: new Set() }));
        if (!st.nodes.has(nodeName)) {
          st.nodes.add(nodeName);
          this.imageGeneration++;
        }
        if (!sum.has(name)) sum.set(name, { size: st.size, numNodes: st.nodes.size });
      }
    }
    ni.imageStates = sum.size === 0 ? this.noImageStates : sum;
  }

  private removeNodeImageStates(node: Node): void {
    const nodeName = node.metadata?.name ?? '';
    for (const img of node.status?.images ?? []) {
      for (const name of img.names ?? []) {
        const st = this.imageStates.get(name);
        if (st === undefined) continue;
        if (st.nodes.delete(nodeName)) this.imageGeneration++;
        if (st.nodes.size === 0) this.imageStates.delete(name);
      }
    }
  }

  // ---- pods ----

  /** `sameResources`: a PodInfo of an older object of the pod whose computed requests still hold. */
  private addPodToNode(pod: Pod, sameResources?: PodInfo): PodInfo {
    const name = pod.spec?.nodeName ?? '';
    const ni = this.nodeInfoFor(name);
    const pi = new PodInfo(pod);
    if (sameResources !== undefined) pi.adoptResource(sameResources);
    ni.addPodInfo(pi);
    this.touch(name, ni);
    ni.podsMatchStamp = this.generation;
    return pi;
  }

  private removePodFromNode(st: PodState): void {
    const name = st.pod.spec?.nodeName ?? '';
    const ni = this.nodes.get(name);
    if (ni === undefined) return;
    ni.removePodInfo(st.info);
    if (ni.node === undefined && ni.pods.length === 0) this.nodes.delete(name);
    this.touch(name, ni);
    ni.podsMatchStamp = this.generation;
  }

  /** `AssumePod`: the pod (with spec.nodeName set) counts on its node before binding completes. */
  assumePod(pod: Pod): void {
    const key = podKey(pod);
    if (this.podStates.has(key)) throw new CacheError(`pod ${key}(${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}) is in the cache, so can't be assumed`);
    const info = this.addPodToNode(pod);
    this.podStates.set(key, { pod, info, assumed: true, bindingFinished: false });
  }

  finishBinding(pod: Pod): void {
    const st = this.podStates.get(podKey(pod));
    if (st !== undefined && st.assumed) st.bindingFinished = true;
  }

  /** `ForgetPod`: undo an assumption after a failed bind. */
  forgetPod(pod: Pod): void {
    const key = podKey(pod);
    const st = this.podStates.get(key);
    if (st === undefined || !st.assumed) return;
    this.removePodFromNode(st);
    this.podStates.delete(key);
  }

  isAssumedPod(pod: Pod): boolean {
    return this.podStates.get(podKey(pod))?.assumed ?? false;
  }

  getPod(pod: Pod): Pod | undefined {
    return this.podStates.get(podKey(pod))?.pod;
  }

  /** `AddPod`: an assigned pod seen by the informer; confirms an assumed one. */
  addPod(pod: Pod): void {
    const key = podKey(pod);
    const st = this.podStates.get(key);
    if (st !== undefined && st.assumed) {
      this.replacePodOnNode(st, pod);
      st.assumed = false;
      st.bindingFinished = true;
      return;
    }
    if (st !== undefined) {
      this.updatePod(st.pod, pod);
      return;
    }
    const info = this.addPodToNode(pod);
    this.podStates.set(key, { pod, info, assumed: false, bindingFinished: true });
  }

  updatePod(oldPod: Pod, newPod: Pod): void {
    const key = podKey(oldPod);
    const st = this.podStates.get(key);
    if (st === undefined) {
      this.addPod(newPod);
      return;
    }
    if (st.assumed) {
      this.addPod(newPod);
      return;
    }
    this.replacePodOnNode(st, newPod);
  }

  /**
   * Removes `prev` and adds `next` (a newer object of the same pod). When both sit on the same node with
   * the same namespace, labels and deletion timestamp (a status update, or an assumed pod confirmed by
   * the informer), every selector's match count on the node stays as it was, and so does its stamp.
   */
  private replacePodOnNode(st: PodState, next: Pod): void {
    const prev = st.pod;
    const ni = this.nodes.get(prev.spec?.nodeName ?? '');
    const stamp = ni?.podsMatchStamp ?? 0;
    this.removePodFromNode(st);
    st.info = this.addPodToNode(next, sameResourceFields(prev, next) ? st.info : undefined);
    st.pod = next;
    if (ni !== undefined && stamp !== 0 && this.nodes.get(next.spec?.nodeName ?? '') === ni && sameSelectorFields(prev, next)) ni.podsMatchStamp = stamp;
  }

  removePod(pod: Pod): void {
    const key = podKey(pod);
    const st = this.podStates.get(key);
    if (st === undefined) return;
    this.removePodFromNode(st);
    this.podStates.delete(key);
  }

  nodeCount(): number {
    let n = 0;
    for (const ni of this.nodes.values()) if (ni.node !== undefined) n++;
    return n;
  }

  podCount(): number {
    return this.podStates.size;
  }

  /** A NodeInfo of the cache (not a copy; for inspection in tests). */
  nodeInfo(name: string): NodeInfo | undefined {
    return this.nodes.get(name);
  }

  /**
   * `ImageStateSummary.Snapshot()` of each of the node's images: upstream counts the nodes holding an image
   * whenever it snapshots a NodeInfo, so a node re-copied after other nodes pulled its image sees the new
   * count, and an unchanged node keeps the count of its last copy. Reused while no node gained or lost an
   * image, since the counts are then the same.
   */
  private imageSummariesOf(ni: NodeInfo): Map<string, ImageStateSummary> {
    if (ni.imageStates.size === 0) return this.noImageStates;
    const memo = this.imageSummaries.get(ni);
    if (memo !== undefined && memo.generation === this.imageGeneration) return memo.summaries;
    const summaries = new Map<string, ImageStateSummary>();
    for (const [name, s] of ni.imageStates) summaries.set(name, { size: s.size, numNodes: this.imageStates.get(name)?.nodes.size ?? 0 });
    this.imageSummaries.set(ni, { generation: this.imageGeneration, summaries });
    return summaries;
  }

  /**
   * `UpdateSnapshot`: re-copies only nodes changed since this snapshot was last updated. A snapshot the
   * cache has not updated before is rebuilt fully.
   */
  updateSnapshot(s: Snapshot): void {
    const full = this.lastSnapshot !== s || s.generation === 0;
    let updateAllLists = this.treeChanged || full;
    let updateAffinityLists = false;
    const names = full ? [...new Set([...this.nodes.keys(), ...s.nodeInfoMap.keys()])] : [...this.dirty];
    for (const name of names) {
      const ni = this.nodes.get(name);
      if (ni === undefined || ni.node === undefined) {
        if (s.nodeInfoMap.delete(name)) updateAllLists = true;
        continue;
      }
      let existing = s.nodeInfoMap.get(name);
      const added = existing === undefined;
      if (existing === undefined) {
        existing = new NodeInfo();
        s.nodeInfoMap.set(name, existing);
        updateAllLists = true;
      }
      const clone = ni.snapshot();
      clone.imageStates = this.imageSummariesOf(ni);
      if (existing.podsWithAffinity.length > 0 !== clone.podsWithAffinity.length > 0) updateAffinityLists = true;
      if (existing.podsWithRequiredAntiAffinity.length > 0 !== clone.podsWithRequiredAntiAffinity.length > 0) updateAffinityLists = true;
      // A node new to the snapshot changes the list: whoever counts recounts it.
      const change = added || full ? undefined : nodeInfoChange(existing, clone);
      existing.copyFrom(clone);
      s.recordChange(existing, change);
      if (!updateAllLists) s.table.set(existing.snapshotIndex, existing);
    }
    this.dirty.clear();
    if (updateAllLists) {
      const list: NodeInfo[] = [];
      for (const name of this.nodeTree.list()) {
        const ni = s.nodeInfoMap.get(name);
        if (ni !== undefined) list.push(ni);
      }
      s.nodeInfoList = list;
      list.forEach((ni, i) => (ni.snapshotIndex = i));
      s.table.rebuild(list);
      this.treeChanged = false;
    }
    if (updateAllLists || updateAffinityLists) s.rebuildAffinityLists();
    s.images = this.imageStates;
    s.generation = this.generation;
    this.lastSnapshot = s;
  }
}
