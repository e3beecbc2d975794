/**
 * Objects as admission CEL sees them (admission/plugin/cel `objectToResolveVal`): untyped JSON, whose integers
 * are CEL ints and other numbers doubles (unstructured's int64 and float64), maps keyed by field name and
 * lists; converted field by field as an expression reads them, so a large object costs only what is read.
 */
import { celList, celMap, type CelInput } from '@bufbuild/cel';

/** A JSON value as a CEL input. */
export function jsonToCel(v: unknown): CelInput {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isInteger(v) ? BigInt(v) : v;
    case 'bigint':
      return v;
    case 'object':
      if (v === null) return null;
      if (Array.isArray(v)) return celList(v.map(jsonToCel));
      return celMap(new JsonObjectMap(v as Record<string, unknown>));
    default:
      return null;
  }
}

/** A JSON object read as a CEL map from string keys; values are converted when read. */
class JsonObjectMap implements ReadonlyMap<string, CelInput> {
  constructor(private readonly o: Record<string, unknown>) {}

  get size(): number {
    return Object.keys(this.o).length;
  }

  get(key: unknown): CelInput | undefined {
    if (typeof key !== 'string' || !Object.hasOwn(this.o, key)) return undefined;
    return jsonToCel(this.o[key]);
  }

  has(key: unknown): boolean {
    return typeof key === 'string' && Object.hasOwn(this.o, key);
  }

  forEach(cb: (value: CelInput, key: string, map: ReadonlyMap<string, CelInput>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) cb.call(thisArg, v, k, this);
  }

  *entries(): MapIterator<[string, CelInput]> {
    for (const k of Object.keys(this.o)) yield [k, jsonToCel(this.o[k])];
  }

  keys(): MapIterator<string> {
    return Object.keys(this.o)[Symbol.iterator]();
  }

  *values(): MapIterator<CelInput> {
    for (const k of Object.keys(this.o)) yield jsonToCel(this.o[k]);
  }

  [Symbol.iterator](): MapIterator<[string, CelInput]> {
    return this.entries();
  }
}
