/**
 * The `Client` seam: how every component (scheduler, controllers, simulated nodes, check) talks to an API
 * server. Two implementations: HTTP (`http-client.ts`, any Kubernetes API server) and in-process
 * (`../apiserver/in-process-client.ts`, same admission, validation and watch semantics without sockets).
 *
 * Errors are `ApiError`s (`../api/errors.ts`) with the server's reason and code.
 */
import type { ObjectMeta, ListMeta } from 'kubernetes-types/meta/v1.js';
import type { Status } from '../api/errors.js';
import type { ResourceType } from '../api/resources.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface KubeList<T> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  /**
   * The caller never modifies the items (an informer's cache): an in-process client may then hand out the
   * server's cached objects, deep-frozen, instead of private copies. Over HTTP it changes nothing.
   */
  readOnly?: boolean;
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this resourceVersion; absent or "0" starts with synthetic ADDED events for the current state. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  /** As `ListOptions.readOnly`: the caller never modifies the event objects. */
  readOnly?: boolean;
  /**
   * The caller drops `metadata.managedFields` of the event objects unread (an informer whose transform is
   * `trimManagedFields`): a server in this process may leave them out of changes it sends as text to another
   * thread. Over HTTP it changes nothing.
   */
  managedFieldsUnread?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T> {
  type: WatchEventType;
  /** The object; for ERROR a `Status` (e.g. 410 Expired). */
  object: T;
}

/** A watch: iterate for events; `close()` ends it (idempotent). The iteration ends when the server closes it. */
export interface WatchStream<T> extends AsyncIterable<WatchEvent<T>> {
  close(): void;
}

export interface WriteOptions {
  namespace?: string;
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /** `status`, `scale`, ... */
  subresource?: string;
  /**
   * What of the written object the caller reads: nothing (`'none'`: a kubelet's status writes, an event
   * recorder) or only its metadata (`'metadata'`: a controller naming the pod it created). A client whose
   * answer would cross to another thread may then resolve with nothing, or with the object's apiVersion,
   * kind and metadata without managedFields, so that neither side copies and decodes the rest. Other
   * clients answer with the whole object; such a caller must not read more than it said.
   */
  answer?: 'metadata' | 'none';
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export const patchContentTypes: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface DeleteOptions {
  namespace?: string;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export interface Client {
  get<T extends KubeObject>(res: ResourceType, name: string, opts?: { namespace?: string; subresource?: string }): Promise<T>;
  list<T extends KubeObject>(res: ResourceType, opts?: ListOptions): Promise<KubeList<T>>;
  watch<T extends KubeObject>(res: ResourceType, opts?: WatchOptions): WatchStream<T>;
  /** Creates `obj`; the namespace comes from `opts.namespace` or `obj.metadata.namespace`. */
  create<T extends KubeObject>(res: ResourceType, obj: T, opts?: WriteOptions): Promise<T>;
  /** Replaces the object named by `obj.metadata` (optimistic concurrency on its resourceVersion). */
  update<T extends KubeObject>(res: ResourceType, obj: T, opts?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(
    res: ResourceType,
    name: string,
    type: PatchType,
    patch: unknown,
    opts?: WriteOptions & { force?: boolean },
  ): Promise<T>;
  /** Deletes; answers the object (graceful or finalizers pending) or a success `Status`. */
  delete<T extends KubeObject>(res: ResourceType, name: string, opts?: DeleteOptions): Promise<T | Status>;
  deleteCollection(res: ResourceType, opts?: ListOptions & DeleteOptions): Promise<void>;
  /** POST to a subresource such as `pods/binding` or `pods/eviction`; answers what the server returns. */
  createSubresource<R = unknown>(
    res: ResourceType,
    name: string,
    subresource: string,
    body: unknown,
    opts?: { namespace?: string },
  ): Promise<R>;
}
