/**
 * The snapshot's nodes as columns, by position in its node list: what the filter loop needs of every node it
 * visits and the scorers of every feasible node, in typed arrays. A cycle visits hundreds to thousands of
 * nodes, and reading each NodeInfo (and its node object) is a cache miss per node once the heap is large;
 * reading a column is not.
 *
 * `objectGen[i]` changes whenever the node object at position `i` changes (a number unique in the process),
 * so node-object verdicts (node-verdicts.ts) can be checked against it without reading the NodeInfo.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { grown } from '../../util/typed-arrays.js';
import type { NodeInfo } from './types.js';

/** Process-wide, so a generation never matches one that another table gave out. */
let nextObjectGen = 1;

/** The NodeInfo fields the table copies, each into the column of the same name. */
const copiedFields = [
  'freeMilliCPU',
  'freeMemory',
  'freeEphemeralStorage',
  'freePods',
  'allocatableMilliCPU',
  'allocatableMemory',
  'requestedMilliCPU',
  'requestedMemory',
  'nonZeroMilliCPU',
  'nonZeroMemory',
] as const;

export type CopiedField = (typeof copiedFields)[number];

export class NodeTable {
  /** The list the columns describe (the snapshot's `nodeInfoList`); positions are indexes in it. */
  list: readonly NodeInfo[] = [];
  objectGen = new Float64Array(0);
  /** How many taints the node has. */
  taintCount = new Float64Array(0);
  /**
   * Copies of NodeInfo's fields of the same names: the free amounts (NodeResourcesFit's Filter) and the
   * allocatable, requested and non-zero requested cpu and memory (the scorers'). Read them afresh each
   * cycle: growing replaces the arrays.
   */
  readonly columns = Object.fromEntries(copiedFields.map((f) => [f, new Float64Array(0)])) as Record<CopiedField, Float64Array>;
  readonly names: string[] = [];
  private readonly objects: (Node | undefined)[] = [];

  /** Describes `list` afresh (nodes came, went or moved); a position keeps its generation while its node object is the same. */
  rebuild(list: readonly NodeInfo[]): void {
    this.list = list;
    if (this.objectGen.length < list.length) this.grow(list.length);
    this.names.length = list.length;
    this.objects.length = list.length;
    for (let i = 0; i < list.length; i++) this.set(i, list[i] as NodeInfo);
  }

  /** Records the NodeInfo now at position `i` of `list` (after the snapshot re-copied it). */
  set(i: number, ni: NodeInfo): void {
    if (i < 0 || i >= this.list.length) return;
    if (this.objects[i] !== ni.node || this.objectGen[i] === 0) {
      this.objects[i] = ni.node;
      this.objectGen[i] = nextObjectGen++;
    }
    this.names[i] = ni.name;
    this.taintCount[i] = ni.taints.length;
    const columns = this.columns;
    for (const f of copiedFields) columns[f][i] = ni[f];
  }

  /** The generation of `ni`'s node object when `ni` holds the object the table has at its position, else 0 (unknown). */
  genOf(ni: NodeInfo): number {
    const i = ni.snapshotIndex;
    return i >= 0 && i < this.list.length && this.objects[i] === ni.node ? (this.objectGen[i] as number) : 0;
  }

  private grow(n: number): void {
    const size = Math.max(n, this.objectGen.length * 2, 64);
    this.objectGen = grown(this.objectGen, size);
    this.taintCount = grown(this.taintCount, size);
    for (const f of copiedFields) this.columns[f] = grown(this.columns[f], size);
  }
}
