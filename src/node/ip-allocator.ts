/**
 * Pod IPs from a node's pod CIDR, as CNI host-local IPAM hands them out: from .2 upwards (the bridge has .1),
 * moving on from the last one given, skipping addresses in use, never the network or broadcast address.
 */
export class PodIPAllocator {
  private readonly base: number;
  private readonly size: number;
  private readonly inUse = new Map<string, number>();
  private readonly taken = new Set<number>();
  private last = 1;

  constructor(cidr: string) {
    const [addr, bitsText] = cidr.split('/');
    const bits = Number.parseInt(bitsText ?? '24', 10);
    const parts = (addr ?? '10.244.0.0').split('.').map((x) => Number.parseInt(x, 10));
    const ip = (((parts[0] ?? 0) << 24) | ((parts[1] ?? 0) << 16) | ((parts[2] ?? 0) << 8) | (parts[3] ?? 0)) >>> 0;
    this.size = 2 ** (32 - bits);
    this.base = ip - (ip % this.size);
  }

  /** The IP of `uid` (the same one again while it holds one). Throws when the range is exhausted. */
  allocate(uid: string): string {
    const held = this.inUse.get(uid);
    if (held !== undefined) return this.format(held);
    const count = this.size - 3;
    for (let i = 0; i < count; i++) {
      const next = ((((this.last - 1) % count) + count) % count) + 2;
      this.last = next;
      if (!this.taken.has(next)) {
        this.taken.add(next);
        this.inUse.set(uid, next);
        return this.format(next);
      }
    }
    throw new Error('failed to allocate for range 0: no IP addresses available in range set');
  }

  release(uid: string): void {
    const held = this.inUse.get(uid);
    if (held === undefined) return;
    this.inUse.delete(uid);
    this.taken.delete(held);
  }

  private format(offset: number): string {
    const v = this.base + offset;
    return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
  }
}
