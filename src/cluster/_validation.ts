/**
 * Checks shared by the config readers: apimachinery's name and label validators (messages word for word from
 * `k8s.io/apimachinery/pkg/util/validation`), taints in both written forms, and a small typed reader for
 * untyped YAML that collects every error instead of stopping at the first.
 */
import { type FieldError, fieldErrors, fieldErrorString, Path } from '../api/field-errors.js';
import { isQuantity, parseQuantity } from '../api/quantity.js';
import { type TaintEffect, type TaintSpec, taintEffects } from './types.js';

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  let s = `${msg} (e.g. `;
  examples.forEach((e, i) => {
    if (i > 0) s += ' or ';
    s += `'${e}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

const maxLenError = (n: number): string => `must be no more than ${n} characters`;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelRe = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueRe = new RegExp(`^${labelValueFmt}$`);

/** `validation.IsDNS1123Label`. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        dns1123LabelFmt,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

/** `validation.IsDNS1123Subdomain` (what node names must be). */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        dns1123SubdomainFmt,
        'example.com',
      ),
    );
  }
  return errs;
}

/** `validation.IsQualifiedName` (label keys, taint keys). */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(
        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        qualifiedNameFmt,
        'MyName',
        'my.name',
        '123-abc',
      )} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (name.length > 0 && !qualifiedNameRe.test(name)) {
    errs.push(
      `name part ${regexError(
        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        qualifiedNameFmt,
        'MyName',
        'my.name',
        '123-abc',
      )}`,
    );
  }
  return errs;
}

/** `validation.IsValidLabelValue`. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!labelValueRe.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        labelValueFmt,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** An error the reader reports: a field error, or a field that the format does not have. */
export type ConfigProblem = FieldError | { readonly field: string; readonly unknownField: true };

export function problemString(p: ConfigProblem): string {
  return 'unknownField' in p ? `${p.field}: unknown field` : fieldErrorString(p);
}

export type YamlMap = Record<string, unknown>;

export function isMap(v: unknown): v is YamlMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Collects problems while reading an untyped document; every getter returns undefined on a bad value. */
export class ConfigReader {
  readonly problems: ConfigProblem[] = [];

  add(e: FieldError): void {
    this.problems.push(e);
  }

  /** Reports every key of `m` that is not in `known`, in document order. */
  unknownFields(m: YamlMap, path: Path | undefined, known: ReadonlySet<string>): void {
    for (const k of Object.keys(m)) {
      if (!known.has(k)) this.problems.push({ field: path === undefined ? k : path.child(k).toString(), unknownField: true });
    }
  }

  map(v: unknown, path: Path): YamlMap | undefined {
    if (v === undefined || v === null) return undefined;
    if (isMap(v)) return v;
    this.add(fieldErrors.invalid(path, v, 'must be an object'));
    return undefined;
  }

  list(v: unknown, path: Path): unknown[] | undefined {
    if (v === undefined || v === null) return undefined;
    if (Array.isArray(v)) return v as unknown[];
    this.add(fieldErrors.invalid(path, v, 'must be a list'));
    return undefined;
  }

  string(v: unknown, path: Path): string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    this.add(fieldErrors.invalid(path, v, 'must be a string'));
    return undefined;
  }

  bool(v: unknown, path: Path): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    this.add(fieldErrors.invalid(path, v, 'must be true or false'));
    return undefined;
  }

  /** An integer >= min (1 unless told), as counts and sizes are. */
  integer(v: unknown, path: Path, min = 1): number | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isInteger(v) && v >= min) return v;
    this.add(fieldErrors.invalid(path, v, min === 1 ? 'must be a positive integer' : `must be an integer of at least ${min}`));
    return undefined;
  }

  /** A positive quantity given as a number or a quantity string; returns its value in nano-units. */
  quantity(v: unknown, path: Path): bigint | undefined {
    if (v === undefined || v === null) return undefined;
    if ((typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && isQuantity(v))) {
      const q = parseQuantity(typeof v === 'number' ? String(v) : v);
      if (q.nanos > 0n) return q.nanos;
      this.add(fieldErrors.invalid(path, v, 'must be greater than 0'));
      return undefined;
    }
    this.add(fieldErrors.invalid(path, v, 'must be a quantity (e.g. 4, 500m, 16Gi)'));
    return undefined;
  }

  stringList(v: unknown, path: Path): string[] | undefined {
    const items = this.list(v, path);
    if (items === undefined) return undefined;
    const out: string[] = [];
    items.forEach((item, i) => {
      const s = this.string(item, path.index(i));
      if (s !== undefined) out.push(s);
    });
    return out.length === items.length ? out : undefined;
  }

  /** Node labels: string keys that are qualified names, string values that are label values. */
  labels(v: unknown, path: Path): Record<string, string> | undefined {
    const m = this.map(v, path);
    if (m === undefined) return undefined;
    const out: Record<string, string> = {};
    for (const [k, raw] of Object.entries(m)) {
      for (const msg of isQualifiedName(k)) this.add(fieldErrors.invalid(path, k, msg));
      const value = this.string(raw, path.key(k));
      if (value === undefined) continue;
      for (const msg of isValidLabelValue(value)) this.add(fieldErrors.invalid(path.key(k), value, msg));
      out[k] = value;
    }
    return out;
  }

  /** Checks one taint as `validateNodeTaints` does and returns it when valid. */
  taint(key: string, value: string | undefined, effect: string | undefined, path: Path): TaintSpec | undefined {
    let ok = true;
    for (const msg of isQualifiedName(key)) {
      this.add(fieldErrors.invalid(path.child('key'), key, msg));
      ok = false;
    }
    if (value !== undefined && value !== '') {
      for (const msg of isValidLabelValue(value)) {
        this.add(fieldErrors.invalid(path.child('value'), value, msg));
        ok = false;
      }
    }
    if (effect === undefined || effect === '') {
      this.add(fieldErrors.required(path.child('effect')));
      ok = false;
    } else if (!(taintEffects as readonly string[]).includes(effect)) {
      this.add(fieldErrors.notSupported(path.child('effect'), effect, taintEffects));
      ok = false;
    }
    if (!ok) return undefined;
    return value === undefined || value === '' ? { key, effect: effect as TaintEffect } : { key, value, effect: effect as TaintEffect };
  }

  /** A taint written `key=value:Effect` or `key:Effect` (kubectl's and `--register-with-taints`' form). */
  taintString(s: string, path: Path): TaintSpec | undefined {
    const colon = s.lastIndexOf(':');
    if (colon <= 0) {
      this.add(fieldErrors.invalid(path, s, 'must be of the form key=value:Effect or key:Effect'));
      return undefined;
    }
    const kv = s.slice(0, colon);
    const effect = s.slice(colon + 1);
    const eq = kv.indexOf('=');
    const key = eq < 0 ? kv : kv.slice(0, eq);
    const value = eq < 0 ? undefined : kv.slice(eq + 1);
    return this.taint(key, value, effect, path);
  }

  /** A taint written `{key, value, effect}`. */
  taintObject(m: YamlMap, path: Path): TaintSpec | undefined {
    this.unknownFields(m, path, taintObjectFields);
    const key = this.string(m['key'], path.child('key'));
    const value = this.string(m['value'], path.child('value'));
    const effect = this.string(m['effect'], path.child('effect'));
    if (key === undefined) {
      if (m['key'] === undefined) this.add(fieldErrors.required(path.child('key')));
      return undefined;
    }
    return this.taint(key, value, effect, path);
  }

  /** Taints must be unique by key and effect (`validateNodeTaints`). */
  uniqueTaints(taints: readonly (TaintSpec | undefined)[], path: Path): TaintSpec[] {
    const seen = new Set<string>();
    const out: TaintSpec[] = [];
    taints.forEach((t, i) => {
      if (t === undefined) return;
      const id = `${t.key}:${t.effect}`;
      if (seen.has(id)) {
        this.add(fieldErrors.invalid(path.index(i), formatTaint(t), 'taints must be unique by key and effect pair'));
        return;
      }
      seen.add(id);
      out.push(t);
    });
    return out;
  }
}

const taintObjectFields: ReadonlySet<string> = new Set(['key', 'value', 'effect']);

/** `key=value:Effect`, or `key:Effect` without a value (kubectl's form). */
export function formatTaint(t: TaintSpec): string {
  return t.value === undefined ? `${t.key}:${t.effect}` : `${t.key}=${t.value}:${t.effect}`;
}

export { Path };
