/**
 * Matching claims to volumes: the PV controller's `persistentVolumeOrderedIndex`
 * (pkg/controller/volume/persistentvolume/index.go) and the helpers it shares with the scheduler
 * (staging/src/k8s.io/component-helpers/storage/volume/pv_helpers.go, v1.32), without the scheduler's node
 * path.
 */
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { labelSelectorAsSelector, type Selector } from '../../api/labels.js';
import { compareQuantities, parseQuantity, type Quantity } from '../../api/quantity.js';

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

function quantityOr(q: string | number | undefined, fallback: Quantity): Quantity {
  if (q === undefined) return fallback;
  try {
    return parseQuantity(q);
  } catch {
    return fallback;
  }
}

const zero = parseQuantity(0);

export function volumeCapacity(volume: PersistentVolume): Quantity {
  return quantityOr(volume.spec?.capacity?.['storage'], zero);
}

/**
 * `FindMatchingVolume` on the controller path (no node, no excluded volumes; VolumeAttributesClass off, as
 * in 1.32 by default). A volume pre-bound to the claim wins outright; otherwise the smallest Available
 * volume of the claim's class, selector and volume mode that is big enough. With `delayBinding` only
 * pre-bound volumes are returned: the scheduler binds the rest.
 */
export function findMatchingVolume(claim: PersistentVolumeClaim, volumes: readonly PersistentVolume[], delayBinding: boolean): PersistentVolume | undefined {
  const requested = quantityOr(claim.spec?.resources?.requests?.['storage'], zero);
  const requestedClass = claimClass(claim);
  const selector: Selector | undefined = claim.spec?.selector === undefined ? undefined : labelSelectorAsSelector(claim.spec.selector);
  let smallest: PersistentVolume | undefined;
  let smallestQty = zero;
  for (const volume of volumes) {
    if (volume.spec?.claimRef !== undefined && !isVolumeBoundToClaim(volume, claim)) continue;
    const qty = volumeCapacity(volume);
    if (compareQuantities(qty, requested) < 0) continue;
    if (volumeModeMismatches(claim, volume)) continue;
    if ((volume.spec?.volumeAttributesClassName ?? '') !== '') continue;
    if (volume.metadata?.deletionTimestamp !== undefined) continue;
    if (isVolumeBoundToClaim(volume, claim)) return volume;
    if (delayBinding) continue;
    if (volume.status?.phase !== 'Available') continue;
    if (selector !== undefined && !selector.matches(volume.metadata?.labels)) continue;
    if (volumeClass(volume) !== requestedClass) continue;
    if (smallest === undefined || compareQuantities(smallestQty, qty) > 0) {
      smallest = volume;
      smallestQty = qty;
    }
  }
  return smallest;
}

/**
 * `persistentVolumeOrderedIndex.findBestMatchForClaim`: volumes are grouped by their access modes; the
 * groups offering every mode the claim asks for are tried from the fewest modes up, and the first group
 * with a match gives it. So a RWO claim takes a 10Gi RWO volume before a 1Gi RWO,RWX one.
 */
export function findBestMatchForClaim(claim: PersistentVolumeClaim, volumes: readonly PersistentVolume[], delayBinding: boolean): PersistentVolume | undefined {
  if ((claim.spec?.volumeAttributesClassName ?? '') !== '') {
    throw new Error(`unsupported volumeAttributesClassName is set on claim ${claim.metadata?.namespace ?? ''}/${claim.metadata?.name ?? ''} when the feature-gate VolumeAttributesClass is disabled`);
  }
  const byModes = new Map<string, { modes: string[]; volumes: PersistentVolume[] }>();
  for (const v of volumes) {
    const key = accessModesAsString(v.spec?.accessModes);
    let g = byModes.get(key);
    if (g === undefined) byModes.set(key, (g = { modes: key === '' ? [] : key.split(','), volumes: [] }));
    g.volumes.push(v);
  }
  const wanted = accessModesAsString(claim.spec?.accessModes).split(',').filter((m) => m !== '');
  const groups = [...byModes.values()].filter((g) => wanted.every((m) => g.modes.includes(m))).sort((a, b) => a.modes.length - b.modes.length);
  for (const g of groups) {
    const best = findMatchingVolume(claim, g.volumes, delayBinding);
    if (best !== undefined) return best;
  }
  return undefined;
}

/**
 * `checkVolumeSatisfyClaim`: why a volume the claim names in `spec.volumeName` cannot be bound to it (the
 * `VolumeMismatch` event's reason), or undefined when it can.
 */
export function checkVolumeSatisfyClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): string | undefined {
  if (volume.metadata?.deletionTimestamp !== undefined) return `the volume is marked for deletion "${volume.metadata.name ?? ''}"`;
  const requested = quantityOr(claim.spec?.resources?.requests?.['storage'], zero);
  if (compareQuantities(volumeCapacity(volume), requested) < 0) return 'requested PV is too small';
  if (volumeClass(volume) !== claimClass(claim)) return 'storageClassName does not match';
  if (volumeModeMismatches(claim, volume)) return 'incompatible volumeMode';
  if (!checkAccessModes(claim, volume)) return 'incompatible accessMode';
  return undefined;
}
