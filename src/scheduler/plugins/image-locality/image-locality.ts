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

/** The normalised image names of the pod's init containers, then its containers. */
export function podImageNames(pod: Pod): string[] {
  const out: string[] = [];
  for (const c of pod.spec?.initContainers ?? []) out.push(normalizedImageName(c.image ?? ''));
  for (const c of pod.spec?.containers ?? []) out.push(normalizedImageName(c.image ?? ''));
  return out;
}

function sumScores(nodeInfo: NodeInfo, images: readonly string[], totalNumNodes: number): number {
  if (nodeInfo.imageStates.size === 0) return 0;
  let sum = 0;
  for (const name of images) {
    const s = nodeInfo.imageStates.get(name);
    if (s !== undefined) sum += scaledImageScore(s, totalNumNodes);
  }
  return sum;
}

export function sumImageScores(nodeInfo: NodeInfo, pod: Pod, totalNumNodes: number): number {
  return sumScores(nodeInfo, podImageNames(pod), totalNumNodes);
}

export function calculatePriority(sumScores: number, numContainers: number): number {
  const maxThreshold = maxContainerThreshold * numContainers;
  if (sumScores < minThreshold) sumScores = minThreshold;
  else if (sumScores > maxThreshold) sumScores = maxThreshold;
  return Math.trunc((maxNodeScore * (sumScores - minThreshold)) / (maxThreshold - minThreshold));
}

export class ImageLocality implements ScorePlugin {
  readonly name = Name;
  /** The last scored pod's image names: Score runs for every feasible node with the same pod object. */
  private lastPod: Pod | undefined = undefined;
  private lastImages: readonly string[] = [];

  constructor(private readonly handle: Handle) {}

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    return { score: this.scoreValue(state, pod, nodeInfo), status: Status.success() };
  }

  scoreValue(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    if (pod !== this.lastPod) {
      this.lastImages = podImageNames(pod);
      this.lastPod = pod;
    }
    const total = this.handle.snapshot().list().length;
    const sum = sumScores(nodeInfo, this.lastImages, total);
    return calculatePriority(sum, this.lastImages.length);
  }
}

export function create(_args: unknown, h: Handle): ImageLocality {
  return new ImageLocality(h);
}
