/**
 * ImageLocality (pkg/scheduler/framework/plugins/imagelocality): favours nodes that already hold the
 * pod's images, scaled by how widely each image is spread so pods do not pile onto one node.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { CycleState } from '../../framework/cycle-state.js';
import { maxNodeScore, type Handle, type NodeScore, type ScorePlugin } from '../../framework/interfaces.js';
import { names } from '../../framework/names.js';
import { Status } from '../../framework/status.js';
import type { NodeTable } from '../../framework/node-table.js';
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
  /** The last scored cycle's pod and image names: Score runs for every feasible node in one cycle. */
  private lastState: CycleState | undefined = undefined;
  private lastPod: Pod | undefined = undefined;
  private lastImages: readonly string[] = [];
  /** The cycle's pod scores 0 on every node (see `scoresZeroEverywhere`). */
  private lastZero = false;

  constructor(private readonly handle: Handle) {}

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): { score: number; status: Status } {
    return { score: this.scoreValue(state, pod, nodeInfo), status: Status.success() };
  }

  /** Whether the cycle's pod scores 0 on every node (`scoresZeroEverywhere`, worked out once per cycle). */
  private zeroEverywhere(state: CycleState, pod: Pod): boolean {
    if (state !== this.lastState || pod !== this.lastPod) {
      this.lastImages = podImageNames(pod);
      this.lastZero = this.scoresZeroEverywhere(this.lastImages);
      this.lastState = state;
      this.lastPod = pod;
    }
    return this.lastZero;
  }

  /** A pod that scores 0 everywhere needs no NodeInfo; others are scored node by node. */
  scorePositions(state: CycleState, pod: Pod, _table: NodeTable, positions: Int32Array, scores: NodeScore[]): boolean {
    if (!this.zeroEverywhere(state, pod)) return false;
    for (let j = 0; j < positions.length; j++) (scores[j] as NodeScore).score = 0;
    return true;
  }

  /**
   * A node's sum is at most the sum of the pod's image sizes (each image counts `size * numNodes / total`,
   * and numNodes <= total); below `minThreshold`, calculatePriority gives every node 0. Pods of small
   * images (pause) need no look-up per node then.
   */
  private scoresZeroEverywhere(images: readonly string[]): boolean {
    const lister = this.handle.snapshot();
    if (lister.imageSize === undefined) return false;
    let bound = 0;
    for (const name of images) bound += lister.imageSize(name) ?? 0;
    return bound < minThreshold;
  }

  scoreValue(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    if (this.zeroEverywhere(state, pod)) return 0;
    const total = this.handle.snapshot().list().length;
    const sum = sumScores(nodeInfo, this.lastImages, total);
    return calculatePriority(sum, this.lastImages.length);
  }
}

export function create(_args: unknown, h: Handle): ImageLocality {
  return new ImageLocality(h);
}
