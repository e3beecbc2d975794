/**
 * Values of the Kubernetes CEL types that CEL has no literal for (Quantity, URL, IP, CIDR, Format, optional):
 * single-entry CEL maps whose key starts with a NUL character, which no rule can spell. CEL's map equality
 * then compares two of them by their content (two quantities by their value, two IPs by their canonical
 * text), and the library's methods, declared on maps, unwrap them or fail as a missing overload would.
 */
import { celMap, CelScalar, mapType, type CelInput, type CelMap, type CelValue } from '@bufbuild/cel';

/** The CEL type the library's methods are declared on. */
export const OPAQUE = mapType(CelScalar.DYN, CelScalar.DYN);

/** The error cel-go reports when no overload matches the arguments at run time. */
export function noSuchOverload(): Error {
  return new Error('no such overload');
}

/** A value of the type named by `key`. */
export function opaque(key: string, value: CelInput): CelMap {
  return celMap(new Map([[key, value]]));
}

/** The content of a value of the type named by `key`; any other value has no such overload. */
export function unwrap(key: string, m: CelMap): CelValue {
  const v = m.get(key);
  if (m.size !== 1 || v === undefined) throw noSuchOverload();
  return v;
}
