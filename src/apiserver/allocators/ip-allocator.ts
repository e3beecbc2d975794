/**
 * The service cluster IP allocator (`pkg/registry/core/service/ipallocator`, bitmap form, IPv4): the
 * service CIDR (default `10.96.0.0/12`) minus its network and broadcast addresses, with a static band of
 * `min(max(16, size/16), 256)` addresses at the start that automatic allocation avoids while it can. The
 * first address (10.96.0.1) is the `kubernetes` service's, which the API server creates explicitly.
 */
import { AllocationMap, mathRandomInt, type RandomInt } from './bitmap.js';
import { RangeFullError } from './port-allocator.js';
import { parseIPv4 } from '../validation/_names.js';

export const defaultServiceCIDR = '10.96.0.0/12';

export interface Cidr {
  /** The network address as an unsigned 32-bit integer. */
  network: number;
  prefix: number;
  text: string;
}

export function parseCidr(s: string): Cidr {
  const m = /^(\d+\.\d+\.\d+\.\d+)\/(\d{1,2})$/.exec(s.trim());
  const ip = m === null ? undefined : parseIPv4(m[1] ?? '');
  const prefix = Number(m?.[2] ?? -1);
  if (ip === undefined || prefix < 0 || prefix > 32) throw new Error(`invalid CIDR address: ${s}`);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const network = (ip & mask) >>> 0;
  return { network, prefix, text: `${ipToString(network)}/${prefix}` };
}

export function ipToString(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** `calculateRangeOffset` of the IP allocator. */
export function calculateIPRangeOffset(cidr: Cidr): number {
  const min = 16;
  const max = 256;
  const step = 16;
  const size = 2 ** (32 - cidr.prefix);
  if (size <= min) return 0;
  const offset = Math.floor(size / step);
  if (offset < min) return min;
  if (offset > max) return max;
  return offset;
}

/** The first usable address: the `kubernetes` service's cluster IP. */
export function kubernetesServiceIP(cidr: string = defaultServiceCIDR): string {
  return ipToString(parseCidr(cidr).network + 1);
}

/** `ErrNotInRange`. */
export class IPNotInRangeError extends Error {
  constructor(
    readonly ip: string,
    readonly validRange: string,
  ) {
    super(`the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${validRange}`);
  }
}

/** `ErrAllocated`. */
export class IPAllocatedError extends Error {
  constructor() {
    super('provided IP is already allocated');
  }
}

export interface IPAllocatorOptions {
  /** `--service-cluster-ip-range`; default `10.96.0.0/12`. */
  cidr?: string;
  random?: RandomInt;
}

export class IPAllocator {
  readonly cidr: Cidr;
  private readonly base: number;
  private readonly size: number;
  private readonly alloc: AllocationMap;

  constructor(opts: IPAllocatorOptions = {}) {
    this.cidr = parseCidr(opts.cidr ?? defaultServiceCIDR);
    const total = 2 ** (32 - this.cidr.prefix);
    this.base = this.cidr.network + 1;
    this.size = Math.max(0, total - 2);
    this.alloc = new AllocationMap(this.size, calculateIPRangeOffset(this.cidr), opts.random ?? mathRandomInt);
  }

  private offsetOf(ip: string): number | undefined {
    const n = parseIPv4(ip);
    if (n === undefined) return undefined;
    const off = n - this.base;
    return off >= 0 && off < this.size ? off : undefined;
  }

  /** Reserves `ip`; throws `IPNotInRangeError` or `IPAllocatedError`. */
  allocate(ip: string): void {
    const off = this.offsetOf(ip);
    if (off === undefined) throw new IPNotInRangeError(ip, this.cidr.text);
    if (!this.alloc.allocate(off)) throw new IPAllocatedError();
  }

  /** Reserves a random free address; throws `RangeFullError`. */
  allocateNext(): string {
    const off = this.alloc.allocateNext();
    if (off === undefined) throw new RangeFullError();
    return ipToString(this.base + off);
  }

  release(ip: string): void {
    const off = this.offsetOf(ip);
    if (off !== undefined) this.alloc.release(off);
  }

  has(ip: string): boolean {
    const off = this.offsetOf(ip);
    return off !== undefined && this.alloc.has(off);
  }

  free(): number {
    return this.alloc.free();
  }

  used(): number {
    return this.size - this.alloc.free();
  }
}
