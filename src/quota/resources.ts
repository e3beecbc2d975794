/**
 * Resource-list arithmetic of quota (`k8s.io/apiserver/pkg/quota/v1/resources.go`): lists are maps of
 * exact quantities; adding keeps the format of the left operand unless it is zero (apimachinery's
 * `Quantity.Add`), so `0 + 128Mi` prints `128Mi` and `1 + 1` prints `2`.
 */
import { formatQuantity, isQuantity, parseQuantity, type Quantity } from '../api/quantity.js';

/** A quota resource list: resource name -> quantity. */
export type ResourceList = Map<string, Quantity>;

/** `resource.Quantity{Format: DecimalSI}`: the zero every tracked resource starts from. */
export const zero: Quantity = Object.freeze({ nanos: 0n, format: 'DecimalSI' });

/** `resource.NewQuantity(n, DecimalSI)`. */
export function count(n: number): Quantity {
  return { nanos: BigInt(n) * 1_000_000_000n, format: 'DecimalSI' };
}

/** A wire `ResourceList` (`{cpu: '100m'}`) as quantities; unparseable entries (refused by validation) are skipped. */
export function fromWire(rl: Readonly<Record<string, string | number>> | undefined): ResourceList {
  const out: ResourceList = new Map();
  if (rl === undefined) return out;
  for (const [k, v] of Object.entries(rl)) {
    const s = String(v);
    if (isQuantity(s)) out.set(k, parseQuantity(s));
  }
  return out;
}

/** The wire form, keys sorted (as Go's JSON encoding of a map). */
export function toWire(rl: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...rl.keys()].sort()) out[k] = formatQuantity(rl.get(k) ?? zero);
  return out;
}

/** `Quantity.Add`: a zero receiver takes the other operand's format. */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

function subQuantity(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos - b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

/** `quota.Equals`: same names, equal quantities. */
export function equals(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const o = b.get(k);
    if (o === undefined || o.nanos !== v.nanos) return false;
  }
  return true;
}

/** `quota.LessThanOrEqual`: whether every name of `b` that `a` has is not exceeded, and the exceeded names. */
export function lessThanOrEqual(a: ResourceList, b: ResourceList): { allowed: boolean; exceeded: string[] } {
  const exceeded: string[] = [];
  for (const [k, limit] of b) {
    const v = a.get(k);
    if (v !== undefined && v.nanos > limit.nanos) exceeded.push(k);
  }
  return { allowed: exceeded.length === 0, exceeded };
}

/** `quota.Add`. */
export function add(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const o = b.get(k);
    out.set(k, o === undefined ? v : addQuantity(v, o));
  }
  for (const [k, v] of b) if (!out.has(k)) out.set(k, v);
  return out;
}

/** `quota.Subtract`: names only in `b` come out negative. */
export function subtract(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const o = b.get(k);
    out.set(k, o === undefined ? v : subQuantity(v, o));
  }
  for (const [k, v] of b) if (!out.has(k)) out.set(k, { nanos: -v.nanos, format: v.format });
  return out;
}

/** `quota.SubtractWithNonNegativeResult`: like `subtract`, negative results become zero. */
export function subtractWithNonNegativeResult(a: ResourceList, b: ResourceList): ResourceList {
  const out = subtract(a, b);
  for (const [k, v] of out) if (v.nanos < 0n) out.set(k, { nanos: 0n, format: v.format });
  return out;
}

/** `quota.Mask`: only the given names. */
export function mask(rl: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = new Map();
  for (const n of names) {
    const v = rl.get(n);
    if (v !== undefined) out.set(n, v);
  }
  return out;
}

/** `quota.ResourceNames`. */
export function resourceNames(rl: ResourceList): string[] {
  return [...rl.keys()];
}

/** `quota.Intersection`: names of `a` also in `b`, in `a`'s order, without duplicates. */
export function intersection(a: readonly string[], b: readonly string[]): string[] {
  const in_b = new Set(b);
  return [...new Set(a.filter((x) => in_b.has(x)))];
}

/** `quota.Difference`. */
export function difference(a: readonly string[], b: readonly string[]): string[] {
  const in_b = new Set(b);
  return a.filter((x) => !in_b.has(x));
}

/** `quota.IsZero`: every quantity is zero (an empty list is zero). */
export function isZero(rl: ResourceList): boolean {
  for (const v of rl.values()) if (v.nanos !== 0n) return false;
  return true;
}

/** `quota.IsNegative`: the names with a negative quantity. */
export function isNegative(rl: ResourceList): string[] {
  return [...rl].filter(([, v]) => v.nanos < 0n).map(([k]) => k);
}

/** `quota.RemoveZeros`. */
export function removeZeros(rl: ResourceList): ResourceList {
  return new Map([...rl].filter(([, v]) => v.nanos !== 0n));
}

/** `quota.ContainsPrefix`. */
export function containsPrefix(prefixes: readonly string[], name: string): boolean {
  return prefixes.some((p) => name.startsWith(p));
}

/** The admission plugin's `prettyPrint`: `name=quantity` sorted by name, comma-separated. */
export function prettyPrint(rl: ResourceList): string {
  return [...rl.keys()].sort().map((k) => `${k}=${formatQuantity(rl.get(k) ?? zero)}`).join(',');
}

/** The admission plugin's `prettyPrintResourceNames`. */
export function prettyPrintResourceNames(names: readonly string[]): string {
  return [...names].sort().join(',');
}
