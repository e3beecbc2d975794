/**
 * Resource arithmetic as kube-scheduler does it: `framework.Resource` (cpu in millicores, the rest in
 * units) and `resourcehelper.PodRequests` (k8s.io/component-helpers/resource), including init containers,
 * restartable (sidecar) init containers and `spec.overhead`.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podRequests, type Amounts } from '../../api/pod-resources.js';
import { parseQuantity } from '../../api/quantity.js';

/** `schedutil.DefaultMilliCPURequest`: assumed for a container without a cpu request, for scoring only. */
export const defaultMilliCPURequest = 100;
/** `schedutil.DefaultMemoryRequest` (200 MiB): assumed for a container without a memory request, for scoring only. */
export const defaultMemoryRequest = 200 * 1024 * 1024;

const NANO = 1_000_000_000n;

/** A resource list in exact nano-units. */
type NanoList = Map<string, bigint>;

/** Exact nano-units: the scheduler's representation of amounts. */
const nanoAmounts: Amounts<bigint> = {
  parse: (q) => {
    try {
      return parseQuantity(q).nanos;
    } catch {
      // An unparseable quantity cannot pass API validation; ignore it like a missing entry.
      return undefined;
    }
  },
  add: (a, b) => a + b,
  greater: (a, b) => a > b,
};

function listOf(rl: Readonly<Record<string, string | number>> | undefined): NanoList {
  const m: NanoList = new Map();
  for (const [k, q] of Object.entries(rl ?? {})) {
    const v = nanoAmounts.parse(q);
    if (v !== undefined) m.set(k, v);
  }
  return m;
}

export interface PodRequestsOptions {
  /** Use these values for containers that do not name cpu/memory at all (`NonMissingContainerRequests`). */
  nonMissingContainerRequests?: ReadonlyMap<string, bigint>;
  excludeOverhead?: boolean;
}

/** `resourcehelper.PodRequests`: exact nano-unit totals per resource name. */
export function podRequestsNanos(pod: Pod, opts: PodRequestsOptions = {}): NanoList {
  return podRequests(pod, nanoAmounts, {
    ...(opts.nonMissingContainerRequests !== undefined ? { nonMissing: opts.nonMissingContainerRequests } : {}),
    ...(opts.excludeOverhead !== undefined ? { excludeOverhead: opts.excludeOverhead } : {}),
  });
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}

/** `Quantity.MilliValue()` of nano-units. */
export function milliOf(n: bigint): number {
  return Number(ceilDiv(n, 1_000_000n));
}
/** `Quantity.Value()` of nano-units. */
export function valueOf(n: bigint): number {
  return Number(ceilDiv(n, NANO));
}

/** `schedutil.IsScalarResourceName`: extended, hugepages-, attachable-volumes- and kubernetes.io/-prefixed names. */
export function isScalarResourceName(name: string): boolean {
  if (name.startsWith('hugepages-') || name.startsWith('attachable-volumes-')) return true;
  if (!name.includes('/')) return false;
  return !name.startsWith('requests.');
}

/** `v1helper.IsExtendedResourceName`: a domain-prefixed name outside `kubernetes.io/`. */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.startsWith('requests.')) return false;
  const domain = name.slice(0, name.indexOf('/'));
  return domain !== 'kubernetes.io' && !domain.endsWith('.kubernetes.io');
}

/** `framework.Resource`. */
export class Resource {
  milliCPU = 0;
  memory = 0;
  ephemeralStorage = 0;
  allowedPodNumber = 0;
  scalarResources: Map<string, number> | undefined = undefined;

  static fromNanos(list: NanoList): Resource {
    const r = new Resource();
    r.addNanos(list);
    return r;
  }

  /** `NewResource(rl)`: for node allocatable. */
  static fromList(rl: Readonly<Record<string, string | number>> | undefined): Resource {
    return Resource.fromNanos(listOf(rl));
  }

  addNanos(list: NanoList): void {
    for (const [name, n] of list) {
      switch (name) {
        case 'cpu':
          this.milliCPU += milliOf(n);
          break;
        case 'memory':
          this.memory += valueOf(n);
          break;
        case 'pods':
          this.allowedPodNumber += valueOf(n);
          break;
        case 'ephemeral-storage':
          this.ephemeralStorage += valueOf(n);
          break;
        default:
          if (isScalarResourceName(name)) this.addScalar(name, valueOf(n));
      }
    }
  }

  addScalar(name: string, v: number): void {
    this.scalarResources ??= new Map();
    this.scalarResources.set(name, (this.scalarResources.get(name) ?? 0) + v);
  }

  scalar(name: string): number {
    return this.scalarResources?.get(name) ?? 0;
  }

  /** Adds (sign 1) or subtracts (sign -1) another Resource. */
  addResource(o: Resource, sign: 1 | -1): void {
    this.milliCPU += sign * o.milliCPU;
    this.memory += sign * o.memory;
    this.ephemeralStorage += sign * o.ephemeralStorage;
    this.allowedPodNumber += sign * o.allowedPodNumber;
    if (o.scalarResources !== undefined) for (const [k, v] of o.scalarResources) this.addScalar(k, sign * v);
  }

  clone(): Resource {
    const r = new Resource();
    r.milliCPU = this.milliCPU;
    r.memory = this.memory;
    r.ephemeralStorage = this.ephemeralStorage;
    r.allowedPodNumber = this.allowedPodNumber;
    if (this.scalarResources !== undefined) r.scalarResources = new Map(this.scalarResources);
    return r;
  }
}

const nonZeroDefaults: ReadonlyMap<string, bigint> = new Map([
  ['cpu', BigInt(defaultMilliCPURequest) * 1_000_000n],
  ['memory', BigInt(defaultMemoryRequest) * NANO],
]);

/** The pod's requests with missing cpu/memory container requests defaulted (the scorers' view). */
export function podNonZeroRequestsNanos(pod: Pod): NanoList {
  return podRequestsNanos(pod, { nonMissingContainerRequests: nonZeroDefaults });
}

/** `calculateResource(pod)`: requests, and non-zero cpu (milli) / memory used by the scorers. */
export function calculatePodResource(pod: Pod): { requests: Resource; nonZeroMilliCPU: number; nonZeroMemory: number } {
  const requests = Resource.fromNanos(podRequestsNanos(pod));
  const nz = podNonZeroRequestsNanos(pod);
  return { requests, nonZeroMilliCPU: milliOf(nz.get('cpu') ?? 0n), nonZeroMemory: valueOf(nz.get('memory') ?? 0n) };
}
