/**
 * An in-memory `Client` for the node agent's tests: objects per resource with a global resourceVersion,
 * list with `spec.nodeName`/`metadata.name` field selectors, watches as async iterables, create/update with
 * optimistic concurrency, JSON merge patch (also on the `status` subresource), graceful and immediate delete.
 */
import type { Status } from '../api/errors.js';
import { apiErrors } from '../api/errors.js';
import type { ResourceType } from '../api/resources.js';
import type {
  Client,
  DeleteOptions,
  KubeList,
  KubeObject,
  ListOptions,
  PatchType,
  WatchEvent,
  WatchOptions,
  WatchStream,
  WriteOptions,
} from '../client/client.js';

interface Stored {
  obj: KubeObject;
}

interface Watcher {
  res: ResourceType;
  opts: WatchOptions;
  push(e: WatchEvent<KubeObject>): void;
  close(): void;
}

export interface RecordedCall {
  verb: string;
  resource: string;
  name: string;
  namespace?: string;
  subresource?: string;
  body?: unknown;
  opts?: unknown;
}

function keyOf(res: ResourceType, ns: string | undefined, name: string): string {
  return `${res.group}/${res.resource}/${res.namespaced ? (ns ?? 'default') : ''}/${name}`;
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete base[k];
    else base[k] = mergePatch(base[k], v);
  }
  return base;
}

function fieldValue(obj: KubeObject, field: string): string {
  let cur: unknown = obj;
  for (const part of field.split('.')) cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[part] : undefined;
  return typeof cur === 'string' ? cur : '';
}

function matchesFieldSelector(obj: KubeObject, selector: string | undefined): boolean {
  if (selector === undefined || selector === '') return true;
  return selector.split(',').every((term) => {
    const neq = term.split('!=');
    if (neq.length === 2) return fieldValue(obj, neq[0] ?? '') !== neq[1];
    const [f, v] = term.split('=');
    return fieldValue(obj, f ?? '') === (v ?? '');
  });
}

export class FakeClient implements Client {
  private rv = 1;
  private readonly objects = new Map<string, Stored>();
  private readonly watchers = new Set<Watcher>();
  readonly calls: RecordedCall[] = [];
  /** Makes the next calls of a verb fail (tests of error handling). */
  failNext: Partial<Record<string, Error>> = {};
  /** Refuse namespaced creates in a namespace that has no Namespace object (as kube-apiserver does). */
  requireNamespaces = false;

  private nextRV(): string {
    return String(++this.rv);
  }

  private gr(res: ResourceType) {
    return { group: res.group, resource: res.resource };
  }

  private notify(res: ResourceType, type: WatchEvent<KubeObject>['type'], obj: KubeObject): void {
    for (const w of this.watchers) {
      if (w.res.resource !== res.resource || w.res.group !== res.group) continue;
      if (w.opts.namespace !== undefined && obj.metadata?.namespace !== w.opts.namespace) continue;
      if (!matchesFieldSelector(obj, w.opts.fieldSelector)) continue;
      w.push({ type, object: structuredClone(obj) });
    }
  }

  /** Every stored object of a resource (test inspection). */
  all<T extends KubeObject>(res: ResourceType): T[] {
    const prefix = `${res.group}/${res.resource}/`;
    return [...this.objects.entries()].filter(([k]) => k.startsWith(prefix)).map(([, s]) => structuredClone(s.obj) as T);
  }

  /** Direct access without recording a call. */
  peek<T extends KubeObject>(res: ResourceType, name: string, namespace?: string): T | undefined {
    const s = this.objects.get(keyOf(res, namespace, name));
    return s === undefined ? undefined : (structuredClone(s.obj) as T);
  }

  async get<T extends KubeObject>(res: ResourceType, name: string, opts: { namespace?: string; subresource?: string } = {}): Promise<T> {
    this.calls.push({ verb: 'get', resource: res.resource, name, ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}) });
    const s = this.objects.get(keyOf(res, opts.namespace, name));
    if (s === undefined) throw apiErrors.notFound(this.gr(res), name);
    return structuredClone(s.obj) as T;
  }

  async list<T extends KubeObject>(res: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    const items = this.all<T>(res).filter(
      (o) => (opts.namespace === undefined || o.metadata?.namespace === opts.namespace) && matchesFieldSelector(o, opts.fieldSelector),
    );
    return { apiVersion: res.group === '' ? res.version : `${res.group}/${res.version}`, kind: `${res.kind}List`, metadata: { resourceVersion: String(this.rv) }, items };
  }

  watch<T extends KubeObject>(res: ResourceType, opts: WatchOptions = {}): WatchStream<T> {
    const queue: WatchEvent<KubeObject>[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const watcher: Watcher = {
      res,
      opts,
      push: (e) => {
        queue.push(e);
        wake?.();
      },
      close: () => {
        closed = true;
        this.watchers.delete(watcher);
        wake?.();
      },
    };
    this.watchers.add(watcher);
    const iterator = async function* (): AsyncGenerator<WatchEvent<T>> {
      while (!closed) {
        const e = queue.shift();
        if (e !== undefined) {
          yield e as WatchEvent<T>;
          continue;
        }
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    };
    return { [Symbol.asyncIterator]: iterator, close: () => watcher.close() };
  }

  async create<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    const err = this.failNext['create'];
    if (err !== undefined) {
      delete this.failNext['create'];
      throw err;
    }
    const ns = res.namespaced ? (opts.namespace ?? obj.metadata?.namespace ?? 'default') : undefined;
    const name = obj.metadata?.name ?? '';
    this.calls.push({ verb: 'create', resource: res.resource, name, ...(ns !== undefined ? { namespace: ns } : {}), body: structuredClone(obj) });
    const key = keyOf(res, ns, name);
    if (this.requireNamespaces && ns !== undefined && !this.objects.has(`/namespaces//${ns}`)) {
      throw apiErrors.notFound({ group: '', resource: 'namespaces' }, ns);
    }
    if (this.objects.has(key)) throw apiErrors.alreadyExists(this.gr(res), name);
    const stored = structuredClone(obj) as KubeObject;
    stored.metadata = {
      ...stored.metadata,
      ...(ns !== undefined ? { namespace: ns } : {}),
      uid: stored.metadata?.uid ?? `uid-${res.resource}-${name}`,
      resourceVersion: this.nextRV(),
      creationTimestamp: stored.metadata?.creationTimestamp ?? '2026-01-01T00:00:00Z',
    };
    this.objects.set(key, { obj: stored });
    this.notify(res, 'ADDED', stored);
    return structuredClone(stored) as T;
  }

  async update<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    const ns = res.namespaced ? (opts.namespace ?? obj.metadata?.namespace ?? 'default') : undefined;
    const name = obj.metadata?.name ?? '';
    this.calls.push({ verb: 'update', resource: res.resource, name, ...(ns !== undefined ? { namespace: ns } : {}), ...(opts.subresource !== undefined ? { subresource: opts.subresource } : {}), body: structuredClone(obj) });
    const key = keyOf(res, ns, name);
    const cur = this.objects.get(key);
    if (cur === undefined) throw apiErrors.notFound(this.gr(res), name);
    if (obj.metadata?.resourceVersion !== undefined && obj.metadata.resourceVersion !== cur.obj.metadata?.resourceVersion) throw apiErrors.modified(this.gr(res), name);
    const next = structuredClone(obj) as KubeObject;
    next.metadata = { ...cur.obj.metadata, ...next.metadata, resourceVersion: this.nextRV() };
    cur.obj = next;
    this.notify(res, 'MODIFIED', next);
    return structuredClone(next) as T;
  }

  async patch<T extends KubeObject>(res: ResourceType, name: string, type: PatchType, patch: unknown, opts: WriteOptions & { force?: boolean } = {}): Promise<T> {
    const ns = res.namespaced ? (opts.namespace ?? 'default') : undefined;
    this.calls.push({ verb: 'patch', resource: res.resource, name, ...(ns !== undefined ? { namespace: ns } : {}), ...(opts.subresource !== undefined ? { subresource: opts.subresource } : {}), body: structuredClone(patch) });
    if (type !== 'merge' && type !== 'strategic') throw apiErrors.unsupportedMediaType(type);
    const cur = this.objects.get(keyOf(res, ns, name));
    if (cur === undefined) throw apiErrors.notFound(this.gr(res), name);
    const p = patch as { metadata?: { uid?: string } };
    if (p.metadata?.uid !== undefined && p.metadata.uid !== cur.obj.metadata?.uid) {
      throw apiErrors.conflict(this.gr(res), name, `Precondition failed: UID in precondition: ${p.metadata.uid}, UID in object meta: ${cur.obj.metadata?.uid ?? ''}`);
    }
    let body = patch;
    if (opts.subresource === 'status') body = { status: (patch as { status?: unknown }).status };
    const next = mergePatch(cur.obj, body) as KubeObject;
    next.metadata = { ...next.metadata, resourceVersion: this.nextRV() };
    cur.obj = next;
    this.notify(res, 'MODIFIED', next);
    return structuredClone(next) as T;
  }

  async delete<T extends KubeObject>(res: ResourceType, name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    const ns = res.namespaced ? (opts.namespace ?? 'default') : undefined;
    this.calls.push({ verb: 'delete', resource: res.resource, name, ...(ns !== undefined ? { namespace: ns } : {}), opts: structuredClone(opts) });
    const key = keyOf(res, ns, name);
    const cur = this.objects.get(key);
    if (cur === undefined) throw apiErrors.notFound(this.gr(res), name);
    if (opts.preconditions?.uid !== undefined && opts.preconditions.uid !== cur.obj.metadata?.uid) {
      throw apiErrors.conflict(this.gr(res), name, 'Precondition failed');
    }
    const grace = opts.gracePeriodSeconds;
    const isBoundPod = res.resource === 'pods' && fieldValue(cur.obj, 'spec.nodeName') !== '';
    if (isBoundPod && grace !== 0) {
      const seconds = grace ?? (cur.obj as { spec?: { terminationGracePeriodSeconds?: number } }).spec?.terminationGracePeriodSeconds ?? 30;
      const next = structuredClone(cur.obj);
      next.metadata = { ...next.metadata, deletionTimestamp: next.metadata?.deletionTimestamp ?? '2026-01-01T00:10:00Z', deletionGracePeriodSeconds: seconds, resourceVersion: this.nextRV() };
      cur.obj = next;
      this.notify(res, 'MODIFIED', next);
      return structuredClone(next) as T;
    }
    this.objects.delete(key);
    const gone = structuredClone(cur.obj);
    gone.metadata = { ...gone.metadata, resourceVersion: this.nextRV() };
    this.notify(res, 'DELETED', gone);
    return { apiVersion: 'v1', kind: 'Status', status: 'Success', metadata: {} } as Status;
  }

  async deleteCollection(res: ResourceType, opts: ListOptions & DeleteOptions = {}): Promise<void> {
    for (const o of (await this.list(res, opts)).items) await this.delete(res, o.metadata?.name ?? '', { ...(o.metadata?.namespace !== undefined ? { namespace: o.metadata.namespace } : {}) });
  }

  async createSubresource<R = unknown>(res: ResourceType, name: string, subresource: string, body: unknown, opts: { namespace?: string } = {}): Promise<R> {
    this.calls.push({ verb: 'create', resource: res.resource, name, subresource, ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}), body });
    if (res.resource === 'pods' && subresource === 'binding') {
      const target = (body as { target?: { name?: string } }).target?.name ?? '';
      await this.patch(res, name, 'merge', { spec: { nodeName: target } }, opts.namespace !== undefined ? { namespace: opts.namespace } : {});
    }
    return { kind: 'Status', status: 'Success' } as R;
  }

  /** Closes every open watch. */
  closeAll(): void {
    for (const w of [...this.watchers]) w.close();
  }
}
