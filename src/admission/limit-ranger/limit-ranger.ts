/**
 * LimitRanger (`plugin/pkg/admission/limitranger`): on pod CREATE fills container requests and limits
 * from the namespace's LimitRanges (type Container `defaultRequest`/`default`) and records what it set in
 * the `kubernetes.io/limit-ranger` annotation (mutating); then enforces the Container `min`/`max`
 * (validating). Pod updates are not handled, as upstream.
 */
import type { Container, LimitRange, Pod } from 'kubernetes-types/core/v1.js';
import { compareQuantities, formatQuantity, isQuantity, parseQuantity, type Quantity } from '../../api/quantity.js';
import { admissionForbidden, isResource } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, MutatingPlugin, ValidatingPlugin } from '../types.js';

export const name = names.LimitRanger;
export const limitRangerAnnotation = 'kubernetes.io/limit-ranger';

type ResourceList = Record<string, string>;

function q(v: string | number | undefined): Quantity | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  return isQuantity(s) ? parseQuantity(s) : undefined;
}

function qs(v: string | number): string {
  const x = q(v);
  return x === undefined ? String(v) : formatQuantity(x);
}

function defaultRequirements(lr: LimitRange): { requests: ResourceList; limits: ResourceList } {
  const requests: ResourceList = {};
  const limits: ResourceList = {};
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    for (const [k, v] of Object.entries(item.defaultRequest ?? {})) requests[k] = String(v);
    for (const [k, v] of Object.entries(item.default ?? {})) limits[k] = String(v);
  }
  return { requests, limits };
}

function mergeContainer(c: Container, def: { requests: ResourceList; limits: ResourceList }, containerType: string, annotations: string[]): void {
  c.resources ??= {};
  const setRequests: string[] = [];
  const setLimits: string[] = [];
  const limits = (c.resources.limits ??= {});
  const requests = (c.resources.requests ??= {});
  for (const [k, v] of Object.entries(def.limits)) {
    if (!(k in limits)) {
      limits[k] = v;
      setLimits.push(k);
    }
  }
  for (const [k, v] of Object.entries(def.requests)) {
    if (!(k in requests)) {
      requests[k] = v;
      setRequests.push(k);
    }
  }
  if (Object.keys(limits).length === 0) delete c.resources.limits;
  if (Object.keys(requests).length === 0) delete c.resources.requests;
  if (setRequests.length > 0) annotations.push(`${setRequests.sort().join(', ')} request for ${containerType} ${c.name}`);
  if (setLimits.length > 0) annotations.push(`${setLimits.sort().join(', ')} limit for ${containerType} ${c.name}`);
}

/** `PodMutateLimitFunc`: the defaults of one LimitRange applied to a pod. */
export function mutatePodLimits(lr: LimitRange, pod: Pod): void {
  const def = defaultRequirements(lr);
  if (Object.keys(def.requests).length === 0 && Object.keys(def.limits).length === 0) return;
  const annotations: string[] = [];
  const spec = pod.spec ?? { containers: [] };
  for (const c of spec.containers) mergeContainer(c, def, 'container', annotations);
  for (const c of spec.initContainers ?? []) mergeContainer(c, def, 'init container', annotations);
  if (annotations.length > 0) {
    pod.metadata ??= {};
    pod.metadata.annotations ??= {};
    pod.metadata.annotations[limitRangerAnnotation] = `LimitRanger plugin set: ${annotations.join('; ')}`;
  }
}

function minConstraint(limitType: string, res: string, enforced: string, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request[res];
  const lim = limit[res];
  const e = q(enforced);
  if (e === undefined) return undefined;
  if (req === undefined) return `minimum ${res} usage per ${limitType} is ${qs(enforced)}.  No request is specified`;
  const rq = q(req);
  if (rq !== undefined && compareQuantities(rq, e) < 0) return `minimum ${res} usage per ${limitType} is ${qs(enforced)}, but request is ${qs(req)}`;
  const lq = q(lim);
  if (lim !== undefined && lq !== undefined && compareQuantities(lq, e) < 0) return `minimum ${res} usage per ${limitType} is ${qs(enforced)}, but limit is ${qs(lim)}`;
  return undefined;
}

function maxConstraint(limitType: string, res: string, enforced: string, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request[res];
  const lim = limit[res];
  const e = q(enforced);
  if (e === undefined) return undefined;
  if (lim === undefined) return `maximum ${res} usage per ${limitType} is ${qs(enforced)}.  No limit is specified`;
  const lq = q(lim);
  if (lq !== undefined && compareQuantities(lq, e) > 0) return `maximum ${res} usage per ${limitType} is ${qs(enforced)}, but limit is ${qs(lim)}`;
  const rq = q(req);
  if (req !== undefined && rq !== undefined && compareQuantities(rq, e) > 0) return `maximum ${res} usage per ${limitType} is ${qs(enforced)}, but request is ${qs(req)}`;
  return undefined;
}

/** `PodValidateLimitFunc` for Container items: the messages of every violated min/max. */
export function validatePodLimits(lr: LimitRange, pod: Pod): string[] {
  const errs: string[] = [];
  const spec = pod.spec ?? { containers: [] };
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
      const requests = (c.resources?.requests ?? {});
      const limits = (c.resources?.limits ?? {});
      for (const [k, v] of Object.entries(item.min ?? {})) {
        const m = minConstraint('Container', k, String(v), requests, limits);
        if (m !== undefined) errs.push(m);
      }
      for (const [k, v] of Object.entries(item.max ?? {})) {
        const m = maxConstraint('Container', k, String(v), requests, limits);
        if (m !== undefined) errs.push(m);
      }
    }
  }
  return errs;
}

function aggregate(msgs: readonly string[]): string {
  const uniq = [...new Set(msgs)];
  return uniq.length === 1 ? (uniq[0] ?? '') : `[${uniq.join(', ')}]`;
}

export class LimitRanger implements MutatingPlugin, ValidatingPlugin {
  readonly name = name;

  private supports(a: AdmissionAttributes): boolean {
    return a.subresource === '' && a.operation === 'CREATE' && isResource(a, '', 'pods') && a.object !== undefined;
  }

  async admit(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (!this.supports(a)) return;
    for (const lr of await lookup.listLimitRanges(a.namespace)) mutatePodLimits(lr, a.object as Pod);
  }

  async validate(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    if (!this.supports(a)) return;
    const errs: string[] = [];
    for (const lr of await lookup.listLimitRanges(a.namespace)) errs.push(...validatePodLimits(lr, a.object as Pod));
    if (errs.length > 0) throw admissionForbidden(a, aggregate(errs));
  }
}

export function create(): LimitRanger {
  return new LimitRanger();
}
