/**
 * What the HTTP layer needs from the modules around it: table printing, patching, OpenAPI documents and
 * the pod subresources that belong to other components (logs come from the node that runs the pod).
 */
import type { ResourceDef } from './discovery/resource-defs.js';
import type { StoredObject } from './storage/watch-cache.js';

export interface TableConvertor {
  /** A meta.k8s.io/v1 Table for the objects; `includeObject` as the request asked. */
  toTable(def: ResourceDef, objects: readonly StoredObject[], opts: { includeObject: 'None' | 'Metadata' | 'Object'; now: number }): Record<string, unknown>;
}

export interface PatchContext {
  fieldManager: string;
  force: boolean;
  subresource: string;
}

export interface Patcher {
  /**
   * The object after applying the patch to `live`, which is not changed. For JSON and strategic merge
   * patches it shares no part with `live`; a merge patch's shares the parts the patch leaves alone.
   * Throws ApiError.
   */
  patch(def: ResourceDef, live: StoredObject, type: 'json' | 'merge' | 'strategic', body: unknown): StoredObject;
  /** Server-side apply of `applied` onto `live` (undefined: the object does not exist yet). Throws ApiError (409 on conflicts). */
  apply(def: ResourceDef, live: StoredObject | undefined, applied: StoredObject, ctx: PatchContext): StoredObject;
}

export interface OpenApiProvider {
  v2(): Buffer;
  v3Root(): Record<string, unknown>;
  v3Doc(groupVersionPath: string): Buffer | undefined;
}

/** Where pod logs come from (the simulated kubelets); undefined when the pod's node serves none. */
export interface PodLogSource {
  logs(namespace: string, pod: string, container: string | undefined, opts: { tailLines?: number; previous?: boolean; timestamps?: boolean }): Promise<string | undefined>;
}
