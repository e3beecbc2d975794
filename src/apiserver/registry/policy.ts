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
  /** The request's response warnings (`RequestContext.warnings`), which admission may add to. */
  warnings?: string[];
}

export interface ObjectPolicy {
  /** Drops fields the type does not declare (as decoding does); returns their paths. */
  pruneUnknownFields?(def: ResourceDef, obj: StoredObject): string[];
  /** The decoding error of a value of the wrong JSON type for its field, if any (see field-validation.ts). */
  decodeTypeError?(def: ResourceDef, obj: StoredObject): string | undefined;
  /** Applies the type's defaults in place (as decoding does in kube-apiserver). */
  applyDefaults(def: ResourceDef, obj: StoredObject): void;
  /** Field errors for a create (`old` undefined) or an update of the main resource or a subresource. */
  validate(def: ResourceDef, obj: StoredObject, old: StoredObject | undefined, subresource: string): FieldError[];
  /** Mutating admission; mutates `req.object`; throws ApiError to refuse. */
  admit(req: AdmissionRequest): Promise<void>;
  /** Validating admission; throws ApiError to refuse. */
  validateAdmission(req: AdmissionRequest): Promise<void>;
}

/** What a storage hook allocated for one write: kept when the write is stored, given back when it fails. */
export interface HookTransaction {
  commit(): void;
  revert(): void;
}

/**
 * Per-resource storage hooks (kube-apiserver's `BeginCreate`/`BeginUpdate`/`AfterDelete`), run after
 * mutating admission and before the strategy validates: allocations such as cluster IPs and node ports.
 * They throw ApiError to refuse.
 */
export interface StorageHooks {
  beginCreate?(obj: StoredObject, dryRun: boolean): HookTransaction | undefined;
  beginUpdate?(obj: StoredObject, old: StoredObject, dryRun: boolean): HookTransaction | undefined;
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
