/**
 * DefaultStorageClass (`plugin/pkg/admission/storage/storageclass/setdefault`, v1.32): on CREATE of a
 * PersistentVolumeClaim that asks for no class at all (no `spec.storageClassName`, no beta
 * `volume.beta.kubernetes.io/storage-class` annotation), sets `spec.storageClassName` to the default
 * StorageClass. An explicit `""` asks for no class and is left alone. Without a default class the claim is
 * left alone too; the PV controller assigns one later if a default appears (retroactive default
 * StorageClass, src/controllers/persistentvolume).
 *
 * Several default classes are not an error since 1.26: the newest wins, then the first by name
 * (`getDefaultClass` of src/api/pv-helpers.ts).
 */
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { claimHasClass, getDefaultClass } from '../../api/pv-helpers.js';
import { asForbidden, isResource } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, MutatingPlugin } from '../types.js';

export const name = names.DefaultStorageClass;

export class DefaultStorageClass implements MutatingPlugin {
  readonly name = name;

  /** `admission.NewHandler(admission.Create)`. */
  handles(op: AdmissionAttributes['operation']): boolean {
    return op === 'CREATE';
  }

  async admit(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (!this.handles(a.operation) || !isResource(a, '', 'persistentvolumeclaims') || a.subresource !== '') return;
    const pvc = a.object as PersistentVolumeClaim | undefined;
    if (pvc === undefined) return;
    if (claimHasClass(pvc)) return;
    let def: StorageClass | undefined;
    try {
      def = getDefaultClass(await lookup.listStorageClasses());
    } catch (e) {
      throw asForbidden(a, e);
    }
    if (def === undefined) return;
    (pvc.spec ??= {}).storageClassName = def.metadata?.name ?? '';
  }
}

export function create(): DefaultStorageClass {
  return new DefaultStorageClass();
}
