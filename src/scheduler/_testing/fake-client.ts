/**
 * A small in-memory `Client` for the scheduler's driver tests: objects per resource, a global
 * resourceVersion, list + watch (from a resourceVersion), create/update with conflicts, merge and
 * strategic patches of `status`, delete, and `pods/binding`. Not an API server: no validation.
 */
import { apiErrors, type Status } from '../../api/errors.js';
import type { ResourceType } from '../../api/resources.js';
import type { Client, DeleteOptions, KubeList, KubeObject, ListOptions, PatchType, WatchEvent, WatchOptions, WatchStream, WriteOptions } from '../../client/client.js';

interface Stored {
  res: string;
  obj: KubeObject;
}

type Json = Record<string, unknown>;

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON merge patch, plus strategic merge of lists of objects keyed by `type` (conditions). */
function mergePatch(target: unknown, patch: unknown, strategic: boolean): unknown {
  if (!isObj(patch)) return patch;
  const out: Json = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (strategic && Array.isArray(v) && Array.isArray(out[k]) && v.every((x) => isObj(x) && typeof x['type'] === 'string')) {
      const list = (out[k] as unknown[]).slice();
      for (const item of v as Json[]) {
        const i = list.findIndex((x) => isObj(x) && x['type'] === item['type']);
        if (i >= 0) list[i] = mergePatch(list[i], item, true);
        else list.push(item);
      }
      out[k] = list;
    } else out[k] = mergePatch(out[k], v, strategic);
  }
  return out;
}

export interface Call {
  verb: string;
  resource: string;
  name: string;
  subresource?: string;
  body?: unknown;
}

export class FakeClient implements Client {
  private rv = 1;
  private readonly objects = new Map<string, Stored>();
  private readonly log: { rv: number; res: string; ns: string; ev: WatchEvent<KubeObject> }[] = [];
  private readonly watchers = new Set<{ res: string; ns: string | undefined; push: (e: WatchEvent<KubeObject>) => void }>();
  readonly calls: Call[] = [];
  /** Make the next binding of these pods fail. */
  failBindings = new Set<string>();

  private key(res: ResourceType, ns: string | undefined, name: string): string {
    return `${res.resource}/${res.namespaced ? (ns ?? 'default') : ''}/${name}`;
  }

  private emit(res: ResourceType, type: WatchEvent<KubeObject>['type'], obj: KubeObject): void {
    const ev = { type, object: clone(obj) };
    const ns = obj.metadata?.namespace ?? '';
    this.log.push({ rv: Number(obj.metadata?.resourceVersion ?? '0'), res: res.resource, ns, ev });
    for (const w of this.watchers) if (w.res === res.resource && (w.ns === undefined || w.ns === ns)) w.push(clone(ev));
  }

  private store(res: ResourceType, obj: KubeObject, type: 'ADDED' | 'MODIFIED'): KubeObject {
    const o = clone(obj);
    o.metadata = { ...o.metadata, resourceVersion: String(++this.rv) };
    if (type === 'ADDED') o.metadata = { ...o.metadata, uid: o.metadata.uid ?? `uid-${o.metadata.name ?? ''}-${this.rv}`, creationTimestamp: o.metadata.creationTimestamp ?? new Date(0).toISOString() };
    this.objects.set(this.key(res, o.metadata.namespace, o.metadata.name ?? ''), { res: res.resource, obj: o });
    this.emit(res, type, o);
    return clone(o);
  }

  /** Test seam: put an object in place (as if created by someone else). */
  seed<T extends KubeObject>(res: ResourceType, obj: T): T {
    if (res.namespaced) obj.metadata = { namespace: 'default', ...obj.metadata };
    return this.store(res, obj, 'ADDED') as T;
  }

  getNow<T extends KubeObject>(res: ResourceType, name: string, namespace?: string): T | undefined {
    const s = this.objects.get(this.key(res, namespace, name));
    return s === undefined ? undefined : clone(s.obj as T);
  }

  async get<T extends KubeObject>(res: ResourceType, name: string, opts?: { namespace?: string }): Promise<T> {
    const o = this.getNow<T>(res, name, opts?.namespace);
    if (o === undefined) throw apiErrors.notFound({ group: res.group, resource: res.resource }, name);
    return o;
  }

  async list<T extends KubeObject>(res: ResourceType, opts?: ListOptions): Promise<KubeList<T>> {
    const items: T[] = [];
    for (const s of this.objects.values()) {
      if (s.res !== res.resource) continue;
      if (opts?.namespace !== undefined && s.obj.metadata?.namespace !== opts.namespace) continue;
      items.push(clone(s.obj as T));
    }
    return { apiVersion: 'v1', kind: `${res.kind}List`, metadata: { resourceVersion: String(this.rv) }, items };
  }

  watch<T extends KubeObject>(res: ResourceType, opts?: WatchOptions): WatchStream<T> {
    const queue: WatchEvent<T>[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const from = Number(opts?.resourceVersion ?? '0');
    const w = {
      res: res.resource,
      ns: opts?.namespace,
      push: (e: WatchEvent<KubeObject>) => {
        queue.push(e as WatchEvent<T>);
        wake?.();
      },
    };
    for (const l of this.log) if (l.rv > from && l.res === res.resource && (opts?.namespace === undefined || l.ns === opts.namespace)) queue.push(clone(l.ev) as WatchEvent<T>);
    this.watchers.add(w);
    const watchers = this.watchers;
    return {
      close() {
        closed = true;
        watchers.delete(w);
        wake?.();
      },
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (closed) return;
          const e = queue.shift();
          if (e !== undefined) {
            yield e;
            continue;
          }
          await new Promise<void>((r) => (wake = r));
          wake = undefined;
        }
      },
    };
  }

  async create<T extends KubeObject>(res: ResourceType, obj: T, opts?: WriteOptions): Promise<T> {
    const ns = opts?.namespace ?? obj.metadata?.namespace;
    const o = clone(obj);
    if (res.namespaced) o.metadata = { ...o.metadata, namespace: ns ?? 'default' };
    if (res.resource !== 'events' && this.objects.has(this.key(res, o.metadata?.namespace, o.metadata?.name ?? ''))) {
      throw apiErrors.alreadyExists({ group: res.group, resource: res.resource }, o.metadata?.name ?? '');
    }
    this.calls.push({ verb: 'create', resource: res.resource, name: o.metadata?.name ?? '', body: o });
    return this.store(res, o, 'ADDED') as T;
  }

  async update<T extends KubeObject>(res: ResourceType, obj: T, opts?: WriteOptions): Promise<T> {
    const ns = opts?.namespace ?? obj.metadata?.namespace;
    const cur = this.getNow(res, obj.metadata?.name ?? '', ns);
    if (cur === undefined) throw apiErrors.notFound({ group: res.group, resource: res.resource }, obj.metadata?.name ?? '');
    if (obj.metadata?.resourceVersion !== undefined && obj.metadata.resourceVersion !== cur.metadata?.resourceVersion) {
      throw apiErrors.conflict({ group: res.group, resource: res.resource }, obj.metadata.name ?? '', 'the object has been modified; please apply your changes to the latest version and try again');
    }
    this.calls.push({ verb: 'update', resource: res.resource, name: obj.metadata?.name ?? '', body: obj });
    return this.store(res, obj, 'MODIFIED') as T;
  }

  async patch<T extends KubeObject>(res: ResourceType, name: string, type: PatchType, patch: unknown, opts?: WriteOptions): Promise<T> {
    const cur = this.getNow(res, name, opts?.namespace);
    if (cur === undefined) throw apiErrors.notFound({ group: res.group, resource: res.resource }, name);
    this.calls.push({ verb: 'patch', resource: res.resource, name, ...(opts?.subresource !== undefined ? { subresource: opts.subresource } : {}), body: patch });
    const next = mergePatch(cur, patch, type === 'strategic') as KubeObject;
    return this.store(res, next, 'MODIFIED') as T;
  }

  async delete<T extends KubeObject>(res: ResourceType, name: string, opts?: DeleteOptions): Promise<T | Status> {
    const k = this.key(res, opts?.namespace, name);
    const s = this.objects.get(k);
    if (s === undefined) throw apiErrors.notFound({ group: res.group, resource: res.resource }, name);
    this.calls.push({ verb: 'delete', resource: res.resource, name });
    this.objects.delete(k);
    const o = clone(s.obj);
    o.metadata = { ...o.metadata, resourceVersion: String(++this.rv) };
    this.emit(res, 'DELETED', o);
    return o as T;
  }

  async deleteCollection(): Promise<void> {
    return undefined;
  }

  async createSubresource<R = unknown>(res: ResourceType, name: string, subresource: string, body: unknown, opts?: { namespace?: string }): Promise<R> {
    this.calls.push({ verb: 'create', resource: res.resource, name, subresource, body });
    if (res.resource !== 'pods' || subresource !== 'binding') throw apiErrors.notFound({ group: res.group, resource: `${res.resource}/${subresource}` }, name);
    if (this.failBindings.delete(name)) throw apiErrors.conflict({ group: '', resource: 'pods/binding' }, name, 'injected binding failure');
    const cur = this.getNow<KubeObject & { spec?: { nodeName?: string } }>(res, name, opts?.namespace);
    if (cur === undefined) throw apiErrors.notFound({ group: '', resource: 'pods' }, name);
    const target = (body as { target?: { name?: string } }).target?.name ?? '';
    this.store(res, { ...cur, spec: { ...cur.spec, nodeName: target } } as KubeObject, 'MODIFIED');
    return { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 } as R;
  }

  /** Objects of a resource (test inspection). */
  all<T extends KubeObject>(res: ResourceType): T[] {
    return [...this.objects.values()].filter((s) => s.res === res.resource).map((s) => clone(s.obj as T));
  }
}
