/**
 * Incremental per-domain match counts for PodTopologySpread's PreFilter and PreScore.
 *
 * Upstream walks every node of the snapshot for every pod and counts the node's pods matching each
 * constraint's selector (`countPodsMatchSelector`), O(pods) per cycle. Between two cycles only the nodes
 * the cache re-copied (a pod assumed, a node updated) change, so the answer to one question ("pods in
 * namespace N matching selector S, per value of topology key K, over the nodes a pod's inclusion policies
 * admit") is kept per snapshot position and caught up by re-counting only nodes whose NodeInfo changed:
 * O(nodes) cheap comparisons plus O(pods on changed nodes) per cycle. The totals equal the straightforward
 * loop's, and `order` lists values in the order that loop first meets them (its map insertion order).
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { Selector, requirementMatches, type Labels, type Requirement } from '../../../api/labels.js';
import type { NodeInfoChange, NodeInfoLister } from '../../framework/interfaces.js';
import type { NodeInfo, PodInfo, PodLabelIndex } from '../../framework/types.js';

/**
 * The requirements `selector` is the conjunction of, for a plain Selector; undefined for subclasses
 * (labels.Nothing()), which decide themselves.
 */
function conjunctionOf(selector: Selector): readonly Requirement[] | undefined {
  return Object.getPrototypeOf(selector) === Selector.prototype ? selector.requirements : undefined;
}

function matchesAll(reqs: readonly Requirement[], labels: Labels): boolean {
  for (let i = 0; i < reqs.length; i++) if (!requirementMatches(reqs[i] as Requirement, labels)) return false;
  return true;
}

/** `countPodsMatchSelector`: terminating pods and other namespaces are not counted. */
export function countPodsMatchSelector(pods: readonly PodInfo[], selector: Selector, ns: string): number {
  if (selector.isEmpty()) return 0;
  const reqs = conjunctionOf(selector);
  let n = 0;
  for (const p of pods) if (podCounts(p, selector, reqs, ns)) n++;
  return n;
}

/** Whether `countPodsMatchSelector` counts the pod; `reqs` is `conjunctionOf(selector)`, and the selector is not empty. */
function podCounts(p: PodInfo, selector: Selector, reqs: readonly Requirement[] | undefined, ns: string): boolean {
  const m = p.pod.metadata;
  if (m?.deletionTimestamp !== undefined || m?.namespace !== ns) return false;
  return reqs === undefined ? selector.matches(m.labels) : matchesAll(reqs, m.labels);
}

/** How much a change of a node's pods moves its count: what came and counts, less what left and counted. */
function countDelta(change: NodeInfoChange, selector: Selector, ns: string): number {
  if ((change.added.length === 0 && change.removed.length === 0) || selector.isEmpty()) return 0;
  const reqs = conjunctionOf(selector);
  let d = 0;
  for (const p of change.added) if (podCounts(p, selector, reqs, ns)) d++;
  for (const p of change.removed) if (podCounts(p, selector, reqs, ns)) d--;
  return d;
}

function indexPodLabel(pods: readonly PodInfo[], key: string): PodLabelIndex {
  const index: PodLabelIndex = new Map();
  for (const p of pods) {
    const m = p.pod.metadata;
    if (m === undefined || m.deletionTimestamp !== undefined || m.namespace === undefined || m.labels === undefined) continue;
    if (!Object.prototype.hasOwnProperty.call(m.labels, key)) continue;
    const value = m.labels[key] ?? '';
    let byValue = index.get(m.namespace);
    if (byValue === undefined) index.set(m.namespace, (byValue = new Map<string, PodInfo[]>()));
    const list = byValue.get(value);
    if (list === undefined) byValue.set(value, [p]);
    else list.push(p);
  }
  return index;
}

/** The first requirement that only pods carrying one of its values can meet, if any. */
function equalityRequirement(reqs: readonly Requirement[]): Requirement | undefined {
  for (const r of reqs) if (r.operator === 'In' || r.operator === 'Equals' || r.operator === 'DoubleEquals') return r;
  return undefined;
}

/**
 * `countPodsMatchSelector` for a conjunction with an equality requirement `eq`, given the node's pods
 * indexed by `eq`'s key: only the pods that carry one of `eq`'s values are tested against every requirement.
 */
function countIndexed(index: PodLabelIndex, reqs: readonly Requirement[], eq: Requirement, ns: string): number {
  const byValue = index.get(ns);
  if (byValue === undefined) return 0;
  // A pod carries one value per key: each value's pods are distinct, but a value listed twice counts once.
  const values = eq.values.length > 1 ? new Set(eq.values) : eq.values;
  let n = 0;
  for (const v of values) {
    for (const p of byValue.get(v) ?? []) if (matchesAll(reqs, p.pod.metadata?.labels)) n++;
  }
  return n;
}

/** Below this many pods a node is counted pod by pod rather than through an index of its pods' labels. */
const minPodsToIndex = 8;

/** Names the (selector, namespace) question; `MatchCounts.idOf` turns it into a number. */
export function memoKey(selector: Selector, ns: string): string {
  return `${ns}\u0000${selector.toString()}`;
}

/**
 * Memoizes `countPodsMatchSelector` per NodeInfo (`podsMemo`, dropped whenever its pods change): every
 * pod of a ReplicaSet asks the same (selector, namespace) question of every node, and between two cycles
 * only the nodes that changed need counting again. A node that changed is asked again by the question of
 * every ReplicaSet whose pods are being scheduled (hundreds while many Deployments roll out), so the memo
 * also keeps indexes of the node's pods by the value of a label key: a selector with an equality requirement
 * (every `matchLabels`) then tests only the few pods that carry its value.
 */
export class MatchCounts {
  private readonly ids = new Map<string, number>();
  private nextId = 0;

  /**
   * A number for a `memoKey` (number keys make the per-node lookups cheap). Ids are never reused, so
   * forgetting old ones only costs a recount.
   */
  idOf(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      if (this.ids.size >= 100_000) this.ids.clear();
      id = this.nextId++;
      this.ids.set(key, id);
    }
    return id;
  }

  /** `id` names the question: `idOf(memoKey(selector, ns))`, computed once per cycle by the caller. */
  count(nodeInfo: NodeInfo, selector: Selector, id: number, ns: string): number {
    let memo = nodeInfo.podsMemo;
    if (memo?.owner !== this) nodeInfo.podsMemo = memo = { owner: this, answers: new Map(), podsByLabel: undefined };
    let n = memo.answers.get(id);
    if (n === undefined) {
      const pods = nodeInfo.pods;
      const reqs = conjunctionOf(selector);
      // An empty selector has no equality requirement: countPodsMatchSelector answers it.
      const eq = reqs === undefined || pods.length < minPodsToIndex ? undefined : equalityRequirement(reqs);
      if (reqs === undefined || eq === undefined) n = countPodsMatchSelector(pods, selector, ns);
      else {
        const byKey = (memo.podsByLabel ??= new Map<string, PodLabelIndex>());
        let index = byKey.get(eq.key);
        if (index === undefined) byKey.set(eq.key, (index = indexPodLabel(pods, eq.key)));
        n = countIndexed(index, reqs, eq, ns);
      }
      memo.answers.set(id, n);
    }
    return n;
  }
}

/** One counting question over a snapshot's node list. */
export interface DomainQuestion {
  topologyKey: string;
  selector: Selector;
  /** `MatchCounts.idOf(memoKey(selector, namespace))`. */
  selectorId: number;
  namespace: string;
  /**
   * The topology value a node contributes to, or undefined when the node is not counted (missing required
   * topology keys, or excluded by the node inclusion policies). Must depend only on the node's name,
   * labels and spec (a new node object with only a new status keeps the value).
   */
  valueOf(nodeInfo: NodeInfo): string | undefined;
}

/** Per-value totals of one question, kept up to date with a snapshot's node list. */
export class DomainCounts {
  private list: readonly NodeInfo[] | undefined = undefined;
  private nodes: (Node | undefined)[] = [];
  private generations = new Float64Array(0);
  /** Per position, the change cursor at which the node was last counted afresh while catching up with the log. */
  private countedAt = new Float64Array(0);
  private values: (string | undefined)[] = [];
  private counts = new Int32Array(0);
  private readonly totals = new Map<string, number>();
  private readonly nodesPerValue = new Map<string, number>();
  private ordered: string[] | undefined = undefined;
  private cursor: number | undefined = undefined;

  /**
   * Catches up with the lister's node list: a different list array means a full recount; otherwise the
   * nodes re-copied since the last call (from the lister's change log, or by comparing every node when
   * it has none) are brought up to date. A logged copy that says which pods came and left moves the
   * node's count by those pods alone; other copies (new node labels or spec, an unknown change) have the
   * node counted again.
   */
  sync(lister: NodeInfoLister, q: DomainQuestion, matchCounts: MatchCounts): void {
    const list = lister.list();
    const cursor = lister.changeCursor?.();
    if (list !== this.list || list.length !== this.values.length) {
      this.rebuild(list, q, matchCounts);
    } else {
      const changes = this.cursor === undefined ? undefined : lister.changesSince?.(this.cursor);
      if (changes !== undefined && lister.indexOf !== undefined) {
        const { log, from, changes: details } = changes;
        const start = this.cursor ?? 0;
        const end = start + (log.length - from);
        for (let j = from; j < log.length; j++) {
          const ni = log[j] as NodeInfo;
          const i = lister.indexOf(ni);
          if (i === undefined || list[i] !== ni) continue;
          // A node counted afresh during this catch-up already reflects its later copies.
          if (start + (j - from) < (this.countedAt[i] ?? 0)) continue;
          const change = details?.[j];
          if (change === undefined || change.nodeChanged) {
            // Counted afresh, value included: earlier copies moved here may have taken the latest node object.
            this.generations[i] = NaN;
            this.nodes[i] = undefined;
            this.update(i, ni, q, matchCounts);
            this.countedAt[i] = end;
          } else {
            this.move(i, ni, change, q);
          }
        }
      } else {
        for (let i = 0; i < list.length; i++) this.update(i, list[i] as NodeInfo, q, matchCounts);
      }
    }
    this.cursor = cursor;
  }

  private update(i: number, ni: NodeInfo, q: DomainQuestion, matchCounts: MatchCounts): void {
    if (ni.generation === this.generations[i] && ni.node === this.nodes[i]) return;
    this.generations[i] = ni.generation;
    const old = this.values[i];
    let value = old;
    if (ni.node !== this.nodes[i]) {
      this.nodes[i] = ni.node;
      value = q.valueOf(ni);
    }
    this.remove(old, this.counts[i] ?? 0);
    const count = value === undefined ? 0 : matchCounts.count(ni, q.selector, q.selectorId, q.namespace);
    this.counts[i] = count;
    this.values[i] = value;
    this.add(value, count);
    if (value !== old) this.ordered = undefined;
  }

  /**
   * Applies one logged copy of `ni`, at `i`, whose node object is the one its value was taken from. The
   * catch-up applies every later copy too, so the position then reflects `ni` as it is now.
   */
  private move(i: number, ni: NodeInfo, change: NodeInfoChange, q: DomainQuestion): void {
    this.generations[i] = ni.generation;
    // A new object of the same name, labels and spec: the value taken from the old one holds.
    this.nodes[i] = ni.node;
    const value = this.values[i];
    if (value === undefined) return;
    const d = countDelta(change, q.selector, q.namespace);
    if (d === 0) return;
    this.counts[i] = (this.counts[i] ?? 0) + d;
    this.totals.set(value, (this.totals.get(value) ?? 0) + d);
  }

  private add(value: string | undefined, count: number): void {
    if (value === undefined) return;
    this.totals.set(value, (this.totals.get(value) ?? 0) + count);
    this.nodesPerValue.set(value, (this.nodesPerValue.get(value) ?? 0) + 1);
  }

  private remove(value: string | undefined, count: number): void {
    if (value === undefined) return;
    const left = (this.nodesPerValue.get(value) ?? 0) - 1;
    if (left <= 0) {
      this.nodesPerValue.delete(value);
      this.totals.delete(value);
      return;
    }
    this.nodesPerValue.set(value, left);
    this.totals.set(value, (this.totals.get(value) ?? 0) - count);
  }

  private rebuild(list: readonly NodeInfo[], q: DomainQuestion, matchCounts: MatchCounts): void {
    const n = list.length;
    this.list = list;
    this.nodes = new Array<Node | undefined>(n);
    this.generations = new Float64Array(n);
    this.countedAt = new Float64Array(n);
    this.values = new Array<string | undefined>(n);
    this.counts = new Int32Array(n);
    this.totals.clear();
    this.nodesPerValue.clear();
    this.ordered = undefined;
    for (let i = 0; i < n; i++) {
      const ni = list[i] as NodeInfo;
      this.nodes[i] = ni.node;
      this.generations[i] = ni.generation;
      const value = q.valueOf(ni);
      const count = value === undefined ? 0 : matchCounts.count(ni, q.selector, q.selectorId, q.namespace);
      this.values[i] = value;
      this.counts[i] = count;
      this.add(value, count);
    }
  }

  /** The count of the node at position `i` of the list last synced (0 when it is not counted). */
  countAt(i: number): number {
    return this.counts[i] ?? 0;
  }

  /** The matching pods counted in a domain (undefined: no counted node has this value). */
  total(value: string): number | undefined {
    return this.totals.get(value);
  }

  /** Values of counted nodes, in the order of their first node in the list. */
  order(): readonly string[] {
    if (this.ordered === undefined) {
      const seen = new Set<string>();
      for (const v of this.values) if (v !== undefined) seen.add(v);
      this.ordered = [...seen];
    }
    return this.ordered;
  }

  /** Position of the first counted node with each value (for merging several questions' orders). */
  firstIndexes(): Map<string, number> {
    const out = new Map<string, number>();
    this.values.forEach((v, i) => {
      if (v !== undefined && !out.has(v)) out.set(v, i);
    });
    return out;
  }
}
