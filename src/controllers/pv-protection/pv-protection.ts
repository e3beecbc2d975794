/**
 * The PV protection controller (`persistentvolume-protection-controller`,
 * pkg/controller/volume/pvprotection/pv_protection_controller.go, v1.32): removes the
 * `kubernetes.io/pv-protection` finalizer from a volume being deleted unless its `status.phase` is
 * `Bound` (the PV controller keeps that phase; the claimRef alone does not count), and adds the finalizer
 * to volumes that lack it and are not being deleted. A Bound volume therefore stays `Terminating` until
 * its claim goes away and the PV controller moves it to Released.
 *
 * It watches volumes only: the phase change the PV controller writes is the event that lets it go. One
 * worker, as kube-controller-manager starts it.
 */
import type { PersistentVolume } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import { runWorkers, type Controller, type ControllerContext, type Informer, type WorkQueue } from '../_context.js';
import { names } from '../names.js';
import { pvProtectionFinalizer } from '../../api/pv-helpers.js';
import { isDeletionCandidate, needToAddFinalizer, withFinalizer, withoutFinalizer } from '../_protection.js';

/** `isBeingUsed`: the volume is in use while its phase is Bound. */
export function isBeingUsed(pv: PersistentVolume): boolean {
  return pv.status?.phase === 'Bound';
}

export class PVProtectionController implements Controller {
  readonly name = names.PersistentVolumeProtection;
  private readonly queue: WorkQueue<string>;
  private readonly pvInformer: Informer<PersistentVolume>;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.pvInformer = ctx.informer<PersistentVolume>(resources.persistentvolumes);
  }

  start(): void {
    this.pvInformer.addHandlers({ onAdd: (v) => this.pvAddedUpdated(v), onUpdate: (_, v) => this.pvAddedUpdated(v) });
    void this.run();
  }

  private async run(): Promise<void> {
    await this.pvInformer.waitForSync();
    if (this.stopped) return;
    await runWorkers(this.queue, (k) => this.processPV(k), 1);
  }

  stop(): void {
    this.stopped = true;
    this.queue.shutDown();
  }

  /** `processPV`: one volume by name; an error requeues it rate-limited. */
  async processPV(name: string): Promise<void> {
    const pv = this.pvInformer.get(name);
    if (pv === undefined) return;
    if (isDeletionCandidate(pv, pvProtectionFinalizer) && !isBeingUsed(pv)) {
      await this.removeFinalizer(pv);
      return;
    }
    if (needToAddFinalizer(pv, pvProtectionFinalizer)) await this.addFinalizer(pv);
  }

  private async addFinalizer(pv: PersistentVolume): Promise<void> {
    await this.ctx.client.update(resources.persistentvolumes, withFinalizer(pv, pvProtectionFinalizer));
  }

  private async removeFinalizer(pv: PersistentVolume): Promise<void> {
    await this.ctx.client.update(resources.persistentvolumes, withoutFinalizer(pv, pvProtectionFinalizer));
  }

  /** `pvAddedUpdated`: only volumes that need the finalizer added or removed are queued. */
  private pvAddedUpdated(pv: PersistentVolume): void {
    if (needToAddFinalizer(pv, pvProtectionFinalizer) || isDeletionCandidate(pv, pvProtectionFinalizer)) this.queue.add(pv.metadata?.name ?? '');
  }
}

export function create(ctx: ControllerContext): Controller {
  return new PVProtectionController(ctx);
}
