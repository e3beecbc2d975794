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
 * Takes `v`'s tokens in order, each through `step` from `at`; undefined as soon as a step gives undefined.
 * Where a value comes the tokens are classes (numbers), `{` or lists (text starting `[`); where a key
 * comes, keys (text) or `}`: no token can be read as another.
 */
function followTokens<N>(at: N | undefined, v: JsonValue | undefined, step: (at: N, token: Token) => N | undefined): N | undefined {
  if (at === undefined) return undefined;
  if (typeof v !== 'object' || v === null) return step(at, scalarClass(v));
  if (Array.isArray(v)) return step(at, listText(v));
  let n = step(at, objectStart);
  for (const k in v) n = n === undefined ? undefined : followTokens(step(n, k), v[k], step);
  return n === undefined ? undefined : step(n, objectEnd);
}

/** FNV-1a over a token: its characters and a closing mark for text, a code of its own for the others. */
function hashToken(h: number, token: Token): number {
  if (typeof token === 'string') {
    for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193);
    return Math.imul(h ^ 0x22, 0x01000193);
  }
  if (typeof token === 'number') return Math.imul(h ^ (0x100 + token), 0x01000193);
  return Math.imul(h ^ (token === objectStart ? 0x200 : 0x201), 0x01000193);
}

/**
 * Values by creation shape; forgets everything once it holds more than `maxNodes` trie nodes. A shape's
 * value is kept from its second sighting on (the first is known by the shape's hash alone).
 */
export class ShapeMemo<T> {
  #root = new TrieNode<T>();
  #nodes = 0;
  readonly #seenOnce = new Set<number>();
  readonly #child = (node: TrieNode<T>, token: Token): TrieNode<T> | undefined => node.next?.get(token);
  readonly #childMade = (node: TrieNode<T>, token: Token): TrieNode<T> => this.#step(node, token);

  constructor(private readonly maxNodes = 200_000) {}

  /** The value for `obj`'s shape, computed by `compute` (never undefined) unless the shape was remembered. */
  get(obj: JsonValue, compute: () => T): T {
    if (this.#nodes > this.maxNodes) {
      this.#root = new TrieNode<T>();
      this.#nodes = 0;
    }
    // The trie lookup stops at the first token the trie lacks.
    const found = followTokens(this.#root, obj, this.#child)?.value;
    if (found !== undefined) return found;
    const value = compute();
    // Kept a small integer: a Set of them holds no boxed numbers.
    const hash = (followTokens(0x811c9dc5, obj, hashToken) ?? 0) & 0x3fffffff;
    if (!this.#seenOnce.has(hash)) {
      if (this.#seenOnce.size >= maxSeenOnce) this.#seenOnce.clear();
      this.#seenOnce.add(hash);
      return value;
    }
    this.#seenOnce.delete(hash);
    const leaf = followTokens(this.#root, obj, this.#childMade);
    if (leaf !== undefined) leaf.value = value;
    return value;
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
