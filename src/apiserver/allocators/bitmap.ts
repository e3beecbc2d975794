/**
 * The allocation map of `pkg/registry/core/service/allocator` with KEP-3668's offset: values `[0, offset)`
 * are the static band, `[offset, max)` the dynamic band. `allocateNext` picks a random free value from the
 * dynamic band first and falls back to the static band (`randomScanStrategyWithOffset`).
 */

/** Returns an integer in `[0, n)`; injectable for deterministic tests. */
export type RandomInt = (n: number) => number;

export const mathRandomInt: RandomInt = (n) => Math.floor(Math.random() * n);

export class AllocationMap {
  private readonly allocated = new Set<number>();

  constructor(
    readonly max: number,
    readonly offset: number,
    private readonly random: RandomInt = mathRandomInt,
  ) {}

  /** Marks `i` allocated; false when it already was. */
  allocate(i: number): boolean {
    if (this.allocated.has(i)) return false;
    this.allocated.add(i);
    return true;
  }

  /** A random free offset (dynamic band first), marked allocated; undefined when full. */
  allocateNext(): number | undefined {
    if (this.allocated.size >= this.max) return undefined;
    const upper = this.max - this.offset;
    if (upper > 0) {
      const start = this.random(upper);
      for (let i = 0; i < upper; i++) {
        const at = this.offset + ((start + i) % upper);
        if (!this.allocated.has(at)) {
          this.allocated.add(at);
          return at;
        }
      }
    }
    if (this.offset > 0) {
      const start = this.random(this.offset);
      for (let i = 0; i < this.offset; i++) {
        const at = (start + i) % this.offset;
        if (!this.allocated.has(at)) {
          this.allocated.add(at);
          return at;
        }
      }
    }
    return undefined;
  }

  release(i: number): void {
    this.allocated.delete(i);
  }

  has(i: number): boolean {
    return this.allocated.has(i);
  }

  forEach(fn: (i: number) => void): void {
    for (const i of [...this.allocated].sort((a, b) => a - b)) fn(i);
  }

  free(): number {
    return this.max - this.allocated.size;
  }
}
