/**
 * The TTL controller (`pkg/controller/ttl`): every node gets the `node.alpha.kubernetes.io/ttl` annotation,
 * how long its kubelet may cache secrets and config maps, by cluster size: 0 s up to 100 nodes, then 15,
 * 30, 60 and 300 s, with overlapping bounds so a cluster near a bound does not flap. Every node update is
 * looked at, so a node whose annotation is missing or stale is patched within its next status update.
 */
import type { Node } from 'kubernetes-types/core/v1.js';
import { isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { runWorkers, type Controller, type ControllerContext } from '../_context.js';
import { names } from '../names.js';

/** `v1.ObjectTTLAnnotationKey`. */
export const ttlAnnotation = 'node.alpha.kubernetes.io/ttl';

/** `ttlBoundaries`: a step is left upwards above sizeMax and downwards below sizeMin. */
export const ttlBoundaries: readonly { sizeMin: number; sizeMax: number; ttlSeconds: number }[] = [
  { sizeMin: 0, sizeMax: 100, ttlSeconds: 0 },
  { sizeMin: 90, sizeMax: 500, ttlSeconds: 15 },
  { sizeMin: 450, sizeMax: 1000, ttlSeconds: 30 },
  { sizeMin: 900, sizeMax: 2000, ttlSeconds: 60 },
  { sizeMin: 1800, sizeMax: 2 ** 31 - 1, ttlSeconds: 300 },
];

/** Upstream runs it with five workers (`startTTLController`). */
const workers = 5;

export class TTLController implements Controller {
  readonly name = names.TTL;
  private readonly queue;
  private readonly nodes;
  private nodeCount = 0;
  private boundaryStep = 0;
  private desiredTTLSeconds = 0;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.nodes = ctx.informer<Node>(resources.nodes);
  }

  start(): void {
    this.nodes.addHandlers({
      onAdd: (n) => {
        // addNode: one more node may move the cluster up a step.
        this.nodeCount++;
        if (this.nodeCount > (ttlBoundaries[this.boundaryStep]?.sizeMax ?? Infinity)) this.step(1);
        this.queue.add(n.metadata?.name ?? '');
      },
      // updateNode: every update is a chance to put a stale annotation right.
      onUpdate: (_, n) => this.queue.add(n.metadata?.name ?? ''),
      onDelete: () => {
        this.nodeCount--;
        if (this.nodeCount < (ttlBoundaries[this.boundaryStep]?.sizeMin ?? 0)) this.step(-1);
      },
    });
    void runWorkers(this.queue, (name) => this.updateNodeIfNeeded(name), workers);
  }

  stop(): void {
    this.queue.shutDown();
  }

  private step(by: 1 | -1): void {
    this.boundaryStep += by;
    this.desiredTTLSeconds = ttlBoundaries[this.boundaryStep]?.ttlSeconds ?? this.desiredTTLSeconds;
  }

  /** `updateNodeIfNeeded`: a node whose annotation already holds the desired TTL is left alone. */
  async updateNodeIfNeeded(name: string): Promise<void> {
    const node = this.nodes.get(name);
    if (node === undefined) return;
    const current = node.metadata?.annotations?.[ttlAnnotation];
    // getIntFromAnnotation: strconv.Atoi, so only a plain (optionally signed) decimal counts.
    if (current !== undefined && /^[+-]?\d+$/.test(current) && Number(current) === this.desiredTTLSeconds) return;
    try {
      // The two-way strategic merge patch of the node with only the annotation changed.
      await this.ctx.client.patch<Node>(resources.nodes, name, 'strategic', { metadata: { annotations: { [ttlAnnotation]: String(this.desiredTTLSeconds) } } });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
  }
}

export function create(ctx: ControllerContext): Controller {
  return new TTLController(ctx);
}
