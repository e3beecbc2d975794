/**
 * An in-memory `Client` for controller tests: resourceVersions from one counter, watch with replay from a
 * resourceVersion, generateName, uid, generation bumps on spec changes, the status subresource, finalizers
 * with deletionTimestamp, propagationPolicy finalizers (`foregroundDeletion`, `orphan`), merge and JSON
 * patches, label and simple field selectors. It does not validate or default objects, and it deletes pods at
 * once (no graceful deletion); the real API server does both.
 */
import { randomUUID } from 'node:crypto';
import { scaleOf } from '../../api/scale.js';
import { apiErrors, type Status } from '../../api/errors.js';
import { parseSelector } from '../../api/labels.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { resources, type ResourceType } from '../../api/resources.js';
import { ResourceTable } from '../../apiserver/discovery/resource-defs.js';
import { statusMetadataReset } from '../../apiserver/registry/strategy.js';
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
} from '../../client/client.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Obj = { apiVersion?: string; kind?: string; metadata?: Mutable<ObjectMeta>; spec?: unknown; status?: unknown };

interface LoggedEvent {
  rv: number;
  resKey: string;
  event: WatchEvent<Obj>;
}

interface Watcher {
  resKey: string;
  opts: WatchOptions;
  push(e: WatchEvent<Obj>): void;
}

/** Calls recorded by the fake, for assertions (`client.actions.filter(a => a.verb === 'create')`). */
export interface FakeAction {
  verb: 'create' | 'update' | 'patch' | 'delete' | 'subresource';
  resource: string;
  namespace: string;
  name: string;
  subresource?: string;
}

const alphanums = 'bcdfghjklmnpqrstvwxz2456789';

function resKeyOf(res: ResourceType): string {
  return `${res.group}/${res.resource}`;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function getField(obj: Obj, path: string): string {
  let cur: unknown = obj;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[p];
  }
  return typeof cur === 'string' ? cur : cur === undefined ? '' : JSON.stringify(cur);
}

function fieldMatches(obj: Obj, selector: string | undefined): boolean {
  if (selector === undefined || selector === '') return true;
  for (const term of selector.split(',')) {
    const neq = term.split('!=');
    if (neq.length === 2) {
      if (getField(obj, neq[0] ?? '') === (neq[1] ?? '')) return false;
      continue;
    }
    const [k, v] = term.split(/==?/);
    if (getField(obj, k ?? '') !== (v ?? '')) return false;
  }
  return true;
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return clone(patch);
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

interface JsonPatchOp {
  op: 'add' | 'replace' | 'remove' | 'test';
  path: string;
  value?: unknown;
}

function applyJsonPatch(doc: unknown, ops: JsonPatchOp[]): unknown {
  const root = clone(doc) as Record<string, unknown>;
  for (const op of ops) {
    const parts = op.path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = parts.pop();
    if (last === undefined) throw apiErrors.badRequest('empty JSON patch path');
    let cur: unknown = root;
    for (const p of parts) {
      cur = (cur as Record<string, unknown>)[p];
      if (cur === null || typeof cur !== 'object') throw apiErrors.invalid({ group: '', kind: 'Patch' }, '', []);
    }
    const container = cur as Record<string, unknown> | unknown[];
    if (op.op === 'test') {
      const actual = Array.isArray(container) ? container[Number(last)] : container[last];
      if (JSON.stringify(actual) !== JSON.stringify(op.value)) {
        throw apiErrors.invalid({ group: '', kind: 'Patch' }, '', []);
      }
    } else if (Array.isArray(container)) {
      const i = last === '-' ? container.length : Number(last);
      if (op.op === 'add') container.splice(i, 0, op.value);
      else if (op.op === 'replace') container[i] = op.value;
      else container.splice(i, 1);
    } else if (op.op === 'remove') {
      delete container[last];
    } else {
      container[last] = op.value;
    }
  }
  return root;
}

export interface FakeClientOptions {
  /** Milliseconds since epoch for creationTimestamp/deletionTimestamp (defaults to Date.now). */
  now?: () => number;
}

/** An in-memory Client; see the file comment for what it models. */
/** The resources and subresources kube-apiserver 1.32 serves, as kubemix's own table lists them. */
const builtinResources = new ResourceTable();

export class FakeClient implements Client {
  readonly actions: FakeAction[] = [];
  /** Make the next calls of a verb on a resource fail: `failures.set('create pods', err)`. */
  readonly failures = new Map<string, Error>();
  private rv = 0;
  private readonly stores = new Map<string, Map<string, Obj>>();
  private readonly log: LoggedEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly now: () => number;

  constructor(opts: FakeClientOptions = {}) {
    this.now = opts.now ?? (() => Date.now());
  }

  private store(res: ResourceType): Map<string, Obj> {
    const k = resKeyOf(res);
    let s = this.stores.get(k);
    if (s === undefined) {
      s = new Map();
      this.stores.set(k, s);
    }
    return s;
  }

  private key(res: ResourceType, ns: string | undefined, name: string): string {
    return res.namespaced ? `${ns ?? 'default'}/${name}` : name;
  }

  private gr(res: ResourceType): { group: string; resource: string } {
    return { group: res.group, resource: res.resource };
  }

  private maybeFail(verb: string, res: ResourceType): void {
    const err = this.failures.get(`${verb} ${res.resource}`);
    if (err !== undefined) throw err;
  }

  private emit(res: ResourceType, type: WatchEvent<Obj>['type'], obj: Obj): void {
    const ev: WatchEvent<Obj> = { type, object: clone(obj) };
    const resKey = resKeyOf(res);
    this.log.push({ rv: this.rv, resKey, event: ev });
    for (const w of this.watchers) if (w.resKey === resKey) w.push(ev);
  }

  private timestamp(): string {
    return new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  /** Synchronous read for tests (no action recorded). */
  peek<T extends KubeObject>(res: ResourceType, name: string, namespace?: string): T | undefined {
    const o = this.store(res).get(this.key(res, namespace, name));
    return o === undefined ? undefined : (clone(o) as unknown as T);
  }

  /** Synchronous list for tests (no action recorded). */
  peekAll<T extends KubeObject>(res: ResourceType, namespace?: string): T[] {
    return [...this.store(res).values()]
      .filter((o) => namespace === undefined || o.metadata?.namespace === namespace)
      .map((o) => clone(o) as unknown as T);
  }

  /** Whether the API server serves `sub` of `res`: the built-in resource table says, or the CRD this fake holds. */
  private serves(res: ResourceType, sub: string): boolean {
    const def = builtinResources.get(res.group, res.version, res.resource);
    if (def !== undefined) return def.subresources.has(sub);
    const crd = this.store(resources.customresourcedefinitions).get(`${res.resource}.${res.group}`) as { spec?: { versions?: { name?: string; subresources?: Record<string, unknown> }[] } } | undefined;
    return crd?.spec?.versions?.find((v) => v.name === res.version)?.subresources?.[sub] !== undefined;
  }

  async get<T extends KubeObject>(res: ResourceType, name: string, opts: { namespace?: string; subresource?: string } = {}): Promise<T> {
    this.maybeFail('get', res);
    if (opts.subresource !== undefined && !this.serves(res, opts.subresource)) throw apiErrors.resourceNotServed();
    const o = this.store(res).get(this.key(res, opts.namespace, name));
    if (o === undefined) throw apiErrors.notFound(this.gr(res), name);
    // The scale subresource answers the Scale, as the API server does.
    if (opts.subresource === 'scale') return scaleOf(res, clone(o)) as unknown as T;
    return clone(o) as unknown as T;
  }

  async list<T extends KubeObject>(res: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    this.maybeFail('list', res);
    const sel = parseSelector(opts.labelSelector ?? '');
    const items = [...this.store(res).values()]
      .filter((o) => !res.namespaced || opts.namespace === undefined || o.metadata?.namespace === opts.namespace)
      .filter((o) => sel.matches(o.metadata?.labels))
      .filter((o) => fieldMatches(o, opts.fieldSelector))
      .map((o) => clone(o) as unknown as T);
    return { apiVersion: res.group === '' ? 'v1' : `${res.group}/${res.version}`, kind: `${res.kind}List`, metadata: { resourceVersion: String(this.rv) }, items };
  }

  watch<T extends KubeObject>(res: ResourceType, opts: WatchOptions = {}): WatchStream<T> {
    const queue: WatchEvent<Obj>[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const sel = parseSelector(opts.labelSelector ?? '');
    const accept = (e: WatchEvent<Obj>): boolean =>
      (!res.namespaced || opts.namespace === undefined || e.object.metadata?.namespace === opts.namespace) &&
      sel.matches(e.object.metadata?.labels) &&
      fieldMatches(e.object, opts.fieldSelector);
    const watcher: Watcher = {
      resKey: resKeyOf(res),
      opts,
      push: (e) => {
        if (closed || !accept(e)) return;
        queue.push(e);
        wake?.();
      },
    };
    const from = opts.resourceVersion === undefined || opts.resourceVersion === '0' ? undefined : Number(opts.resourceVersion);
    if (from === undefined) {
      for (const o of this.store(res).values()) watcher.push({ type: 'ADDED', object: clone(o) });
    } else {
      for (const l of this.log) if (l.rv > from && l.resKey === watcher.resKey) watcher.push(clone(l.event));
    }
    this.watchers.add(watcher);
    const close = (): void => {
      closed = true;
      this.watchers.delete(watcher);
      wake?.();
    };
    const stream: WatchStream<T> = {
      close,
      [Symbol.asyncIterator]: () => ({
        next: async (): Promise<IteratorResult<WatchEvent<T>>> => {
          for (;;) {
            const e = queue.shift();
            if (e !== undefined) return { done: false, value: e as unknown as WatchEvent<T> };
            if (closed) return { done: true, value: undefined };
            await new Promise<void>((r) => (wake = r));
            wake = undefined;
          }
        },
        return: async (): Promise<IteratorResult<WatchEvent<T>>> => {
          close();
          return { done: true, value: undefined };
        },
      }),
    };
    return stream;
  }

  async create<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    this.maybeFail('create', res);
    const o = clone(obj) as unknown as Obj;
    const meta = (o.metadata ??= {});
    if (res.namespaced) meta.namespace = opts.namespace ?? meta.namespace ?? 'default';
    if ((meta.name === undefined || meta.name === '') && meta.generateName !== undefined) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += alphanums[Math.floor(Math.random() * alphanums.length)] ?? 'b';
      meta.name = `${meta.generateName}${suffix}`;
    }
    const name = meta.name ?? '';
    if (name === '') throw apiErrors.badRequest('name or generateName is required');
    this.actions.push({ verb: 'create', resource: res.resource, namespace: meta.namespace ?? '', name });
    const s = this.store(res);
    const k = this.key(res, meta.namespace, name);
    if (s.has(k)) throw apiErrors.alreadyExists(this.gr(res), name);
    if (opts.dryRun === true) return clone(o) as unknown as T;
    meta.uid = randomUUID();
    meta.creationTimestamp = this.timestamp();
    meta.resourceVersion = String(++this.rv);
    if (o.spec !== undefined) meta.generation = 1;
    o.apiVersion = res.group === '' ? res.version : `${res.group}/${res.version}`;
    o.kind = res.kind;
    s.set(k, o);
    this.emit(res, 'ADDED', o);
    return clone(o) as unknown as T;
  }

  private write(res: ResourceType, next: Obj, opts: WriteOptions & { verb: FakeAction['verb']; checkRv: boolean }): Obj {
    const meta = next.metadata ?? {};
    const name = meta.name ?? '';
    const ns = res.namespaced ? (opts.namespace ?? meta.namespace ?? 'default') : undefined;
    const s = this.store(res);
    const k = this.key(res, ns, name);
    const old = s.get(k);
    const action: FakeAction = { verb: opts.verb, resource: res.resource, namespace: ns ?? '', name };
    if (opts.subresource !== undefined) action.subresource = opts.subresource;
    this.actions.push(action);
    if (old === undefined) throw apiErrors.notFound(this.gr(res), name);
    if (opts.checkRv && meta.resourceVersion !== undefined && meta.resourceVersion !== '' && meta.resourceVersion !== old.metadata?.resourceVersion) {
      throw apiErrors.modified(this.gr(res), name);
    }
    let result: Obj;
    if (opts.subresource === 'status') {
      result = { ...clone(old), status: clone(next.status) };
      const reset = statusMetadataReset({ group: res.group, resource: res.resource, custom: false });
      if (reset !== 'all') {
        const m: Mutable<ObjectMeta> = (result.metadata = { ...clone(old.metadata ?? {}) });
        for (const f of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
          const v = reset.includes(f) ? old.metadata?.[f] : next.metadata?.[f];
          if (v === undefined) delete m[f];
          else (m as Record<string, unknown>)[f] = clone(v);
        }
      }
    } else if (opts.subresource === 'finalize') {
      result = clone(old);
      const spec = (next.spec ?? {}) as { finalizers?: string[] };
      result.spec = { ...((old.spec ?? {})), finalizers: spec.finalizers ?? [] };
    } else {
      result = clone(next);
      if (old.status !== undefined && res.resource !== 'namespaces') result.status = clone(old.status);
      const m = (result.metadata ??= {});
      m.uid = old.metadata?.uid ?? '';
      m.creationTimestamp = old.metadata?.creationTimestamp ?? '';
      if (old.metadata?.deletionTimestamp !== undefined) m.deletionTimestamp = old.metadata.deletionTimestamp;
      else delete m.deletionTimestamp;
      m.generation = old.metadata?.generation ?? (result.spec !== undefined ? 1 : 0);
      // deploymentStrategy.PrepareForUpdate: annotation changes bump a Deployment's generation too.
      const annotationsBump = res.group === 'apps' && res.resource === 'deployments' && JSON.stringify(old.metadata?.annotations ?? {}) !== JSON.stringify(m.annotations ?? {});
      if (JSON.stringify(old.spec) !== JSON.stringify(result.spec) || annotationsBump) m.generation = (old.metadata?.generation ?? 0) + 1;
      if (m.generation === 0) delete m.generation;
    }
    if (res.namespaced && ns !== undefined) (result.metadata ??= {}).namespace = ns;
    if (opts.dryRun === true) return result;
    (result.metadata ??= {}).resourceVersion = String(++this.rv);
    if (result.metadata.deletionTimestamp !== undefined && this.finalizersOf(res, result).length === 0) {
      s.delete(k);
      this.emit(res, 'DELETED', result);
      return result;
    }
    s.set(k, result);
    this.emit(res, 'MODIFIED', result);
    return result;
  }

  private finalizersOf(res: ResourceType, o: Obj): string[] {
    const f = [...(o.metadata?.finalizers ?? [])];
    if (res.resource === 'namespaces') f.push(...(((o.spec ?? {}) as { finalizers?: string[] }).finalizers ?? []));
    return f;
  }

  async update<T extends KubeObject>(res: ResourceType, obj: T, opts: WriteOptions = {}): Promise<T> {
    this.maybeFail(opts.subresource === undefined ? 'update' : `update/${opts.subresource}`, res);
    return clone(this.write(res, obj as Obj, { ...opts, verb: 'update', checkRv: true })) as unknown as T;
  }

  async patch<T extends KubeObject>(
    res: ResourceType,
    name: string,
    type: PatchType,
    patch: unknown,
    opts: WriteOptions & { force?: boolean } = {},
  ): Promise<T> {
    this.maybeFail(opts.subresource === undefined ? 'patch' : `patch/${opts.subresource}`, res);
    const cur = this.store(res).get(this.key(res, opts.namespace, name));
    if (cur === undefined) {
      this.actions.push({ verb: 'patch', resource: res.resource, namespace: opts.namespace ?? '', name });
      throw apiErrors.notFound(this.gr(res), name);
    }
    let next: Obj;
    if (type === 'json') next = applyJsonPatch(cur, patch as JsonPatchOp[]) as Obj;
    else next = mergePatch(cur, patch) as Obj;
    const patchedRv = (patch as { metadata?: { resourceVersion?: string } } | null)?.metadata?.resourceVersion;
    const checkRv = type !== 'json' && patchedRv !== undefined;
    if (!checkRv) (next.metadata ??= {}).resourceVersion = cur.metadata?.resourceVersion ?? '';
    return clone(this.write(res, next, { ...opts, verb: 'patch', checkRv: true })) as unknown as T;
  }

  async delete<T extends KubeObject>(res: ResourceType, name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    this.maybeFail('delete', res);
    const s = this.store(res);
    const k = this.key(res, opts.namespace, name);
    const cur = s.get(k);
    this.actions.push({ verb: 'delete', resource: res.resource, namespace: opts.namespace ?? '', name });
    if (cur === undefined) throw apiErrors.notFound(this.gr(res), name);
    if (opts.preconditions?.uid !== undefined && opts.preconditions.uid !== cur.metadata?.uid) {
      throw apiErrors.conflict(
        this.gr(res),
        name,
        `Precondition failed: UID in precondition: ${opts.preconditions.uid}, UID in object meta: ${cur.metadata?.uid ?? ''}`,
      );
    }
    const next = clone(cur);
    const meta = (next.metadata ??= {});
    const fins = new Set(meta.finalizers ?? []);
    if (opts.propagationPolicy === 'Foreground') fins.add('foregroundDeletion');
    if (opts.propagationPolicy === 'Orphan') fins.add('orphan');
    if (res.resource === 'namespaces') {
      if (meta.deletionTimestamp === undefined) {
        meta.deletionTimestamp = this.timestamp();
        next.status = { ...((next.status ?? {})), phase: 'Terminating' };
      }
    }
    meta.finalizers = [...fins];
    if (meta.finalizers.length === 0) delete meta.finalizers;
    if (this.finalizersOf(res, next).length > 0) {
      meta.deletionTimestamp ??= this.timestamp();
      meta.resourceVersion = String(++this.rv);
      s.set(k, next);
      this.emit(res, 'MODIFIED', next);
      return clone(next) as unknown as T;
    }
    s.delete(k);
    meta.resourceVersion = String(++this.rv);
    this.emit(res, 'DELETED', next);
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  }

  async deleteCollection(res: ResourceType, opts: ListOptions & DeleteOptions = {}): Promise<void> {
    const l = await this.list<Obj>(res, opts);
    for (const o of l.items) {
      const d: DeleteOptions = {};
      if (o.metadata?.namespace !== undefined) d.namespace = o.metadata.namespace;
      if (opts.propagationPolicy !== undefined) d.propagationPolicy = opts.propagationPolicy;
      await this.delete(res, o.metadata?.name ?? '', d);
    }
  }

  async createSubresource<R = unknown>(
    res: ResourceType,
    name: string,
    subresource: string,
    body: unknown,
    opts: { namespace?: string } = {},
  ): Promise<R> {
    this.maybeFail(`create/${subresource}`, res);
    this.actions.push({ verb: 'subresource', resource: res.resource, namespace: opts.namespace ?? '', name, subresource });
    if (res.resource === 'pods' && subresource === 'binding') {
      const target = (body as { target?: { name?: string } }).target?.name ?? '';
      const cur = this.store(res).get(this.key(res, opts.namespace, name));
      if (cur === undefined) throw apiErrors.notFound(this.gr(res), name);
      const next = clone(cur);
      next.spec = { ...((next.spec ?? {})), nodeName: target };
      this.write(res, next, { verb: 'update', checkRv: false, ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}) });
    }
    return body as R;
  }
}
