/**
 * The service node port allocator (`pkg/registry/core/service/portallocator`): a port range
 * (`--service-node-port-range`, default `30000-32767`) split at `min(max(16, size/32), 128)` into a
 * static band (first 86 ports by default) and a dynamic band that automatic allocation prefers.
 */
import { AllocationMap, mathRandomInt, type RandomInt } from './bitmap.js';

export const defaultServiceNodePortRange = '30000-32767';

export class PortRangeError extends Error {}

/** `net.PortRange`. */
export interface PortRange {
  base: number;
  size: number;
}

/** `net.ParsePortRange`: `a-b` (inclusive) or a single port. */
export function parsePortRange(s: string): PortRange {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(s);
  if (m === null) throw new PortRangeError(`unable to parse port range: ${s}`);
  const low = Number(m[1]);
  const high = m[2] === undefined ? low : Number(m[2]);
  if (low > 65535 || high > 65535 || high < low) throw new PortRangeError(`invalid port range: ${s}`);
  return { base: low, size: high - low + 1 };
}

export function portRangeString(pr: PortRange): string {
  return pr.size === 1 ? String(pr.base) : `${pr.base}-${pr.base + pr.size - 1}`;
}

/** `calculateRangeOffset`: the size of the static band. */
export function calculateRangeOffset(pr: PortRange): number {
  const min = 16;
  const max = 128;
  const step = 32;
  if (pr.size <= min) return 0;
  const offset = Math.floor(pr.size / step);
  if (offset < min) return min;
  if (offset > max) return max;
  return offset;
}

/** `ErrNotInRange`. */
export class PortNotInRangeError extends Error {
  constructor(readonly validPorts: string) {
    super(`provided port is not in the valid range. The range of valid ports is ${validPorts}`);
  }
}

/** `ErrAllocated`. */
export class PortAllocatedError extends Error {
  constructor() {
    super('provided port is already allocated');
  }
}

/** `ErrFull`. */
export class RangeFullError extends Error {
  constructor() {
    super('range is full');
  }
}

export interface PortAllocatorOptions {
  /** `--service-node-port-range`; default `30000-32767`. */
  range?: string | PortRange;
  random?: RandomInt;
}

export class PortAllocator {
  readonly portRange: PortRange;
  private readonly alloc: AllocationMap;

  constructor(opts: PortAllocatorOptions = {}) {
    const r = opts.range ?? defaultServiceNodePortRange;
    this.portRange = typeof r === 'string' ? parsePortRange(r) : r;
    this.alloc = new AllocationMap(this.portRange.size, calculateRangeOffset(this.portRange), opts.random ?? mathRandomInt);
  }

  /** The size of the static band (86 for the default range). */
  get offset(): number {
    return this.alloc.offset;
  }

  private contains(port: number): boolean {
    return port >= this.portRange.base && port < this.portRange.base + this.portRange.size;
  }

  /** Reserves `port`; throws `PortNotInRangeError` or `PortAllocatedError`. */
  allocate(port: number): void {
    if (!this.contains(port)) throw new PortNotInRangeError(portRangeString(this.portRange));
    if (!this.alloc.allocate(port - this.portRange.base)) throw new PortAllocatedError();
  }

  /** Reserves a random free port (dynamic band first); throws `RangeFullError`. */
  allocateNext(): number {
    const off = this.alloc.allocateNext();
    if (off === undefined) throw new RangeFullError();
    return this.portRange.base + off;
  }

  /** Releases `port`; a port outside the range or not allocated is a no-op. */
  release(port: number): void {
    if (this.contains(port)) this.alloc.release(port - this.portRange.base);
  }

  has(port: number): boolean {
    return this.contains(port) && this.alloc.has(port - this.portRange.base);
  }

  forEach(fn: (port: number) => void): void {
    this.alloc.forEach((o) => fn(this.portRange.base + o));
  }

  free(): number {
    return this.alloc.free();
  }

  used(): number {
    return this.portRange.size - this.alloc.free();
  }
}
