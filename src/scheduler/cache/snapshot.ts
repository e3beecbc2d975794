/**
 * `Snapshot` (pkg/scheduler/backend/cache/snapshot.go): the immutable-per-cycle view plugins read. The
 * cache refreshes it incrementally: only nodes changed since the last update are re-copied, in place, so
 * list membership is rebuilt only when nodes come or go or a node gains/loses pods with affinity.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { NodeInfoChange, NodeInfoLister } from '../framework/interfaces.js';
import { jsonDeepEqual } from '../../util/json-equal.js';
import { NodeTable } from '../framework/node-table.js';
import { NodeInfo, type PodInfo } from '../framework/types.js';

const noPods: readonly PodInfo[] = [];

/** Whether the node's name, labels or spec (its taints, unschedulable) differ between two of its objects. */
function domainFieldsChanged(a: Node | undefined, b: Node | undefined): boolean {
  if (a === b) return false;
  if (a === undefined || b === undefined) return true;
  return a.metadata?.name !== b.metadata?.name || !jsonDeepEqual(a.metadata?.labels, b.metadata?.labels) || !jsonDeepEqual(a.spec, b.spec);
}

/**
 * What re-copying `existing` from `next` changes in its pods, by PodInfo identity (a pod keeps its PodInfo
 * until its object is replaced). Equal nonzero `podsMatchStamp`s mean no pod's namespace, labels or
 * deletion timestamp changed: the pods then count as they did, whatever else changed.
 */
export function nodeInfoChange(existing: NodeInfo, next: NodeInfo): NodeInfoChange {
  const nodeChanged = domainFieldsChanged(existing.node, next.node);
  if (existing.podsMatchStamp !== 0 && existing.podsMatchStamp === next.podsMatchStamp) {
    return { nodeChanged, added: noPods, removed: noPods };
  }
  const before = new Set(existing.pods);
  const added = next.pods.filter((p) => !before.delete(p));
  return { nodeChanged, added: added.length === 0 ? noPods : added, removed: before.size === 0 ? noPods : [...before] };
}

export class Snapshot implements NodeInfoLister {
  nodeInfoMap = new Map<string, NodeInfo>();
  nodeInfoList: NodeInfo[] = [];
  havePodsWithAffinityNodeInfoList: NodeInfo[] = [];
  havePodsWithRequiredAntiAffinityNodeInfoList: NodeInfo[] = [];
  /** The cache generation this snapshot reflects. */
  generation = 0;
  /** NodeInfos re-copied in place by the cache, oldest first; `changeLog[0]` has sequence `changeLogStart`. */
  private changeLog: NodeInfo[] = [];
  /** What each copy of `changeLog` changed in its node's pods (undefined: not known). */
  private changeDetails: (NodeInfoChange | undefined)[] = [];
  private changeLogStart = 0;
  private positions: Map<NodeInfo, number> | undefined = undefined;
  private positionsOf: readonly NodeInfo[] | undefined = undefined;
  /** The list's nodes as columns for the filter loop (kept in step with `nodeInfoList` by the cache). */
  readonly table = new NodeTable();
  /** Every image a node holds, with the size nodes' summaries carry (the cache's image states). */
  images: ReadonlyMap<string, { readonly size: number }> = new Map();

  /** `NewSnapshot(pods, nodes)`: a standalone snapshot for tests and offline checks. */
  static fromPodsAndNodes(pods: readonly Pod[], nodes: readonly Node[]): Snapshot {
    const s = new Snapshot();
    const byNode = new Map<string, NodeInfo>();
    for (const n of nodes) {
      const ni = new NodeInfo();
      ni.setNode(n);
      byNode.set(ni.name, ni);
    }
    for (const p of pods) {
      const name = p.spec?.nodeName ?? '';
      byNode.get(name)?.addPod(p);
    }
    const images = new Map<string, { size: number; nodes: Set<string> }>();
    for (const n of nodes) {
      for (const img of n.status?.images ?? []) {
        for (const name of img.names ?? []) {
          let st = images.get(name);
          if (st === undefined) images.set(name, (st = { size: img.sizeBytes ?? 0, nodes: new Set() }));
          st.nodes.add(n.metadata?.name ?? '');
        }
      }
    }
    for (const n of nodes) {
      const ni = byNode.get(n.metadata?.name ?? '');
      if (ni === undefined) continue;
      for (const img of n.status?.images ?? []) {
        for (const name of img.names ?? []) {
          const st = images.get(name);
          if (st !== undefined && !ni.imageStates.has(name)) ni.imageStates.set(name, { size: st.size, numNodes: st.nodes.size });
        }
      }
    }
    s.images = images;
    for (const ni of byNode.values()) s.nodeInfoMap.set(ni.name, ni);
    s.nodeInfoList = [...byNode.values()];
    s.nodeInfoList.forEach((ni, i) => (ni.snapshotIndex = i));
    s.table.rebuild(s.nodeInfoList);
    s.rebuildAffinityLists();
    return s;
  }

  rebuildAffinityLists(): void {
    this.havePodsWithAffinityNodeInfoList = this.nodeInfoList.filter((n) => n.podsWithAffinity.length > 0);
    this.havePodsWithRequiredAntiAffinityNodeInfoList = this.nodeInfoList.filter((n) => n.podsWithRequiredAntiAffinity.length > 0);
  }

  /**
   * Called by the cache after re-copying `ni` in place. When the log outgrows the node count its older half
   * is dropped: readers whose cursor is older compare every node instead.
   */
  recordChange(ni: NodeInfo, change?: NodeInfoChange): void {
    if (this.changeLog.length >= 2 * this.nodeInfoMap.size + 1024) {
      const dropped = this.changeLog.length >> 1;
      this.changeLogStart += dropped;
      this.changeLog = this.changeLog.slice(dropped);
      this.changeDetails = this.changeDetails.slice(dropped);
    }
    this.changeLog.push(ni);
    this.changeDetails.push(change);
  }

  changeCursor(): number {
    return this.changeLogStart + this.changeLog.length;
  }

  changesSince(cursor: number): { log: readonly NodeInfo[]; from: number; changes: readonly (NodeInfoChange | undefined)[] } | undefined {
    const from = cursor - this.changeLogStart;
    if (from < 0 || from > this.changeLog.length) return undefined;
    return { log: this.changeLog, from, changes: this.changeDetails };
  }

  indexOf(nodeInfo: NodeInfo): number | undefined {
    const i = nodeInfo.snapshotIndex;
    if (this.nodeInfoList[i] === nodeInfo) return i;
    if (this.positionsOf !== this.nodeInfoList || this.positions === undefined) {
      this.positions = new Map(this.nodeInfoList.map((ni, i) => [ni, i]));
      this.positionsOf = this.nodeInfoList;
    }
    return this.positions.get(nodeInfo);
  }

  list(): readonly NodeInfo[] {
    return this.nodeInfoList;
  }
  havePodsWithAffinityList(): readonly NodeInfo[] {
    return this.havePodsWithAffinityNodeInfoList;
  }
  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[] {
    return this.havePodsWithRequiredAntiAffinityNodeInfoList;
  }
  get(nodeName: string): NodeInfo | undefined {
    return this.nodeInfoMap.get(nodeName);
  }
  imageSize(name: string): number | undefined {
    return this.images.get(name)?.size;
  }
  numNodes(): number {
    return this.nodeInfoList.length;
  }
}
