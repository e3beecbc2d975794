/**
 * The in-process `Client`: the same registry, admission, validation and watch cache as HTTP requests,
 * without sockets or JSON over the wire. Objects are copied in and out, so callers can never change
 * what the server holds (as over HTTP).
 */
import { apiErrors, isApiError, type Status } from '../api/errors.js';
import { parseSelector } from '../api/labels.js';
import { scaleOf } from '../api/scale.js';
import { parseFieldSelector } from '../api/fields.js';
import { apiVersionOf, type ResourceType } from '../api/resources.js';
import type {
  Client,
  DeleteOptions,
  KubeList,
  KubeObject,
  ListOptions,
  PatchType,
  WatchEventType,
  WatchOptions,
  WatchStream,
  WriteOptions,
} from '../client/client.js';
import { patchContentTypes } from '../client/client.js';
import { WatchQueue } from '../client/watch-queue.js';
import type { ApiServer } from './server.js';
import { forbiddenMessage } from './auth/authz.js';
import type { ResourceDef } from './discovery/resource-defs.js';
import type { RequestContext } from './registry/store.js';
import type { UserInfo } from './registry/policy.js';
import { isComponentStatuses } from './component-statuses.js';
import { cachedJson, encodedText, sharedObject, storedTextOf, storedTextWithoutManagedFieldsOf, type CachedObject, type StoredObject } from './storage/watch-cache.js';

function copy<T>(v: unknown): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/**
 * The result of a write: the registry hands back an object it built for this request alone (the caller's
 * copied input, or a fresh decode of storage) and keeps no reference to it, so no second copy is needed.
 * Only reads of the watch cache (shared objects) must be copied.
 */
function owned<T>(v: unknown): T {
  return v as T;
}

/** An object as text: its JSON, or its stored JSON whose resourceVersion is `storedRevision`. */
export interface EncodedObject {
  json: string;
  storedRevision?: number;
  /**
   * The cached change the text was cut from, the same for every watcher of that change (with or without its
   * managedFields): a channel that sends a change once per batch finds it by this identity instead of
   * hashing its text.
   */
  change?: object;
}

/** A list without its items. */
export type KubeListHead = Omit<KubeList<unknown>, 'items'>;

/** A list whose items are JSON text (`InProcessClient.listEncoded`). */
export interface EncodedList {
  list: KubeListHead;
  items: { json: string; storedRevision?: number }[];
}

export interface InProcessClientOptions {
  /** Who the component is (authorization and NodeRestriction see this user). */
  user: UserInfo;
  /** The field manager recorded in managedFields (default: the user name's last segment). */
  fieldManager?: string;
  /**
   * Callers hand their objects over (they arrive copied, e.g. across a message channel): writes use them
   * as they are instead of copying them first.
   */
  inputsOwned?: boolean;
}

export class InProcessClient implements Client {
  constructor(
    private readonly server: ApiServer,
    private readonly o: InProcessClientOptions,
  ) {}

  private def(res: ResourceType): ResourceDef {
    const def = this.server.table.get(res.group, res.version, res.resource);
    if (def === undefined) throw apiErrors.notFound({ group: res.group, resource: res.resource }, '');
    return def;
  }

  /** What a write works on: the caller's object itself when handed over, else a copy. */
  private input<T>(v: unknown): T {
    return this.o.inputsOwned === true ? (v as T) : copy<T>(v);
  }

  private ctx(opts?: { dryRun?: boolean; fieldManager?: string }): RequestContext {
    return {
      user: this.o.user,
      dryRun: opts?.dryRun === true,
      fieldManager: opts?.fieldManager ?? this.o.fieldManager ?? this.o.user.username.split(':').pop() ?? 'kubemix',
    };
  }

  private async authorize(def: ResourceDef, verb: string, namespace: string, name: string, subresource = ''): Promise<void> {
    const attrs = {
      user: this.o.user,
      verb,
      resourceRequest: true,
      group: def.group,
      version: def.version,
      resource: def.resource,
      subresource,
      namespace,
      name,
      path: '',
    };
    const d = await this.server.authorizer.authorize(attrs);
    if (d.decision !== 'allow') {
      throw apiErrors.forbidden({ group: def.group, resource: def.resource }, name, forbiddenMessage(attrs));
    }
  }

  /** Like client-go and kubectl, single-object calls on namespaced resources default to `default`. */
  private ns(def: ResourceDef, namespace: string | undefined): string {
    return def.namespaced ? (namespace !== undefined && namespace !== '' ? namespace : 'default') : '';
  }

  async get<T extends KubeObject>(res: ResourceType, name: string, opts?: { namespace?: string; subresource?: string }): Promise<T> {
    const def = this.def(res);
    const ns = this.ns(def, opts?.namespace);
    await this.authorize(def, 'get', ns, name, opts?.subresource ?? '');
    if (isComponentStatuses(def)) return owned<T>(this.server.componentStatuses.get(name));
    const sub = opts?.subresource ?? '';
    if (sub !== '' && !def.subresources.has(sub)) throw apiErrors.resourceNotServed();
    // A read without resourceVersion decodes storage afresh: the object is this call's alone.
    const obj = await this.server.store.get(def, ns, name);
    return owned<T>(sub === 'scale' ? scaleOf(def, obj) : obj);
  }

  async list<T extends KubeObject>(res: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    const { list, items } = await this.listCached(res, opts);
    return { ...list, items: items.map((c) => ('cached' in c ? (opts.readOnly === true ? sharedObject(c.cached) : JSON.parse(cachedJson(c.cached))) : c.object) as T) };
  }

  /**
   * A list whose items come as JSON text, for readers in another thread: each item as `encodedText` gives
   * it (stored text with `storedRevision`, else JSON), so the objects are neither decoded nor serialised
   * again here.
   */
  async listEncoded(res: ResourceType, opts: ListOptions = {}): Promise<EncodedList> {
    const { list, items } = await this.listCached(res, opts);
    return { list, items: items.map((c) => ('cached' in c ? encodedText(c.cached) : { json: JSON.stringify(c.object) })) };
  }

  /** The list's type, metadata and items: cached objects, or objects built for this call alone (componentstatuses). */
  private async listCached(res: ResourceType, opts: ListOptions): Promise<{ list: KubeListHead; items: ({ cached: CachedObject } | { object: unknown })[] }> {
    const def = this.def(res);
    const ns = def.namespaced && opts.namespace !== undefined && opts.namespace !== '' ? opts.namespace : undefined;
    await this.authorize(def, 'list', ns ?? '', '');
    if (isComponentStatuses(def)) {
      return { list: { apiVersion: 'v1', kind: 'ComponentStatusList', metadata: {} }, items: this.server.componentStatuses.list().map((object) => ({ object })) };
    }
    const result = await this.server.store.list(def, {
      ...(ns !== undefined ? { namespace: ns } : {}),
      labelSelector: parseSelector(opts.labelSelector ?? ''),
      fieldSelector: parseFieldSelector(opts.fieldSelector ?? ''),
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      ...(opts.continue !== undefined ? { continue: opts.continue } : {}),
      ...(opts.resourceVersion !== undefined ? { resourceVersion: opts.resourceVersion } : {}),
      ...(opts.resourceVersionMatch !== undefined ? { resourceVersionMatch: opts.resourceVersionMatch } : {}),
    });
    const metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } = { resourceVersion: result.resourceVersion };
    if (result.continue !== undefined) metadata.continue = result.continue;
    if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
    return { list: { apiVersion: apiVersionOf(def), kind: `${def.kind}List`, metadata }, items: result.items.map((cached) => ({ cached })) };
  }

  watch<T extends KubeObject>(res: ResourceType, opts: WatchOptions = {}): WatchStream<T> {
    return this.startWatch<T>(
      res,
      opts,
      (c) => (opts.readOnly === true ? sharedObject(c) : JSON.parse(cachedJson(c))) as T,
      (status) => status as unknown as T,
    );
  }

  /**
   * `obj` as its stored text, when it is the answer of one of this server's writes (a create, update or
   * patch of a stored kind): another thread rebuilds it with `objectOfStoredText` instead of receiving it
   * serialised. Undefined for anything else (converted kinds, Status answers, unchanged objects).
   */
  encodedWrite(obj: unknown): { text: string; rv: number } | undefined {
    return typeof obj === 'object' && obj !== null ? this.server.store.writtenText(obj) : undefined;
  }

  /**
   * A watch whose events carry their objects as JSON text, for readers in another thread: a change comes as
   * its stored text with `storedRevision` (rebuild it with `objectOfStoredText`), so it is neither decoded
   * nor serialised again here; deletions and the initial state come as the object's JSON. With
   * `managedFieldsUnread` a change's text comes without metadata.managedFields.
   */
  watchEncoded(res: ResourceType, opts: WatchOptions = {}): WatchStream<EncodedObject> {
    return this.startWatch<EncodedObject>(
      res,
      opts,
      (c) => {
        const text = opts.managedFieldsUnread === true ? storedTextWithoutManagedFieldsOf(c) : storedTextOf(c);
        return text !== undefined ? { json: text, storedRevision: c.rv, change: c } : { json: cachedJson(c) };
      },
      (status) => ({ json: JSON.stringify(status) }),
    );
  }

  private startWatch<T>(res: ResourceType, opts: WatchOptions, toObject: (c: CachedObject) => T, fromStatus: (s: Status) => T): WatchStream<T> {
    const def = this.def(res);
    let stop: (() => void) | undefined;
    let timeout: NodeJS.Timeout | undefined;
    const queue = new WatchQueue<T>(() => {
      stop?.();
      if (timeout !== undefined) clearTimeout(timeout);
    });
    const sink = {
      push: (type: WatchEventType, c: CachedObject): void => {
        if (queue.isEnded) return;
        queue.push({ type, object: toObject(c) });
      },
      close: (): void => queue.close(),
    };
    const ns = def.namespaced && opts.namespace !== undefined && opts.namespace !== '' ? opts.namespace : undefined;
    const started = (async () => {
      await this.authorize(def, 'watch', ns ?? '', '');
      stop = await this.server.store.watch(
        def,
        {
          ...(ns !== undefined ? { namespace: ns } : {}),
          labelSelector: parseSelector(opts.labelSelector ?? ''),
          fieldSelector: parseFieldSelector(opts.fieldSelector ?? ''),
          ...(opts.resourceVersion !== undefined ? { resourceVersion: opts.resourceVersion } : {}),
        },
        sink,
      );
      if (queue.isEnded) stop();
    })().catch((e: unknown) => {
      queue.push({ type: 'ERROR', object: fromStatus(isApiError(e) ? e.toStatus() : apiErrors.internal(String(e)).toStatus()) });
      queue.end();
    });
    void started;
    if (opts.timeoutSeconds !== undefined) {
      timeout = setTimeout(() => queue.close(), opts.timeoutSeconds * 1000);
      timeout.unref();
    }
    return queue.stream();
  }

  async create<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    const def = this.def(res);
    const ns = this.ns(def, opts.namespace ?? obj.metadata?.namespace);
    await this.authorize(def, 'create', ns, obj.metadata?.name ?? '');
    // Reviews (SubjectAccessReview, ...) are answered, not stored.
    if (def.virtual) return copy<T>(await this.server.subresources.review(def, ns, this.input<StoredObject>(obj), this.o.user));
    return owned<T>(await this.server.store.create(def, ns, this.input<StoredObject>(obj), this.ctx(opts)));
  }

  async update<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    const def = this.def(res);
    const name = obj.metadata?.name ?? '';
    const ns = this.ns(def, opts.namespace ?? obj.metadata?.namespace);
    const sub = opts.subresource ?? '';
    await this.authorize(def, 'update', ns, name, sub);
    const { object } = await this.server.store.update(def, ns, name, sub, this.input<StoredObject>(obj), this.ctx(opts));
    return owned<T>(object);
  }

  async patch<T extends KubeObject>(
    res: ResourceType,
    name: string,
    type: PatchType,
    patch: unknown,
    opts: WriteOptions & { force?: boolean } = {},
  ): Promise<T> {
    return this.patchText<T>(res, name, type, JSON.stringify(patch), opts);
  }

  /**
   * `patch` with the patch as its JSON text, which the server decodes as it decodes an HTTP body: the
   * components' channel passes a call's body on as it came, instead of decoding it to encode it again.
   */
  async patchText<T extends KubeObject>(
    res: ResourceType,
    name: string,
    type: PatchType,
    text: string,
    opts: WriteOptions & { force?: boolean } = {},
  ): Promise<T> {
    const def = this.def(res);
    const ns = this.ns(def, opts.namespace);
    const sub = opts.subresource ?? '';
    await this.authorize(def, 'patch', ns, name, sub);
    const q = new URLSearchParams();
    if (opts.force === true) q.set('force', 'true');
    if (opts.fieldManager !== undefined) q.set('fieldManager', opts.fieldManager);
    else if (type === 'apply') q.set('fieldManager', this.ctx().fieldManager);
    const { object } = await this.server.subresources.patch(
      def,
      ns,
      name,
      sub,
      patchContentTypes[type],
      text,
      this.ctx(opts),
      q,
    );
    return owned<T>(object);
  }

  async delete<T extends KubeObject>(res: ResourceType, name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    const def = this.def(res);
    const ns = this.ns(def, opts.namespace);
    await this.authorize(def, 'delete', ns, name);
    const result = await this.server.store.delete(
      def,
      ns,
      name,
      {
        ...(opts.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
        ...(opts.propagationPolicy !== undefined ? { propagationPolicy: opts.propagationPolicy } : {}),
        ...(opts.preconditions !== undefined ? { preconditions: opts.preconditions } : {}),
      },
      this.ctx(opts),
    );
    return result.kind === 'status' ? copy<Status>(result.status) : copy<T>(result.object);
  }

  async deleteCollection(res: ResourceType, opts: ListOptions & DeleteOptions = {}): Promise<void> {
    const def = this.def(res);
    const ns = def.namespaced && opts.namespace !== undefined && opts.namespace !== '' ? opts.namespace : undefined;
    await this.authorize(def, 'deletecollection', ns ?? '', '');
    await this.server.store.deleteCollection(
      def,
      {
        ...(ns !== undefined ? { namespace: ns } : {}),
        labelSelector: parseSelector(opts.labelSelector ?? ''),
        fieldSelector: parseFieldSelector(opts.fieldSelector ?? ''),
      },
      {
        ...(opts.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
        ...(opts.propagationPolicy !== undefined ? { propagationPolicy: opts.propagationPolicy } : {}),
      },
      this.ctx(opts),
    );
  }

  async createSubresource<R = unknown>(res: ResourceType, name: string, subresource: string, body: unknown, opts: { namespace?: string } = {}): Promise<R> {
    const def = this.def(res);
    const ns = this.ns(def, opts.namespace);
    await this.authorize(def, 'create', ns, name, subresource);
    const b = this.input<Record<string, unknown>>(body);
    if (def.group === '' && def.resource === 'pods' && subresource === 'binding') {
      return (await this.server.subresources.bindPod(def, ns, name, b, this.ctx())) as R;
    }
    if (def.group === '' && def.resource === 'pods' && subresource === 'eviction') {
      return (await this.server.subresources.evictPod(def, ns, name, b, this.ctx())) as R;
    }
    throw apiErrors.methodNotAllowed();
  }
}
