/**
 * Filter verdicts that depend only on the node object, kept across scheduling cycles.
 *
 * The filters that open the default profile (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity)
 * read nothing but the node object and a few pod fields, and every pod of a workload asks them the same
 * question of every node it visits. Their combined verdict (success, or the first rejection with its
 * plugin) is therefore stored per snapshot position, tagged with the node object it was computed for:
 * a later cycle asking the same question (equal key) reuses it while the node object is unchanged, and
 * recomputes it when the cache holds a newer node object (labels, taints, spec: any update). Cached node
 * objects are treated as immutable (a node update replaces the object), as elsewhere in the scheduler.
 * Each verdict also carries the node table's generation for its node object (node-table.ts), so the filter
 * loop can find it by position without reading the NodeInfo.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { grown } from '../../util/typed-arrays.js';
import type { Status } from './status.js';

/** The verdicts for one question (filter key), by snapshot position. */
export class NodeVerdicts {
  private nodes: (Node | undefined)[] = [];
  private statuses: (Status | undefined)[] = [];
  /** The node table's generation of each verdict's node object (0: not known). */
  private gens = new Float64Array(0);

  /** Makes room for positions below `n` (kept packed so the per-node reads stay fast). */
  reserve(n: number): void {
    while (this.nodes.length < n) {
      this.nodes.push(undefined);
      this.statuses.push(undefined);
    }
    if (this.gens.length < n) this.gens = grown(this.gens, n);
  }

  /** The verdict computed for `node` at position `i`, or undefined when none is known for that object. */
  get(i: number, node: Node): Status | undefined {
    return this.nodes[i] === node ? this.statuses[i] : undefined;
  }

  /** The verdict at position `i` when it was computed for the node object of generation `gen` (nonzero). */
  atGen(i: number, gen: number): Status | undefined {
    return this.gens[i] === gen ? this.statuses[i] : undefined;
  }

  /** Records the verdict for `node` at position `i` (ignored outside the reserved positions); `gen`: its generation, 0 if not known. */
  set(i: number, node: Node, gen: number, s: Status): void {
    if (i < 0 || i >= this.nodes.length) return;
    this.nodes[i] = node;
    this.statuses[i] = s;
    this.gens[i] = gen;
  }
}
