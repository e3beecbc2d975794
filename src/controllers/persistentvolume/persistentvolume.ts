/**
 * The PersistentVolume binder (`persistentvolume-binder-controller`,
 * pkg/controller/volume/persistentvolume/pv_controller.go and pv_controller_base.go, v1.32): binds unbound
 * claims of Immediate binding to the best Available volume, keeps the phases of both sides, releases a
 * volume whose claim went away and runs its reclaim policy, and marks a claim whose volume went away Lost.
 *
 * Dynamic provisioning by in-tree plugins is left out (kubeadm runs none): a claim of a class with an
 * external provisioner gets the provisioner annotations and the `ExternalProvisioning` event, as upstream.
 * The Recycle policy (a recycler pod on the node) is left out too: a released volume of that policy stays
 * Released.
 *
 * As upstream, one worker per queue (`syncClaim` is not reentrant), errors are not retried through the
 * queue but by the periodic resync of every claim and volume, and the controller keeps its own cache of
 * the newest version of each object it wrote so a watch event that lags behind its own writes does not
 * undo them (`storeObjectUpdate`).
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { isNotFound } from '../../api/errors.js';
import { resources } from '../../api/resources.js';
import { errorMessage, NamespaceIndex, runWorkers, splitKey, type Controller, type ControllerContext, type EventRecorder, type Informer } from '../_context.js';
import { eventComponents, names } from '../names.js';
import {
  annBetaStorageProvisioner,
  annBindCompleted,
  annBoundByController,
  annDynamicallyProvisioned,
  annSelectedNode,
  annStorageProvisioner,
  claimClass,
  claimHasClass,
  getDefaultClass,
  isPodTerminated,
  isVolumeBoundToClaim,
  volumeModeMismatches,
} from '../../api/pv-helpers.js';
import { checkVolumeSatisfyClaim, findBestMatchForClaim } from './_volume-index.js';
import { deepCopy } from '../../util/deep-copy.js';

/** Event reasons (pkg/controller/volume/events/event.go). */
export const reasons = {
  FailedBinding: 'FailedBinding',
  VolumeMismatch: 'VolumeMismatch',
  WaitForFirstConsumer: 'WaitForFirstConsumer',
  WaitForPodScheduled: 'WaitForPodScheduled',
  ExternalProvisioning: 'ExternalProvisioning',
  ProvisioningFailed: 'ProvisioningFailed',
  VolumeFailedDelete: 'VolumeFailedDelete',
  VolumeUnknownReclaimPolicy: 'VolumeUnknownReclaimPolicy',
  ClaimLost: 'ClaimLost',
  ClaimMisbound: 'ClaimMisbound',
} as const;

export const messages = {
  noVolumesNoClass: 'no persistent volumes available for this claim and no storage class is set',
  waitForFirstConsumer: 'waiting for first consumer to be created before binding',
  claimLostVolume: 'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
  claimLostReference: 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!',
  claimMisbound: 'Two claims are bound to the same volume, this one is bound incorrectly',
  externalProvisioning: (p: string): string =>
    `Waiting for a volume to be created either by the external provisioner '${p}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
} as const;

/** `--pvclaimbinder-sync-period`, default 15 s. */
export const defaultResyncPeriodMs = 15_000;

export interface PersistentVolumeControllerOptions {
  resyncPeriodMs?: number;
}

/** kubernetes-types marks `status` read-only; the controller writes it through the status subresource. */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

function claimKey(c: PersistentVolumeClaim): string {
  return `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`;
}

function hasAnnotation(o: { metadata?: { annotations?: Record<string, string> } }, k: string): boolean {
  return o.metadata?.annotations?.[k] !== undefined;
}

function rv(o: { metadata?: { resourceVersion?: string } }): number {
  const n = Number(o.metadata?.resourceVersion ?? '');
  return Number.isFinite(n) ? n : 0;
}

/** The claims a pod uses (`common.PodPVCIndexFunc`): its persistentVolumeClaim volumes and its generic ephemeral volumes. */
function podClaimNames(p: Pod): string[] {
  const out: string[] = [];
  for (const v of p.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim !== undefined) out.push(v.persistentVolumeClaim.claimName);
    else if (v.ephemeral !== undefined) out.push(`${p.metadata?.name ?? ''}-${v.name}`);
  }
  return out;
}

export class PersistentVolumeController implements Controller {
  readonly name = names.PersistentVolumeBinder;
  private readonly claimQueue;
  private readonly volumeQueue;
  private readonly volumeInformer: Informer<PersistentVolume>;
  private readonly claimInformer: Informer<PersistentVolumeClaim>;
  private readonly classInformer: Informer<StorageClass>;
  private readonly podInformer: Informer<Pod>;
  private readonly recorder: EventRecorder;
  /** `ctrl.volumes` and `ctrl.claims`: the newest version seen, from the informers or from our own writes. */
  private readonly volumes = new Map<string, PersistentVolume>();
  private readonly claims = new Map<string, PersistentVolumeClaim>();
  private readonly resyncPeriodMs: number;
  private resyncTimer: { cancel(): void } | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: ControllerContext,
    opts: PersistentVolumeControllerOptions = {},
  ) {
    this.claimQueue = ctx.newQueue();
    this.volumeQueue = ctx.newQueue();
    this.volumeInformer = ctx.informer<PersistentVolume>(resources.persistentvolumes);
    this.claimInformer = ctx.informer<PersistentVolumeClaim>(resources.persistentvolumeclaims);
    this.classInformer = ctx.informer<StorageClass>(resources.storageclasses);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.recorder = ctx.recorder(eventComponents.persistentVolume);
    this.resyncPeriodMs = opts.resyncPeriodMs ?? defaultResyncPeriodMs;
  }

  start(): void {
    const volumeKey = (v: PersistentVolume): void => this.volumeQueue.add(v.metadata?.name ?? '');
    const claimKeyOf = (c: PersistentVolumeClaim): void => this.claimQueue.add(claimKey(c));
    this.volumeInformer.addHandlers({ onAdd: volumeKey, onUpdate: (_, v) => volumeKey(v), onDelete: volumeKey });
    this.claimInformer.addHandlers({ onAdd: claimKeyOf, onUpdate: (_, c) => claimKeyOf(c), onDelete: claimKeyOf });
    void this.run();
  }

  /** `Run`: wait for the caches, seed the controller's own caches from them (`initializeCaches`), then work. */
  private async run(): Promise<void> {
    await Promise.all([this.volumeInformer.waitForSync(), this.claimInformer.waitForSync(), this.classInformer.waitForSync(), this.podInformer.waitForSync()]);
    if (this.stopped) return;
    for (const v of this.volumeInformer.list()) this.storeVolume(v);
    for (const c of this.claimInformer.list()) this.storeClaim(c);
    this.scheduleResync();
    await Promise.all([runWorkers(this.volumeQueue, (k) => this.volumeWorker(k), 1), runWorkers(this.claimQueue, (k) => this.claimWorker(k), 1)]);
  }

  stop(): void {
    this.stopped = true;
    this.resyncTimer?.cancel();
    this.claimQueue.shutDown();
    this.volumeQueue.shutDown();
  }

  /** `resync`: every claim and volume is synced again each period; this is how failed syncs are retried. */
  private scheduleResync(): void {
    if (this.stopped) return;
    this.resyncTimer = this.ctx.clock.setTimeout(() => {
      for (const c of this.claimInformer.list()) this.claimQueue.add(claimKey(c));
      for (const v of this.volumeInformer.list()) this.volumeQueue.add(v.metadata?.name ?? '');
      this.scheduleResync();
    }, this.resyncPeriodMs);
  }

  /** `storeObjectUpdate`: false when the cache already holds a newer version. */
  private storeVolume(v: PersistentVolume): boolean {
    const name = v.metadata?.name ?? '';
    const old = this.volumes.get(name);
    if (old !== undefined && rv(old) > rv(v)) return false;
    this.volumes.set(name, v);
    return true;
  }

  private storeClaim(c: PersistentVolumeClaim): boolean {
    const k = claimKey(c);
    const old = this.claims.get(k);
    if (old !== undefined && rv(old) > rv(c)) return false;
    this.claims.set(k, c);
    return true;
  }

  private async volumeWorker(name: string): Promise<void> {
    const volume = this.volumeInformer.get(name);
    if (volume !== undefined) {
      if (!this.storeVolume(volume)) return;
      await this.logged(this.syncVolume(volume));
      return;
    }
    // deleteVolume: the claim it was bound to is synced now rather than at the next resync (to go Lost).
    const cached = this.volumes.get(name);
    if (cached === undefined) return;
    this.volumes.delete(name);
    const ref = cached.spec?.claimRef;
    if (ref !== undefined) this.claimQueue.add(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
  }

  private async claimWorker(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const claim = this.claimInformer.get(`${namespace}/${name}`);
    if (claim !== undefined) {
      if (!this.storeClaim(claim)) return;
      await this.logged(this.syncClaim(claim));
      return;
    }
    // deleteClaim: its volume is synced now so it is released at once.
    const cached = this.claims.get(key);
    if (cached === undefined) return;
    this.claims.delete(key);
    const volumeName = cached.spec?.volumeName ?? '';
    if (volumeName !== '') this.volumeQueue.add(volumeName);
  }

  /** Upstream logs sync errors (conflicts are routine) and leaves the retry to the resync. */
  private async logged(p: Promise<void>): Promise<void> {
    try {
      await p;
    } catch {
      // Retried by the next resync or by the watch event of whatever conflicted.
    }
  }

  // ---- claims ----

  async syncClaim(claim: PersistentVolumeClaim): Promise<void> {
    if (!hasAnnotation(claim, annBindCompleted)) await this.syncUnboundClaim(claim);
    else await this.syncBoundClaim(claim);
  }

  /** `IsDelayBindingMode`: the claim's class exists and binds WaitForFirstConsumer. */
  private isDelayBindingMode(claim: PersistentVolumeClaim): boolean {
    const cls = claimClass(claim);
    if (cls === '') return false;
    const sc = this.classInformer.get(cls);
    if (sc === undefined) return false;
    if (sc.volumeBindingMode === undefined) throw new Error(`VolumeBindingMode not set for StorageClass "${cls}"`);
    return sc.volumeBindingMode === 'WaitForFirstConsumer';
  }

  private async syncUnboundClaim(claim: PersistentVolumeClaim): Promise<void> {
    const volumeName = claim.spec?.volumeName ?? '';
    if (volumeName === '') {
      const delayBinding = this.isDelayBindingMode(claim);
      const volume = findBestMatchForClaim(claim, [...this.volumes.values()], delayBinding);
      if (volume !== undefined) {
        await this.bind(volume, claim);
        return;
      }
      if (await this.assignDefaultStorageClass(claim)) return;
      if (delayBinding && !hasAnnotation(claim, annSelectedNode)) {
        this.emitEventForUnboundDelayBindingClaim(claim);
      } else if (claimClass(claim) !== '') {
        await this.provisionClaim(claim);
        return;
      } else {
        this.recorder.event(claim, 'Normal', reasons.FailedBinding, messages.noVolumesNoClass);
      }
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    // The user asked for a specific volume.
    const volume = this.volumes.get(volumeName);
    if (volume === undefined) {
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    if (volume.spec?.claimRef === undefined) {
      const why = checkVolumeSatisfyClaim(volume, claim);
      if (why !== undefined) {
        this.recorder.event(claim, 'Warning', reasons.VolumeMismatch, `Cannot bind to requested volume "${volumeName}": ${why}`);
        await this.updateClaimStatus(claim, 'Pending', undefined);
        return;
      }
      await this.bind(volume, claim);
      return;
    }
    if (isVolumeBoundToClaim(volume, claim)) {
      await this.bind(volume, claim);
      return;
    }
    this.recorder.event(claim, 'Warning', reasons.FailedBinding, `volume "${volumeName}" already bound to a different claim.`);
    if (!hasAnnotation(claim, annBoundByController)) {
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    const ref = volume.spec.claimRef;
    throw new Error(`invalid binding of claim "${claimKey(claim)}" to volume "${volumeName}": volume already claimed by "${ref.namespace ?? ''}/${ref.name ?? ''}"`);
  }

  private async syncBoundClaim(claim: PersistentVolumeClaim): Promise<void> {
    const volumeName = claim.spec?.volumeName ?? '';
    if (volumeName === '') {
      await this.updateClaimStatusWithEvent(claim, 'Lost', undefined, 'Warning', reasons.ClaimLost, messages.claimLostReference);
      return;
    }
    const volume = this.volumes.get(volumeName);
    if (volume === undefined) {
      await this.updateClaimStatusWithEvent(claim, 'Lost', undefined, 'Warning', reasons.ClaimLost, messages.claimLostVolume);
      return;
    }
    const ref = volume.spec?.claimRef;
    if (ref === undefined || ref.uid === claim.metadata?.uid) {
      await this.bind(volume, claim);
      return;
    }
    await this.updateClaimStatusWithEvent(claim, 'Lost', undefined, 'Warning', reasons.ClaimMisbound, messages.claimMisbound);
  }

  /** `emitEventForUnboundDelayBindingClaim`: names the unscheduled pods that use the claim, if any. */
  private emitEventForUnboundDelayBindingClaim(claim: PersistentVolumeClaim): void {
    const ns = claim.metadata?.namespace ?? '';
    const podNames = this.podInformer
      .byIndex(NamespaceIndex, ns)
      .filter((p) => !isPodTerminated(p) && (p.spec?.nodeName ?? '') === '' && podClaimNames(p).includes(claim.metadata?.name ?? ''))
      .map((p) => p.metadata?.name ?? '');
    if (podNames.length === 0) {
      this.recorder.event(claim, 'Normal', reasons.WaitForFirstConsumer, messages.waitForFirstConsumer);
      return;
    }
    const message = podNames.length > 1 ? `waiting for pods ${podNames.join(',')} to be scheduled` : `waiting for pod ${podNames[0] ?? ''} to be scheduled`;
    this.recorder.event(claim, 'Normal', reasons.WaitForPodScheduled, message);
  }

  /**
   * `assignDefaultStorageClass` (retroactive default StorageClass, GA in 1.28): a claim with no class at
   * all gets the default class, the newest one if several are marked (then by name).
   */
  private async assignDefaultStorageClass(claim: PersistentVolumeClaim): Promise<boolean> {
    if (claimHasClass(claim)) return false;
    const cls = getDefaultClass(this.classInformer.list());
    if (cls === undefined) return false;
    const clone = deepCopy(claim);
    (clone.spec ??= {}).storageClassName = cls.metadata?.name ?? '';
    await this.ctx.client.update(resources.persistentvolumeclaims, clone, { namespace: clone.metadata?.namespace ?? '' });
    return true;
  }

  /**
   * `provisionClaim` as kube-controller-manager runs it on kubeadm: no in-tree provisioner is usable, so a
   * class whose provisioner is outside `kubernetes.io/` goes to its external provisioner, and any other
   * class, or a missing one, fails with a `ProvisioningFailed` event.
   */
  private async provisionClaim(claim: PersistentVolumeClaim): Promise<void> {
    const clsName = claimClass(claim);
    const cls = this.classInformer.get(clsName);
    if (cls === undefined) {
      this.recorder.event(claim, 'Warning', reasons.ProvisioningFailed, `storageclass.storage.k8s.io "${clsName}" not found`);
      return;
    }
    const provisioner = cls.provisioner;
    if (provisioner.startsWith('kubernetes.io/')) {
      this.recorder.event(claim, 'Warning', reasons.ProvisioningFailed, `no volume plugin matched name: ${provisioner}`);
      return;
    }
    // provisionClaimOperationExternal, setClaimProvisioner.
    let current = claim;
    if (claim.metadata?.annotations?.[annBetaStorageProvisioner] !== provisioner) {
      const clone = deepCopy(claim);
      const md = (clone.metadata ??= {});
      md.annotations = { ...(md.annotations ?? {}), [annBetaStorageProvisioner]: provisioner, [annStorageProvisioner]: provisioner };
      try {
        current = await this.ctx.client.update(resources.persistentvolumeclaims, clone, { namespace: md.namespace ?? '' });
      } catch (e) {
        this.recorder.event(claim, 'Warning', reasons.ProvisioningFailed, `Error saving claim: ${errorMessage(e)}`);
        throw e;
      }
      this.storeClaim(current);
    }
    this.recorder.event(current, 'Normal', reasons.ExternalProvisioning, messages.externalProvisioning(provisioner));
  }

  // ---- volumes ----

  async syncVolume(volume: PersistentVolume): Promise<void> {
    const ref = volume.spec?.claimRef;
    if (ref === undefined || (ref.uid ?? '') === '') {
      // Unused, or pre-bound to a claim the claim sync will bind.
      await this.updateVolumePhase(volume, 'Available', '');
      return;
    }
    const key = `${ref.namespace ?? ''}/${ref.name ?? ''}`;
    let claim = this.claims.get(key);
    const phase = volume.status?.phase;
    if (claim === undefined && phase !== 'Released' && phase !== 'Failed') {
      // The claim may not have reached our cache yet: ask the informer, then the API server.
      claim = this.claimInformer.get(key) ?? (await this.getClaim(ref.namespace ?? '', ref.name ?? ''));
    }
    if (claim !== undefined && claim.metadata?.uid !== ref.uid) {
      // Maybe a stale cache: the API server decides.
      claim = await this.getClaim(ref.namespace ?? '', ref.name ?? '');
      if (claim !== undefined && claim.metadata?.uid !== ref.uid) claim = undefined;
    }
    if (claim === undefined) {
      let v = volume;
      if (phase !== 'Released' && phase !== 'Failed') v = await this.updateVolumePhase(volume, 'Released', '');
      await this.reclaimVolume(v);
      return;
    }
    const claimVolume = claim.spec?.volumeName ?? '';
    if (claimVolume === '') {
      if (volumeModeMismatches(claim, volume)) {
        this.recorder.event(volume, 'Warning', reasons.VolumeMismatch, `Cannot bind PersistentVolume to requested PersistentVolumeClaim "${claim.metadata?.name ?? ''}" due to incompatible volumeMode.`);
        this.recorder.event(claim, 'Warning', reasons.VolumeMismatch, `Cannot bind PersistentVolume "${volume.metadata?.name ?? ''}" to requested PersistentVolumeClaim due to incompatible volumeMode.`);
        return;
      }
      // The binding is half done (or a user undid it): the claim sync finishes it.
      this.claimQueue.add(key);
      return;
    }
    if (claimVolume === volume.metadata?.name) {
      await this.updateVolumePhase(volume, 'Bound', '');
      return;
    }
    // Bound to a claim that is bound elsewhere.
    if (hasAnnotation(volume, annDynamicallyProvisioned) && volume.spec?.persistentVolumeReclaimPolicy === 'Delete') {
      let v = volume;
      if (phase !== 'Released' && phase !== 'Failed') v = await this.updateVolumePhase(volume, 'Released', '');
      await this.reclaimVolume(v);
      return;
    }
    await this.unbindVolume(volume);
  }

  private async getClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined> {
    try {
      return await this.ctx.client.get<PersistentVolumeClaim>(resources.persistentvolumeclaims, name, { namespace });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** `reclaimVolume`: Retain keeps the volume Released; Delete runs the deleter; Recycle is not modelled. */
  private async reclaimVolume(volume: PersistentVolume): Promise<void> {
    if ((volume.metadata?.annotations?.['pv.kubernetes.io/migrated-to'] ?? '') !== '') return;
    switch (volume.spec?.persistentVolumeReclaimPolicy) {
      case 'Retain':
      case 'Recycle':
        return;
      case 'Delete':
        await this.deleteVolumeOperation(volume);
        return;
      default:
        await this.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', reasons.VolumeUnknownReclaimPolicy, 'Volume has unrecognized PersistentVolumeReclaimPolicy');
    }
  }

  /** `deleteVolumeOperation` with kube-controller-manager's in-tree plugins. */
  private async deleteVolumeOperation(volume: PersistentVolume): Promise<void> {
    let fresh: PersistentVolume;
    try {
      fresh = await this.ctx.client.get<PersistentVolume>(resources.persistentvolumes, volume.metadata?.name ?? '');
    } catch {
      return;
    }
    if (!this.isVolumeReleased(fresh)) return;
    const outcome = deleteByInTreePlugin(volume);
    if (outcome === 'external') return;
    if (outcome !== 'deleted') {
      await this.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', reasons.VolumeFailedDelete, outcome.error);
      return;
    }
    try {
      await this.ctx.client.delete(resources.persistentvolumes, volume.metadata?.name ?? '');
    } catch {
      // Deleted again on the next sync.
    }
  }

  /** `isVolumeReleased`: bound (with a uid) to a claim that is gone, replaced, or bound to another volume. */
  private isVolumeReleased(volume: PersistentVolume): boolean {
    const ref = volume.spec?.claimRef;
    if (ref === undefined || (ref.uid ?? '') === '') return false;
    const claim = this.claims.get(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
    if (claim !== undefined && claim.metadata?.uid === ref.uid) {
      const vn = claim.spec?.volumeName ?? '';
      return vn !== '' && vn !== volume.metadata?.name;
    }
    return true;
  }

  // ---- writes ----

  /** `bind`: volume first (claimRef, then phase), then claim (volumeName and annotations, then status). */
  private async bind(volume: PersistentVolume, claim: PersistentVolumeClaim): Promise<void> {
    const v1 = await this.bindVolumeToClaim(volume, claim);
    const v2 = await this.updateVolumePhase(v1, 'Bound', '');
    const c1 = await this.bindClaimToVolume(claim, v2);
    await this.updateClaimStatus(c1, 'Bound', v2);
  }

  /** `GetBindVolumeToClaim` + `updateBindVolumeToClaim`. */
  private async bindVolumeToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): Promise<PersistentVolume> {
    const setBoundByController = !isVolumeBoundToClaim(volume, claim);
    const clone = deepCopy(volume);
    let dirty = false;
    const ref = volume.spec?.claimRef;
    const md = claim.metadata ?? {};
    if (ref === undefined || ref.name !== md.name || ref.namespace !== md.namespace || ref.uid !== md.uid) {
      // reference.GetReference of the claim.
      (clone.spec ??= {}).claimRef = {
        kind: 'PersistentVolumeClaim',
        namespace: md.namespace ?? '',
        name: md.name ?? '',
        uid: md.uid ?? '',
        apiVersion: 'v1',
        resourceVersion: md.resourceVersion ?? '',
      };
      dirty = true;
    }
    if (setBoundByController && !hasAnnotation(clone, annBoundByController)) {
      const cmd = (clone.metadata ??= {});
      cmd.annotations = { ...(cmd.annotations ?? {}), [annBoundByController]: 'yes' };
      dirty = true;
    }
    if (!dirty) return volume;
    const updated = await this.ctx.client.update(resources.persistentvolumes, clone);
    this.storeVolume(updated);
    return updated;
  }

  private async bindClaimToVolume(claim: PersistentVolumeClaim, volume: PersistentVolume): Promise<PersistentVolumeClaim> {
    const clone = deepCopy(claim);
    const md = (clone.metadata ??= {});
    let dirty = false;
    const volumeName = volume.metadata?.name ?? '';
    if (volumeName !== (claim.spec?.volumeName ?? '')) {
      dirty = true;
      (clone.spec ??= {}).volumeName = volumeName;
      if (!hasAnnotation(clone, annBoundByController)) md.annotations = { ...(md.annotations ?? {}), [annBoundByController]: 'yes' };
    }
    if (!hasAnnotation(clone, annBindCompleted)) {
      md.annotations = { ...(md.annotations ?? {}), [annBindCompleted]: 'yes' };
      dirty = true;
    }
    if (!dirty) return claim;
    const updated = await this.ctx.client.update(resources.persistentvolumeclaims, clone, { namespace: md.namespace ?? '' });
    this.storeClaim(updated);
    return updated;
  }

  /** `updateClaimStatus`: phase, and access modes and capacity from the volume (reset without one). */
  private async updateClaimStatus(claim: PersistentVolumeClaim, phase: string, volume: PersistentVolume | undefined): Promise<PersistentVolumeClaim> {
    const clone: Writable<PersistentVolumeClaim> = deepCopy(claim);
    const status = (clone.status ??= {});
    let dirty = false;
    if (claim.status?.phase !== phase) {
      status.phase = phase;
      dirty = true;
    }
    if (volume === undefined) {
      if (status.accessModes !== undefined) {
        delete status.accessModes;
        dirty = true;
      }
      if (status.capacity !== undefined) {
        delete status.capacity;
        dirty = true;
      }
    } else {
      if (JSON.stringify(claim.status?.accessModes) !== JSON.stringify(volume.spec?.accessModes)) {
        if (volume.spec?.accessModes === undefined) delete status.accessModes;
        else status.accessModes = [...volume.spec.accessModes];
        dirty = true;
      }
      // Capacity only as the claim becomes Bound: a later difference may be deliberate (a resize).
      if (claim.status?.phase !== phase) {
        const volumeCap = volume.spec?.capacity?.['storage'];
        if (volumeCap === undefined) throw new Error(`PersistentVolume "${volume.metadata?.name ?? ''}" is without a storage capacity`);
        if (String(claim.status?.capacity?.['storage'] ?? '') !== String(volumeCap)) {
          status.capacity = { ...(volume.spec?.capacity ?? {}) };
          dirty = true;
        }
      }
    }
    if (!dirty) return claim;
    const updated = await this.ctx.client.update(resources.persistentvolumeclaims, clone, { namespace: clone.metadata?.namespace ?? '', subresource: 'status' });
    this.storeClaim(updated);
    return updated;
  }

  /** Saves the status and emits the event only when the phase changes. */
  private async updateClaimStatusWithEvent(claim: PersistentVolumeClaim, phase: string, volume: PersistentVolume | undefined, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    if (claim.status?.phase === phase) return;
    const updated = await this.updateClaimStatus(claim, phase, volume);
    this.recorder.event(updated, type, reason, message);
  }

  private async updateVolumePhase(volume: PersistentVolume, phase: string, message: string): Promise<PersistentVolume> {
    if (volume.status?.phase === phase) return volume;
    const clone: Writable<PersistentVolume> = deepCopy(volume);
    const status = (clone.status ??= {});
    status.phase = phase;
    if (message === '') delete status.message;
    else status.message = message;
    const updated = await this.ctx.client.update(resources.persistentvolumes, clone, { subresource: 'status' });
    this.storeVolume(updated);
    return updated;
  }

  private async updateVolumePhaseWithEvent(volume: PersistentVolume, phase: string, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    if (volume.status?.phase === phase) return;
    const updated = await this.updateVolumePhase(volume, phase, message);
    this.recorder.event(updated, type, reason, message);
  }

  /** `unbindVolume`: undo a controller binding, or clear only the uid of a user's pre-binding; then Available. */
  private async unbindVolume(volume: PersistentVolume): Promise<void> {
    const clone = deepCopy(volume);
    if (hasAnnotation(volume, annBoundByController)) {
      if (clone.spec !== undefined) delete clone.spec.claimRef;
      const md = clone.metadata ?? {};
      const { [annBoundByController]: _dropped, ...rest } = md.annotations ?? {};
      if (Object.keys(rest).length === 0) delete md.annotations;
      else md.annotations = rest;
    } else if (clone.spec?.claimRef !== undefined) {
      clone.spec.claimRef.uid = '';
    }
    const updated = await this.ctx.client.update(resources.persistentvolumes, clone);
    this.storeVolume(updated);
    await this.updateVolumePhase(updated, 'Available', '');
  }
}

/**
 * What `doDeleteVolume` does with kube-controller-manager 1.32's in-tree plugins (hostpath, nfs, local,
 * csi): a volume provisioned by an external provisioner, or a CSI volume, waits for its external deleter;
 * a hostPath volume is deleted when its path matches `/tmp/.+`, as the hostpath deleter allows; nfs and
 * local volumes have no deleter; any other source has no plugin at all.
 */
export function deleteByInTreePlugin(volume: PersistentVolume): 'deleted' | 'external' | { error: string } {
  const name = volume.metadata?.name ?? '';
  const provisionedBy = volume.metadata?.annotations?.[annDynamicallyProvisioned] ?? '';
  if (provisionedBy !== '') {
    if (provisionedBy === 'kubernetes.io/host-path') return deleteHostPath(volume);
    if (!provisionedBy.startsWith('kubernetes.io/')) return 'external';
    return { error: ['kubernetes.io/nfs', 'kubernetes.io/local-volume', 'kubernetes.io/csi'].includes(provisionedBy) ? 'no deletable volume plugin matched' : `no volume plugin matched name: ${provisionedBy}` };
  }
  const spec = volume.spec ?? {};
  if ((volume.metadata?.annotations?.['pv.kubernetes.io/migrated-to'] ?? '') !== '' || spec.csi !== undefined) return 'external';
  if (spec.hostPath !== undefined) return deleteHostPath(volume);
  const matched = spec.nfs !== undefined || spec.local !== undefined;
  return { error: `error getting deleter volume plugin for volume "${name}": ${matched ? 'no deletable volume plugin matched' : 'no volume plugin matched'}` };
}

function deleteHostPath(volume: PersistentVolume): 'deleted' | { error: string } {
  const path = volume.spec?.hostPath?.path ?? '';
  if (!/\/tmp\/.+/.test(path)) return { error: `host_path deleter only supports /tmp/.+ but received provided ${path}` };
  return 'deleted';
}

export function create(ctx: ControllerContext, opts: PersistentVolumeControllerOptions = {}): Controller {
  return new PersistentVolumeController(ctx, opts);
}
