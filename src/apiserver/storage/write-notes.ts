/**
 * What this server noted about the values it is writing (their attributes and JSON text), until the storage
 * watch delivers each write: the watch cache then takes them instead of decoding the value again.
 *
 * A note is matched by key and by value: the very bytes handed to the backend (SQLite's watch delivers
 * them), or the same bytes in another buffer (etcd's watch delivers a copy). Per key, notes are kept in
 * the order they were taken; a write's event takes its note and drops the ones noted before it, which can
 * only be writes that failed their precondition (writes to one key succeed one at a time, each on the
 * revision the one before it made). Notes nobody took (a failed write to a key not written again) are
 * swept after `maxAgeMs`.
 */
import type { KeyValue } from '../../storage/backend.js';

export interface WriteNote<A> {
  attrs: A;
  /** The JSON text the bytes encode. */
  text: string;
}

interface Pending<A> {
  value: Uint8Array;
  note: WriteNote<A>;
  at: number;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || (a.length === b.length && Buffer.compare(a, b) === 0);
}

export class WriteNotes<A> {
  readonly #byKey = new Map<string, Pending<A>[]>();
  #lastSweep: number;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxAgeMs = 60_000,
  ) {
    this.#lastSweep = now();
  }

  /** Notes a value about to be written to `key`. */
  add(key: string, value: Uint8Array, note: WriteNote<A>): void {
    const at = this.now();
    const list = this.#byKey.get(key);
    if (list === undefined) this.#byKey.set(key, [{ value, note, at }]);
    else list.push({ value, note, at });
    if (at - this.#lastSweep > this.maxAgeMs) this.#sweep(at);
  }

  /** The note of the write that stored `kv`, taken once; undefined for a value this server did not note. */
  take(kv: KeyValue): WriteNote<A> | undefined {
    const list = this.#byKey.get(kv.key);
    if (list === undefined) return undefined;
    const i = list.findIndex((p) => sameBytes(p.value, kv.value));
    if (i < 0) return undefined;
    const { note } = list[i] as Pending<A>;
    if (i === list.length - 1) this.#byKey.delete(kv.key);
    else list.splice(0, i + 1);
    return note;
  }

  /** Notes not taken yet (for tests). */
  get size(): number {
    let n = 0;
    for (const list of this.#byKey.values()) n += list.length;
    return n;
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [key, list] of this.#byKey) {
      const kept = list.filter((p) => now - p.at <= this.maxAgeMs);
      if (kept.length === 0) this.#byKey.delete(key);
      else if (kept.length < list.length) this.#byKey.set(key, kept);
    }
  }
}
