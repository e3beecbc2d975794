/**
 * StorageObjectInUseProtection (`plugin/pkg/admission/storage/storageobjectinuseprotection`, v1.32): on
 * CREATE of a PersistentVolumeClaim or a PersistentVolume (not of a subresource), appends the protection
 * finalizer unless the object already carries it. The pvc-protection and pv-protection controllers remove
 * it once the object is no longer in use, so a claim used by a pod, or a volume that is Bound, stays
 * `Terminating` after a delete.
 *
 * Upstream's handler is registered for CREATE only: an UPDATE that drops the finalizer is not undone here
 * (the controllers add it back to objects that are not being deleted). The VolumeAttributesClass branch
 * of upstream (behind the VolumeAttributesClass gate, off in 1.32, whose API kubemix does not serve) is
 * left out.
 */
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { pvcProtectionFinalizer, pvProtectionFinalizer } from '../../api/pv-helpers.js';
import { isResource } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, MutatingPlugin } from '../types.js';

export const name = names.StorageObjectInUseProtection;

/** Appends `finalizer` to the object's finalizers unless it is already there. */
function addFinalizer(obj: PersistentVolume | PersistentVolumeClaim, finalizer: string): void {
  const md = (obj.metadata ??= {});
  const finalizers = md.finalizers ?? [];
  if (finalizers.includes(finalizer)) return;
  md.finalizers = [...finalizers, finalizer];
}

export class StorageObjectInUseProtection implements MutatingPlugin {
  readonly name = name;

  /** `admission.NewHandler(admission.Create)`. */
  handles(op: AdmissionAttributes['operation']): boolean {
    return op === 'CREATE';
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (!this.handles(a.operation) || a.subresource !== '') return;
    // Upstream returns quietly when the object does not convert to the expected type.
    if (a.object === undefined) return;
    if (isResource(a, '', 'persistentvolumes')) addFinalizer(a.object as PersistentVolume, pvProtectionFinalizer);
    else if (isResource(a, '', 'persistentvolumeclaims')) addFinalizer(a.object as PersistentVolumeClaim, pvcProtectionFinalizer);
  }
}

export function create(): StorageObjectInUseProtection {
  return new StorageObjectInUseProtection();
}
