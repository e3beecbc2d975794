/**
 * The PersistentVolume helpers the PV controller, the scheduler's VolumeBinding, the quota evaluators and the
 * printers share (staging/src/k8s.io/component-helpers/storage/volume/pv_helpers.go and
 * `v1helper.GetAccessModesAsString`, v1.32).
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { newestDefault } from './default-class.js';
import { labelSelectorAsSelector } from './labels.js';
import { compareQuantities, parseQuantity, type Quantity } from './quantity.js';

/** `AnnBindCompleted`: the claim has been through binding once. */
export const annBindCompleted = 'pv.kubernetes.io/bind-completed';
/** `AnnBoundByController`: the binding (PV to PVC or PVC to PV) was made by the controller, not pre-bound by a user. */
export const annBoundByController = 'pv.kubernetes.io/bound-by-controller';
/** `AnnDynamicallyProvisioned`: the volume plugin that provisioned a PV. */
export const annDynamicallyProvisioned = 'pv.kubernetes.io/provisioned-by';
/** `AnnSelectedNode`: the scheduler asks for delayed provisioning on this node. */
export const annSelectedNode = 'volume.kubernetes.io/selected-node';
/** `AnnStorageProvisioner` and its beta twin: the provisioner expected to provision a claim. */
export const annStorageProvisioner = 'volume.kubernetes.io/storage-provisioner';
export const annBetaStorageProvisioner = 'volume.beta.kubernetes.io/storage-provisioner';
/** `v1.BetaStorageClassAnnotation`: wins over `spec.storageClassName` on claims and volumes. */
export const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';

/** `GetPersistentVolumeClaimClass`: the beta annotation, else `spec.storageClassName`, else "". */
export function claimClass(claim: PersistentVolumeClaim): string {
  const ann = claim.metadata?.annotations?.[betaStorageClassAnnotation];
  if (ann !== undefined) return ann;
  return claim.spec?.storageClassName ?? '';
}

/** `GetPersistentVolumeClass`: the beta annotation, else `spec.storageClassName`, else "". */
export function volumeClass(volume: PersistentVolume): string {
  const ann = volume.metadata?.annotations?.[betaStorageClassAnnotation];
  if (ann !== undefined) return ann;
  return volume.spec?.storageClassName ?? '';
}

/** `PersistentVolumeClaimHasClass`: an explicit "" counts as a class (it asks for no class). */
export function claimHasClass(claim: PersistentVolumeClaim): boolean {
  return claim.metadata?.annotations?.[betaStorageClassAnnotation] !== undefined || claim.spec?.storageClassName !== undefined;
}

/** `IsVolumeBoundToClaim`: pre-bound or bound to this claim by namespace/name, and uid when the claimRef has one. */
export function isVolumeBoundToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  if (ref === undefined) return false;
  if ((claim.metadata?.name ?? '') !== (ref.name ?? '') || (claim.metadata?.namespace ?? '') !== (ref.namespace ?? '')) return false;
  if ((ref.uid ?? '') !== '' && claim.metadata?.uid !== ref.uid) return false;
  return true;
}

/** `CheckVolumeModeMismatches`: an unset volumeMode is Filesystem on either side. */
export function volumeModeMismatches(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  return (claim.spec?.volumeMode ?? 'Filesystem') !== (volume.spec?.volumeMode ?? 'Filesystem');
}

/** `CheckAccessModes`: the volume offers every access mode the claim asks for. */
export function checkAccessModes(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  const offered = new Set(volume.spec?.accessModes ?? []);
  return (claim.spec?.accessModes ?? []).every((m) => offered.has(m));
}

/** `v1helper.GetAccessModesAsString`: the index key of a set of access modes, in a fixed order. */
export function accessModesAsString(modes: readonly string[] | undefined): string {
  const m = new Set(modes ?? []);
  const out: string[] = [];
  if (m.has('ReadWriteOnce')) out.push('RWO');
  if (m.has('ReadOnlyMany')) out.push('ROX');
  if (m.has('ReadWriteMany')) out.push('RWX');
  if (m.has('ReadWriteOncePod')) out.push('RWOP');
  return out.join(',');
}

const zeroQuantity = parseQuantity(0);

function quantityOr(q: string | number | undefined, fallback: Quantity): Quantity {
  if (q === undefined) return fallback;
  try {
    return parseQuantity(q);
  } catch {
    return fallback;
  }
}

/** The storage a claim requests (0 when it names none). */
export function claimStorageRequest(claim: PersistentVolumeClaim): Quantity {
  return quantityOr(claim.spec?.resources?.requests?.['storage'], zeroQuantity);
}

/** The storage a volume offers (0 when it names none). */
export function volumeCapacity(volume: PersistentVolume): Quantity {
  return quantityOr(volume.spec?.capacity?.['storage'], zeroQuantity);
}

/** Where `findMatchingVolume` is asked from: the PV controller (no node) or the scheduler (one node). */
export interface MatchingVolumeOptions {
  /** The scheduler's path: whether a volume's node affinity admits the node being filtered. */
  readonly nodeAdmits?: (volume: PersistentVolume) => boolean;
  /** Volumes already chosen for other claims of the pod. */
  readonly excluded?: ReadonlySet<string>;
  /** The claim's class binds on first consumer: without a node only pre-bound volumes match. */
  readonly delayBinding: boolean;
}

/**
 * `FindMatchingVolume` (VolumeAttributesClass off, as in 1.32 by default). A volume pre-bound to the claim
 * wins outright (on the scheduler's path only if its node affinity admits the node); otherwise the
 * smallest Available volume of the claim's class, selector and volume mode that is big enough, and on the
 * scheduler's path one that admits the node and offers the claim's access modes.
 */
export function findMatchingVolume(claim: PersistentVolumeClaim, volumes: readonly PersistentVolume[], o: MatchingVolumeOptions): PersistentVolume | undefined {
  const requested = claimStorageRequest(claim);
  const requestedClass = claimClass(claim);
  const selector = claim.spec?.selector === undefined ? undefined : labelSelectorAsSelector(claim.spec.selector);
  const onNode = o.nodeAdmits !== undefined;
  let smallest: PersistentVolume | undefined;
  let smallestQty = zeroQuantity;
  for (const volume of volumes) {
    if (o.excluded?.has(volume.metadata?.name ?? '') === true) continue;
    if (volume.spec?.claimRef !== undefined && !isVolumeBoundToClaim(volume, claim)) continue;
    const qty = volumeCapacity(volume);
    if (compareQuantities(qty, requested) < 0) continue;
    if (volumeModeMismatches(claim, volume)) continue;
    if ((volume.spec?.volumeAttributesClassName ?? '') !== '') continue;
    if (volume.metadata?.deletionTimestamp !== undefined) continue;
    const nodeAffinityValid = o.nodeAdmits?.(volume) ?? true;
    if (isVolumeBoundToClaim(volume, claim)) return nodeAffinityValid ? volume : undefined;
    if (!onNode && o.delayBinding) continue;
    if (volume.status?.phase !== 'Available') continue;
    if (selector !== undefined && !selector.matches(volume.metadata?.labels)) continue;
    if (volumeClass(volume) !== requestedClass) continue;
    if (!nodeAffinityValid) continue;
    if (onNode && !checkAccessModes(claim, volume)) continue;
    if (smallest === undefined || compareQuantities(smallestQty, qty) > 0) {
      smallest = volume;
      smallestQty = qty;
    }
  }
  return smallest;
}

/** `volumeutil.PVCProtectionFinalizer`: added by StorageObjectInUseProtection, removed by the pvc-protection controller. */
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
/** `volumeutil.PVProtectionFinalizer`: added by StorageObjectInUseProtection, removed by the pv-protection controller. */
export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';

/** `IsDefaultStorageClassAnnotation`. */
export const isDefaultStorageClassAnnotation = 'storageclass.kubernetes.io/is-default-class';
/** `BetaIsDefaultStorageClassAnnotation`. */
export const betaIsDefaultStorageClassAnnotation = 'storageclass.beta.kubernetes.io/is-default-class';

/** `IsDefaultAnnotation`: either annotation is exactly `"true"`. */
export function isDefaultAnnotation(cls: StorageClass): boolean {
  const ann = cls.metadata?.annotations ?? {};
  return ann[isDefaultStorageClassAnnotation] === 'true' || ann[betaIsDefaultStorageClassAnnotation] === 'true';
}

/** `GetDefaultClass` (pkg/volume/util/storageclass.go): the newest default StorageClass, then by name. */
export function getDefaultClass(classes: readonly StorageClass[]): StorageClass | undefined {
  return newestDefault(classes, isDefaultAnnotation);
}

/**
 * `volumeutil.IsPodTerminated`: Failed or Succeeded, or being deleted with no container running (each
 * init, app and ephemeral container terminated or waiting).
 */
export function isPodTerminated(p: Pod): boolean {
  const phase = p.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return true;
  if (p.metadata?.deletionTimestamp === undefined) return false;
  const notRunning = (ss: readonly { state?: { terminated?: unknown; waiting?: unknown } }[] | undefined): boolean => (ss ?? []).every((s) => s.state?.terminated !== undefined || s.state?.waiting !== undefined);
  return notRunning(p.status?.initContainerStatuses) && notRunning(p.status?.containerStatuses) && notRunning(p.status?.ephemeralContainerStatuses);
}
