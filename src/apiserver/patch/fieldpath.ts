/**
 * Field sets of server-side apply (sigs.k8s.io/structured-merge-diff `fieldpath.Set`) in their
 * `FieldsV1` shape: a tree keyed by path elements `f:<field>`, `k:<key json>`, `v:<value json>`,
 * `i:<index>`; a node that is itself in the set is a member (`"."` when it also has children).
 */
import { isEmptyObject, isObject, type JsonObject, type JsonValue } from './json.js';

export class FieldSet {
  member = false;
  /** Allocated with the first child: most sets are leaves. */
  #children: Map<string, FieldSet> | undefined;

  /** The child sets by path element. */
  get children(): Map<string, FieldSet> {
    return (this.#children ??= new Map<string, FieldSet>());
  }

  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
    if (!isObject(v)) return s;
    for (const k in v) {
      const c = v[k];
      if (k === '.') s.member = true;
      else {
        const child = FieldSet.fromFieldsV1(c);
        if (!isObject(c) || isEmptyObject(c)) child.member = true;
        s.children.set(k, child);
      }
    }
    return s;
  }

  /** The `fieldsV1` JSON: `"."` first, then fields, keys, values and indices in structured-merge-diff's order. */
  toFieldsV1(): JsonObject {
    const out: JsonObject = {};
    const children = this.#children;
    if (children === undefined || children.size === 0) return out;
    const keys: string[] = [];
    for (const [k, c] of children) if (!c.isEmpty()) keys.push(k);
    if (this.member && keys.length > 0) out['.'] = {};
    for (const k of sortPathElements(keys)) out[k] = (children.get(k) as FieldSet).toFieldsV1();
    return out;
  }

  child(pe: string): FieldSet {
    const children = (this.#children ??= new Map<string, FieldSet>());
    let c = children.get(pe);
    if (!c) {
      c = new FieldSet();
      children.set(pe, c);
    }
    return c;
  }

  isEmpty(): boolean {
    if (this.member) return false;
    if (this.#children !== undefined) for (const c of this.#children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  clone(): FieldSet {
    const s = new FieldSet();
    s.member = this.member;
    if (this.#children !== undefined) for (const [k, c] of this.#children) s.children.set(k, c.clone());
    return s;
  }

  union(o: FieldSet): FieldSet {
    const s = this.clone();
    s.member ||= o.member;
    if (o.#children !== undefined) {
      for (const [k, c] of o.#children) {
        const mine = s.#children?.get(k);
        s.children.set(k, mine ? mine.union(c) : c.clone());
      }
    }
    return s;
  }

  /** Adds the members of `o` to this set, taking over `o`'s subtrees: `o` must not be used afterwards. */
  absorb(o: FieldSet): this {
    this.member ||= o.member;
    if (o.#children !== undefined) {
      for (const [k, c] of o.#children) {
        const mine = this.#children?.get(k);
        if (mine) mine.absorb(c);
        else this.children.set(k, c);
      }
    }
    return this;
  }

  difference(o: FieldSet): FieldSet {
    const s = new FieldSet();
    s.member = this.member && !o.member;
    if (this.#children !== undefined) {
      for (const [k, c] of this.#children) {
        const theirs = o.#children?.get(k);
        const d = theirs ? c.difference(theirs) : c.clone();
        if (!d.isEmpty()) s.children.set(k, d);
      }
    }
    return s;
  }

  intersection(o: FieldSet): FieldSet {
    const s = new FieldSet();
    s.member = this.member && o.member;
    if (this.#children !== undefined) {
      for (const [k, c] of this.#children) {
        const theirs = o.#children?.get(k);
        if (!theirs) continue;
        const i = c.intersection(theirs);
        if (!i.isEmpty()) s.children.set(k, i);
      }
    }
    return s;
  }

  /** Whether the set holds the path or anything below it. */
  touches(path: readonly string[]): boolean {
    if (path.length === 0) return !this.isEmpty();
    const [first, ...rest] = path as [string, ...string[]];
    const c = this.children.get(first);
    return c !== undefined && c.touches(rest);
  }

  /** The member paths, as `fieldpath.Set.Iterate` yields them: leaf members first, then subtrees, each sorted. */
  paths(prefix: string[] = []): string[][] {
    const keys = [...this.children.keys()].sort(comparePathElements);
    const out: string[][] = [];
    for (const k of keys) if (this.children.get(k)?.member === true) out.push([...prefix, k]);
    for (const k of keys) {
      const c = this.children.get(k);
      if (c && c.children.size > 0) out.push(...c.paths([...prefix, k]));
    }
    return out;
  }
}

const kindOrder: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function valueOrder(v: JsonValue): number {
  if (v === null) return 0;
  if (typeof v === 'boolean') return 1;
  if (typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  return 4;
}

function compareValues(a: JsonValue, b: JsonValue): number {
  const ta = valueOrder(a);
  const tb = valueOrder(b);
  if (ta !== tb) return ta - tb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** `PathElement.Compare`: fields, then keys, then values, then indices. */
export function comparePathElements(a: string, b: string): number {
  return comparePathElementsWith(a, b, (pe) => JSON.parse(pe.slice(2)) as JsonValue);
}

function comparePathElementsWith(a: string, b: string, value: (pe: string) => JsonValue): number {
  const ka = kindOrder[a.slice(0, 1)] ?? 9;
  const kb = kindOrder[b.slice(0, 1)] ?? 9;
  if (ka !== kb) return ka - kb;
  const ra = a.slice(2);
  const rb = b.slice(2);
  if (a.startsWith('f:')) return ra < rb ? -1 : ra > rb ? 1 : 0;
  if (a.startsWith('i:')) return Number(ra) - Number(rb);
  const va = value(a);
  const vb = value(b);
  if (a.startsWith('k:') && isObject(va) && isObject(vb)) {
    const ea = Object.entries(va);
    const eb = Object.entries(vb);
    for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
      const [na, xa] = ea[i] as [string, JsonValue];
      const [nb, xb] = eb[i] as [string, JsonValue];
      if (na !== nb) return na < nb ? -1 : 1;
      const c = compareValues(xa, xb);
      if (c !== 0) return c;
    }
    return ea.length - eb.length;
  }
  return compareValues(va, vb);
}

/**
 * The path elements in `comparePathElements` order. Field names alone (the common case) sort as plain
 * strings; otherwise each key or value element is parsed once, when a comparison first needs it.
 */
function sortPathElements(keys: string[]): string[] {
  if (keys.length < 2) return keys;
  let fieldsOnly = true;
  let sorted = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (!k.startsWith('f:')) {
      fieldsOnly = false;
      break;
    }
    if (i > 0 && !((keys[i - 1] as string) < k)) sorted = false;
  }
  // Sorting allocates even when there is nothing to move; fields often come in order already.
  if (fieldsOnly) return sorted ? keys : keys.sort();
  const parsed = new Map<string, JsonValue>();
  const value = (pe: string): JsonValue => {
    let v = parsed.get(pe);
    if (v === undefined) {
      v = JSON.parse(pe.slice(2)) as JsonValue;
      parsed.set(pe, v);
    }
    return v;
  };
  return keys.sort((a, b) => comparePathElementsWith(a, b, value));
}

/**
 * Whether `keys[from..]` are strictly in `comparePathElements` order; false when a key or value element
 * does not parse.
 */
export function inPathElementOrder(keys: readonly string[], from = 0): boolean {
  let parsed: Map<string, JsonValue> | undefined;
  const value = (pe: string): JsonValue => {
    parsed ??= new Map();
    let v = parsed.get(pe);
    if (v === undefined) {
      v = JSON.parse(pe.slice(2)) as JsonValue;
      parsed.set(pe, v);
    }
    return v;
  };
  try {
    for (let i = from + 1; i < keys.length; i++) {
      const a = keys[i - 1] as string;
      const b = keys[i] as string;
      if (a.startsWith('f:') && b.startsWith('f:') ? !(a < b) : comparePathElementsWith(a, b, value) >= 0) return false;
    }
  } catch {
    return false;
  }
  return true;
}

/** `value.ToString`: strings quoted as Go's %q, numbers and booleans bare. */
function valueString(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(',')}]`;
  if (isObject(v)) return `{${Object.entries(v).map(([k, x]) => `${k}=${valueString(x)}`).join(';')}}`;
  return String(v);
}

/** `fieldpath.Path.String()`: `.spec.containers[name="nginx"].image`, `[=value]`, `[3]`. */
export function pathString(path: readonly string[]): string {
  return path
    .map((pe) => {
      const rest = pe.slice(2);
      if (pe.startsWith('f:')) return `.${rest}`;
      if (pe.startsWith('i:')) return `[${rest}]`;
      const v = JSON.parse(rest) as JsonValue;
      if (pe.startsWith('v:')) return `[=${valueString(v)}]`;
      if (isObject(v)) return `[${Object.entries(v).map(([k, x]) => `${k}=${valueString(x)}`).join(',')}]`;
      return pe;
    })
    .join('');
}
