/**
 * `framework.NodeToStatus`, `Diagnosis` and `FitError` (pkg/scheduler/framework/types.go): why a pod
 * fits nowhere, and the FailedScheduling message built from it (semantics.md section 3).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { NodeToStatusReader } from './interfaces.js';
import { Code, Status, newStatus } from './status.js';
import { compareStrings } from '../../util/compare-strings.js';

export const noNodeAvailableMsg = (n: number): string => `0/${n} nodes are available`;
/** `ErrNoNodesAvailable`. */
export const errNoNodesAvailableMessage = 'no nodes available to schedule pods';

/**
 * Statuses per node; nodes without an entry answer `absentNodesStatus` (UnschedulableAndUnresolvable by
 * default). Entries live in the first `count` slots of arrays (the filter loop records thousands per
 * cycle, and `clear` lets the scheduling algorithm reuse them after a successful cycle); the name index
 * is built on the first lookup.
 */
export class NodeToStatus implements NodeToStatusReader {
  private readonly names: string[] = [];
  private readonly statuses: Status[] = [];
  /** The node's position in the snapshot list it was recorded from, -1 when not known. */
  private readonly positions: number[] = [];
  private count = 0;
  private index: Map<string, number> | undefined;
  private absent: Status = newStatus(Code.UnschedulableAndUnresolvable);

  /** Forgets every entry and the absent nodes' status (keeps the arrays' room). */
  clear(): void {
    this.count = 0;
    this.index = undefined;
    this.absent = newStatus(Code.UnschedulableAndUnresolvable);
  }

  private lookup(): Map<string, number> {
    if (this.index === undefined) {
      const m = new Map<string, number>();
      for (let i = 0; i < this.count; i++) m.set(this.names[i] as string, i);
      this.index = m;
    }
    return this.index;
  }

  set(nodeName: string, s: Status): void {
    const i = this.lookup().get(nodeName);
    if (i !== undefined) this.statuses[i] = s;
    else this.appendNew(nodeName, s);
  }

  /**
   * Records a node that has no entry yet (the caller guarantees it); cheaper than `set`. `position`: the
   * node's index in the snapshot's node list, when known (lets `byPosition` answer without a name index).
   */
  appendNew(nodeName: string, s: Status, position = -1): void {
    const i = this.count++;
    if (i < this.names.length) {
      this.names[i] = nodeName;
      this.statuses[i] = s;
      this.positions[i] = position;
    } else {
      this.names.push(nodeName);
      this.statuses.push(s);
      this.positions.push(position);
    }
    this.index?.set(nodeName, i);
  }

  /**
   * The recorded statuses laid out by position in `list` (undefined where no status is recorded, i.e.
   * `absentNodesStatus()`), when every entry was recorded with its node's position in that very list;
   * otherwise undefined (then ask `get`). Spares building the name index over thousands of nodes.
   */
  byPosition(list: readonly { readonly name: string }[]): (Status | undefined)[] | undefined {
    const out = new Array<Status | undefined>(list.length).fill(undefined);
    for (let k = 0; k < this.count; k++) {
      const p = this.positions[k] ?? -1;
      if (p < 0 || list[p]?.name !== this.names[k]) return undefined;
      out[p] = this.statuses[k];
    }
    return out;
  }

  get(nodeName: string): Status {
    const i = this.lookup().get(nodeName);
    return i === undefined ? this.absent : (this.statuses[i] as Status);
  }
  has(nodeName: string): boolean {
    return this.lookup().has(nodeName);
  }
  /** Number of explicitly recorded nodes. */
  len(): number {
    return this.count;
  }
  absentNodesStatus(): Status {
    return this.absent;
  }
  setAbsentNodesStatus(s: Status): void {
    this.absent = s;
  }
  forEachExplicitNode(fn: (nodeName: string, s: Status) => void): void {
    for (let i = 0; i < this.count; i++) fn(this.names[i] as string, this.statuses[i] as Status);
  }
}

export interface Diagnosis {
  nodeToStatus: NodeToStatus;
  /** Plugins that rejected the pod (drive queueing hints). */
  unschedulablePlugins: Set<string>;
  pendingPlugins: Set<string>;
  preFilterMsg: string;
  postFilterMsg: string;
}

/** `nodeToStatus`: an empty (possibly recycled) map to record into; a new one by default. */
export function newDiagnosis(nodeToStatus: NodeToStatus = new NodeToStatus()): Diagnosis {
  return { nodeToStatus, unschedulablePlugins: new Set(), pendingPlugins: new Set(), preFilterMsg: '', postFilterMsg: '' };
}


/** `FitError`: the pod fits on none of `numAllNodes` nodes. */
export class FitError {
  readonly name = 'FitError';
  constructor(
    readonly pod: Pod,
    readonly numAllNodes: number,
    readonly diagnosis: Diagnosis,
  ) {}

  /** Computed on each read: PostFilter adds its message after the error is created. */
  get message(): string {
    return this.error();
  }

  /** `FitError.Error()`. */
  error(): string {
    let msg = `${noNodeAvailableMsg(this.numAllNodes)}:`;
    const d = this.diagnosis;
    if (d.preFilterMsg !== '') {
      msg += ` ${d.preFilterMsg}.`;
    } else {
      // Nodes share a few status objects: count those, then their reasons.
      const byStatus = new Map<Status, number>();
      d.nodeToStatus.forEachExplicitNode((_n, s) => {
        byStatus.set(s, (byStatus.get(s) ?? 0) + 1);
      });
      const reasons = new Map<string, number>();
      for (const [s, n] of byStatus) for (const r of s.reasons()) reasons.set(r, (reasons.get(r) ?? 0) + n);
      const absent = this.numAllNodes - d.nodeToStatus.len();
      if (absent > 0) {
        for (const r of d.nodeToStatus.absentNodesStatus().reasons()) reasons.set(r, (reasons.get(r) ?? 0) + absent);
      }
      const parts = [...reasons].map(([r, n]) => `${n} ${r}`).sort(compareStrings);
      if (parts.length > 0) msg += ` ${parts.join(', ')}.`;
    }
    if (d.postFilterMsg !== '') msg += ` ${d.postFilterMsg}`;
    return msg;
  }
}
