/**
 * `resourceAllocationScorer` (noderesources/resource_allocation.go): the shared scoring skeleton of
 * NodeResourcesFit (LeastAllocated) and NodeResourcesBalancedAllocation.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isScalarResourceName, milliOf, podNonZeroRequestsNanos, podRequestsNanos, valueOf } from '../../framework/resources.js';
import type { NodeScore } from '../../framework/interfaces.js';
import type { NodeTable } from '../../framework/node-table.js';
import type { NodeInfo } from '../../framework/types.js';

/** `config.ResourceSpec`. */
export interface ResourceSpec {
  name: string;
  weight: number;
}

export const defaultResources: readonly ResourceSpec[] = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

export type Scorer = (requested: number[], allocatable: number[]) => number;

/** The pod's request per resource; non-zero defaults for cpu/memory unless `useRequested`. */
export function podResourceRequestList(pod: Pod, resources: readonly ResourceSpec[], useRequested: boolean): number[] {
  const nanos = useRequested ? podRequestsNanos(pod) : podNonZeroRequestsNanos(pod);
  return resources.map((r) => {
    const q = nanos.get(r.name) ?? 0n;
    return r.name === 'cpu' ? milliOf(q) : valueOf(q);
  });
}

function allocatableAndRequested(nodeInfo: NodeInfo, resource: string, podRequest: number, useRequested: boolean): [number, number] {
  const requested = useRequested ? nodeInfo.requested : nodeInfo.nonZeroRequested;
  if (podRequest === 0 && isScalarResourceName(resource)) return [0, 0];
  switch (resource) {
    case 'cpu':
      return [nodeInfo.allocatable.milliCPU, requested.milliCPU + podRequest];
    case 'memory':
      return [nodeInfo.allocatable.memory, requested.memory + podRequest];
    case 'ephemeral-storage':
      return [nodeInfo.allocatable.ephemeralStorage, nodeInfo.requested.ephemeralStorage + podRequest];
    default:
      if (nodeInfo.allocatable.scalarResources?.has(resource) === true) {
        return [nodeInfo.allocatable.scalar(resource), nodeInfo.requested.scalar(resource) + podRequest];
      }
      return [0, 0];
  }
}

/** True for the default `[cpu:1, memory:1]` resource list, which has allocation-free fast paths. */
export function isDefaultCpuMemory(resources: readonly ResourceSpec[]): boolean {
  return resources.length === 2 && resources[0]?.name === 'cpu' && resources[0].weight === 1 && resources[1]?.name === 'memory' && resources[1].weight === 1;
}

/** LeastAllocated over cpu and memory with weight 1 each; equal to the generic path. */
export function leastAllocatedCpuMemory(nodeInfo: NodeInfo, podCpu: number, podMem: number): number {
  return leastAllocated(nodeInfo.allocatableMilliCPU, nodeInfo.allocatableMemory, nodeInfo.nonZeroMilliCPU + podCpu, nodeInfo.nonZeroMemory + podMem);
}

/** `leastAllocatedCpuMemory` of a node's allocatable and (non-zero) requested cpu and memory, the pod's included. */
export function leastAllocated(allocCpu: number, allocMem: number, requestedCpu: number, requestedMem: number): number {
  let sum = 0;
  let w = 0;
  if (allocCpu !== 0) {
    sum += leastRequestedScore(requestedCpu, allocCpu);
    w++;
  }
  if (allocMem !== 0) {
    sum += leastRequestedScore(requestedMem, allocMem);
    w++;
  }
  return w === 0 ? 0 : Math.trunc(sum / w);
}

/** BalancedAllocation over cpu and memory (actual requests); equal to the generic path. */
export function balancedCpuMemory(nodeInfo: NodeInfo, podCpu: number, podMem: number): number {
  return balanced(nodeInfo.allocatableMilliCPU, nodeInfo.allocatableMemory, nodeInfo.requestedMilliCPU + podCpu, nodeInfo.requestedMemory + podMem);
}

/*
 * Scoring the nodes at `positions` of the node table by cpu and memory, from the table's columns: one loop
 * per scorer, each calling its scorer directly. A loop shared through a scorer parameter made that call
 * site polymorphic; V8 then called the scorer without inlining it and boxed its arguments (memory sizes are
 * beyond small integers): four heap numbers per node and plugin, the scheduler's largest garbage.
 */

/** LeastAllocated over cpu and memory for each node at `positions` (the non-zero requests, the pod's included). */
export function leastAllocatedByPosition(table: NodeTable, positions: Int32Array, scores: NodeScore[], podCpu: number, podMem: number): void {
  const { allocatableMilliCPU, allocatableMemory, nonZeroMilliCPU, nonZeroMemory } = table.columns;
  for (let j = 0; j < positions.length; j++) {
    const i = positions[j] as number;
    (scores[j] as NodeScore).score = leastAllocated(allocatableMilliCPU[i] as number, allocatableMemory[i] as number, (nonZeroMilliCPU[i] as number) + podCpu, (nonZeroMemory[i] as number) + podMem);
  }
}

/** BalancedAllocation over cpu and memory for each node at `positions` (the actual requests, the pod's included). */
export function balancedByPosition(table: NodeTable, positions: Int32Array, scores: NodeScore[], podCpu: number, podMem: number): void {
  const { allocatableMilliCPU, allocatableMemory, requestedMilliCPU, requestedMemory } = table.columns;
  for (let j = 0; j < positions.length; j++) {
    const i = positions[j] as number;
    (scores[j] as NodeScore).score = balanced(allocatableMilliCPU[i] as number, allocatableMemory[i] as number, (requestedMilliCPU[i] as number) + podCpu, (requestedMemory[i] as number) + podMem);
  }
}

/** `balancedCpuMemory` of a node's allocatable and requested cpu and memory, the pod's included. */
export function balanced(allocCpu: number, allocMem: number, requestedCpu: number, requestedMem: number): number {
  if (allocCpu === 0 || allocMem === 0) return 100;
  const fc = Math.min(1, requestedCpu / allocCpu);
  const fm = Math.min(1, requestedMem / allocMem);
  const std = Math.abs((fc - fm) / 2);
  return Math.trunc((1 - std) * 100);
}

/** `resourceAllocationScorer.score`. */
export function scoreResourceAllocation(nodeInfo: NodeInfo, podRequests: readonly number[], resources: readonly ResourceSpec[], useRequested: boolean, scorer: Scorer): number {
  const requested = new Array<number>(resources.length).fill(0);
  const allocatable = new Array<number>(resources.length).fill(0);
  for (let i = 0; i < resources.length; i++) {
    const [alloc, req] = allocatableAndRequested(nodeInfo, (resources[i] as ResourceSpec).name, podRequests[i] ?? 0, useRequested);
    if (alloc === 0) continue;
    allocatable[i] = alloc;
    requested[i] = req;
  }
  return scorer(requested, allocatable);
}

/** `leastRequestedScore`: ((capacity - requested) * 100) / capacity, 0 when over capacity. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  if (requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * 100) / capacity);
}

export function leastResourceScorer(resources: readonly ResourceSpec[]): Scorer {
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      const alloc = allocatable[i] ?? 0;
      if (alloc === 0) continue;
      const w = resources[i]?.weight ?? 1;
      nodeScore += leastRequestedScore(requested[i] ?? 0, alloc) * w;
      weightSum += w;
    }
    if (weightSum === 0) return 0;
    return Math.trunc(nodeScore / weightSum);
  };
}

/** `mostRequestedScore`. */
export function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  if (requested > capacity) requested = capacity;
  return Math.trunc((requested * 100) / capacity);
}

export function mostResourceScorer(resources: readonly ResourceSpec[]): Scorer {
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      const alloc = allocatable[i] ?? 0;
      if (alloc === 0) continue;
      const w = resources[i]?.weight ?? 1;
      nodeScore += mostRequestedScore(requested[i] ?? 0, alloc) * w;
      weightSum += w;
    }
    if (weightSum === 0) return 0;
    return Math.trunc(nodeScore / weightSum);
  };
}
