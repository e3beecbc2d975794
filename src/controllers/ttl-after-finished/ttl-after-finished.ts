/**
 * The TTL-after-finished controller (pkg/controller/ttlafterfinished, v1.32): a finished Job (Complete or
 * Failed) with `spec.ttlSecondsAfterFinished` is deleted, in the foreground, that many seconds after it
 * finished (`status.completionTime`, else the finishing condition's lastTransitionTime).
 */
import type { Job } from 'kubernetes-types/batch/v1.js';
import { isConflict, isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { parseTime } from '../_pods.js';
import { objectKey, runWorkers, splitKey, type Controller, type ControllerContext, type Informer, type WorkQueue } from '../_context.js';
import { names } from '../names.js';

/** When the Job finished (ms), or undefined while it runs. */
export function jobFinishTime(job: Job): number | undefined {
  const c = job.status?.conditions?.find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  if (c === undefined) return undefined;
  return parseTime(job.status?.completionTime) ?? parseTime(c.lastTransitionTime);
}

/** `timeLeft`: ms until the Job expires (<= 0: due), or undefined when it never expires. */
export function timeLeft(job: Job, now: number): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null || job.metadata?.deletionTimestamp !== undefined) return undefined;
  const finished = jobFinishTime(job);
  if (finished === undefined) return undefined;
  return finished + ttl * 1000 - now;
}

export class TTLAfterFinishedController implements Controller {
  readonly name = names.TTLAfterFinished;
  private readonly queue: WorkQueue<string>;
  private readonly jobInformer: Informer<Job>;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.jobInformer = ctx.informer<Job>(resources.jobs);
  }

  start(): void {
    const enqueue = (j: Job): void => {
      if (timeLeft(j, this.ctx.clock.now()) !== undefined) this.queue.add(objectKey(j));
    };
    this.jobInformer.addHandlers({ onAdd: enqueue, onUpdate: (_o, j) => enqueue(j) });
    void runWorkers(this.queue, (k) => this.sync(k), 2);
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** `processJob`: re-reads the Job before deleting it (its TTL may have changed). */
  async sync(key: string): Promise<void> {
    const cached = this.jobInformer.get(key);
    if (cached === undefined) return;
    const left = timeLeft(cached, this.ctx.clock.now());
    if (left === undefined) return;
    if (left > 0) {
      this.queue.addAfter(key, left);
      return;
    }
    const { namespace, name } = splitKey(key);
    let fresh: Job;
    try {
      fresh = await this.ctx.client.get<Job>(resources.jobs, name, { namespace });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    const freshLeft = timeLeft(fresh, this.ctx.clock.now());
    if (freshLeft === undefined) return;
    if (freshLeft > 0) {
      this.queue.addAfter(key, freshLeft);
      return;
    }
    try {
      await this.ctx.client.delete(resources.jobs, name, { namespace, propagationPolicy: 'Foreground', preconditions: { uid: fresh.metadata?.uid ?? '' } });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
}

export function create(ctx: ControllerContext): TTLAfterFinishedController {
  return new TTLAfterFinishedController(ctx);
}
