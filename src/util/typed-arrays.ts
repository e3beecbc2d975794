/** Growing the typed arrays that per-position caches keep (node table, verdicts, topology values). */

/** A copy of `a` with room for `size` elements (at least `a.length`); the new elements are 0. */
export function grown(a: Float64Array, size: number): Float64Array<ArrayBuffer>;
export function grown(a: Int32Array, size: number): Int32Array<ArrayBuffer>;
export function grown(a: Float64Array | Int32Array, size: number): Float64Array | Int32Array {
  const b = a instanceof Float64Array ? new Float64Array(size) : new Int32Array(size);
  b.set(a);
  return b;
}
