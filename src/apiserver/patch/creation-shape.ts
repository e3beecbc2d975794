/**
 * The shape of a created object as field ownership sees it: two objects with the same shape give a create
 * the same field set, so `managed-fields.ts` computes one set per shape (a ReplicaSet's pods and a
 * kubelet's events are walked once, not once each).
 *
 * What a create owns depends on the keys present, on which values are objects or lists, on the items of
 * list-maps and sets (their keys and values are path elements) and on where a scalar equals the zero value
 * it is compared with (`""`, `0`, `false`, `null`). Any other scalar outside a list is owned whatever it
 * is, and so is a value its schema makes atomic (an atomic list, as a node affinity's values, or an atomic
 * map): it is owned whole, whatever it holds. So a shape is the object's keys in order, each list-map and
 * set exactly, each zero-like scalar, one class for every other scalar and one for every atomic value
 * (a DaemonSet's pods, each naming its node in such a list, have one shape). Undefined values (objects from
 * callers in this process) are a class of their own.
 *
 * `ShapeMemo` finds an object's entry by walking a trie of those tokens: a lookup per key and value,
 * no text built for the object (most of it would be keys and marks). It remembers a shape the second time
 * it sees one: many creates have a shape of their own (a Node, its Lease, a DaemonSet's pod: a node's
 * name or uid sits in one of their lists), and a trie path plus a field set kept for each of those was
 * most of what the API server's young-generation collections copied, and then freed all at once.
 */
import type { JsonValue } from './json.js';
import type { ApplySchema } from './managed-fields.js';
import { childNode, kindOf } from './schema-kind.js';

/** A value's class outside lists: each zero-like scalar, undefined, or any other scalar. */
const otherScalar = 0;
const emptyString = 1;
const zero = 2;
const falseValue = 3;
const nullValue = 4;
const undefinedValue = 5;
/** A list or map its schema makes atomic: owned whole, whatever it holds. */
const atomicValue = 6;

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
 * `node` is `v`'s schema. Where a value comes the tokens are classes (numbers), `{` or lists and other
 * values taken exactly (text starting `[` or `{`); where a key comes, keys (text) or `}`: no token can
 * be read as another.
 */
function followTokens<N>(at: N | undefined, v: JsonValue | undefined, node: ApplySchema | undefined, step: (at: N, token: Token) => N | undefined): N | undefined {
  if (at === undefined) return undefined;
  if (typeof v !== 'object' || v === null) return step(at, scalarClass(v));
  // As `compare` reads them: the kind comes from the schema, each member's schema from its parent's.
  const kind = kindOf(node, v);
  if (kind === 'atomic' || kind === 'listAtomic') return step(at, atomicValue);
  if (Array.isArray(v) || (kind !== 'struct' && kind !== 'map')) return step(at, listText(v));
  let n = step(at, objectStart);
  for (const k in v) {
    if (n === undefined) return undefined;
    const x = v[k];
    // Scalars need no schema (and most members are scalars).
    n = followTokens(step(n, k), x, typeof x === 'object' && x !== null ? childNode(node, kind, k) : undefined, step);
  }
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

  /**
   * The value for `obj`'s shape (by its schema `node`), computed by `compute` (never undefined) unless the
   * shape was remembered.
   */
  get(obj: JsonValue, node: ApplySchema | undefined, compute: () => T): T {
    if (this.#nodes > this.maxNodes) {
      this.#root = new TrieNode<T>();
      this.#nodes = 0;
    }
    // The trie lookup stops at the first token the trie lacks.
    const found = followTokens(this.#root, obj, node, this.#child)?.value;
    if (found !== undefined) return found;
    const value = compute();
    // Kept a small integer: a Set of them holds no boxed numbers.
    const hash = (followTokens(0x811c9dc5, obj, node, hashToken) ?? 0) & 0x3fffffff;
    if (!this.#seenOnce.has(hash)) {
      if (this.#seenOnce.size >= maxSeenOnce) this.#seenOnce.clear();
      this.#seenOnce.add(hash);
      return value;
    }
    this.#seenOnce.delete(hash);
    const leaf = followTokens(this.#root, obj, node, this.#childMade);
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
