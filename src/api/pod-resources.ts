/**
 * A pod's total requests and limits (`resourcehelper.PodRequests` / `PodLimits` of
 * k8s.io/component-helpers/resource): app containers add up; restartable (sidecar) init containers add up
 * and also run beside every later init container; each other init container counts alone with the
 * sidecars started before it; the total is the larger of the two, per resource; `spec.overhead` is added
 * (to limits only where a limit is set).
 *
 * One rule for the scheduler (exact nano-units), the kubelet's admission (millicores and units of the
 * totals) and quota (quantities that keep their format): each passes the arithmetic of its representation.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';

/** Adding and comparing one representation of a resource amount. */
export interface Amounts<T> {
  /** Parses a wire quantity; `undefined` for one API validation refuses (left out, as missing). */
  parse(q: string | number): T | undefined;
  add(a: T, b: T): T;
  greater(a: T, b: T): boolean;
}

export interface PodResourcesOptions<T> {
  /** `NonMissingContainerRequests`: the amounts of these names for containers that do not set them. */
  nonMissing?: ReadonlyMap<string, T>;
  /** `ExcludeOverhead`. */
  excludeOverhead?: boolean;
}

type List<T> = Map<string, T>;

function addInto<T>(dst: List<T>, src: List<T>, ops: Amounts<T>): void {
  for (const [k, v] of src) {
    const cur = dst.get(k);
    dst.set(k, cur === undefined ? v : ops.add(cur, v));
  }
}

function maxInto<T>(dst: List<T>, src: List<T>, ops: Amounts<T>): void {
  for (const [k, v] of src) {
    const cur = dst.get(k);
    if (cur === undefined || ops.greater(v, cur)) dst.set(k, v);
  }
}

function listOf<T>(rl: Readonly<Record<string, string | number>> | undefined, ops: Amounts<T>, nonMissing?: ReadonlyMap<string, T>): List<T> {
  const out: List<T> = new Map();
  if (rl !== undefined) {
    for (const [k, q] of Object.entries(rl)) {
      const v = ops.parse(q);
      if (v !== undefined) out.set(k, v);
    }
  }
  if (nonMissing !== undefined) for (const [k, v] of nonMissing) if (!out.has(k)) out.set(k, v);
  return out;
}

/** `AggregateContainerRequests` / `AggregateContainerLimits`. */
function aggregate<T>(pod: Pod, pick: (c: Container) => Readonly<Record<string, string | number>> | undefined, ops: Amounts<T>, nonMissing?: ReadonlyMap<string, T>): List<T> {
  const total: List<T> = new Map();
  for (const c of pod.spec?.containers ?? []) addInto(total, listOf(pick(c), ops, nonMissing), ops);
  const restartable: List<T> = new Map();
  const initMax: List<T> = new Map();
  for (const c of pod.spec?.initContainers ?? []) {
    const own = listOf(pick(c), ops, nonMissing);
    let counted: List<T>;
    if (c.restartPolicy === 'Always') {
      addInto(total, own, ops);
      addInto(restartable, own, ops);
      counted = restartable;
    } else {
      counted = new Map(own);
      addInto(counted, restartable, ops);
    }
    maxInto(initMax, counted, ops);
  }
  maxInto(total, initMax, ops);
  return total;
}

/** `resourcehelper.PodRequests`. */
export function podRequests<T>(pod: Pod, ops: Amounts<T>, opts: PodResourcesOptions<T> = {}): Map<string, T> {
  const reqs = aggregate(pod, (c) => c.resources?.requests, ops, opts.nonMissing);
  if (opts.excludeOverhead !== true && pod.spec?.overhead !== undefined) addInto(reqs, listOf(pod.spec.overhead, ops), ops);
  return reqs;
}

/** `resourcehelper.PodLimits`: overhead is added only to the limits that are set. */
export function podLimits<T>(pod: Pod, ops: Amounts<T>, opts: Pick<PodResourcesOptions<T>, 'excludeOverhead'> = {}): Map<string, T> {
  const limits = aggregate(pod, (c) => c.resources?.limits, ops);
  if (opts.excludeOverhead !== true) {
    for (const [k, v] of listOf(pod.spec?.overhead, ops)) {
      const cur = limits.get(k);
      if (cur !== undefined) limits.set(k, ops.add(cur, v));
    }
  }
  return limits;
}
