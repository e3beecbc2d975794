/**
 * NodeResourcesBalancedAllocation (noderesources/balanced_allocation.go): favours nodes whose cpu and
 * memory fractions (after placing the pod, by actual requests) are close: score = (1 - std) * 100.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState, StateData } from '../../framework/cycle-state.js';
import { maxNodeScore, type Handle, type NodeScore, type PreScorePlugin, type ScorePlugin } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Status } from '../../framework/status.js';
import type { NodeTable } from '../../framework/node-table.js';
import type { NodeInfo } from '../../framework/types.js';
import { balancedByPosition, balancedCpuMemory, defaultResources, isDefaultCpuMemory, podResourceRequestList, scoreResourceAllocation, type ResourceSpec } from '../node-resources-fit/resource-allocation.js';

export const Name = names.NodeResourcesBalancedAllocation;
const preScoreStateKey = 'PreScore' + Name;

export interface BalancedAllocationArgs {
  resources?: ResourceSpec[];
}

class PreScoreState implements StateData {
  constructor(readonly podRequests: number[]) {}
  clone(): StateData {
    return this;
  }
}

/** `balancedResourceScorer`. */
export function balancedResourceScorer(requested: number[], allocatable: number[]): number {
  const fractions: number[] = [];
  let total = 0;
  for (let i = 0; i < requested.length; i++) {
    const alloc = allocatable[i] ?? 0;
    if (alloc === 0) continue;
    let f = (requested[i] ?? 0) / alloc;
    if (f > 1) f = 1;
    total += f;
    fractions.push(f);
  }
  let std = 0;
  if (fractions.length === 2) {
    std = Math.abs(((fractions[0] ?? 0) - (fractions[1] ?? 0)) / 2);
  } else if (fractions.length > 2) {
    const mean = total / fractions.length;
    let sum = 0;
    for (const f of fractions) sum += (f - mean) * (f - mean);
    std = Math.sqrt(sum / fractions.length);
  }
  return Math.trunc((1 - std) * maxNodeScore);
}

export class NodeResourcesBalancedAllocation implements PreScorePlugin, ScorePlugin {
  readonly name = Name;
  private readonly resources: readonly ResourceSpec[];
  private readonly fastScore: boolean;

  constructor(args: BalancedAllocationArgs = {}) {
    this.resources = args.resources ?? defaultResources;
    this.fastScore = isDefaultCpuMemory(this.resources);
  }

  preScore(state: CycleState, pod: Pod, _nodes: readonly NodeInfo[]): Status {
    state.write(preScoreStateKey, new PreScoreState(podResourceRequestList(pod, this.resources, true)));
    return Status.success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    return { score: this.scoreValue(state, pod, nodeInfo), status: Status.success() };
  }

  scoreValue(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    const s = state.read<PreScoreState>(preScoreStateKey);
    const req = s?.podRequests ?? podResourceRequestList(pod, this.resources, true);
    if (this.fastScore) return balancedCpuMemory(nodeInfo, req[0] ?? 0, req[1] ?? 0);
    return scoreResourceAllocation(nodeInfo, req, this.resources, true, balancedResourceScorer);
  }

  /** Balanced cpu and memory from the node table. */
  scorePositions(state: CycleState, pod: Pod, table: NodeTable, positions: Int32Array, scores: NodeScore[]): boolean {
    if (!this.fastScore) return false;
    const req = state.read<PreScoreState>(preScoreStateKey)?.podRequests ?? podResourceRequestList(pod, this.resources, true);
    balancedByPosition(table, positions, scores, req[0] ?? 0, req[1] ?? 0);
    return true;
  }
}

export function create(args: unknown, _h: Handle): NodeResourcesBalancedAllocation {
  return new NodeResourcesBalancedAllocation((args ?? {}));
}
