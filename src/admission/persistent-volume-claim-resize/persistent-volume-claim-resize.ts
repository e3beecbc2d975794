/**
 * PersistentVolumeClaimResize (`plugin/pkg/admission/storage/persistentvolume/resize`, v1.32): an update
 * that grows a claim's `spec.resources.requests.storage` is refused unless the claim is Bound and its
 * StorageClass (the same before and after) sets `allowVolumeExpansion: true`. Shrinking or keeping the
 * size is left to validation.
 */
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { claimClass, claimStorageRequest } from '../../api/pv-helpers.js';
import { admissionForbidden, isResource } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, ValidatingPlugin } from '../types.js';

export const name = names.PersistentVolumeClaimResize;

export const messages = {
  notBound: 'Only bound persistent volume claims can be expanded',
  notExpandable: 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
} as const;

export class PersistentVolumeClaimResize implements ValidatingPlugin {
  readonly name = name;

  async validate(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (!isResource(a, '', 'persistentvolumeclaims') || a.subresource !== '') return;
    const pvc = a.object as PersistentVolumeClaim | undefined;
    const old = a.oldObject as PersistentVolumeClaim | undefined;
    if (pvc === undefined || old === undefined) return;
    if (claimStorageRequest(pvc).nanos <= claimStorageRequest(old).nanos) return;
    if (old.status?.phase !== 'Bound') throw admissionForbidden(a, messages.notBound);
    if (!(await this.allowResize(pvc, old, lookup))) throw admissionForbidden(a, messages.notExpandable);
  }

  /** `allowResize`: the same, non-empty class before and after, and that class allows expansion. */
  private async allowResize(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim, lookup: AdmissionLookup): Promise<boolean> {
    const cls = claimClass(pvc);
    if (cls === '' || cls !== claimClass(old)) return false;
    let classes;
    try {
      classes = await lookup.listStorageClasses();
    } catch {
      return false;
    }
    return classes.find((c) => c.metadata?.name === cls)?.allowVolumeExpansion === true;
  }
}

export function create(): PersistentVolumeClaimResize {
  return new PersistentVolumeClaimResize();
}
