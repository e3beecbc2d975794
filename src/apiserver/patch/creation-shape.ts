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
 * no text built for the object (most of it would be keys and marks). It remembers a shape the second time
 * it sees one: many creates have a shape of their own (a Node, its Lease, a DaemonSet's pod: a node's
 * name or uid sits in one of their lists), and a trie path plus a field set kept for each of those was
 * most of what the API server's young-generation collections copied, and then freed all at once.
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

/** Shapes seen once are remembered by hash, at most this many (then forgotten all at once). */
const maxSeenOnce = 100_000;

/**
 * Values by creation shape; forgets everything once it holds more than `maxNodes` trie nodes. A shape's
 * value is kept from its second sighting on (the first is known by the shape's hash alone).
 */
export class ShapeMemo<T> {
  #root = new TrieNode<T>();
  #nodes = 0;
  readonly #seenOnce = new Set<number>();
  /** The hash being taken (`#hashOf`). */
  #hash = 0;

  constructor(private readonly maxNodes = 200_000) {}

  /** The value for `obj`'s shape, computed by `compute` (never undefined) unless the shape was remembered. */
  get(obj: JsonValue, compute: () => T): T {
    if (this.#nodes > this.maxNodes) {
      this.#root = new TrieNode<T>();
      this.#nodes = 0;
    }
    const found = this.#find(this.#root, obj)?.value;
    if (found !== undefined) return found;
    const value = compute();
    const hash = this.#hashOf(obj);
    if (!this.#seenOnce.has(hash)) {
      if (this.#seenOnce.size >= maxSeenOnce) this.#seenOnce.clear();
      this.#seenOnce.add(hash);
      return value;
    }
    this.#seenOnce.delete(hash);
    this.#insert(this.#root, obj).value = value;
    return value;
  }

  /**
   * The trie node at the end of `v`'s tokens, or undefined where the trie does not have them. Where a value
   * comes the tokens are classes (numbers), `{` or lists (text starting `[`); where a key comes, keys (text)
   * or `}`: no token can be read as another.
   */
  #find(node: TrieNode<T>, v: JsonValue | undefined): TrieNode<T> | undefined {
    if (typeof v !== 'object' || v === null) return node.next?.get(scalarClass(v));
    if (Array.isArray(v)) return node.next?.get(listText(v));
    let n = node.next?.get(objectStart);
    for (const k in v) {
      const key = n?.next?.get(k);
      if (key === undefined) return undefined;
      n = this.#find(key, v[k]);
    }
    return n?.next?.get(objectEnd);
  }

  /** A hash of `v`'s tokens, kept a small integer (a Set of them holds no boxed numbers). */
  #hashOf(v: JsonValue): number {
    this.#hash = 0x811c9dc5;
    this.#hashTokens(v);
    return this.#hash & 0x3fffffff;
  }

  #hashTokens(v: JsonValue | undefined): void {
    if (typeof v !== 'object' || v === null) return this.#take(scalarClass(v));
    if (Array.isArray(v)) return this.#take(listText(v));
    this.#take(objectStart);
    for (const k in v) {
      this.#take(k);
      this.#hashTokens(v[k]);
    }
    this.#take(objectEnd);
  }

  #take(token: Token): void {
    let h = this.#hash;
    if (typeof token === 'string') {
      for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193);
      h = Math.imul(h ^ 0x22, 0x01000193);
    } else if (typeof token === 'number') {
      h = Math.imul(h ^ (0x100 + token), 0x01000193);
    } else {
      h = Math.imul(h ^ (token === objectStart ? 0x200 : 0x201), 0x01000193);
    }
    this.#hash = h;
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

  /** The trie path of `v`'s tokens (as `#find` reads them), made where missing. */
  #insert(node: TrieNode<T>, v: JsonValue | undefined): TrieNode<T> {
    if (typeof v !== 'object' || v === null) return this.#step(node, scalarClass(v));
    if (Array.isArray(v)) return this.#step(node, listText(v));
    let n = this.#step(node, objectStart);
    for (const k in v) n = this.#insert(this.#step(n, k), v[k]);
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
