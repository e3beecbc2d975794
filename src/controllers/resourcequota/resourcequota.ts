/**
 * The resource quota controller (`pkg/controller/resourcequota/resource_quota_controller.go` and
 * `resource_quota_monitor.go`, v1.32): keeps each quota's `status.hard` equal to `spec.hard` and
 * recomputes `status.used` from the objects in its namespace, on every quota added or whose `spec.hard`
 * changed, on a full resync every 5 minutes (`--resource-quota-sync-period`), and on replenishment:
 * a tracked object deleted, a pod turned terminal, a Service whose quota type changed, a claim resized.
 * Admission charges creations itself, so additions need no event.
 *
 * Objects are watched only for the resources some quota tracks, and an event of a namespace without a
 * quota costs one index lookup.
 */
import type { PersistentVolumeClaim, Pod, ResourceQuota, Service } from 'kubernetes-types/core/v1.js';
import { isNotFound } from '../../api/errors.js';
import { resources, type ResourceType } from '../../api/resources.js';
import type { KubeObject } from '../../client/client.js';
import {
  builtinEvaluators,
  calculateUsageStats,
  evaluatorFor,
  isIgnoredResource,
  parseObjectCountName,
  quotaServiceType,
  quotaV1Pod,
  type Evaluator,
  type GroupResource,
} from '../../quota/evaluators.js';
import { add, equals, fromWire, intersection, mask, toWire, type ResourceList } from '../../quota/resources.js';
import { NamespaceIndex, objectKey, runWorkers, type Controller, type ControllerContext, type Informer } from '../_context.js';
import { names } from '../names.js';

/** `--resource-quota-sync-period` default. */
export const fullResyncPeriodMs = 5 * 60_000;
/** `--concurrent-resource-quota-syncs` default. */
const workers = 5;

export interface ResourceQuotaControllerOptions {
  resyncPeriodMs?: number;
}

function grKey(gr: GroupResource): string {
  return `${gr.group}/${gr.resource}`;
}

/** The served resource a group-resource names (object counts of unknown resources cannot be measured). */
function resourceTypeOf(gr: GroupResource): ResourceType | undefined {
  return Object.values(resources).find((r) => r.group === gr.group && r.resource === gr.resource && r.namespaced);
}

/** `RequiresQuotaReplenish` for claims: the charged storage changed. */
function claimStorage(pvc: PersistentVolumeClaim): string {
  return `${String(pvc.spec?.resources?.requests?.['storage'] ?? '')}/${String(pvc.status?.allocatedResources?.['storage'] ?? '')}`;
}

/** `DefaultUpdateFilter`: the updates that can lower a namespace's usage. */
function updateReplenishes(gr: GroupResource, oldObj: KubeObject, newObj: KubeObject, now: number): boolean {
  if (gr.group !== '') return false;
  if (gr.resource === 'pods') return quotaV1Pod(oldObj as Pod, now) && !quotaV1Pod(newObj as Pod, now);
  if (gr.resource === 'services') return quotaServiceType(oldObj as Service) !== quotaServiceType(newObj as Service);
  if (gr.resource === 'persistentvolumeclaims') return claimStorage(oldObj as PersistentVolumeClaim) !== claimStorage(newObj as PersistentVolumeClaim);
  return false;
}

export class ResourceQuotaController implements Controller {
  readonly name = names.ResourceQuota;
  private readonly queue;
  private readonly quotas: Informer<ResourceQuota>;
  /** Informers of the resources quotas track, by group-resource, started on first need. */
  private readonly monitors = new Map<string, Informer<KubeObject>>();
  private readonly resyncPeriodMs: number;
  private timer: { cancel(): void } | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: ControllerContext,
    o: ResourceQuotaControllerOptions = {},
  ) {
    this.queue = ctx.newQueue();
    this.quotas = ctx.informer<ResourceQuota>(resources.resourcequotas);
    this.resyncPeriodMs = o.resyncPeriodMs ?? fullResyncPeriodMs;
  }

  start(): void {
    this.quotas.addHandlers({
      onAdd: (q) => this.queue.add(objectKey(q)),
      // Status updates are this controller's (or admission's) own: only a changed spec.hard is a reason to sync.
      onUpdate: (oldQ, q) => {
        if (!equals(fromWire(oldQ.spec?.hard), fromWire(q.spec?.hard))) this.queue.add(objectKey(q));
      },
      onDelete: (q) => this.queue.add(objectKey(q)),
    });
    void runWorkers(this.queue, (key) => this.syncResourceQuota(key), workers);
    const resync = (): void => {
      if (this.stopped) return;
      for (const q of this.quotas.list()) this.queue.add(objectKey(q));
      this.timer = this.ctx.clock.setTimeout(resync, this.resyncPeriodMs);
    };
    this.timer = this.ctx.clock.setTimeout(resync, this.resyncPeriodMs);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.queue.shutDown();
  }

  /** The informer of a tracked resource, with the replenishment handlers (`controllerFor`). */
  private monitor(gr: GroupResource, type: ResourceType): Informer<KubeObject> {
    const key = grKey(gr);
    let inf = this.monitors.get(key);
    if (inf !== undefined) return inf;
    inf = this.ctx.informer<KubeObject>(type);
    this.monitors.set(key, inf);
    inf.addHandlers({
      onUpdate: (oldObj, newObj) => {
        const ns = newObj.metadata?.namespace ?? '';
        if (this.quotas.byIndex(NamespaceIndex, ns).length === 0) return;
        if (updateReplenishes(gr, oldObj, newObj, this.ctx.clock.now())) this.replenishQuota(gr, ns);
      },
      onDelete: (obj) => {
        const ns = obj.metadata?.namespace ?? '';
        if (this.quotas.byIndex(NamespaceIndex, ns).length === 0) return;
        this.replenishQuota(gr, ns);
      },
    });
    return inf;
  }

  /** `replenishQuota`: the namespace's quotas that track the resource are synced again. */
  private replenishQuota(gr: GroupResource, namespace: string): void {
    const ev = evaluatorFor(gr);
    for (const q of this.quotas.byIndex(NamespaceIndex, namespace)) {
      if (ev.matchingResources(Object.keys(q.status?.hard ?? {})).length > 0) this.queue.add(objectKey(q));
    }
  }

  /** The evaluators that can measure a quota: the built-in ones and an object count per other `count/` name. */
  private evaluators(hardNames: readonly string[]): Evaluator[] {
    const out = builtinEvaluators();
    const known = new Set(out.map((e) => grKey(e.groupResource)));
    for (const n of hardNames) {
      const gr = parseObjectCountName(n);
      if (gr === undefined || known.has(grKey(gr)) || isIgnoredResource(gr)) continue;
      known.add(grKey(gr));
      out.push(evaluatorFor(gr));
    }
    return out;
  }

  /** The objects of a resource in a namespace, from its (synced) informer; undefined for unknown resources. */
  private async objects(gr: GroupResource, namespace: string): Promise<KubeObject[] | undefined> {
    const type = resourceTypeOf(gr);
    if (type === undefined) return undefined;
    const inf = this.monitor(gr, type);
    if (!inf.hasSynced()) await inf.waitForSync();
    return inf.byIndex(NamespaceIndex, namespace);
  }

  /** `quota.CalculateUsage`: the observed usage of the quota's tracked resources. */
  async calculateUsage(q: ResourceQuota, hard: ResourceList): Promise<ResourceList> {
    const namespace = q.metadata?.namespace ?? '';
    const hardNames = [...hard.keys()];
    const evaluators = this.evaluators(hardNames);
    let matched = intersection(hardNames, evaluators.flatMap((e) => e.matchingResources(hardNames)));
    let usage: ResourceList = new Map();
    for (const ev of evaluators) {
      const tracked = ev.matchingResources(matched);
      if (tracked.length === 0) continue;
      const items = await this.objects(ev.groupResource, namespace);
      if (items === undefined) {
        matched = matched.filter((r) => !tracked.includes(r));
        continue;
      }
      const stats = calculateUsageStats(ev, items, {
        scopes: q.spec?.scopes ?? [],
        scopeSelector: q.spec?.scopeSelector?.matchExpressions ?? [],
        resources: tracked,
        now: this.ctx.clock.now(),
      });
      usage = add(usage, stats);
    }
    return mask(usage, matched);
  }

  /** `syncResourceQuota`: status.hard from spec.hard, status.used recomputed; written only when changed. */
  async syncResourceQuota(key: string): Promise<void> {
    const q = this.quotas.get(key);
    if (q === undefined) return;
    const hard = fromWire(q.spec?.hard);
    const dirty = q.status?.hard === undefined || q.status.used === undefined || !equals(hard, fromWire(q.status.hard));
    const oldUsed = fromWire(q.status?.used);
    const used: ResourceList = new Map(oldUsed);
    for (const [k, v] of await this.calculateUsage(q, hard)) used.set(k, v);
    const masked = mask(used, hard.keys());
    if (!dirty && equals(masked, oldUsed)) return;
    try {
      await this.ctx.client.update<ResourceQuota>(
        resources.resourcequotas,
        { ...q, status: { hard: toWire(hard), used: toWire(masked) } },
        { namespace: q.metadata?.namespace ?? '', subresource: 'status' },
      );
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
  }
}

export function create(ctx: ControllerContext, o: ResourceQuotaControllerOptions = {}): Controller {
  return new ResourceQuotaController(ctx, o);
}
