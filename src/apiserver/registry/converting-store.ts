/**
 * Resources served in two API forms over one storage: `events.k8s.io/v1` Events are core `v1` Events
 * stored under `/registry/events/`, and `autoscaling/v1` HorizontalPodAutoscalers are stored as
 * `autoscaling/v2` (kube-apiserver keeps one storage for both forms). This store converts at the edges:
 * requests in the other form are turned into the storage form, answers are turned back, and field
 * selectors are renamed (`regarding.name` -> `involvedObject.name`). Everything else passes through.
 *
 * A write is defaulted in the form the client sent before it is converted, as kube-apiserver's decoder
 * does (an autoscaling/v1 HPA gets v1's defaults); the store then applies the storage version's defaults,
 * as kube-apiserver does when it reads the object back from etcd.
 */
import { FieldSelector, type FieldRequirement } from '../../api/fields.js';
import type { ResourceDef, ResourceTable } from '../discovery/resource-defs.js';
import type { CachedObject, CacheEventType, CacheWatcherSink, StoredObject } from '../storage/watch-cache.js';
import { hpaV1ToV2, hpaV2ToV1 } from './hpa-conversion.js';
import type { ObjectPolicy } from './policy.js';
import { Store, type DeleteRequest, type DeleteResult, type GuaranteedUpdateOptions, type ListQuery, type ListResult, type RequestContext, type StoreOptions } from './store.js';

interface Conversion {
  storage: ResourceDef;
  toStorage(obj: StoredObject): StoredObject;
  fromStorage(obj: StoredObject): StoredObject;
  fieldNames: Readonly<Record<string, string>>;
}

const renames: [external: string, storage: string][] = [
  ['note', 'message'],
  ['regarding', 'involvedObject'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function rename(obj: StoredObject, pairs: readonly [string, string][], apiVersion: string): StoredObject {
  const out: StoredObject = {};
  const map = new Map(pairs);
  for (const [k, v] of Object.entries(obj)) out[map.get(k) ?? k] = v;
  out.apiVersion = apiVersion;
  out.kind = 'Event';
  return out;
}

/** events.k8s.io/v1 <-> core/v1 Event (pkg/apis/events/v1/conversion.go). */
export function eventsV1ToCore(obj: StoredObject): StoredObject {
  return rename(obj, renames, 'v1');
}

export function coreToEventsV1(obj: StoredObject): StoredObject {
  const out = rename(obj, renames.map(([a, b]) => [b, a]), 'events.k8s.io/v1');
  out['eventTime'] ??= null;
  return out;
}

export { hpaV1ToV2, hpaV2ToV1 };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `value` with its keys, at every depth, in the order `reference` has them (keys only `value` has go
 * last, in its order). kube-apiserver compares decoded Go structs, where key order does not exist; the
 * store compares stored JSON (a spec change bumps metadata.generation, an identical object is a no-op),
 * so a write converted from the other form takes the live object's key order, and reading an object in
 * the other form and writing it back unchanged stays a no-op.
 */
function inKeyOrderOf(value: unknown, reference: unknown): unknown {
  if (Array.isArray(value) && Array.isArray(reference)) return value.map((v, i) => inKeyOrderOf(v, reference[i]));
  if (!isPlainObject(value) || !isPlainObject(reference)) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(reference)) if (Object.hasOwn(value, k)) out[k] = inKeyOrderOf(value[k], reference[k]);
  for (const [k, v] of Object.entries(value)) if (!Object.hasOwn(out, k)) out[k] = v;
  return out;
}

/** The request's context, naming the form it was written in (field ownership is recorded in it). */
function withForm(c: Conversion, def: ResourceDef, ctx: RequestContext): RequestContext {
  return { ...ctx, requestForm: { def, fromStorage: (obj) => c.fromStorage(obj) } };
}

export class ConvertingStore extends Store {
  private readonly policy: ObjectPolicy;

  constructor(
    opts: StoreOptions,
    private readonly table: ResourceTable,
  ) {
    super(opts);
    this.policy = opts.policy;
  }

  /** The client's object defaulted in its own version, then converted to the storage form. */
  private decoded(c: Conversion, def: ResourceDef, obj: StoredObject): StoredObject {
    this.policy.applyDefaults(def, obj);
    return c.toStorage(obj);
  }

  private conversion(def: ResourceDef): Conversion | undefined {
    if (def.group === 'autoscaling' && def.version === 'v1' && def.resource === 'horizontalpodautoscalers') {
      const storage = this.table.get('autoscaling', 'v2', 'horizontalpodautoscalers');
      return storage === undefined ? undefined : { storage, toStorage: hpaV1ToV2, fromStorage: hpaV2ToV1, fieldNames: {} };
    }
    if (def.group !== 'events.k8s.io' || def.resource !== 'events') return undefined;
    const storage = this.table.get('', 'v1', 'events');
    if (storage === undefined) return undefined;
    return {
      storage,
      toStorage: eventsV1ToCore,
      fromStorage: coreToEventsV1,
      fieldNames: { 'regarding.kind': 'involvedObject.kind', 'regarding.namespace': 'involvedObject.namespace', 'regarding.name': 'involvedObject.name', 'regarding.uid': 'involvedObject.uid', 'regarding.apiVersion': 'involvedObject.apiVersion', 'regarding.resourceVersion': 'involvedObject.resourceVersion', 'regarding.fieldPath': 'involvedObject.fieldPath', reportingController: 'reportingComponent' },
    };
  }

  private fields(c: Conversion, fs: FieldSelector): FieldSelector {
    return new FieldSelector(fs.requirements.map((r): FieldRequirement => ({ ...r, field: c.fieldNames[r.field] ?? r.field })));
  }

  private cached(c: Conversion, o: CachedObject): CachedObject {
    return { key: o.key, rv: o.rv, obj: c.fromStorage(o.obj) };
  }

  override async get(def: ResourceDef, namespace: string, name: string, resourceVersion?: string): Promise<StoredObject> {
    const c = this.conversion(def);
    if (c === undefined) return super.get(def, namespace, name, resourceVersion);
    return c.fromStorage(await super.get(c.storage, namespace, name, resourceVersion));
  }

  override async list(def: ResourceDef, q: ListQuery): Promise<ListResult> {
    const c = this.conversion(def);
    if (c === undefined) return super.list(def, q);
    const r = await super.list(c.storage, { ...q, fieldSelector: this.fields(c, q.fieldSelector) });
    return { ...r, items: r.items.map((o) => this.cached(c, o)) };
  }

  override async watch(
    def: ResourceDef,
    q: Parameters<Store['watch']>[1],
    sink: CacheWatcherSink,
  ): Promise<() => void> {
    const c = this.conversion(def);
    if (c === undefined) return super.watch(def, q, sink);
    const converting: CacheWatcherSink = {
      push: (type: CacheEventType, o: CachedObject) => sink.push(type, this.cached(c, o)),
      close: (reason) => sink.close(reason),
    };
    return super.watch(c.storage, { ...q, fieldSelector: this.fields(c, q.fieldSelector) }, converting);
  }

  override async create(def: ResourceDef, namespace: string, input: StoredObject, ctx: RequestContext): Promise<StoredObject> {
    const c = this.conversion(def);
    if (c === undefined) return super.create(def, namespace, input, ctx);
    return c.fromStorage(await super.create(c.storage, namespace, this.decoded(c, def, input), withForm(c, def, ctx)));
  }

  override async guaranteedUpdate(
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
    const c = this.conversion(def);
    if (c === undefined) return super.guaranteedUpdate(def, namespace, name, subresource, ctx, pinnedRv, mutate, createObject, opts);
    const r = await super.guaranteedUpdate(
      c.storage,
      namespace,
      name,
      subresource,
      withForm(c, def, ctx),
      pinnedRv,
      (live) => {
        const out = mutate(live === undefined ? undefined : c.fromStorage(live));
        if (out === undefined) return undefined;
        // Subresource writes are not defaulted (the store's prepareUpdate does the same).
        const converted = subresource === '' ? this.decoded(c, def, out) : c.toStorage(out);
        return live === undefined ? converted : (inKeyOrderOf(converted, live) as StoredObject);
      },
      createObject === undefined ? undefined : this.decoded(c, def, createObject),
    );
    return { ...r, object: c.fromStorage(r.object) };
  }

  override async delete(def: ResourceDef, namespace: string, name: string, req: DeleteRequest, ctx: RequestContext): Promise<DeleteResult> {
    const c = this.conversion(def);
    if (c === undefined) return super.delete(def, namespace, name, req, ctx);
    const r = await super.delete(c.storage, namespace, name, req, ctx);
    return r.kind === 'object' ? { ...r, object: c.fromStorage(r.object) } : r;
  }

  override async deleteCollection(def: ResourceDef, q: ListQuery, req: DeleteRequest, ctx: RequestContext): Promise<StoredObject[]> {
    const c = this.conversion(def);
    if (c === undefined) return super.deleteCollection(def, q, req, ctx);
    const r = await super.deleteCollection(c.storage, { ...q, fieldSelector: this.fields(c, q.fieldSelector) }, req, ctx);
    return r.map((o) => c.fromStorage(o));
  }
}
