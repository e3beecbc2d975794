/**
 * ResourceQuota (`plugin/pkg/admission/resourcequota`, validating): refuses a request that would take a
 * namespace's usage past one of its quotas, and charges the usage into the quotas' `status.used` before
 * the object is stored (controller.go `checkRequest`/`checkQuotas`, with three retries on conflicts).
 *
 * Upstream batches the requests of a namespace on one worker; here the requests of a namespace that has
 * quotas run one at a time. A namespace without quotas costs one lookup in the watch cache's namespace
 * index per request.
 */
import type { ResourceQuota as Quota, ScopedResourceSelectorRequirement } from 'kubernetes-types/core/v1.js';
import { apiErrors, isApiError } from '../../api/errors.js';
import type { KubeObject } from '../../client/client.js';
import { evaluatorFor, isIgnoredResource, scopeSelectorsOf, type Evaluator } from '../../quota/evaluators.js';
import {
  add,
  equals,
  fromWire,
  isNegative,
  isZero,
  lessThanOrEqual,
  mask,
  prettyPrint,
  prettyPrintResourceNames,
  resourceNames,
  subtractWithNonNegativeResult,
  toWire,
  type ResourceList,
} from '../../quota/resources.js';
import { admissionForbidden } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, ValidatingPlugin } from '../types.js';

export const name = names.ResourceQuota;

/** Retries of the status writes after conflicts (`checkQuotas(quotas, attrs, 3)`). */
const maxRetries = 3;

/** A quota as admission works on it: the stored object and its parsed hard and used lists. */
interface WorkingQuota {
  quota: Quota;
  hard: ResourceList;
  used: ResourceList;
}

function working(q: Quota): WorkingQuota {
  return { quota: q, hard: fromWire(q.status?.hard), used: fromWire(q.status?.used) };
}

/** `hasUsageStats`: every tracked hard resource has a used value. */
function hasUsageStats(q: WorkingQuota, interesting: readonly string[]): boolean {
  const set = new Set(interesting);
  for (const r of q.hard.keys()) if (set.has(r) && !q.used.has(r)) return false;
  return true;
}

/** An error that is not a refusal of the request: answered as an internal error. */
function internal(e: unknown): Error {
  return isApiError(e) ? e : apiErrors.internal(e instanceof Error ? e.message : String(e));
}

/**
 * `CheckRequest`: the quotas with this request's usage charged (the same array when nothing changes),
 * or throws the refusal. No limited resources are configured (kubeadm passes no AdmissionConfiguration).
 */
export function checkRequest(quotas: readonly WorkingQuota[], a: AdmissionAttributes, ev: Evaluator, now: number): readonly WorkingQuota[] {
  if (!ev.handles(a)) return quotas;
  const obj = a.object as KubeObject;
  const interesting: number[] = [];
  for (const [i, q] of quotas.entries()) {
    const qname = q.quota.metadata?.name ?? '';
    let selectors: ScopedResourceSelectorRequirement[];
    let match: boolean;
    try {
      selectors = scopeSelectorsOf(q.quota);
      ev.matchingScopes(obj, selectors);
    } catch (e) {
      throw internal(`error matching scopes of quota ${qname}, err: ${e instanceof Error ? e.message : String(e)}`);
    }
    try {
      match = ev.matches(q.quota, obj);
    } catch (e) {
      throw internal(e);
    }
    if (!match) continue;
    const restricted = ev.matchingResources(resourceNames(q.hard));
    const failed = ev.constraints(restricted, obj);
    if (failed !== undefined) throw admissionForbidden(a, `failed quota: ${qname}: ${failed}`);
    if (!hasUsageStats(q, restricted)) {
      throw admissionForbidden(a, `status unknown for quota: ${qname}, resources: ${prettyPrintResourceNames(restricted)}`);
    }
    interesting.push(i);
  }

  let delta = ev.usage(obj, now);
  const negative = isNegative(delta);
  if (negative.length > 0) throw admissionForbidden(a, `quota usage is negative for resource(s): ${prettyPrintResourceNames(negative)}`);
  if (a.operation === 'UPDATE') {
    const prev = a.oldObject;
    if (prev === undefined) throw admissionForbidden(a, 'unable to get previous usage since prior version of object was not found');
    // Not a create-on-update: charge only the difference.
    if ((prev.metadata?.resourceVersion ?? '') !== '') delta = subtractWithNonNegativeResult(delta, ev.usage(prev, now));
  }
  if (isZero(delta) || interesting.length === 0) return quotas;

  const out = [...quotas];
  for (const i of interesting) {
    const q = out[i];
    if (q === undefined) continue;
    const requested = mask(delta, q.hard.keys());
    const newUsage = add(q.used, requested);
    const maskedNewUsage = mask(newUsage, requested.keys());
    const { allowed, exceeded } = lessThanOrEqual(maskedNewUsage, q.hard);
    if (!allowed) {
      throw admissionForbidden(
        a,
        `exceeded quota: ${q.quota.metadata?.name ?? ''}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(q.used, exceeded))}, limited: ${prettyPrint(mask(q.hard, exceeded))}`,
      );
    }
    out[i] = { ...q, used: newUsage };
  }
  return out;
}

export interface ResourceQuotaOptions {
  /** ms since epoch: decides whether a deleted pod's grace period is over. */
  now?: () => number;
}

export class ResourceQuota implements ValidatingPlugin {
  readonly name = name;
  private readonly now: () => number;
  private readonly evaluators = new Map<string, Evaluator>();
  /** The tail of each namespace's chain of quota checks. */
  private readonly tails = new Map<string, Promise<void>>();
  /**
   * The quotas this server wrote last, by `namespace/name`, until its watch cache has them: the next
   * request of the namespace must see its predecessor's charge, not a conflict.
   */
  private readonly written = new Map<string, Quota>();

  constructor(o: ResourceQuotaOptions = {}) {
    this.now = o.now ?? Date.now;
  }

  async validate(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (a.subresource !== '' || a.namespace === '' || a.object === undefined) return;
    if (a.operation === 'CREATE' && a.resource.group === '' && a.resource.resource === 'namespaces') return;
    const gr = { group: a.resource.group, resource: a.resource.resource };
    if (isIgnoredResource(gr)) return;
    const ev = this.evaluator(gr);
    if (!ev.handles(a)) return;
    if ((await lookup.listResourceQuotas(a.namespace)).length === 0) return;
    await this.serialized(a.namespace, () => this.checkQuotas(a, lookup, ev));
  }

  private evaluator(gr: { group: string; resource: string }): Evaluator {
    const key = `${gr.group}/${gr.resource}`;
    let ev = this.evaluators.get(key);
    if (ev === undefined) this.evaluators.set(key, (ev = evaluatorFor(gr)));
    return ev;
  }

  private async serialized(namespace: string, fn: () => Promise<void>): Promise<void> {
    const prev = this.tails.get(namespace) ?? Promise.resolve();
    const run = prev.then(fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(namespace, tail);
    try {
      await run;
    } finally {
      if (this.tails.get(namespace) === tail) this.tails.delete(namespace);
    }
  }

  /** The namespace's quotas, each replaced by the one this server wrote when the cache is behind. */
  private async quotas(namespace: string, lookup: AdmissionLookup, fresh: boolean): Promise<WorkingQuota[]> {
    const listed = await lookup.listResourceQuotas(namespace, fresh ? { fresh } : {});
    const seen = new Set<string>();
    const out = listed.map((q) => {
      const key = `${namespace}/${q.metadata?.name ?? ''}`;
      seen.add(key);
      const mine = this.written.get(key);
      if (mine !== undefined && Number(mine.metadata?.resourceVersion ?? 0) > Number(q.metadata?.resourceVersion ?? 0)) return working(mine);
      this.written.delete(key);
      return working(q);
    });
    for (const key of this.written.keys()) if (key.startsWith(`${namespace}/`) && !seen.has(key)) this.written.delete(key);
    return out;
  }

  /** `checkQuotas` for one request: charge, write the changed quotas, retry on conflicts. */
  private async checkQuotas(a: AdmissionAttributes, lookup: AdmissionLookup, ev: Evaluator): Promise<void> {
    let quotas = await this.quotas(a.namespace, lookup, false);
    if (quotas.length === 0) return;
    for (let retries = maxRetries; ; retries--) {
      const next = checkRequest(quotas, a, ev, this.now());
      if (a.dryRun) return;
      const failed = new Set<string>();
      let lastErr: unknown;
      for (const [i, q] of next.entries()) {
        const before = quotas[i];
        if (before === undefined || equals(before.used, q.used)) continue;
        const md = q.quota.metadata ?? {};
        try {
          const stored = await lookup.updateResourceQuotaStatus({
            ...q.quota,
            metadata: { ...md },
            status: { ...(q.quota.status ?? {}), used: toWire(q.used) },
          });
          this.written.set(`${a.namespace}/${md.name ?? ''}`, stored);
        } catch (e) {
          failed.add(md.name ?? '');
          lastErr = e;
        }
      }
      if (failed.size === 0) return;
      if (retries <= 0) throw lastErr;
      // Only the quotas whose write failed are checked again, on their current state (as upstream).
      quotas = (await this.quotas(a.namespace, lookup, true)).filter((q) => failed.has(q.quota.metadata?.name ?? ''));
    }
  }
}

export function create(o: ResourceQuotaOptions = {}): ResourceQuota {
  return new ResourceQuota(o);
}
