/**
 * The shape of a created object as field ownership sees it: two objects with the same shape give a create
 * the same field set, so `managed-fields.ts` computes one set per shape (a ReplicaSet's pods and a
 * kubelet's events are walked once, not once each).
 *
 * What a create owns depends on the keys present, on which values are objects or lists, on the items of
 * lists (their keys and values are path elements) and on where a scalar equals the zero value it is
 * compared with (`""`, `0`, `false`, `null`). Any other scalar outside a list is owned whatever it is.
 * So a shape is the object's keys in order, each list exactly, each zero-like scalar, and one class for
 * every other scalar. Undefined values (objects from callers in this process) are a class of their own.
 *
 * `ShapeMemo` finds an object's entry by walking a trie of those tokens: a lookup per key and value,
 * no text built for the object (most of it would be keys and marks).
 */
import type { JsonValue } from './json.js';

/** A value's class outside lists: each zero-like scalar, undefined, or any other scalar. */
const otherScalar = 0;
const emptyString = 1;
const zero = 2;
const falseValue = 3;
const nullValue = 4;
const undefinedValue = 5;

/** Structure tokens: unlike keys (strings), classes (numbers) and lists (strings after a key). */
const objectStart = Symbol('{');
const objectEnd = Symbol('}');

type Token = string | number | symbol;

class TrieNode<T> {
  next: Map<Token, TrieNode<T>> | undefined;
  value: T | undefined;
}

/** Values by creation shape; forgets everything once it holds more than `maxNodes` trie nodes. */
export class ShapeMemo<T> {
  #root = new TrieNode<T>();
  #nodes = 0;

  constructor(private readonly maxNodes = 200_000) {}

  /** The value for `obj`'s shape, computed by `compute` (never undefined) the first time the shape is seen. */
  get(obj: JsonValue, compute: () => T): T {
    if (this.#nodes > this.maxNodes) {
      this.#root = new TrieNode<T>();
      this.#nodes = 0;
    }
    const leaf = this.#walk(this.#root, obj);
    if (leaf.value === undefined) leaf.value = compute();
    return leaf.value;
  }

  #step(node: TrieNode<T>, token: Token): TrieNode<T> {
    const next = (node.next ??= new Map<Token, TrieNode<T>>());
    let child = next.get(token);
    if (child === undefined) {
      child = new TrieNode<T>();
      next.set(token, child);
      this.#nodes++;
    }
    return child;
  }

  /**
   * Where a value comes the tokens are classes (numbers), `{` or lists (text starting `[`); where a key
   * comes, keys (text) or `}`: no token can be read as another.
   */
  #walk(node: TrieNode<T>, v: JsonValue | undefined): TrieNode<T> {
    if (typeof v !== 'object' || v === null) return this.#step(node, scalarClass(v));
    if (Array.isArray(v)) return this.#step(node, listText(v));
    let n = this.#step(node, objectStart);
    for (const k in v) n = this.#walk(this.#step(n, k), v[k]);
    return this.#step(n, objectEnd);
  }
}

function scalarClass(v: JsonValue | undefined): number {
  if (v === undefined) return undefinedValue;
  if (v === null) return nullValue;
  if (v === '') return emptyString;
  if (v === 0) return zero;
  if (v === false) return falseValue;
  return otherScalar;
}

/**
 * A list exactly, as text: JSON, with undefined (which JSON cannot tell from null or from a missing key)
 * written `u`. Every part is self-delimiting, so the text reads one way only.
 */
function listText(v: JsonValue | undefined): string {
  if (v === undefined) return 'u';
  if (typeof v !== 'object' || v === null) return JSON.stringify(v);
  if (Array.isArray(v)) {
    let out = '[';
    for (const x of v) out += `${listText(x)},`;
    return `${out}]`;
  }
  let out = '{';
  for (const k in v) out += `${JSON.stringify(k)}:${listText(v[k])},`;
  return `${out}}`;
}
