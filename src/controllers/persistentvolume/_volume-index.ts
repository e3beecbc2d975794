/**
 * Matching claims to volumes: the PV controller's `persistentVolumeOrderedIndex`
 * (pkg/controller/volume/persistentvolume/index.go), without the scheduler's node path. The helpers it
 * shares with the scheduler are in `src/api/pv-helpers.ts`.
 */
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { compareQuantities } from '../../api/quantity.js';

import {
  accessModesAsString,
  checkAccessModes,
  claimClass,
  claimStorageRequest,
  findMatchingVolume,
  volumeCapacity,
  volumeClass,
  volumeModeMismatches,
} from '../../api/pv-helpers.js';

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
    const best = findMatchingVolume(claim, g.volumes, { delayBinding });
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
  if (compareQuantities(volumeCapacity(volume), claimStorageRequest(claim)) < 0) return 'requested PV is too small';
  if (volumeClass(volume) !== claimClass(claim)) return 'storageClassName does not match';
  if (volumeModeMismatches(claim, volume)) return 'incompatible volumeMode';
  if (!checkAccessModes(claim, volume)) return 'incompatible accessMode';
  return undefined;
}
