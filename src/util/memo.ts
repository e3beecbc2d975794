/**
 * Answers of a pure function remembered by key, forgotten all at once when `capacity` are held: for
 * functions asked the same few questions over and over (a cluster's quantity strings, its nodes'
 * platforms), where clearing now and then costs less than keeping a use order (`Lru`).
 */
export class Memo<V> {
  private readonly answers = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  /** The answer remembered for `key`, else `compute()`'s, remembered (an exception is not). */
  get(key: string, compute: () => V): V {
    let v = this.answers.get(key);
    if (v === undefined) {
      v = compute();
      if (this.answers.size >= this.capacity) this.answers.clear();
      this.answers.set(key, v);
    }
    return v;
  }

  /** How many answers are held. */
  get size(): number {
    return this.answers.size;
  }
}
