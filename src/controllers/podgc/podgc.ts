/**
 * The pod garbage collector (pkg/controller/podgc/gc_controller.go, v1.32), every 20 s:
 * - terminated pods beyond `--terminated-pod-gc-threshold` (12500) are deleted, oldest first;
 * - pods bound to a node that has been gone for the 40 s quarantine are marked Failed with the
 *   DisruptionTarget condition (`DeletionByPodGC`, `PodGC: node no longer exists`) and force-deleted;
 * - terminating pods that were never scheduled are force-deleted.
 */
import type { Node, Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { formatTime, parseTime } from '../_pods.js';
import type { Controller, ControllerContext, Informer } from '../_context.js';
import { names } from '../names.js';

export const gcCheckPeriodMs = 20_000;
export const quarantineMs = 40_000;
export const defaultTerminatedPodThreshold = 12_500;

export interface PodGCOptions {
  terminatedPodThreshold?: number;
}

function isTerminated(p: Pod): boolean {
  return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
}

export class PodGCController implements Controller {
  readonly name = names.PodGC;
  private readonly podInformer: Informer<Pod>;
  private readonly nodeInformer: Informer<Node>;
  private timer: { cancel(): void } | undefined;
  private stopped = false;
  /** Node name -> when the collector first saw it missing. */
  private readonly missingSince = new Map<string, number>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly o: PodGCOptions = {},
  ) {
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.nodeInformer = ctx.informer<Node>(resources.nodes);
  }

  start(): void {
    this.podInformer.addHandlers({});
    this.nodeInformer.addHandlers({});
    const run = (): void => {
      if (this.stopped) return;
      void this.gc()
        .catch(() => undefined)
        .finally(() => {
          if (!this.stopped) this.timer = this.ctx.clock.setTimeout(run, gcCheckPeriodMs);
        });
    };
    this.timer = this.ctx.clock.setTimeout(run, gcCheckPeriodMs);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** One pass (`gc`). */
  async gc(): Promise<void> {
    if (!this.podInformer.hasSynced() || !this.nodeInformer.hasSynced()) return;
    const pods = this.podInformer.list();
    const threshold = this.o.terminatedPodThreshold ?? defaultTerminatedPodThreshold;
    const terminated = pods.filter(isTerminated);
    if (threshold > 0 && terminated.length > threshold) {
      terminated.sort((a, b) => (parseTime(a.metadata?.creationTimestamp) ?? 0) - (parseTime(b.metadata?.creationTimestamp) ?? 0));
      for (const p of terminated.slice(0, terminated.length - threshold)) await this.forceDelete(p, false);
    }
    await this.gcOrphaned(pods);
    for (const p of pods) {
      if (p.metadata?.deletionTimestamp !== undefined && (p.spec?.nodeName ?? '') === '') await this.forceDelete(p, false);
    }
  }

  private async gcOrphaned(pods: readonly Pod[]): Promise<void> {
    const now = this.ctx.clock.now();
    const nodes = new Set(this.nodeInformer.list().map((n) => n.metadata?.name ?? ''));
    const bound = new Set(pods.map((p) => p.spec?.nodeName ?? '').filter((n) => n !== ''));
    for (const n of [...this.missingSince.keys()]) if (nodes.has(n) || !bound.has(n)) this.missingSince.delete(n);
    for (const n of bound) if (!nodes.has(n) && !this.missingSince.has(n)) this.missingSince.set(n, now);
    for (const [n, since] of this.missingSince) {
      if (now - since < quarantineMs) continue;
      try {
        await this.ctx.client.get(resources.nodes, n);
        this.missingSince.delete(n);
        continue;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      for (const p of pods) if (p.spec?.nodeName === n) await this.forceDelete(p, true);
      this.missingSince.delete(n);
    }
  }

  /** `markFailedAndDeletePodWithCondition` (orphans) or a plain forced delete. */
  private async forceDelete(p: Pod, orphan: boolean): Promise<void> {
    const ns = p.metadata?.namespace ?? 'default';
    const podName = p.metadata?.name ?? '';
    try {
      if (orphan && !isTerminated(p)) {
        const cond: PodCondition = {
          type: 'DisruptionTarget',
          status: 'True',
          reason: 'DeletionByPodGC',
          message: 'PodGC: node no longer exists',
          lastTransitionTime: formatTime(this.ctx.clock.now()),
        };
        const conds = [...(p.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'), cond];
        await this.ctx.client.update(resources.pods, { ...p, status: { ...(p.status ?? {}), phase: 'Failed', conditions: conds } }, { subresource: 'status', namespace: ns });
      }
      await this.ctx.client.delete(resources.pods, podName, { namespace: ns, gracePeriodSeconds: 0 });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

export function create(ctx: ControllerContext, o: PodGCOptions = {}): PodGCController {
  return new PodGCController(ctx, o);
}
