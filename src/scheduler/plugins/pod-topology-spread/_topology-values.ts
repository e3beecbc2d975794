/**
 * Nodes' values of one topology key as small integer ids, by snapshot position, for PodTopologySpread's
 * PreScore and Score: every cycle reads the key's label of each feasible node, and reading it from the
 * node's labels object (one per node) and hashing the value string cost a cache miss or two per node.
 * An entry is tagged with the node object it was read from and read again when the cache holds a newer
 * one (cached node objects are immutable; an update replaces the object), and with that object's node
 * table generation (node-table.ts) when known, so a cycle that knows positions need not read NodeInfos.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import type { NodeInfo } from '../../framework/types.js';
import { grown } from '../../../util/typed-arrays.js';

export class TopologyValues {
  private nodes: (Node | undefined)[] = [];
  private ids = new Int32Array(0);
  /** The node table's generation of each entry's node object (0: not known). */
  private gens = new Float64Array(0);
  private readonly idByValue = new Map<string, number>();
  private values: string[] = [];

  constructor(readonly key: string) {}

  /**
   * Called once per cycle before any `idOf`, with the snapshot's node count: forgets everything when the
   * value dictionary has outgrown it (node names churn), so ids stay valid for the whole cycle.
   */
  beginCycle(numNodes: number): void {
    if (this.values.length > 2 * numNodes + 1024) {
      this.nodes = [];
      this.ids = new Int32Array(0);
      this.gens = new Float64Array(0);
      this.idByValue.clear();
      this.values = [];
    }
    while (this.nodes.length < numNodes) this.nodes.push(undefined);
    if (this.ids.length < numNodes) this.grow(numNodes);
  }

  /** The id of the node's value of the key, or -1 when the node does not have the label. */
  idOf(nodeInfo: NodeInfo): number {
    const i = nodeInfo.snapshotIndex;
    const node = nodeInfo.node;
    if (node !== undefined && i >= 0 && i < this.nodes.length && this.nodes[i] === node) return this.ids[i] as number;
    const id = this.read(nodeInfo);
    if (node !== undefined && i >= 0) this.store(i, node, id, 0);
    return id;
  }

  /**
   * The id of the value of the node at position `i` of the node table's list `list`, whose node object has
   * generation `gen` there; the NodeInfo is read only when the entry is not known for that object.
   */
  idAt(i: number, gen: number, list: readonly NodeInfo[]): number {
    if (gen !== 0 && this.gens[i] === gen) return this.ids[i] as number;
    const nodeInfo = list[i] as NodeInfo;
    const id = this.read(nodeInfo);
    if (nodeInfo.node !== undefined) this.store(i, nodeInfo.node, id, gen);
    return id;
  }

  private read(nodeInfo: NodeInfo): number {
    const labels = nodeInfo.labels;
    return Object.prototype.hasOwnProperty.call(labels, this.key) ? this.intern(labels[this.key] as string) : -1;
  }

  /** The id of a value (new values get the next id). */
  intern(value: string): number {
    let id = this.idByValue.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.idByValue.set(value, id);
    }
    return id;
  }

  valueOf(id: number): string {
    return this.values[id] ?? '';
  }

  private store(i: number, node: Node, id: number, gen: number): void {
    if (i >= this.ids.length) this.grow(Math.max(i + 1, 2 * this.ids.length));
    while (this.nodes.length <= i) this.nodes.push(undefined);
    this.nodes[i] = node;
    this.ids[i] = id;
    this.gens[i] = gen;
  }

  private grow(n: number): void {
    this.ids = grown(this.ids, n);
    this.gens = grown(this.gens, n);
  }
}
