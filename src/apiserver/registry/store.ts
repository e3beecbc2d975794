/**
 * The generic registry (kube-apiserver's `genericregistry.Store`): create, get, list, watch, update
 * (with optimistic concurrency and retry for unconditional writes), delete (graceful pods, finalizers,
 * propagation policies) over the storage `Backend`, reading through the watch cache.
 */
import { randomUUID } from 'node:crypto';
import type { Backend, KeyValue } from '../../storage/backend.js';
import { Conflict, KeyExists, KeyNotFound, Compacted } from '../../storage/backend.js';
import { ApiError, apiErrors, type GroupResource, type Status } from '../../api/errors.js';
import { fieldErrors } from '../../api/field-errors.js';
import type { Selector } from '../../api/labels.js';
import type { FieldSelector } from '../../api/fields.js';
import { apiVersionOf } from '../../api/resources.js';
import type { ResourceDef } from '../discovery/resource-defs.js';
import {
  type CacheDispatcher,
  type CachedObject,
  type ResourceCache,
  type StoredObject,
  type WatchFilter,
  type CacheWatcherSink,
  TooOldResourceVersion,
  decodeObject,
  objectOfStoredText,
  storedText,
} from '../storage/watch-cache.js';
import { StorageWatchCompacted, watchStorage } from '../storage/storage-watch.js';
import { unknownFieldOutcome, type FieldValidation } from '../field-validation.js';
import { deepCopy } from '../patch/index.js';
import { asStoredForm } from '../protobuf/storage-form.js';
import type { AdmissionRequest, HookTransaction, ManagedFieldsUpdater, ObjectPolicy, StorageHooks, UserInfo } from './policy.js';
import {
  hasStatusSubresource,
  podGracePeriod,
  bumpsGeneration,
  convertRequestObject,
  prepareForCreate,
  prepareForUpdate,
  objectAttrs,
  randomSuffix,
  tracksGeneration,
} from './strategy.js';

/** etcd's request size limit (kube-apiserver refuses larger objects). */
export const maxObjectBytes = 1.5 * 1024 * 1024;

export interface RequestContext {
  user: UserInfo;
  dryRun: boolean;
  fieldManager: string;
  /** Server-side apply computed managedFields itself: the write must not record an Update entry. */
  applied?: boolean;
  /** `?fieldValidation=` of an HTTP request; undefined for in-process callers (no unknown-field checks). */
  fieldValidation?: FieldValidation;
  /** Warnings for the response's `Warning` headers. */
  warnings?: string[];
  /**
   * The API form the client wrote in, when it is not the storage form (`ConvertingStore`): field ownership
   * is recorded in it, as kube-apiserver's field manager works on the request's version and names it in
   * the entry's apiVersion.
   */
  requestForm?: RequestForm;
}

/** A resource's other API form: its definition and the conversion of a storage-form object to it. */
export interface RequestForm {
  def: ResourceDef;
  fromStorage(obj: StoredObject): StoredObject;
}

export interface ListQuery {
  namespace?: string;
  labelSelector: Selector;
  fieldSelector: FieldSelector;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  items: CachedObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface DeleteRequest {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type DeleteResult = { kind: 'object'; object: StoredObject; code: number } | { kind: 'status'; status: Status };

export interface StoreOptions {
  backend: Backend;
  dispatcher: CacheDispatcher;
  policy: ObjectPolicy;
  managedFields?: ManagedFieldsUpdater;
  hooks?: (def: ResourceDef) => StorageHooks | undefined;
  now?: () => Date;
}

const maxUpdateRetries = 8;

/**
 * Resources written in bulk that the server itself seldom reads: their watch caches keep objects as stored
 * bytes between uses instead of decoded trees (`ResourceCacheOptions.keepDecoded`).
 */
const churning = new Set(['/pods', 'coordination.k8s.io/leases']);

/**
 * Key prefixes served from storage without a watch cache: Events (core and events.k8s.io share the
 * storage), as kube-apiserver's `DefaultWatchCacheSizes` sets their cache sizes to 0. They are written
 * in bulk, read seldom and expire; a cache would hold every one in memory.
 */
const uncached = new Set(['/registry/events/']);

/** Whether a resource's reads and watches go to storage (there is no watch cache for it). */
export function servedFromStorage(def: ResourceDef): boolean {
  return uncached.has(def.keyPrefix);
}

/**
 * The reads of the live object in one update loop: the watch cache's copy first (kube-apiserver's
 * `cachedExistingObject`), which saves a storage read per update; storage when the cache holds no stored
 * bytes for the key, and for every read after a cached guess was found wanting.
 */
class LiveReads {
  private fresh = false;
  private cached = false;

  constructor(
    /** Undefined for a resource served from storage: every read goes there. */
    private readonly cache: Promise<ResourceCache> | undefined,
    private readonly backend: Backend,
    private readonly key: string,
  ) {}

  async read(): Promise<KeyValue | undefined> {
    if (!this.fresh && this.cache !== undefined) {
      const kv = (await this.cache).storedValue(this.key);
      this.cached = kv !== undefined;
      if (kv !== undefined) return kv;
    }
    this.cached = false;
    return this.backend.get(this.key);
  }

  /**
   * True when the last read came from the cache: what its object led to (a refusal, a lost revision check,
   * an answer without a write) must be decided again, and the next read goes to storage.
   */
  recheck(): boolean {
    if (!this.cached) return false;
    this.fresh = true;
    return true;
  }

  /** The next read goes to storage (a write lost its revision check against it). */
  refresh(): void {
    this.fresh = true;
  }
}

export interface GuaranteedUpdateOptions {
  /**
   * `mutate` neither changes the live object nor returns one sharing any part of it (it only looks at
   * whether the live object exists, or it copies what it keeps): it may be given the decoded object itself.
   */
  liveUntouched?: boolean;
}

export function groupResource(def: ResourceDef): GroupResource {
  return { group: def.group, resource: def.resource };
}

export function objectKey(def: ResourceDef, namespace: string, name: string): string {
  return def.namespaced ? `${def.keyPrefix}${namespace}/${name}` : `${def.keyPrefix}${name}`;
}

/** The bytes of a stored JSON text for a create or update; an object over etcd's request limit is refused. */
function requestBytes(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteLength > maxObjectBytes) throw apiErrors.requestEntityTooLarge('etcdserver: request is too large');
  return bytes;
}

/**
 * The JSON storage keeps for an object: without its resourceVersion (the storage revision is), and with the
 * lists, maps and scalars of a built-in kind as they read back from kube-apiserver's protobuf storage
 * (`asStoredForm`: empty lists `null` or gone, omitempty zeros gone), which the object being written takes
 * too (upstream answers a write with the object decoded from what it stored).
 * The resourceVersion is put back as the last key of metadata.
 */
function storedJson(obj: StoredObject): string {
  asStoredForm(obj);
  const md = obj.metadata;
  const rv = md?.resourceVersion;
  if (md !== undefined) delete md.resourceVersion;
  const s = JSON.stringify(obj);
  if (md !== undefined && rv !== undefined) md.resourceVersion = rv;
  return s;
}

/** Whether `resourceVersion` is the last key of the object's metadata (where decoding and writes put it). */
function resourceVersionLast(obj: StoredObject): boolean {
  const md = obj.metadata;
  if (md === undefined || md.resourceVersion === undefined) return false;
  let last: string | undefined;
  for (const k in md) last = k;
  return last === 'resourceVersion';
}

/**
 * Whether an update changes nothing (`JSON.stringify(next) === JSON.stringify(live)`), and the stored
 * JSON of `next` when that comes for free. When both objects carry the same resourceVersion as the last
 * key of their metadata, their JSON texts differ exactly where their stored texts (without it) do, so
 * the stored text of `next` answers the question and is then written as is (one stringify fewer).
 * `liveJson` is the stored text `live` was decoded from: storage only ever holds `JSON.stringify`
 * output (`storedJson`), which re-encodes to itself, so it stands for `storedJson(live)`.
 */
export function compareForUpdate(
  next: StoredObject,
  live: StoredObject,
  liveJson?: string,
): { unchanged: true } | { unchanged: false; json?: string } {
  if (next.metadata?.resourceVersion === live.metadata?.resourceVersion && resourceVersionLast(next) && resourceVersionLast(live)) {
    const json = storedJson(next);
    return json === (liveJson ?? storedJson(live)) ? { unchanged: true } : { unchanged: false, json };
  }
  return JSON.stringify(next) === JSON.stringify(live) ? { unchanged: true } : { unchanged: false };
}

/** RFC 3339 in whole seconds (`metav1.Time`): toISOString always ends in `.sssZ`, which becomes `Z`. */
export function rfc3339(d: Date): string {
  const iso = d.toISOString();
  return `${iso.slice(0, -5)}Z`;
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

interface ContinueToken {
  v: 'meta.k8s.io/v1';
  rv: number;
  start: string;
}

function encodeContinue(rv: number, lastKey: string, prefix: string): string {
  const t: ContinueToken = { v: 'meta.k8s.io/v1', rv, start: `${lastKey.slice(prefix.length)}\u0000` };
  return Buffer.from(JSON.stringify(t)).toString('base64');
}

function decodeContinue(token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as ContinueToken;
    if (t.v !== 'meta.k8s.io/v1' || typeof t.rv !== 'number' || typeof t.start !== 'string') throw new Error('bad');
    return t;
  } catch {
    throw apiErrors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

export class Store {
  private readonly caches = new Map<string, Promise<ResourceCache>>();
  /** The stored text of each object a write answered with (see `writtenText`). */
  private readonly written = new WeakMap<StoredObject, { text: string; rv: number }>();
  private readonly now: () => Date;

  constructor(private readonly opts: StoreOptions) {
    this.now = opts.now ?? (() => new Date());
  }

  /** The watch cache of a resource (loaded on first use); not for resources served from storage. */
  cache(def: ResourceDef): Promise<ResourceCache> {
    if (servedFromStorage(def)) throw new Error(`${def.keyPrefix} has no watch cache: it is served from storage`);
    let c = this.caches.get(def.keyPrefix);
    if (c === undefined) {
      c = this.opts.dispatcher.cacheFor(def.keyPrefix, {
        indexNodeName: def.group === '' && def.resource === 'pods',
        attrsOf: (obj) => objectAttrs(def, obj),
        keepDecoded: !churning.has(`${def.group}/${def.resource}`),
      });
      this.caches.set(def.keyPrefix, c);
    }
    return c;
  }

  /** The reads of one update loop: from the watch cache first, for a resource that has one. */
  private liveReads(def: ResourceDef, key: string): LiveReads {
    return new LiveReads(servedFromStorage(def) ? undefined : this.cache(def), this.opts.backend, key);
  }

  /** Forgets a resource's cache (a CRD went away). */
  dropCache(def: ResourceDef): void {
    this.caches.delete(def.keyPrefix);
  }

  private hooks(def: ResourceDef): StorageHooks | undefined {
    return this.opts.hooks?.(def);
  }

  // ---------------------------------------------------------------- reads

  /**
   * A quorum read from storage (resourceVersion unset), or the cache (resourceVersion "0" or set); always
   * storage for a resource without a cache.
   */
  async get(def: ResourceDef, namespace: string, name: string, resourceVersion?: string): Promise<StoredObject> {
    const key = objectKey(def, namespace, name);
    if (resourceVersion !== undefined && resourceVersion !== '' && !servedFromStorage(def)) {
      const cache = await this.cache(def);
      const c = cache.get(key);
      if (c === undefined) throw apiErrors.notFound(groupResource(def), name);
      return c.obj;
    }
    const kv = await this.opts.backend.get(key);
    if (kv === undefined) throw apiErrors.notFound(groupResource(def), name);
    return decodeObject(kv);
  }

  /**
   * Lists from the watch cache, or from storage at its current revision for a resource without a cache.
   * resourceVersion unset is a consistent read (kube-apiserver's ConsistentListFromCache): the cache
   * answers once it has caught up with storage's current revision, and storage answers at that revision
   * when the cache does not catch up within 3 s; "0" takes the cache as it is; any other waits for it.
   */
  async list(def: ResourceDef, q: ListQuery): Promise<ListResult> {
    const filter = this.filter(def, q);
    if (q.continue !== undefined && q.continue !== '') return this.listContinue(def, q, filter);
    const rv = q.resourceVersion ?? '';
    if (rv !== '' && q.resourceVersionMatch === 'Exact') return this.listAtRevision(def, q, filter, Number(rv), undefined);
    if (servedFromStorage(def)) {
      if (rv !== '' && rv !== '0') await this.waitForRv(Number(rv));
      return this.listAtRevision(def, q, filter, await this.opts.backend.currentRevision(), undefined);
    }
    const cache = await this.cache(def);
    if (rv === '') {
      const current = await this.opts.backend.currentRevision();
      if (!(await this.opts.dispatcher.caughtUp(current))) return this.listAtRevision(def, q, filter, current, undefined);
    } else if (rv !== '0') await this.waitForRv(Number(rv));
    const revision = this.opts.dispatcher.currentRevision();
    const all = cache.list(filter);
    const limit = q.limit ?? 0;
    if (limit > 0 && all.length > limit && rv !== '0') {
      const items = all.slice(0, limit);
      const last = items[items.length - 1];
      return {
        items,
        resourceVersion: String(revision),
        continue: encodeContinue(revision, last?.key ?? '', def.keyPrefix),
        remainingItemCount: all.length - limit,
      };
    }
    return { items: all, resourceVersion: String(revision) };
  }

  private async waitForRv(rv: number): Promise<void> {
    if (!Number.isFinite(rv)) throw apiErrors.badRequest(`invalid resource version: ${String(rv)}`);
    try {
      await this.opts.dispatcher.waitForRevision(rv);
    } catch {
      throw apiErrors.tooLargeResourceVersion(rv, this.opts.dispatcher.currentRevision());
    }
  }

  private async listContinue(def: ResourceDef, q: ListQuery, filter: WatchFilter): Promise<ListResult> {
    const token = decodeContinue(q.continue ?? '');
    return this.listAtRevision(def, q, filter, token.rv, def.keyPrefix + (token.start.endsWith('\u0000') ? token.start.slice(0, -1) : token.start));
  }

  /** A list read from storage at an exact revision (continuations and resourceVersionMatch=Exact). */
  private async listAtRevision(def: ResourceDef, q: ListQuery, filter: WatchFilter, revision: number, after: string | undefined): Promise<ListResult> {
    const prefix = q.namespace !== undefined && def.namespaced ? `${def.keyPrefix}${q.namespace}/` : def.keyPrefix;
    const limit = q.limit ?? 0;
    const items: CachedObject[] = [];
    let continueFrom = after;
    let more = false;
    try {
      for (;;) {
        const page = await this.opts.backend.list(prefix, {
          revision,
          limit: limit > 0 ? Math.max(limit, 100) : 0,
          ...(continueFrom !== undefined ? { continueFrom } : {}),
        });
        for (const kv of page.items) {
          continueFrom = kv.key;
          const obj = decodeObject(kv);
          if (!filter.matches(objectAttrs(def, obj))) continue;
          items.push({ key: kv.key, obj, rv: kv.modRevision });
          if (limit > 0 && items.length === limit) break;
        }
        if (limit > 0 && items.length === limit) {
          more = page.more || page.items[page.items.length - 1]?.key !== continueFrom;
          break;
        }
        if (!page.more) break;
      }
    } catch (e) {
      if (e instanceof Compacted) {
        throw apiErrors.resourceExpired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
      }
      throw e;
    }
    const res: ListResult = { items, resourceVersion: String(revision) };
    if (more) {
      const last = items[items.length - 1];
      res.continue = encodeContinue(revision, last?.key ?? '', def.keyPrefix);
    }
    return res;
  }

  filter(def: ResourceDef, q: { namespace?: string; labelSelector: Selector; fieldSelector: FieldSelector }): WatchFilter {
    const nodeName = def.group === '' && def.resource === 'pods' ? q.fieldSelector.requiresExactMatch('spec.nodeName') : undefined;
    const f: WatchFilter = {
      matches: (a) => q.labelSelector.matches(a.labels) && (q.fieldSelector.isEmpty() || q.fieldSelector.matches(a.fields)),
    };
    if (def.namespaced && q.namespace !== undefined) f.namespace = q.namespace;
    if (nodeName !== undefined) f.nodeName = nodeName;
    return f;
  }

  /**
   * Starts a watch. resourceVersion unset or "0": current state as ADDED events first. Otherwise events
   * after it; 410 Expired when that is older than the cache's window.
   */
  async watch(
    def: ResourceDef,
    q: { namespace?: string; labelSelector: Selector; fieldSelector: FieldSelector; resourceVersion?: string },
    sink: CacheWatcherSink,
  ): Promise<() => void> {
    const filter = this.filter(def, q);
    const rvText = q.resourceVersion ?? '';
    if (servedFromStorage(def)) return this.watchStorage(def, q, filter, sink);
    const cache = await this.cache(def);
    let from: number | undefined;
    if (rvText === '' || rvText === '0') {
      // Both start from the cache's current state without waiting for it to catch up with storage, as
      // kube-apiserver's cacher does for a watch without sendInitialEvents ("the legacy case"): the changes
      // it has yet to apply follow as events. A cache that stopped following storage has none to follow.
      this.opts.dispatcher.checkFollowing();
      from = undefined;
    } else {
      from = Number(rvText);
      if (!Number.isInteger(from)) throw apiErrors.badRequest(`invalid resource version: ${rvText}`);
      await this.waitForRv(from);
    }
    try {
      return cache.watch(filter, sink, from);
    } catch (e) {
      if (e instanceof TooOldResourceVersion) throw apiErrors.resourceExpired(e.message);
      throw e;
    }
  }

  /** A watch on storage (etcd3's watcher): resourceVersion unset or "0" sends the current state first. */
  private async watchStorage(def: ResourceDef, q: { namespace?: string; resourceVersion?: string }, filter: WatchFilter, sink: CacheWatcherSink): Promise<() => void> {
    const rvText = q.resourceVersion ?? '';
    const from = rvText === '' || rvText === '0' ? undefined : Number(rvText);
    if (from !== undefined && !Number.isInteger(from)) throw apiErrors.badRequest(`invalid resource version: ${rvText}`);
    try {
      return await watchStorage({
        backend: this.opts.backend,
        prefix: q.namespace !== undefined && def.namespaced ? `${def.keyPrefix}${q.namespace}/` : def.keyPrefix,
        filter,
        attrsOf: (obj) => objectAttrs(def, obj),
        sink,
        fromRevision: from,
      });
    } catch (e) {
      if (e instanceof StorageWatchCompacted) throw apiErrors.resourceExpired(e.message);
      throw e;
    }
  }

  // ---------------------------------------------------------------- writes

  /**
   * The text `obj` was stored with and its revision, when `obj` is what a write of this store answered and
   * still carries that revision: callers in other threads get the text instead of a serialised object.
   */
  writtenText(obj: object): { text: string; rv: number } | undefined {
    const w = this.written.get(obj as StoredObject);
    return w !== undefined && (obj as StoredObject).metadata?.resourceVersion === String(w.rv) ? w : undefined;
  }

  /**
   * The bytes of `text` (the stored JSON of `obj`) for a create or update, with the object's attributes and
   * the text noted for the watch cache, which then indexes, filters and dispatches the change without
   * decoding it again.
   */
  private bytesToStore(def: ResourceDef, key: string, obj: StoredObject, text: string): Buffer {
    const bytes = requestBytes(text);
    if (servedFromStorage(def)) return bytes;
    const { labels, fields } = objectAttrs(def, obj);
    // The caller keeps `obj`: the cache gets its own copy of the labels.
    this.opts.dispatcher.noteWrite(key, bytes, { labels: labels === undefined ? undefined : { ...labels }, fields }, text);
    return bytes;
  }

  /** Records what a successful write stored for the object it answers with. */
  private wrote(obj: StoredObject, text: string, rv: number): void {
    (obj.metadata ??= {}).resourceVersion = String(rv);
    this.written.set(obj, { text, rv });
  }

  private admissionRequest(
    operation: AdmissionRequest['operation'],
    def: ResourceDef,
    subresource: string,
    namespace: string,
    name: string,
    object: StoredObject | undefined,
    oldObject: StoredObject | undefined,
    ctx: RequestContext,
  ): AdmissionRequest {
    return { operation, def, subresource, namespace, name, object, oldObject, userInfo: ctx.user, dryRun: ctx.dryRun, ...(ctx.warnings !== undefined ? { warnings: ctx.warnings } : {}) };
  }

  /**
   * Records the writer's Update entry in `obj.metadata.managedFields`. A write in another API form than
   * storage's is compared and recorded in that form: an events.k8s.io/v1 Event's entry names
   * `events.k8s.io/v1` and owns `f:note`, not `v1` and `f:message`. (Entries other managers recorded in
   * another form are compared as they are, not converted: a resource written in both forms at once by
   * different managers may keep a field in two entries.)
   */
  private recordOwnership(def: ResourceDef, live: StoredObject | undefined, obj: StoredObject, ctx: RequestContext, subresource: string): void {
    const owners = this.opts.managedFields;
    if (owners === undefined) return;
    const form = ctx.requestForm;
    if (form === undefined) {
      owners.update(def, live, obj, ctx.fieldManager, subresource);
      return;
    }
    const external = form.fromStorage(obj);
    owners.update(form.def, live === undefined ? undefined : form.fromStorage(live), external, ctx.fieldManager, subresource);
    const managedFields = external.metadata?.managedFields;
    const md = (obj.metadata ??= {});
    if (managedFields === undefined) delete md.managedFields;
    else md.managedFields = managedFields;
  }

  private checkTypeMeta(def: ResourceDef, obj: StoredObject): void {
    const apiVersion = apiVersionOf(def);
    if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== def.kind) {
      throw apiErrors.badRequest(`the object provided is unrecognized (must be of type ${def.kind}): object kind "${obj.kind}" does not match`);
    }
    obj.kind = def.kind;
    obj.apiVersion = apiVersion;
  }

  /**
   * A request body (create, update: not a patch, whose errors read otherwise) that JSON cannot decode into
   * the kind's types: a value of the wrong JSON type for its field. In-process callers are typed.
   */
  private checkDecodable(def: ResourceDef, obj: StoredObject, ctx: RequestContext): void {
    if (ctx.applied === true || ctx.fieldValidation === undefined || def.custom) return;
    const e = this.opts.policy.decodeTypeError?.(def, obj);
    if (e !== undefined) throw apiErrors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${e}`);
  }

  /** The conversions decoding a request body runs (`convertRequestObject`); their errors are the decoder's 400. */
  private convertRequest(def: ResourceDef, obj: StoredObject): void {
    const e = convertRequestObject(def, obj);
    if (e !== undefined) throw apiErrors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${e}`);
  }

  /** Unknown fields are dropped; the request's fieldValidation decides between error, warning and silence. */
  private checkUnknownFields(def: ResourceDef, obj: StoredObject, ctx: RequestContext): void {
    // Custom resources are always pruned to their schema; built-in kinds from in-process callers are typed.
    if (ctx.applied === true || (ctx.fieldValidation === undefined && !def.custom)) return;
    const unknown = this.opts.policy.pruneUnknownFields?.(def, obj) ?? [];
    const warnings = unknownFieldOutcome(def, unknown, ctx.fieldValidation ?? 'Ignore');
    if (warnings.length > 0) (ctx.warnings ??= []).push(...warnings);
  }

  private invalid(def: ResourceDef, name: string, errs: ReturnType<ObjectPolicy['validate']>): ApiError {
    return apiErrors.invalid({ group: def.group, kind: def.kind }, name, errs);
  }

  /** Creates an object (POST). `namespace` is the request's namespace ('' for cluster-scoped). */
  async create(def: ResourceDef, namespace: string, input: StoredObject, ctx: RequestContext): Promise<StoredObject> {
    const obj = input;
    this.checkTypeMeta(def, obj);
    this.checkDecodable(def, obj, ctx);
    this.convertRequest(def, obj);
    const md = (obj.metadata ??= {});
    if (def.namespaced) {
      if (md.namespace !== undefined && md.namespace !== '' && md.namespace !== namespace) {
        throw apiErrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      md.namespace = namespace;
    } else {
      delete md.namespace;
    }
    if (md.resourceVersion !== undefined && md.resourceVersion !== '') {
      throw apiErrors.badRequest('resourceVersion should not be set on objects to be created');
    }
    this.checkUnknownFields(def, obj, ctx);
    this.opts.policy.applyDefaults(def, obj);
    // Field ownership is recorded from the object as the client sent it, defaulted: kube-apiserver's create
    // handler updates managedFields before mutating admission and the strategy run, so what they add (a
    // pod's service account, token volume and priority, a Service's cluster IPs) belongs to no manager.
    if (ctx.applied !== true) this.recordOwnership(def, undefined, obj, ctx, '');
    await this.opts.policy.admit(this.admissionRequest('CREATE', def, '', namespace, md.name ?? '', obj, undefined, ctx));
    const txn = this.hooks(def)?.beginCreate?.(obj, ctx.dryRun);
    let created: StoredObject;
    try {
      created = await this.createAdmitted(def, namespace, obj, ctx);
    } catch (e) {
      txn?.revert();
      throw e;
    }
    if (ctx.dryRun) txn?.revert();
    else txn?.commit();
    return created;
  }

  private async createAdmitted(def: ResourceDef, namespace: string, obj: StoredObject, ctx: RequestContext): Promise<StoredObject> {
    const md = (obj.metadata ??= {});
    // rest.BeforeCreate: reset server-owned metadata, prepare status, generate a name, validate.
    prepareForCreate(def, obj, this.now());
    md.uid = randomUUID();
    md.creationTimestamp = rfc3339(this.now());
    delete md.deletionTimestamp;
    delete md.deletionGracePeriodSeconds;
    if (tracksGeneration(def)) md.generation = 1;
    else delete md.generation;
    // Only a name the server generated is generated again on a clash (RetryGenerateName); a name the
    // client gave is kept, generateName or not, and a clash is the client's 409.
    const generated = (md.name === undefined || md.name === '') && md.generateName !== undefined && md.generateName !== '';
    if (generated) md.name = (md.generateName ?? '') + randomSuffix();
    if (md.name === undefined || md.name === '') {
      throw this.invalid(def, '', [fieldErrors.required('metadata.name', 'name or generateName is required')]);
    }
    const errs = this.opts.policy.validate(def, obj, undefined, '');
    if (errs.length > 0) throw this.invalid(def, md.name, errs);
    await this.opts.policy.validateAdmission(this.admissionRequest('CREATE', def, '', namespace, md.name, obj, undefined, ctx));
    if (ctx.dryRun) {
      if ((await this.opts.backend.get(objectKey(def, namespace, md.name))) !== undefined) {
        throw apiErrors.alreadyExists(groupResource(def), md.name);
      }
      // kube-apiserver's dry-run storage answers with the object encoded and decoded as storage would.
      asStoredForm(obj);
      return obj;
    }
    return this.writeNew(def, namespace, obj, generated);
  }

  private async writeNew(def: ResourceDef, namespace: string, obj: StoredObject, generated: boolean): Promise<StoredObject> {
    const md = obj.metadata ?? {};
    for (let attempt = 0; ; attempt++) {
      const name = md.name ?? '';
      const text = storedJson(obj);
      const key = objectKey(def, namespace, name);
      const bytes = this.bytesToStore(def, key, obj, text);
      try {
        const rev = await this.opts.backend.create(key, bytes);
        this.wrote(obj, text, rev);
        return obj;
      } catch (e) {
        if (e instanceof KeyExists) {
          if (generated && attempt < 8) {
            md.name = (md.generateName ?? '') + randomSuffix();
            continue;
          }
          throw apiErrors.alreadyExists(groupResource(def), name);
        }
        throw e;
      }
    }
  }

  /**
   * Replaces an object (PUT) or its subresource. The object's resourceVersion, when set, must match
   * (409 otherwise); when unset the write is unconditional and retried on races.
   */
  async update(
    def: ResourceDef,
    namespace: string,
    name: string,
    subresource: string,
    input: StoredObject,
    ctx: RequestContext,
    opts: { allowCreate?: boolean } = {},
  ): Promise<{ object: StoredObject; created: boolean }> {
    this.checkTypeMeta(def, input);
    this.checkDecodable(def, input, ctx);
    const md = (input.metadata ??= {});
    if (md.name !== undefined && md.name !== name) {
      throw apiErrors.badRequest(`the name of the object (${md.name}) does not match the name on the URL (${name})`);
    }
    if (def.namespaced && md.namespace !== undefined && md.namespace !== '' && md.namespace !== namespace) {
      throw apiErrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const requestedRv = md.resourceVersion;
    // A pinned resourceVersion means one attempt only (a conflict is the client's 409), so the request's
    // own object can be the desired one; retries of unconditional writes each need a fresh copy.
    const once = requestedRv !== undefined && requestedRv !== '' && opts.allowCreate !== true;
    return this.guaranteedUpdate(def, namespace, name, subresource, ctx, requestedRv, (live) => {
      if (live === undefined) {
        if (opts.allowCreate !== true || subresource !== '') throw apiErrors.notFound(groupResource(def), name);
        return undefined;
      }
      return once ? input : clone(input);
    }, opts.allowCreate === true ? input : undefined, { liveUntouched: true });
  }

  /**
   * The read-modify-write loop of every update: `mutate` receives the live object (undefined if absent)
   * and returns the desired object (or undefined to create `createObject`). Retries on storage conflicts
   * unless the caller pinned a resourceVersion.
   */
  async guaranteedUpdate(
    def: ResourceDef,
    namespace: string,
    name: string,
    subresource: string,
    ctx: RequestContext,
    pinnedRv: string | undefined,
    mutate: (live: StoredObject | undefined) => StoredObject | undefined,
    createObject?: StoredObject,
    opts: GuaranteedUpdateOptions = {},
  ): Promise<{ object: StoredObject; created: boolean }> {
    const key = objectKey(def, namespace, name);
    const reads = this.liveReads(def, key);
    for (let attempt = 0; ; attempt++) {
      const kv = await reads.read();
      // Whatever depends on the live object being current (a failed precondition, an error, an answer
      // without a write) is decided again on a fresh read when the live object came from the cache.
      const liveJson = kv !== undefined ? storedText(kv) : undefined;
      const live = kv !== undefined && liveJson !== undefined ? objectOfStoredText(liveJson, kv.modRevision) : undefined;
      let desired: StoredObject | undefined;
      try {
        // mutate gets its own copy of the live object (a deep copy costs half a parse, a third of a JSON round trip).
        desired = mutate(live === undefined ? undefined : opts.liveUntouched === true ? live : deepCopy(live));
      } catch (e) {
        if (reads.recheck()) continue;
        throw e;
      }
      if (live === undefined || desired === undefined) {
        if (reads.recheck()) continue;
        if (createObject === undefined) throw apiErrors.notFound(groupResource(def), name);
        return { object: await this.create(def, namespace, createObject, ctx), created: true };
      }
      // A resourceVersion on the desired object is a precondition (the registry's tryUpdate): the one an
      // update sent, or one a patch set (`kubectl label --resource-version`).
      const wantedRv = desired.metadata?.resourceVersion;
      if (wantedRv !== undefined && wantedRv !== '' && wantedRv !== live.metadata?.resourceVersion) {
        if (reads.recheck()) continue;
        throw apiErrors.modified(groupResource(def), name);
      }
      let txn: HookTransaction | undefined;
      let next: StoredObject;
      let json: string | undefined;
      try {
        ({ next, json } = await this.prepareUpdate(def, namespace, name, subresource, desired, live, liveJson, ctx, (t) => (txn = t)));
      } catch (e) {
        (txn)?.revert();
        if (reads.recheck()) continue;
        throw e;
      }
      if (next === live) {
        txn?.revert();
        if (reads.recheck()) continue;
        return { object: live, created: false };
      }
      if (ctx.dryRun) {
        txn?.revert();
        if (reads.recheck()) continue;
        return { object: next, created: false };
      }
      try {
        const text = json ?? storedJson(next);
        const bytes = this.bytesToStore(def, key, next, text);
        if (this.shouldDeleteAfterUpdate(def, next)) {
          await this.opts.backend.delete(key, kv?.modRevision);
          this.hooks(def)?.afterDelete?.(next);
          return { object: next, created: false };
        }
        const rev = await this.opts.backend.update(key, bytes, kv?.modRevision ?? 0);
        this.wrote(next, text, rev);
        txn?.commit();
        return { object: next, created: false };
      } catch (e) {
        txn?.revert();
        const raced = e instanceof Conflict || e instanceof KeyNotFound;
        if (raced && reads.recheck()) continue;
        reads.refresh();
        if (raced && (pinnedRv === undefined || pinnedRv === '') && attempt < maxUpdateRetries) continue;
        if (e instanceof Conflict) throw apiErrors.modified(groupResource(def), name);
        if (e instanceof KeyNotFound) throw apiErrors.notFound(groupResource(def), name);
        throw e;
      }
    }
  }

  /**
   * Applies strategy, admission and validation to an update; returns `live` itself for a no-op, else the
   * object to store and, when it was computed on the way, its stored JSON.
   */
  private async prepareUpdate(
    def: ResourceDef,
    namespace: string,
    name: string,
    subresource: string,
    desired: StoredObject,
    live: StoredObject,
    liveJson: string | undefined,
    ctx: RequestContext,
    onTransaction: (t: HookTransaction | undefined) => void,
  ): Promise<{ next: StoredObject; json?: string }> {
    this.checkTypeMeta(def, desired);
    this.convertRequest(def, desired);
    this.checkUnknownFields(def, desired, ctx);
    // Decoding defaults the object of every write, status writes included (a Service's load-balancer
    // ipMode, a custom resource's status defaults, a volume's phase); the status strategy then keeps the
    // live spec, so only the status defaults show.
    if (subresource === '' || subresource === 'status') this.opts.policy.applyDefaults(def, desired);
    // As on create: updates and patches record field ownership before mutating admission and the strategy.
    const owners = ctx.applied !== true ? this.opts.managedFields : undefined;
    if (owners !== undefined) this.recordOwnership(def, live, desired, ctx, subresource);
    const managedFields = desired.metadata?.managedFields;
    await this.opts.policy.admit(this.admissionRequest('UPDATE', def, subresource, namespace, name, desired, live, ctx));
    if (subresource === '') onTransaction(this.hooks(def)?.beginUpdate?.(desired, live, ctx.dryRun));
    let next = prepareForUpdate(def, desired, live, subresource, this.now());
    if (subresource === 'finalize') next = { ...live, spec: desired['spec'], metadata: { ...live.metadata } };
    const md = (next.metadata ??= {});
    // Every strategy keeps the managedFields just recorded (metav1's ResetObjectMetaForStatus and the
    // custom resource status strategy leave them to track the status update).
    if (owners !== undefined) {
      if (managedFields === undefined) delete md.managedFields;
      else md.managedFields = managedFields;
    }
    const lmd = live.metadata ?? {};
    // Server-owned metadata cannot be changed by a client.
    md.name = lmd.name ?? name;
    if (def.namespaced) md.namespace = lmd.namespace ?? namespace;
    md.uid = lmd.uid ?? '';
    md.creationTimestamp = lmd.creationTimestamp ?? '';
    if (lmd.deletionTimestamp !== undefined) md.deletionTimestamp = lmd.deletionTimestamp;
    else delete md.deletionTimestamp;
    if (lmd.deletionGracePeriodSeconds !== undefined) md.deletionGracePeriodSeconds = lmd.deletionGracePeriodSeconds;
    else delete md.deletionGracePeriodSeconds;
    if (lmd.generateName !== undefined && md.generateName === undefined) md.generateName = lmd.generateName;
    md.resourceVersion = lmd.resourceVersion ?? '';
    if (tracksGeneration(def)) {
      md.generation = lmd.generation ?? 1;
      if ((subresource === '' || subresource === 'scale') && bumpsGeneration(def, next, live)) md.generation += 1;
    } else {
      delete md.generation;
    }
    if (lmd.deletionTimestamp !== undefined && (md.finalizers ?? []).some((f) => !(lmd.finalizers ?? []).includes(f))) {
      throw this.invalid(def, name, [
        fieldErrors.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${(md.finalizers ?? []).filter((f) => !(lmd.finalizers ?? []).includes(f)).map((f) => JSON.stringify(f)).join(', ')}}`),
      ]);
    }
    const errs = this.opts.policy.validate(def, next, live, subresource);
    if (errs.length > 0) throw this.invalid(def, name, errs);
    await this.opts.policy.validateAdmission(this.admissionRequest('UPDATE', def, subresource, namespace, name, next, live, ctx));
    const cmp = compareForUpdate(next, live, liveJson);
    if (cmp.unchanged) return { next: live };
    return cmp.json !== undefined ? { next, json: cmp.json } : { next };
  }

  /** An object being deleted whose last finalizer (and grace period) is gone leaves storage. */
  private shouldDeleteAfterUpdate(def: ResourceDef, obj: StoredObject): boolean {
    const md = obj.metadata ?? {};
    if (md.deletionTimestamp === undefined) return false;
    if ((md.finalizers ?? []).length > 0) return false;
    if (def.group === '' && def.resource === 'namespaces') {
      return (((obj['spec'] ?? {}) as { finalizers?: string[] }).finalizers ?? []).length === 0;
    }
    return (md.deletionGracePeriodSeconds ?? 0) === 0;
  }

  /** Deletes an object (DELETE), honouring graceful deletion, finalizers and propagation policies. */
  async delete(def: ResourceDef, namespace: string, name: string, req: DeleteRequest, ctx: RequestContext): Promise<DeleteResult> {
    const key = objectKey(def, namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.opts.backend.get(key);
      if (kv === undefined) throw apiErrors.notFound(groupResource(def), name);
      const live = decodeObject(kv);
      const lmd = live.metadata ?? {};
      if (req.preconditions?.uid !== undefined && req.preconditions.uid !== lmd.uid) {
        throw apiErrors.conflict(
          groupResource(def),
          name,
          `Precondition failed: UID in precondition: ${req.preconditions.uid}, UID in object meta: ${lmd.uid ?? ''}`,
        );
      }
      if (req.preconditions?.resourceVersion !== undefined && req.preconditions.resourceVersion !== lmd.resourceVersion) {
        throw apiErrors.conflict(
          groupResource(def),
          name,
          `Precondition failed: ResourceVersion in precondition: ${req.preconditions.resourceVersion}, ResourceVersion in object meta: ${lmd.resourceVersion ?? ''}`,
        );
      }
      await this.opts.policy.validateAdmission(this.admissionRequest('DELETE', def, '', namespace, name, undefined, live, ctx));
      const next = clone(live);
      const md = (next.metadata ??= {});
      let finalizers = [...(md.finalizers ?? [])];
      const policy = req.propagationPolicy ?? (req.orphanDependents === true ? 'Orphan' : req.orphanDependents === false ? 'Background' : undefined);
      if (policy === 'Foreground') finalizers = [...finalizers.filter((f) => f !== 'orphan'), ...(finalizers.includes('foregroundDeletion') ? [] : ['foregroundDeletion'])];
      else if (policy === 'Orphan') finalizers = [...finalizers.filter((f) => f !== 'foregroundDeletion'), ...(finalizers.includes('orphan') ? [] : ['orphan'])];
      else if (policy === 'Background') finalizers = finalizers.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
      let grace = 0;
      if (def.group === '' && def.resource === 'pods') grace = podGracePeriod(live, req.gracePeriodSeconds);
      const isNamespace = def.group === '' && def.resource === 'namespaces';
      const nsFinalizers = isNamespace ? (((live['spec'] ?? {}) as { finalizers?: string[] }).finalizers ?? []) : [];
      const pending = finalizers.length > 0 || grace > 0 || nsFinalizers.length > 0;
      if (!pending) {
        if (ctx.dryRun) return this.deleteResult(def, live);
        try {
          const { revision } = await this.opts.backend.delete(key, kv.modRevision);
          this.hooks(def)?.afterDelete?.(live);
          const gone = clone(live);
          (gone.metadata ??= {}).resourceVersion = String(revision);
          return this.deleteResult(def, gone);
        } catch (e) {
          if ((e instanceof Conflict || e instanceof KeyNotFound) && attempt < maxUpdateRetries) continue;
          throw e;
        }
      }
      // Graceful: set (or shorten) deletionTimestamp and keep the object until finalizers/kubelet finish.
      const now = this.now();
      const existingGrace = lmd.deletionGracePeriodSeconds;
      if (lmd.deletionTimestamp === undefined || (existingGrace !== undefined && grace < existingGrace)) {
        md.deletionTimestamp = rfc3339(new Date(now.getTime() + grace * 1000));
        md.deletionGracePeriodSeconds = grace;
      }
      if (finalizers.length > 0) md.finalizers = finalizers;
      else delete md.finalizers;
      if (isNamespace) next['status'] = { ...((next['status'] ?? {})), phase: 'Terminating' };
      if (JSON.stringify(next) === JSON.stringify(live)) return { kind: 'object', object: live, code: 200 };
      if (ctx.dryRun) return { kind: 'object', object: next, code: 200 };
      try {
        const rev = await this.opts.backend.update(key, this.bytesToStore(def, key, next, storedJson(next)), kv.modRevision);
        md.resourceVersion = String(rev);
        return { kind: 'object', object: next, code: 200 };
      } catch (e) {
        if ((e instanceof Conflict || e instanceof KeyNotFound) && attempt < maxUpdateRetries) continue;
        if (e instanceof KeyNotFound) throw apiErrors.notFound(groupResource(def), name);
        throw e;
      }
    }
  }

  private deleteResult(def: ResourceDef, obj: StoredObject): DeleteResult {
    if (def.group === '' && (def.resource === 'pods' || def.resource === 'services' || def.resource === 'namespaces')) {
      return { kind: 'object', object: obj, code: 200 };
    }
    const details: NonNullable<Status['details']> = { name: obj.metadata?.name ?? '' };
    if (def.group !== '') details.group = def.group;
    details.kind = def.resource;
    details.uid = obj.metadata?.uid ?? '';
    return { kind: 'status', status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 } };
  }

  /** DELETE on a collection: deletes every matching object, one by one, as kube-apiserver does. */
  async deleteCollection(def: ResourceDef, q: ListQuery, req: DeleteRequest, ctx: RequestContext): Promise<StoredObject[]> {
    const listed = await this.list(def, { ...q, limit: 0 });
    const deleted: StoredObject[] = [];
    for (const c of listed.items) {
      try {
        const r = await this.delete(def, c.obj.metadata?.namespace ?? '', c.obj.metadata?.name ?? '', req, ctx);
        deleted.push(r.kind === 'object' ? r.object : c.obj);
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) continue;
        throw e;
      }
    }
    return deleted;
  }

  /** The revision the watch cache has reached. */
  currentRevision(): number {
    return this.opts.dispatcher.currentRevision();
  }

  /**
   * A server-internal write (binding, eviction bookkeeping): `mutate` changes the live object and the
   * result is stored with optimistic concurrency, keeping server-owned metadata, without the update
   * strategy, validation or admission of client writes.
   */
  async updateInternal(
    def: ResourceDef,
    namespace: string,
    name: string,
    mutate: (live: StoredObject) => StoredObject,
  ): Promise<StoredObject> {
    const key = objectKey(def, namespace, name);
    const reads = this.liveReads(def, key);
    for (let attempt = 0; ; attempt++) {
      const kv = await reads.read();
      let next: StoredObject;
      try {
        if (kv === undefined) throw apiErrors.notFound(groupResource(def), name);
        next = mutate(decodeObject(kv));
      } catch (e) {
        // Refusals are decided on the current object, never on the cache's guess.
        if (reads.recheck()) continue;
        throw e;
      }
      const text = storedJson(next);
      try {
        const rev = await this.opts.backend.update(key, this.bytesToStore(def, key, next, text), kv.modRevision);
        this.wrote(next, text, rev);
        return next;
      } catch (e) {
        const raced = e instanceof Conflict || e instanceof KeyNotFound;
        if (raced && reads.recheck()) continue;
        reads.refresh();
        if (raced && attempt < maxUpdateRetries) continue;
        throw e;
      }
    }
  }

  /** Whether status changes go through the status subresource only. */
  hasStatus(def: ResourceDef): boolean {
    return hasStatusSubresource(def);
  }
}
