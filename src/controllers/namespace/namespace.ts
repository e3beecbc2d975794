/**
 * The namespace controller (pkg/controller/namespace, deletion/namespaced_resources_deleter.go; v1.32): for a
 * Terminating namespace, deletes every namespaced object of every served resource, reports progress in the
 * namespace conditions, and when nothing is left removes the `kubernetes` finalizer through
 * `namespaces/<name>/finalize` so the API server can remove the namespace.
 */
import type { Namespace, NamespaceCondition } from 'kubernetes-types/core/v1.js';
import { isNotFound, isApiError } from '../../api/errors.js';
import { resources, type ResourceType } from '../../api/resources.js';
import type { KubeObject } from '../../client/client.js';
import { formatTime } from '../_pods.js';
import { semanticEqual, errorMessage, runWorkers, type Controller, type ControllerContext, type Informer, type WorkQueue } from '../_context.js';
import { names } from '../names.js';

export const FinalizerKubernetes = 'kubernetes';

/** Condition types in upstream order (`conditionTypes`). */
export const conditionTypes = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

const okReasons: Record<string, string> = {
  NamespaceDeletionDiscoveryFailure: 'ResourcesDiscovered',
  NamespaceDeletionGroupVersionParsingFailure: 'ParsedGroupVersions',
  NamespaceDeletionContentFailure: 'ContentDeleted',
  NamespaceContentRemaining: 'ContentRemoved',
  NamespaceFinalizersRemaining: 'ContentHasNoFinalizers',
};
const okMessages: Record<string, string> = {
  NamespaceDeletionDiscoveryFailure: 'All resources successfully discovered',
  NamespaceDeletionGroupVersionParsingFailure: 'All legacy kube types successfully parsed',
  NamespaceDeletionContentFailure: 'All content successfully deleted, may be waiting on finalization',
  NamespaceContentRemaining: 'All content successfully removed',
  NamespaceFinalizersRemaining: 'All content-preserving finalizers finished',
};

export interface ContentTotals {
  /** `<resource>.<group>` -> objects left. */
  remaining: Map<string, number>;
  /** finalizer -> objects carrying it. */
  finalizers: Map<string, number>;
  errors: string[];
}

/** The conditions upstream's `namespaceConditionUpdater` computes from one deletion pass. */
export function namespaceConditions(totals: ContentTotals, previous: readonly NamespaceCondition[], now: number): NamespaceCondition[] {
  const wanted = new Map<string, { status: string; reason: string; message: string }>();
  if (totals.errors.length > 0) {
    wanted.set('NamespaceDeletionContentFailure', {
      status: 'True',
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${totals.errors.length} remaining: ${totals.errors.join(', ')}`,
    });
  }
  const rem = [...totals.remaining].filter(([, n]) => n > 0).map(([gr, n]) => `${gr} has ${n} resource instances`).sort();
  if (rem.length > 0) wanted.set('NamespaceContentRemaining', { status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${rem.join(', ')}` });
  const fin = [...totals.finalizers].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`).sort();
  if (fin.length > 0) {
    wanted.set('NamespaceFinalizersRemaining', { status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${fin.join(', ')}` });
  }
  const ts = formatTime(now);
  return conditionTypes.map((type) => {
    const w = wanted.get(type) ?? { status: 'False', reason: okReasons[type] ?? '', message: okMessages[type] ?? '' };
    const prev = previous.find((c) => c.type === type);
    const same = prev !== undefined && prev.status === w.status && prev.reason === w.reason && prev.message === w.message;
    return { type, status: w.status, reason: w.reason, message: w.message, lastTransitionTime: same ? (prev.lastTransitionTime ?? ts) : ts };
  });
}

/** Namespaced resources whose objects a namespace deletion removes (events included, as upstream). */
export function namespacedResources(): ResourceType[] {
  return Object.values(resources).filter((r) => r.namespaced && !(r.group === 'events.k8s.io'));
}

export class NamespaceController implements Controller {
  readonly name = names.Namespace;
  private readonly queue: WorkQueue<string>;
  private readonly nsInformer: Informer<Namespace>;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = ctx.newQueue();
    this.nsInformer = ctx.informer<Namespace>(resources.namespaces);
  }

  start(): void {
    const enqueue = (n: Namespace): void => {
      if (n.metadata?.deletionTimestamp !== undefined) this.queue.add(n.metadata.name ?? '');
    };
    this.nsInformer.addHandlers({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n) });
    void runWorkers(this.queue, (k) => this.sync(k), 5);
  }

  stop(): void {
    this.queue.shutDown();
  }

  /** `NamespacedResourcesDeleter.Delete`. */
  async sync(name: string): Promise<void> {
    let ns: Namespace;
    try {
      ns = await this.ctx.client.get<Namespace>(resources.namespaces, name);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (ns.metadata?.deletionTimestamp === undefined) return;
    if (!(ns.spec?.finalizers ?? []).includes(FinalizerKubernetes)) return;
    const totals: ContentTotals = { remaining: new Map(), finalizers: new Map(), errors: [] };
    let estimateSeconds = 0;
    for (const res of namespacedResources()) {
      const gr = `${res.resource}.${res.group}`;
      try {
        try {
          await this.ctx.client.deleteCollection(res, { namespace: name });
        } catch (e) {
          if (!isApiError(e) || (e.code !== 405 && e.code !== 404)) throw e;
          const list = await this.ctx.client.list<KubeObject>(res, { namespace: name });
          for (const o of list.items) {
            if (o.metadata?.deletionTimestamp !== undefined) continue;
            await this.ctx.client.delete(res, o.metadata?.name ?? '', { namespace: name }).catch((err: unknown) => {
              if (!isNotFound(err)) throw err;
            });
          }
        }
        const left = await this.ctx.client.list<KubeObject>(res, { namespace: name });
        if (left.items.length > 0) {
          totals.remaining.set(gr, left.items.length);
          for (const o of left.items) {
            for (const f of o.metadata?.finalizers ?? []) totals.finalizers.set(f, (totals.finalizers.get(f) ?? 0) + 1);
            if (res.resource === 'pods') {
              const grace = (o as { spec?: { terminationGracePeriodSeconds?: number } }).spec?.terminationGracePeriodSeconds ?? 30;
              estimateSeconds = Math.max(estimateSeconds, grace);
            }
          }
        }
      } catch (e) {
        if (isApiError(e) && (e.code === 404 || e.code === 405)) continue;
        totals.errors.push(errorMessage(e));
      }
    }
    const conditions = namespaceConditions(totals, ns.status?.conditions ?? [], this.ctx.clock.now());
    if (!semanticEqual(conditions.map((c) => [c.type, c.status, c.reason, c.message]), (ns.status?.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message]))) {
      try {
        ns = await this.ctx.client.update<Namespace>(resources.namespaces, { ...ns, status: { ...(ns.status ?? {}), phase: 'Terminating', conditions } }, { subresource: 'status' });
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
    }
    if (totals.errors.length > 0) throw new Error(totals.errors.join(', '));
    if (totals.remaining.size > 0) {
      this.queue.addAfter(name, Math.max(1, Math.min(estimateSeconds, 5)) * 1000);
      return;
    }
    const finalizers = (ns.spec?.finalizers ?? []).filter((f) => f !== FinalizerKubernetes);
    try {
      await this.ctx.client.update<Namespace>(resources.namespaces, { ...ns, spec: { ...(ns.spec ?? {}), finalizers } }, { subresource: 'finalize' });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

export function create(ctx: ControllerContext): NamespaceController {
  return new NamespaceController(ctx);
}
