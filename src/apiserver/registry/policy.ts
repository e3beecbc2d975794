/**
 * The seams through which the registry applies what other modules decide: defaults, validation and
 * admission (src/apiserver/validation, src/admission), allocations (Service IPs and NodePorts) and
 * managed fields. The server wires real implementations; each may be absent for a resource.
 */
import type { FieldError } from '../../api/field-errors.js';
import type { ResourceDef } from '../discovery/resource-defs.js';
import type { StoredObject } from '../storage/watch-cache.js';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface AdmissionRequest {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  def: ResourceDef;
  subresource: string;
  namespace: string;
  name: string;
  object: StoredObject | undefined;
  oldObject: StoredObject | undefined;
  userInfo: UserInfo;
  dryRun: boolean;
}

export interface ObjectPolicy {
  /** Applies the type's defaults in place (as decoding does in kube-apiserver). */
  applyDefaults(def: ResourceDef, obj: StoredObject): void;
  /** Field errors for a create (`old` undefined) or an update of the main resource or a subresource. */
  validate(def: ResourceDef, obj: StoredObject, old: StoredObject | undefined, subresource: string): FieldError[];
  /** Mutating admission; mutates `req.object`; throws ApiError to refuse. */
  admit(req: AdmissionRequest): Promise<void>;
  /** Validating admission; throws ApiError to refuse. */
  validateAdmission(req: AdmissionRequest): Promise<void>;
}

/** Per-resource storage hooks (the REST layers kube-apiserver adds around the generic store). */
export interface StorageHooks {
  /** After validation, before the write: allocate (cluster IPs, node ports). Throws ApiError to refuse. */
  beforeCreate?(obj: StoredObject, dryRun: boolean): void;
  /** The create failed or was a dry run: undo `beforeCreate`. */
  rollbackCreate?(obj: StoredObject): void;
  beforeUpdate?(obj: StoredObject, old: StoredObject, dryRun: boolean): void;
  rollbackUpdate?(obj: StoredObject, old: StoredObject): void;
  afterDelete?(obj: StoredObject): void;
}

/** Keeps `metadata.managedFields` as a real server does for non-apply writes. */
export interface ManagedFieldsUpdater {
  update(def: ResourceDef, live: StoredObject | undefined, obj: StoredObject, manager: string, subresource: string): void;
}

export const noPolicy: ObjectPolicy = {
  applyDefaults: () => undefined,
  validate: () => [],
  admit: async () => undefined,
  validateAdmission: async () => undefined,
};
