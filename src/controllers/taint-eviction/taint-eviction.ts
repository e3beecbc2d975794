/**
 * The taint eviction controller (pkg/controller/tainteviction/taint_eviction.go, v1.32; semantics.md
 * section 8): deletes pods that do not tolerate a node's NoExecute taints at once, and the others after the
 * smallest tolerationSeconds among the tolerations used (forever when none sets it). Before deleting it
 * sets the pod condition DisruptionTarget (reason DeletionByTaintManager) and records TaintManagerEviction.
 */
import type { Node, Pod, PodCondition, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { formatTime } from '../_pods.js';
import { toleratesTaint } from '../_scheduling.js';
import { semanticEqual, NodeNameIndex, objectKey, splitKey, type Clock, type Controller, type ControllerContext, type EventRecorder, type Informer } from '../_context.js';
import { eventComponents, names } from '../names.js';

export const DisruptionTargetReason = 'DeletionByTaintManager';
export const DisruptionTargetMessage = 'Taint manager: deleting due to NoExecute taint';

export function noExecuteTaints(taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).filter((t) => t.effect === 'NoExecute');
}

/** `GetMatchingTolerations`: whether every taint is tolerated, and the first toleration used for each. */
export function getMatchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[] | undefined): { allTolerated: boolean; used: Toleration[] } {
  if (taints.length === 0) return { allTolerated: true, used: [] };
  const tols = tolerations ?? [];
  if (tols.length === 0) return { allTolerated: false, used: [] };
  const used: Toleration[] = [];
  for (const taint of taints) {
    const t = tols.find((x) => toleratesTaint(x, taint));
    if (t === undefined) return { allTolerated: false, used: [] };
    used.push(t);
  }
  return { allTolerated: true, used };
}

/**
 * `getMinTolerationTime` in ms: 0 for no tolerations or any tolerationSeconds <= 0, -1 (forever) when no
 * toleration sets tolerationSeconds, else the smallest.
 */
export function minTolerationTimeMs(tolerations: readonly Toleration[]): number {
  if (tolerations.length === 0) return 0;
  let min = Infinity;
  for (const t of tolerations) {
    if (t.tolerationSeconds === undefined) continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds);
  }
  return min === Infinity ? -1 : min * 1000;
}

interface TimedWorker {
  createdAt: number;
  fireAt: number;
  cancel(): void;
}

/**
 * `TimedWorkerQueue`: one timer per pod key. A key whose work ran stays as a tombstone (`undefined`) so it is
 * not scheduled twice; cancelling it then reports false.
 */
export class TimedWorkerQueue {
  private readonly workers = new Map<string, TimedWorker | undefined>();
  constructor(
    private readonly clock: Clock,
    private readonly work: (key: string) => Promise<void>,
  ) {}
  addWork(key: string, createdAt: number, fireAt: number): void {
    if (this.workers.has(key)) return;
    const delay = Math.max(0, fireAt - this.clock.now());
    const run = (): void => {
      void this.work(key).then(
        () => {
          if (this.workers.has(key)) this.workers.set(key, undefined);
        },
        () => this.workers.delete(key),
      );
    };
    const timer = this.clock.setTimeout(run, delay);
    this.workers.set(key, { createdAt, fireAt, cancel: () => timer.cancel() });
  }
  /** Answers true when a pending (not yet run) eviction was cancelled. */
  cancelWork(key: string): boolean {
    if (!this.workers.has(key)) return false;
    const w = this.workers.get(key);
    this.workers.delete(key);
    if (w === undefined) return false;
    w.cancel();
    return true;
  }
  getWorker(key: string): { createdAt: number; fireAt: number } | undefined {
    const w = this.workers.get(key);
    return w === undefined ? undefined : { createdAt: w.createdAt, fireAt: w.fireAt };
  }
  clear(): void {
    for (const w of this.workers.values()) w?.cancel();
    this.workers.clear();
  }
}

export class TaintEvictionController implements Controller {
  readonly name = names.TaintEviction;
  private readonly podInformer: Informer<Pod>;
  private readonly nodeInformer: Informer<Node>;
  private readonly recorder: EventRecorder;
  private readonly taintedNodes = new Map<string, Taint[]>();
  readonly queue: TimedWorkerQueue;

  constructor(private readonly ctx: ControllerContext) {
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.nodeInformer = ctx.informer<Node>(resources.nodes);
    this.recorder = ctx.recorder(eventComponents.taintEviction);
    this.queue = new TimedWorkerQueue(ctx.clock, (key) => this.deletePod(key));
  }

  start(): void {
    this.nodeInformer.addHandlers({
      onAdd: (n) => this.handleNodeUpdate(n.metadata?.name ?? ''),
      onUpdate: (o, n) => {
        if (!semanticEqual(noExecuteTaints(o.spec?.taints), noExecuteTaints(n.spec?.taints))) this.handleNodeUpdate(n.metadata?.name ?? '');
      },
      onDelete: (n) => this.handleNodeUpdate(n.metadata?.name ?? ''),
    });
    this.podInformer.addHandlers({
      onAdd: (p) => this.handlePodUpdate(objectKey(p), p.spec?.nodeName ?? ''),
      onUpdate: (o, p) => {
        if (o.spec?.nodeName === p.spec?.nodeName && semanticEqual(o.spec?.tolerations, p.spec?.tolerations)) return;
        this.handlePodUpdate(objectKey(p), p.spec?.nodeName ?? '');
      },
      onDelete: (p) => this.handlePodUpdate(objectKey(p), p.spec?.nodeName ?? ''),
    });
  }

  stop(): void {
    this.queue.clear();
  }

  private cancelWorkWithEvent(key: string): void {
    if (this.queue.cancelWork(key)) {
      const { namespace, name } = splitKey(key);
      this.recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace } }, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
    }
  }

  /** `processPodOnNode`. */
  processPodOnNode(key: string, tolerations: readonly Toleration[] | undefined, taints: readonly Taint[], now: number): void {
    if (taints.length === 0) this.cancelWorkWithEvent(key);
    const { allTolerated, used } = getMatchingTolerations(taints, tolerations);
    if (!allTolerated) {
      this.cancelWorkWithEvent(key);
      this.queue.addWork(key, now, now);
      return;
    }
    const min = minTolerationTimeMs(used);
    if (min < 0) {
      this.cancelWorkWithEvent(key);
      return;
    }
    let start = now;
    const trigger = start + min;
    const scheduled = this.queue.getWorker(key);
    if (scheduled !== undefined) {
      start = scheduled.createdAt;
      if (start + min < trigger) return;
      this.cancelWorkWithEvent(key);
    }
    this.queue.addWork(key, start, trigger);
  }

  private handlePodUpdate(key: string, nodeName: string): void {
    const pod = this.podInformer.get(key);
    if (pod === undefined) {
      this.cancelWorkWithEvent(key);
      return;
    }
    if ((pod.spec?.nodeName ?? '') !== nodeName || nodeName === '') return;
    const taints = this.taintedNodes.get(nodeName);
    if (taints === undefined) return;
    this.processPodOnNode(key, pod.spec?.tolerations, taints, this.ctx.clock.now());
  }

  private handleNodeUpdate(nodeName: string): void {
    const node = this.nodeInformer.get(nodeName);
    if (node === undefined) {
      this.taintedNodes.delete(nodeName);
      return;
    }
    const taints = noExecuteTaints(node.spec?.taints);
    if (taints.length === 0) this.taintedNodes.delete(nodeName);
    else this.taintedNodes.set(nodeName, taints);
    const pods = this.podInformer.byIndex(NodeNameIndex, nodeName);
    if (pods.length === 0) return;
    if (taints.length === 0) {
      for (const p of pods) this.cancelWorkWithEvent(objectKey(p));
      return;
    }
    const now = this.ctx.clock.now();
    for (const p of pods) this.processPodOnNode(objectKey(p), p.spec?.tolerations, taints, now);
  }

  /** `deletePodHandler` + `addConditionAndDeletePod`. */
  private async deletePod(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    this.recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace } }, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    let lastErr: unknown;
    for (let i = 0; i < 5; i++) {
      try {
        const pod = await this.ctx.client.get<Pod>(resources.pods, name, { namespace });
        const conds = pod.status?.conditions ?? [];
        const cur = conds.find((c) => c.type === 'DisruptionTarget');
        if (cur?.status !== 'True' || cur.reason !== DisruptionTargetReason || cur.message !== DisruptionTargetMessage) {
          const cond: PodCondition = {
            type: 'DisruptionTarget',
            status: 'True',
            reason: DisruptionTargetReason,
            message: DisruptionTargetMessage,
            lastTransitionTime: cur?.status === 'True' && cur.lastTransitionTime !== undefined ? cur.lastTransitionTime : formatTime(this.ctx.clock.now()),
          };
          const status = { ...(pod.status ?? {}), conditions: [...conds.filter((c) => c.type !== 'DisruptionTarget'), cond] };
          await this.ctx.client.update(resources.pods, { ...pod, status }, { subresource: 'status', namespace });
        }
        await this.ctx.client.delete(resources.pods, name, { namespace });
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        lastErr = e;
      }
    }
    throw lastErr instanceof Error ? lastErr : new Error(String(lastErr));
  }
}

export function create(ctx: ControllerContext): TaintEvictionController {
  return new TaintEvictionController(ctx);
}
