/**
 * A Map that forgets its least recently used entries beyond a capacity: client-go's event correlator
 * caches, and the scheduler's caches of answers per question key.
 */
export class Lru<V> {
  private readonly map = new Map<string, V>();
  /**
   * The most recently used key: using it again leaves the order as it is, without the delete and re-insert
   * that would move it (a correlator reads then writes one key per event, and each re-insert leaves a
   * hole the Map later rehashes away).
   */
  private newest: string | undefined;

  constructor(private readonly capacity: number) {}

  /** The entry for `key` (now the most recently used), or undefined. */
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined && key !== this.newest) {
      this.map.delete(key);
      this.map.set(key, v);
      this.newest = key;
    }
    return v;
  }

  /** Stores `v` as the most recently used entry, forgetting the least recently used beyond capacity. */
  set(key: string, v: V): void {
    if (key === this.newest) {
      this.map.set(key, v);
      return;
    }
    this.map.delete(key);
    this.map.set(key, v);
    this.newest = key;
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (oldest.done !== true) this.map.delete(oldest.value);
      if (this.map.size === 0) this.newest = undefined;
    }
  }

  /** The entry for `key`, made by `make` and stored when there is none. */
  getOrCreate(key: string, make: () => V): V {
    let v = this.get(key);
    if (v === undefined) {
      v = make();
      this.set(key, v);
    }
    return v;
  }

  size(): number {
    return this.map.size;
  }
}
