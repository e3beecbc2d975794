/**
 * The garbage collector (pkg/controller/garbagecollector, v1.32): keeps a graph of ownerReferences over
 * every served resource and
 * - deletes dependents whose owners are gone (background cascading, and what remains after any delete),
 * - for an owner with the `foregroundDeletion` finalizer deletes its dependents first (those with dependents
 *   of their own in the foreground too) and removes the finalizer once no blocking dependent
 *   (`blockOwnerDeletion: true`) is left,
 * - for an owner with the `orphan` finalizer removes the ownerReferences to it, then the finalizer.
 * This is what `kubectl delete --cascade=background|foreground|orphan` and Helm rely on.
 */
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { isApiError, isConflict, isNotFound } from '../../api/errors.js';
import { resources, type ResourceType } from '../../api/resources.js';
import type { KubeObject } from '../../client/client.js';
import { semanticEqual, runWorkers, type Controller, type ControllerContext, type Informer, type WorkQueue } from '../_context.js';
import { names } from '../names.js';

export const FinalizerOrphanDependents = 'orphan';
export const FinalizerDeleteDependents = 'foregroundDeletion';

/** Resources the collector does not track: Events never own anything and churn the most. */
const ignored = new Set(['events']);

interface GraphNode {
  res: ResourceType;
  obj: KubeObject;
}

export function hasFinalizer(o: KubeObject, f: string): boolean {
  return (o.metadata?.finalizers ?? []).includes(f);
}

export function isDeletingDependents(o: KubeObject): boolean {
  return o.metadata?.deletionTimestamp !== undefined && hasFinalizer(o, FinalizerDeleteDependents);
}

function uidOf(o: KubeObject): string {
  return o.metadata?.uid ?? '';
}

/** The resource an ownerReference names (built-in kinds only). */
export function resourceForRef(ref: Pick<OwnerReference, 'apiVersion' | 'kind'>): ResourceType | undefined {
  const group = ref.apiVersion.includes('/') ? (ref.apiVersion.split('/')[0] ?? '') : '';
  return Object.values(resources).find((r) => r.group === group && r.kind === ref.kind);
}

export class GarbageCollector implements Controller {
  readonly name = names.GarbageCollector;
  private readonly attemptToDelete: WorkQueue<string>;
  private readonly attemptToOrphan: WorkQueue<string>;
  private readonly informers: Informer<KubeObject>[] = [];
  private readonly uidToNode = new Map<string, GraphNode>();
  private readonly dependents = new Map<string, Set<string>>();
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {
    this.attemptToDelete = ctx.newQueue();
    this.attemptToOrphan = ctx.newQueue();
  }

  start(): void {
    void this.startGraph();
  }

  /**
   * Builds the graph over every resource the server actually serves: a resource that answers 404 to a list
   * (not served here) gets no informer, so it cannot keep the collector from syncing (upstream asks discovery).
   */
  private async startGraph(): Promise<void> {
    const served = await Promise.all(
      Object.values(resources)
        .filter((res) => !ignored.has(res.resource))
        .map(async (res) => {
          try {
            await this.ctx.client.list(res, { limit: 1 });
            return res;
          } catch (e) {
            return isApiError(e) && (e.code === 404 || e.code === 405) ? undefined : res;
          }
        }),
    );
    if (this.stopped) return;
    for (const res of served) {
      if (res === undefined) continue;
      const inf = this.ctx.informer<KubeObject>(res);
      this.informers.push(inf);
      inf.addHandlers({
        onAdd: (o) => this.observe(res, undefined, o),
        onUpdate: (old, o) => this.observe(res, old, o),
        onDelete: (o) => this.removed(o),
      });
    }
    // Workers start once every graph informer has synced, so that owners are known before dependents are
    // judged (upstream waits for the graph's caches too); otherwise each dependent would cost a live GET.
    void Promise.all(this.informers.map((i) => i.waitForSync())).then(() => {
      if (this.stopped) return;
      void runWorkers(this.attemptToDelete, (uid) => this.attemptToDeleteItem(uid), 5);
      void runWorkers(this.attemptToOrphan, (uid) => this.attemptToOrphanItem(uid), 2);
    });
  }

  stop(): void {
    this.stopped = true;
    this.attemptToDelete.shutDown();
    this.attemptToOrphan.shutDown();
  }

  private dependentsOf(uid: string): GraphNode[] {
    return [...(this.dependents.get(uid) ?? [])].map((d) => this.uidToNode.get(d)).filter((n): n is GraphNode => n !== undefined);
  }

  /** GraphBuilder `processGraphChanges` for an add or update. */
  private observe(res: ResourceType, old: KubeObject | undefined, o: KubeObject): void {
    const uid = uidOf(o);
    if (uid === '') return;
    this.uidToNode.set(uid, { res, obj: o });
    const oldRefs = old?.metadata?.ownerReferences ?? [];
    const refs = o.metadata?.ownerReferences ?? [];
    for (const r of oldRefs) {
      if (refs.some((x) => x.uid === r.uid)) continue;
      this.dependents.get(r.uid)?.delete(uid);
      const owner = this.uidToNode.get(r.uid);
      // An owner waiting on this dependent may now finish its foreground deletion.
      if (owner !== undefined && isDeletingDependents(owner.obj)) this.attemptToDelete.add(r.uid);
    }
    let dangling = false;
    for (const r of refs) {
      let s = this.dependents.get(r.uid);
      if (s === undefined) {
        s = new Set();
        this.dependents.set(r.uid, s);
      }
      s.add(uid);
      const owner = this.uidToNode.get(r.uid);
      if (owner === undefined || isDeletingDependents(owner.obj)) dangling = true;
    }
    if (dangling && old === undefined) this.attemptToDelete.add(uid);
    else if (dangling && !semanticEqual(oldRefs, refs)) this.attemptToDelete.add(uid);
    const deleting = o.metadata?.deletionTimestamp !== undefined;
    const wasDeleting = old?.metadata?.deletionTimestamp !== undefined;
    if (deleting && hasFinalizer(o, FinalizerOrphanDependents) && (!wasDeleting || !hasFinalizer(old ?? {}, FinalizerOrphanDependents))) {
      this.attemptToOrphan.add(uid);
    }
    if (isDeletingDependents(o) && (old === undefined || !isDeletingDependents(old))) {
      for (const d of this.dependents.get(uid) ?? []) this.attemptToDelete.add(d);
      this.attemptToDelete.add(uid);
    }
  }

  private removed(o: KubeObject): void {
    const uid = uidOf(o);
    this.uidToNode.delete(uid);
    for (const r of o.metadata?.ownerReferences ?? []) {
      this.dependents.get(r.uid)?.delete(uid);
      const owner = this.uidToNode.get(r.uid);
      if (owner !== undefined && isDeletingDependents(owner.obj)) this.attemptToDelete.add(r.uid);
    }
    for (const d of this.dependents.get(uid) ?? []) this.attemptToDelete.add(d);
  }

  private nsOpt(n: GraphNode): { namespace?: string } {
    const ns = n.obj.metadata?.namespace;
    return n.res.namespaced && ns !== undefined ? { namespace: ns } : {};
  }

  /** `isDangling`: the owner is absent, or a different object (uid) now has its name. Unknown kinds are never dangling. */
  private async isDangling(ref: OwnerReference, item: GraphNode): Promise<{ dangling: boolean; owner?: KubeObject }> {
    const known = this.uidToNode.get(ref.uid);
    if (known !== undefined) return { dangling: false, owner: known.obj };
    const res = resourceForRef(ref);
    if (res === undefined) return { dangling: false };
    const opts: { namespace?: string } = {};
    if (res.namespaced && item.obj.metadata?.namespace !== undefined) opts.namespace = item.obj.metadata.namespace;
    try {
      const owner = await this.ctx.client.get(res, ref.name, opts);
      if (owner.metadata?.uid !== ref.uid) return { dangling: true };
      return { dangling: false, owner };
    } catch (e) {
      if (isNotFound(e)) return { dangling: true };
      throw e;
    }
  }

  /** `attemptToDeleteItem`. */
  async attemptToDeleteItem(uid: string): Promise<void> {
    const item = this.uidToNode.get(uid);
    if (item === undefined) return;
    const o = item.obj;
    if (o.metadata?.deletionTimestamp !== undefined && !isDeletingDependents(o)) return;
    let latest: KubeObject;
    try {
      latest = await this.ctx.client.get(item.res, o.metadata?.name ?? '', this.nsOpt(item));
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (latest.metadata?.uid !== uid) return;
    if (isDeletingDependents(latest)) {
      await this.processDeletingDependentsItem(uid, item);
      return;
    }
    const refs = latest.metadata?.ownerReferences ?? [];
    if (refs.length === 0) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const r = await this.isDangling(ref, item);
      if (r.dangling) dangling.push(ref);
      else if (r.owner !== undefined && isDeletingDependents(r.owner)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.patchOwnerRefs(item, refs.filter((r) => !drop.has(r.uid)));
      return;
    }
    if (waiting.length > 0 && this.dependentsOf(uid).length > 0) {
      if (this.dependentsOf(uid).some((d) => isDeletingDependents(d.obj))) {
        await this.patchOwnerRefs(item, refs.map((r) => ({ ...r, blockOwnerDeletion: false })));
      }
      await this.deleteObject(item, 'Foreground');
      return;
    }
    const policy = hasFinalizer(latest, FinalizerOrphanDependents) ? 'Orphan' : hasFinalizer(latest, FinalizerDeleteDependents) ? 'Foreground' : 'Background';
    await this.deleteObject(item, policy);
  }

  /** `processDeletingDependentsItem`: drop `foregroundDeletion` once no blocking dependent remains. */
  private async processDeletingDependentsItem(uid: string, item: GraphNode): Promise<void> {
    const blocking = this.dependentsOf(uid).filter((d) =>
      (d.obj.metadata?.ownerReferences ?? []).some((r) => r.uid === uid && r.blockOwnerDeletion === true),
    );
    if (blocking.length === 0) {
      await this.removeFinalizer(item, FinalizerDeleteDependents);
      return;
    }
    for (const d of blocking) if (!isDeletingDependents(d.obj)) this.attemptToDelete.add(uidOf(d.obj));
  }

  /** `attemptToOrphanWorker`: remove the ownerReferences to the owner from every dependent, then `orphan`. */
  async attemptToOrphanItem(uid: string): Promise<void> {
    const owner = this.uidToNode.get(uid);
    if (owner === undefined) return;
    for (const d of this.dependentsOf(uid)) {
      const refs = (d.obj.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid);
      await this.patchOwnerRefs(d, refs);
    }
    await this.removeFinalizer(owner, FinalizerOrphanDependents);
  }

  private async patchOwnerRefs(n: GraphNode, refs: OwnerReference[]): Promise<void> {
    try {
      await this.ctx.client.patch(n.res, n.obj.metadata?.name ?? '', 'merge', { metadata: { ownerReferences: refs.length > 0 ? refs : null } }, this.nsOpt(n));
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private async deleteObject(n: GraphNode, policy: 'Orphan' | 'Foreground' | 'Background'): Promise<void> {
    try {
      await this.ctx.client.delete(n.res, n.obj.metadata?.name ?? '', { ...this.nsOpt(n), propagationPolicy: policy, preconditions: { uid: uidOf(n.obj) } });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }

  /** `removeFinalizer`: read fresh, drop the finalizer, update; retried on conflict. */
  private async removeFinalizer(n: GraphNode, finalizer: string): Promise<void> {
    for (let i = 0; i < 5; i++) {
      let cur: KubeObject;
      try {
        cur = await this.ctx.client.get(n.res, n.obj.metadata?.name ?? '', this.nsOpt(n));
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
      if (cur.metadata?.uid !== uidOf(n.obj) || !hasFinalizer(cur, finalizer)) return;
      const finalizers = (cur.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
      try {
        await this.ctx.client.update(n.res, { ...cur, metadata: { ...cur.metadata, finalizers } }, this.nsOpt(n));
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        if (!isConflict(e)) throw e;
      }
    }
    throw new Error(`could not remove finalizer ${finalizer} from ${n.obj.metadata?.name ?? ''}`);
  }
}

export function create(ctx: ControllerContext): GarbageCollector {
  return new GarbageCollector(ctx);
}
