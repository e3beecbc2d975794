/**
 * How Go prints the unstructured values (`map[string]interface{}`, `[]interface{}`, `int64`, `float64`,
 * `string`, `bool`, `nil`) that custom resource validation puts into field errors and messages.
 * JSON whole numbers decode to `int64` in kube-apiserver and the others to `float64`; after JSON.parse we
 * can only tell them apart by `Number.isInteger`, which is what these helpers do.
 */
import { GoValue, goQuote } from '../../api/field-errors.js';

/** Go's `%v` of a float64 (strconv 'g', shortest): an exponent below 1e-4 and from 1e+06 on. */
export function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa = '', exponent = '0'] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

/** Go's `%v` of a JSON number as kube-apiserver decodes it (int64 for whole numbers, else float64). */
export function goNumber(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? BigInt(n).toString() : goFloat(n);
}

/** Go's `%#v` of an unstructured value, as nested inside a map or slice (map keys sorted, as fmt prints them). */
export function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  const rec = v as Record<string, unknown>;
  const keys = Object.keys(rec)
    .filter((k) => rec[k] !== undefined)
    .sort();
  return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSharpV(rec[k])}`).join(', ')}}`;
}

/**
 * A field error's bad value as apimachinery's `ErrorBody` prints an unstructured value: strings quoted,
 * numbers and booleans plain, `null` for nil, and maps and slices as `%#v`.
 */
export function goBadValue(v: unknown): unknown {
  if (v === undefined) return null;
  if (v !== null && typeof v === 'object') return new GoValue(goSharpV(v));
  if (typeof v === 'number') return new GoValue(goNumber(v));
  return v;
}

/** `encoding/json.Marshal` of an unstructured value: map keys sorted. */
export function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (typeof v === 'object') {
    const rec = v as Record<string, unknown>;
    const keys = Object.keys(rec)
      .filter((k) => rec[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${goJson(rec[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}
