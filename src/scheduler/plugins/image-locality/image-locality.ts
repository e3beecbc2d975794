/**
 * ImageLocality (pkg/scheduler/framework/plugins/imagelocality): favours nodes that already hold the
 * pod's images, scaled by how widely each image is spread so pods do not pile onto one node.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import { maxNodeScore, type Handle, type ScorePlugin } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Status } from '../../framework/status.js';
import type { ImageStateSummary, NodeInfo } from '../../framework/types.js';

export const Name = names.ImageLocality;

const mb = 1024 * 1024;
export const minThreshold = 23 * mb;
export const maxContainerThreshold = 1000 * mb;

/** `normalizedImageName`: adds `:latest` when the name has no tag. */
export function normalizedImageName(name: string): string {
  if (name.lastIndexOf(':') <= name.lastIndexOf('/')) return `${name}:latest`;
  return name;
}

function scaledImageScore(s: ImageStateSummary, totalNumNodes: number): number {
  const spread = s.numNodes / totalNumNodes;
  return Math.trunc(s.size * spread);
}

export function sumImageScores(nodeInfo: NodeInfo, pod: Pod, totalNumNodes: number): number {
  let sum = 0;
  if (nodeInfo.imageStates.size === 0) return 0;
  for (const c of pod.spec?.initContainers ?? []) {
    const s = nodeInfo.imageStates.get(normalizedImageName(c.image ?? ''));
    if (s !== undefined) sum += scaledImageScore(s, totalNumNodes);
  }
  for (const c of pod.spec?.containers ?? []) {
    const s = nodeInfo.imageStates.get(normalizedImageName(c.image ?? ''));
    if (s !== undefined) sum += scaledImageScore(s, totalNumNodes);
  }
  return sum;
}

export function calculatePriority(sumScores: number, numContainers: number): number {
  const maxThreshold = maxContainerThreshold * numContainers;
  if (sumScores < minThreshold) sumScores = minThreshold;
  else if (sumScores > maxThreshold) sumScores = maxThreshold;
  return Math.trunc((maxNodeScore * (sumScores - minThreshold)) / (maxThreshold - minThreshold));
}

export class ImageLocality implements ScorePlugin {
  readonly name = Name;
  constructor(private readonly handle: Handle) {}

  score(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    const total = this.handle.snapshot().list().length;
    const sum = sumImageScores(nodeInfo, pod, total);
    const n = (pod.spec?.initContainers?.length ?? 0) + (pod.spec?.containers.length ?? 0);
    return { score: calculatePriority(sum, n), status: Status.success() };
  }
}

export function create(_args: unknown, h: Handle): ImageLocality {
  return new ImageLocality(h);
}
