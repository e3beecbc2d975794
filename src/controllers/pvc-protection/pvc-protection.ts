/**
 * The PVC protection controller (`persistentvolumeclaim-protection-controller`,
 * pkg/controller/volume/pvcprotection/pvc_protection_controller.go, v1.32): removes the
 * `kubernetes.io/pvc-protection` finalizer from a claim being deleted once no pod uses it, and adds the
 * finalizer to claims that lack it and are not being deleted (claims created before the
 * StorageObjectInUseProtection admission plugin ran). A claim in use therefore stays `Terminating`.
 *
 * A pod uses a claim when it is scheduled (`spec.nodeName` set) and either names it in a
 * `persistentVolumeClaim` volume, whatever the pod's phase (a Succeeded pod still holds its claim until
 * the pod is deleted, as upstream), or owns it through a generic ephemeral volume while the pod is not
 * shut down (deleted with a zero grace period). The informer's pods are asked first; when none uses the
 * claim, a live list of the namespace's pods makes sure (a pod may not have reached the cache yet).
 *
 * Upstream batches the queued claims by namespace so one live list serves a batch; here each claim gets
 * its own live list, which changes the number of lists, not the outcome. One worker, as
 * kube-controller-manager starts it.
 */
import type { PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import { NamespaceIndex, objectKey, runWorkers, type Controller, type ControllerContext, type Informer, type WorkQueue } from '../_context.js';
import { controllerRef } from '../_owner.js';
import { names } from '../names.js';
import { isPodTerminated, pvcProtectionFinalizer } from '../../api/pv-helpers.js';
import { isDeletionCandidate, needToAddFinalizer, withFinalizer, withoutFinalizer } from '../_protection.js';

/** `ephemeral.VolumeClaimName`: the claim of a generic ephemeral volume is `<pod>-<volume>`. */
export function ephemeralClaimName(pod: Pod, volume: Volume): string {
  return `${pod.metadata?.name ?? ''}-${volume.name}`;
}

/**
 * `podIsShutDown`: deleted with a zero grace period, so the kubelet is done with it (or it was
 * force-deleted) and it only waits for garbage collection; its ephemeral claims no longer count as used,
 * which breaks a cycle between a pod finalizer and this controller.
 */
export function podIsShutDown(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionGracePeriodSeconds === 0;
}

/** `podUsesPVC`: only scheduled pods count, since the kubelet refuses to start a pod whose claim is being deleted. */
export function podUsesPVC(pod: Pod, pvc: PersistentVolumeClaim): boolean {
  if ((pod.spec?.nodeName ?? '') === '') return false;
  const claimName = pvc.metadata?.name ?? '';
  return (pod.spec?.volumes ?? []).some(
    (v) =>
      (v.persistentVolumeClaim !== undefined && v.persistentVolumeClaim.claimName === claimName) ||
      // ephemeral.VolumeIsForPod: the claim is controlled by this very pod.
      (!podIsShutDown(pod) && v.ephemeral !== undefined && ephemeralClaimName(pod, v) === claimName && controllerRef(pvc.metadata)?.uid === pod.metadata?.uid),
  );
}

export class PVCProtectionController implements Controller {
  readonly name = names.PersistentVolumeClaimProtection;
  private readonly queue: WorkQueue<string>;
  private readonly pvcInformer: Informer<PersistentVolumeClaim>;
  private readonly podInformer: Informer<Pod>;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.pvcInformer = ctx.informer<PersistentVolumeClaim>(resources.persistentvolumeclaims);
    this.podInformer = ctx.informer<Pod>(resources.pods);
  }

  start(): void {
    this.pvcInformer.addHandlers({ onAdd: (c) => this.pvcAddedUpdated(c), onUpdate: (_, c) => this.pvcAddedUpdated(c) });
    this.podInformer.addHandlers({
      onAdd: (p) => this.podAddedDeletedUpdated(undefined, p, false),
      onUpdate: (old, p) => this.podAddedDeletedUpdated(old, p, false),
      onDelete: (p) => this.podAddedDeletedUpdated(undefined, p, true),
    });
    void this.run();
  }

  private async run(): Promise<void> {
    await Promise.all([this.pvcInformer.waitForSync(), this.podInformer.waitForSync()]);
    if (this.stopped) return;
    await runWorkers(this.queue, (k) => this.processPVC(k), 1);
  }

  stop(): void {
    this.stopped = true;
    this.queue.shutDown();
  }

  /** `processPVC`: one claim by `namespace/name`; an error requeues it rate-limited. */
  async processPVC(key: string): Promise<void> {
    const pvc = this.pvcInformer.get(key);
    if (pvc === undefined) return;
    if (isDeletionCandidate(pvc, pvcProtectionFinalizer)) {
      if (!(await this.isBeingUsed(pvc))) {
        await this.removeFinalizer(pvc);
        return;
      }
    }
    if (needToAddFinalizer(pvc, pvcProtectionFinalizer)) await this.addFinalizer(pvc);
  }

  private async addFinalizer(pvc: PersistentVolumeClaim): Promise<void> {
    await this.ctx.client.update(resources.persistentvolumeclaims, withFinalizer(pvc, pvcProtectionFinalizer), { namespace: pvc.metadata?.namespace ?? '' });
  }

  private async removeFinalizer(pvc: PersistentVolumeClaim): Promise<void> {
    await this.ctx.client.update(resources.persistentvolumeclaims, withoutFinalizer(pvc, pvcProtectionFinalizer), { namespace: pvc.metadata?.namespace ?? '' });
  }

  /** `isBeingUsed`: the informer's pods first, then a live list of the namespace's pods. */
  private async isBeingUsed(pvc: PersistentVolumeClaim): Promise<boolean> {
    const namespace = pvc.metadata?.namespace ?? '';
    if (this.podInformer.byIndex(NamespaceIndex, namespace).some((p) => podUsesPVC(p, pvc))) return true;
    const live = await this.ctx.client.list<Pod>(resources.pods, { namespace });
    return live.items.some((p) => podUsesPVC(p, pvc));
  }

  /** `pvcAddedUpdated`: only claims that need the finalizer added or removed are queued. */
  private pvcAddedUpdated(pvc: PersistentVolumeClaim): void {
    if (needToAddFinalizer(pvc, pvcProtectionFinalizer) || isDeletionCandidate(pvc, pvcProtectionFinalizer)) this.queue.add(objectKey(pvc));
  }

  /**
   * `podAddedDeletedUpdated`: an update may hide the deletion of a pod and the creation of another of the
   * same name; the old pod's claims are then queued as if it were deleted.
   */
  private podAddedDeletedUpdated(old: Pod | undefined, pod: Pod, deleted: boolean): void {
    this.enqueuePVCs(pod, deleted);
    if (old !== undefined && old.metadata?.uid !== pod.metadata?.uid) this.enqueuePVCs(old, true);
  }

  /** `enqueuePVCs`: only pods that may let a finalizer go (deleted, terminated or unscheduled) matter. */
  private enqueuePVCs(pod: Pod, deleted: boolean): void {
    if (!deleted && !isPodTerminated(pod) && (pod.spec?.nodeName ?? '') !== '') return;
    const ns = pod.metadata?.namespace ?? '';
    for (const v of pod.spec?.volumes ?? []) {
      if (v.persistentVolumeClaim !== undefined) this.queue.add(`${ns}/${v.persistentVolumeClaim.claimName}`);
      else if (v.ephemeral !== undefined) this.queue.add(`${ns}/${ephemeralClaimName(pod, v)}`);
    }
  }
}

export function create(ctx: ControllerContext): Controller {
  return new PVCProtectionController(ctx);
}
