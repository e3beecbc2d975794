/**
 * The Kubernetes CEL libraries a CRD rule can call in 1.32 that @bufbuild/cel does not ship
 * (k8s.io/apiserver `pkg/cel/library`: lists.go, regex.go, quantity.go, urls.go, format.go, and cel-go's
 * `ext.Sets`), plus the optional values that `optionalOldSelf` binds, the set/map-list equality of
 * `schema/cel/values.go`, and cel-go's behaviour where @bufbuild/cel's strings extension differs (code-point
 * indices, Go's SplitN, a duration's getMilliseconds).
 *
 * Values of types CEL has no literal for (Quantity, URL, Format, optional) are cel-opaque.ts values; the IP
 * and CIDR library is cel-net.ts, the authorization library (`authorizer`) authz.ts.
 */
import { celEnv, celFunc, celList, celMethod, CelScalar, isCelError, isCelList, isCelMap, listType, mapType, objectType, parse, plan, type CelFunc, type CelInput, type CelList, type CelMap, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { addQuantities, compareQuantities, parseQuantity, type Quantity } from '../../api/quantity.js';
import { isQualifiedName, isValidLabelValue, nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain } from '../validation/_names.js';
import { validatesFormat } from '../crd/_formats.js';
import { authzFuncs } from './authz.js';
import { ipFuncs } from './net.js';
import { noSuchOverload, OPAQUE, opaque, unwrap } from './opaque.js';

const DYN = CelScalar.DYN;
const MAP = OPAQUE;
const LIST = listType(DYN);

const quantityKey = '\u0000k8s.quantity';
const urlKey = '\u0000k8s.url';
const optionalKey = '\u0000optional';
const optionalNoneKey = '\u0000optional.none';
const formatKey = '\u0000k8s.format';

/** An optional holding `value` (`types.OptionalOf`). */
export function optionalOf(value: CelInput): CelMap {
  return opaque(optionalKey, value);
}

/** `types.OptionalNone`. */
export const optionalNone: CelMap = opaque(optionalNoneKey, true);

function optionalValue(m: CelMap): { has: boolean; value?: CelValue } {
  if (m.size === 1 && m.has(optionalNoneKey)) return { has: false };
  return { has: true, value: unwrap(optionalKey, m) };
}

// ---- set and map lists (values.go unstructuredSetList, unstructuredMapList) ----

/** How a list compares and concatenates: `x-kubernetes-list-type` set, or map with its (escaped) key fields. */
type ListKind = { kind: 'set' } | { kind: 'map'; keys: readonly string[] };

const listKinds = new WeakMap<CelList, ListKind>();

/** A list with `x-kubernetes-list-type: set` semantics: `==` ignores order, `+` is a union. */
export function setList(items: CelInput[]): CelList {
  const l = celList(items);
  listKinds.set(l, { kind: 'set' });
  return l;
}

/** A list with `x-kubernetes-list-type: map` semantics: `==` matches items by key, `+` merges by key. */
export function mapList(items: CelInput[], keys: readonly string[]): CelList {
  const l = celList(items);
  listKinds.set(l, { kind: 'map', keys });
  return l;
}

function mapListKey(item: CelValue, keys: readonly string[]): CelValue[] | undefined {
  if (!isCelMap(item)) return undefined;
  return keys.map((k) => item.get(k) ?? null);
}

function findByKey(list: CelList, key: CelValue[], keys: readonly string[]): { item: CelValue; index: number } | undefined {
  let index = 0;
  for (const item of list) {
    const k = mapListKey(item, keys);
    if (k !== undefined && k.every((x, i) => celEquals(x, key[i] ?? null))) return { item, index };
    index++;
  }
  return undefined;
}

const stdEquals = plan(celEnv(), parse('a == b'));

function isScalar(v: CelValue): v is string | boolean | bigint | number | null {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint' || typeof v === 'number';
}

/** CEL's `==` on scalars: numbers compare across int and double, values of different types are unequal. */
function scalarEquals(a: string | boolean | bigint | number | null, b: string | boolean | bigint | number | null): boolean {
  if (typeof a === 'bigint' && typeof b === 'number') return Number.isInteger(b) && BigInt(b) === a;
  if (typeof a === 'number' && typeof b === 'bigint') return Number.isInteger(a) && BigInt(a) === b;
  return a === b;
}

/** `Equal` of the left operand: set and map lists ignore order; other values as CEL's `==`. */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (isScalar(a) && isScalar(b)) return scalarEquals(a, b);
  if (isCelList(a) && isCelList(b)) {
    if (a.size !== b.size) return false;
    const kind = listKinds.get(a);
    if (kind?.kind === 'set') return [...b].every((v) => contains(a, v));
    if (kind?.kind === 'map') {
      return [...b].every((v) => {
        const key = mapListKey(v, kind.keys);
        const found = key === undefined ? undefined : findByKey(a, key, kind.keys);
        return found !== undefined && celEquals(found.item, v);
      });
    }
    for (let i = 0; i < a.size; i++) if (!celEquals(a.get(i) ?? null, b.get(i) ?? null)) return false;
    return true;
  }
  if (isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) {
      const w = b.get(k);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  const r = stdEquals({ a: a as CelInput, b: b as CelInput });
  return !isCelError(r) && r === true;
}

/** `Add` of the left operand: a set list unions, a map list merges by key, other lists concatenate. */
function listAdd(a: CelList, b: CelList): CelList {
  const kind = listKinds.get(a);
  if (kind?.kind === 'set') {
    const out = [...a];
    for (const v of b) if (!out.some((x) => celEquals(x, v))) out.push(v);
    return setList(out);
  }
  if (kind?.kind === 'map') {
    const out = [...a];
    for (const v of b) {
      const key = mapListKey(v, kind.keys);
      const found = key === undefined ? undefined : findByKey(a, key, kind.keys);
      if (found !== undefined) out[found.index] = v;
      else out.push(v);
    }
    return mapList(out, kind.keys);
  }
  return celList([...a, ...b] as CelInput[]);
}

const equalityFuncs: CelFunc[] = [
  celFunc('_==_', [DYN, DYN], CelScalar.BOOL, (a, b) => celEquals(a, b)),
  celFunc('_!=_', [DYN, DYN], CelScalar.BOOL, (a, b) => !celEquals(a, b)),
  celFunc('_+_', [LIST, LIST], LIST, (a, b) => listAdd(a, b)),
];

// ---- ordering of CEL values, as the list functions need it ----

function isNumber(v: CelValue): v is bigint | number {
  return typeof v === 'bigint' || typeof v === 'number';
}

/** A timestamp's or duration's nanoseconds (both are protobuf messages with seconds and nanos). */
function timeValue(v: CelValue): bigint | undefined {
  if (v === null || typeof v !== 'object' || !('message' in v)) return undefined;
  const m: unknown = v.message;
  if (m === null || typeof m !== 'object' || !('seconds' in m) || !('nanos' in m)) return undefined;
  const { seconds, nanos } = m;
  return typeof seconds === 'bigint' && typeof nanos === 'number' ? seconds * 1_000_000_000n + BigInt(nanos) : undefined;
}

/** `traits.Comparer.Compare`: -1, 0 or 1; throws for values CEL does not order. */
function compare(a: CelValue, b: CelValue): number {
  if (isNumber(a) && isNumber(b)) {
    const [x, y] = typeof a === typeof b ? [a, b] : [Number(a), Number(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  const ta = timeValue(a);
  const tb = timeValue(b);
  if (ta !== undefined && tb !== undefined) return ta < tb ? -1 : ta > tb ? 1 : 0;
  throw noSuchOverload();
}

const durationProgram = plan(celEnv(), parse('duration(s)'));

/** A CEL duration of `nanos` nanoseconds. */
function durationOf(nanos: bigint): CelInput {
  const d = durationProgram({ s: `${nanos}ns` });
  if (isCelError(d)) throw d;
  return d;
}

// ---- lists (library/lists.go) ----

function listMinMax(name: string, prefer: number) {
  return function (this: CelList): CelValue {
    let result: CelValue | undefined;
    for (const v of this) if (result === undefined || compare(result, v) === prefer) result = v;
    if (result === undefined) throw new Error(`${name} called on empty list`);
    return result;
  };
}

const listFuncs: CelFunc[] = [
  celMethod('isSorted', LIST, [], CelScalar.BOOL, function () {
    let prev: CelValue | undefined;
    for (const v of this) {
      if (prev !== undefined && compare(prev, v) === 1) return false;
      prev = v;
    }
    return true;
  }),
  celMethod('sum', LIST, [], DYN, function () {
    let acc: CelValue | undefined;
    let durationNanos: bigint | undefined;
    for (const v of this) {
      const t = timeValue(v);
      if (t !== undefined && (acc === undefined || durationNanos !== undefined)) {
        durationNanos = (durationNanos ?? 0n) + t;
        acc = v;
        continue;
      }
      if (!isNumber(v)) throw noSuchOverload();
      if (acc === undefined) acc = v;
      else if (typeof acc === 'bigint' && typeof v === 'bigint') {
        acc += v;
        if (acc > 9223372036854775807n || acc < -9223372036854775808n) throw new Error('integer overflow');
      } else if (typeof acc === 'number' && typeof v === 'number') acc += v;
      else throw noSuchOverload();
    }
    if (durationNanos !== undefined) return durationOf(durationNanos);
    return (acc ?? 0n);
  }),
  celMethod('min', LIST, [], DYN, listMinMax('min', 1) as () => CelInput),
  celMethod('max', LIST, [], DYN, listMinMax('max', -1) as () => CelInput),
  celMethod('indexOf', LIST, [DYN], CelScalar.INT, function (item) {
    for (let i = 0; i < this.size; i++) if (celEquals(this.get(i) ?? null, item)) return BigInt(i);
    return -1n;
  }),
  celMethod('lastIndexOf', LIST, [DYN], CelScalar.INT, function (item) {
    for (let i = this.size - 1; i >= 0; i--) if (celEquals(this.get(i) ?? null, item)) return BigInt(i);
    return -1n;
  }),
];

// ---- sets (cel-go ext.Sets) ----

function contains(list: CelList, item: CelValue): boolean {
  for (const v of list) if (celEquals(v, item)) return true;
  return false;
}

const setFuncs: CelFunc[] = [
  celFunc('sets.contains', [LIST, LIST], CelScalar.BOOL, (a, b) => [...b].every((v) => contains(a, v))),
  celFunc('sets.equivalent', [LIST, LIST], CelScalar.BOOL, (a, b) => [...b].every((v) => contains(a, v)) && [...a].every((v) => contains(b, v))),
  celFunc('sets.intersects', [LIST, LIST], CelScalar.BOOL, (a, b) => [...b].some((v) => contains(a, v))),
];

// ---- regex (library/regex.go) ----

/** An RE2 pattern as a JavaScript RegExp (the two agree on the syntax CRD rules use). */
function regex(pattern: string, flags = 'u'): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (e) {
    throw new Error(`error parsing regexp: ${(e as Error).message}`);
  }
}

function findAll(s: string, pattern: string, limit: bigint): string[] {
  if (limit === 0n) return [];
  const out: string[] = [];
  for (const m of s.matchAll(regex(pattern, 'gu'))) {
    out.push(m[0]);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

const regexFuncs: CelFunc[] = [
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (pattern) {
    return regex(pattern).exec(this)?.[0] ?? '';
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function (pattern) {
    return findAll(this, pattern, -1n);
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], listType(CelScalar.STRING), function (pattern, n) {
    return findAll(this, pattern, n);
  }),
];

// ---- quantity (library/quantity.go) ----

function quantity(m: CelMap): Quantity {
  const v = unwrap(quantityKey, m);
  if (typeof v !== 'string') throw noSuchOverload();
  return { nanos: BigInt(v), format: 'DecimalSI' };
}

function quantityValue(q: Quantity): CelMap {
  return opaque(quantityKey, q.nanos.toString());
}

/** `resource.ParseQuantity`'s first check; text that passes it but has no valid suffix fails the second. */
const quantityShape = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

function parseQuantityOrError(s: string): Quantity {
  try {
    return parseQuantity(s);
  } catch (e) {
    if (quantityShape.test(s)) throw new Error("unable to parse quantity's suffix");
    throw new Error((e as Error).message);
  }
}

function quantityArg(v: CelValue): Quantity {
  if (typeof v === 'bigint') return { nanos: v * 1_000_000_000n, format: 'DecimalSI' };
  if (isCelMap(v)) return quantity(v);
  throw noSuchOverload();
}

const quantityFuncs: CelFunc[] = [
  celFunc('quantity', [CelScalar.STRING], MAP, (s) => quantityValue(parseQuantityOrError(s))),
  celFunc('isQuantity', [CelScalar.STRING], CelScalar.BOOL, (s) => {
    try {
      parseQuantity(s);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod('sign', MAP, [], CelScalar.INT, function () {
    const n = quantity(this).nanos;
    return n > 0n ? 1n : n < 0n ? -1n : 0n;
  }),
  celMethod('isGreaterThan', MAP, [MAP], CelScalar.BOOL, function (o) {
    return compareQuantities(quantity(this), quantity(o)) > 0;
  }),
  celMethod('isLessThan', MAP, [MAP], CelScalar.BOOL, function (o) {
    return compareQuantities(quantity(this), quantity(o)) < 0;
  }),
  celMethod('compareTo', MAP, [MAP], CelScalar.INT, function (o) {
    return BigInt(compareQuantities(quantity(this), quantity(o)));
  }),
  celMethod('add', MAP, [DYN], MAP, function (o) {
    return quantityValue(addQuantities(quantity(this), quantityArg(o)));
  }),
  celMethod('sub', MAP, [DYN], MAP, function (o) {
    const q = quantityArg(o);
    return quantityValue(addQuantities(quantity(this), { ...q, nanos: -q.nanos }));
  }),
  celMethod('isInteger', MAP, [], CelScalar.BOOL, function () {
    const n = quantity(this).nanos;
    return n % 1_000_000_000n === 0n && n / 1_000_000_000n <= 9223372036854775807n && n / 1_000_000_000n >= -9223372036854775808n;
  }),
  celMethod('asInteger', MAP, [], CelScalar.INT, function () {
    const n = quantity(this).nanos;
    const v = n / 1_000_000_000n;
    if (n % 1_000_000_000n !== 0n || v > 9223372036854775807n || v < -9223372036854775808n) throw new Error('cannot convert value to integer');
    return v;
  }),
  celMethod('asApproximateFloat', MAP, [], CelScalar.DOUBLE, function () {
    return Number(quantity(this).nanos) / 1e9;
  }),
];

// ---- URLs (library/urls.go) ----

/**
 * A URL as Go's `url.ParseRequestURI` reads it: an absolute URL, or an absolute path (no scheme, no host).
 * `path` is the escaped path as written (Go's `EscapedPath`, empty when the URL has none).
 */
interface ParsedURL {
  scheme: string;
  host: string;
  hostname: string;
  port: string;
  path: string;
  query: [string, string][];
}

function parseRequestURI(s: string): ParsedURL | undefined {
  const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s);
  if (!absolute && !s.startsWith('/')) return undefined;
  let u: URL;
  try {
    u = absolute ? new URL(s) : new URL(s, 'http://relative.invalid');
  } catch {
    return undefined;
  }
  const rest = absolute ? /^[a-zA-Z][a-zA-Z0-9+.-]*:(?:\/\/[^/?#]*)?([^?#]*)/.exec(s)?.[1] ?? '' : (/^[^?#]*/.exec(s)?.[0] ?? '');
  const host = absolute ? (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(s)?.[1] ?? '').replace(/^.*@/, '') : '';
  const hp = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(host);
  return {
    scheme: absolute ? u.protocol.replace(/:$/, '') : '',
    host,
    hostname: (hp?.[1] ?? '').replace(/^\[(.*)\]$/, '$1'),
    port: hp?.[2] ?? '',
    path: rest === '' ? '' : u.pathname,
    query: [...u.searchParams],
  };
}

function parsedURL(m: CelMap): ParsedURL {
  const v = unwrap(urlKey, m);
  const u = typeof v === 'string' ? parseRequestURI(v) : undefined;
  if (u === undefined) throw noSuchOverload();
  return u;
}

const urlFuncs: CelFunc[] = [
  celFunc('url', [CelScalar.STRING], MAP, (s) => {
    if (parseRequestURI(s) === undefined) throw new Error(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URI for request`);
    return opaque(urlKey, s);
  }),
  celFunc('isURL', [CelScalar.STRING], CelScalar.BOOL, (s) => parseRequestURI(s) !== undefined),
  celMethod('getScheme', MAP, [], CelScalar.STRING, function () {
    return parsedURL(this).scheme;
  }),
  celMethod('getHost', MAP, [], CelScalar.STRING, function () {
    return parsedURL(this).host;
  }),
  celMethod('getHostname', MAP, [], CelScalar.STRING, function () {
    return parsedURL(this).hostname;
  }),
  celMethod('getPort', MAP, [], CelScalar.STRING, function () {
    return parsedURL(this).port;
  }),
  celMethod('getEscapedPath', MAP, [], CelScalar.STRING, function () {
    return parsedURL(this).path;
  }),
  celMethod('getQuery', MAP, [], mapType(CelScalar.STRING, listType(CelScalar.STRING)), function () {
    const out = new Map<string, string[]>();
    for (const [k, v] of parsedURL(this).query) out.set(k, [...(out.get(k) ?? []), v]);
    return out;
  }),
];

// ---- format (library/format.go, in the base environment since 1.31) ----

/** `ConstantFormats`: each named format's check, returning its error messages. */
const constantFormats: Record<string, (s: string) => string[]> = {
  dns1123Label: (s) => nameIsDNSLabel(s, false),
  dns1123Subdomain: (s) => nameIsDNSSubdomain(s, false),
  dns1035Label: (s) => nameIsDNS1035Label(s, false),
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: (s) => nameIsDNSLabel(s, true),
  dns1123SubdomainPrefix: (s) => nameIsDNSSubdomain(s, true),
  dns1035LabelPrefix: (s) => nameIsDNS1035Label(s, true),
  labelValue: isValidLabelValue,
  uri: (s) => (parseRequestURI(s) === undefined ? [`parse ${JSON.stringify(s)}: invalid URI for request`] : []),
  uuid: (s) => (validatesFormat('uuid', s) ? [] : ['does not match the UUID format']),
  byte: (s) => (validatesFormat('byte', s) ? [] : ['invalid base64']),
  date: (s) => (validatesFormat('date', s) ? [] : ['invalid date']),
  datetime: (s) => (validatesFormat('datetime', s) ? [] : ['invalid datetime']),
};

const formatFuncs: CelFunc[] = [
  ...Object.keys(constantFormats).map((name) => celFunc(`format.${name}`, [], MAP, () => opaque(formatKey, name))),
  celFunc('format.named', [CelScalar.STRING], MAP, (name) => (Object.hasOwn(constantFormats, name) ? optionalOf(opaque(formatKey, name)) : optionalNone)),
  celMethod('validate', MAP, [CelScalar.STRING], MAP, function (str) {
    const name = unwrap(formatKey, this);
    const check = typeof name === 'string' ? constantFormats[name] : undefined;
    if (check === undefined) throw noSuchOverload();
    const errs = check(str);
    return errs.length === 0 ? optionalNone : optionalOf(errs);
  }),
];

// ---- where cel-go's standard and strings libraries differ from @bufbuild/cel's ----

/** Go's `strings.SplitN`: at most `n` parts, the last holding the rest; n < 0 splits at every separator. */
function splitN(s: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  const parts = sep === '' ? [...s] : s.split(sep);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  const k = Number(n);
  return [...parts.slice(0, k - 1), parts.slice(k - 1).join(sep)];
}

function outOfRange(i: bigint): Error {
  return new Error(`index out of range: ${i}`);
}

/** cel-go's indexOf on code points: the first index at or after `from` where `sub` starts, or -1. */
function runeIndexOf(runes: string[], sub: string[], from: number, step: 1 | -1): bigint {
  for (let i = from; i >= 0 && i + sub.length <= runes.length; i += step) {
    if (sub.every((c, j) => runes[i + j] === c)) return BigInt(i);
  }
  return -1n;
}

const goCompatibleFuncs: CelFunc[] = [
  // cel-go's string functions count code points, not UTF-16 units.
  celMethod('charAt', CelScalar.STRING, [CelScalar.INT], CelScalar.STRING, function (i) {
    const runes = [...this];
    if (i < 0n || i > BigInt(runes.length)) throw outOfRange(i);
    return runes[Number(i)] ?? '';
  }),
  celMethod('indexOf', CelScalar.STRING, [CelScalar.STRING], CelScalar.INT, function (sub) {
    return runeIndexOf([...this], [...sub], 0, 1);
  }),
  celMethod('indexOf', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], CelScalar.INT, function (sub, off) {
    const runes = [...this];
    if (off < 0n || off > BigInt(runes.length)) throw outOfRange(off);
    return runeIndexOf(runes, [...sub], Number(off), 1);
  }),
  celMethod('lastIndexOf', CelScalar.STRING, [CelScalar.STRING], CelScalar.INT, function (sub) {
    const runes = [...this];
    const s = [...sub];
    return runeIndexOf(runes, s, runes.length - s.length, -1);
  }),
  celMethod('lastIndexOf', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], CelScalar.INT, function (sub, off) {
    const runes = [...this];
    const s = [...sub];
    if (off < 0n || off > BigInt(runes.length)) throw outOfRange(off);
    return runeIndexOf(runes, s, Math.min(Number(off), runes.length - s.length), -1);
  }),
  celMethod('substring', CelScalar.STRING, [CelScalar.INT], CelScalar.STRING, function (start) {
    const runes = [...this];
    if (start < 0n || start > BigInt(runes.length)) throw outOfRange(start);
    return runes.slice(Number(start)).join('');
  }),
  celMethod('substring', CelScalar.STRING, [CelScalar.INT, CelScalar.INT], CelScalar.STRING, function (start, end) {
    const runes = [...this];
    if (start < 0n || start > BigInt(runes.length)) throw outOfRange(start);
    if (end < 0n || end > BigInt(runes.length)) throw outOfRange(end);
    if (start > end) throw new Error(`invalid substring range. start: ${start}, end: ${end}`);
    return runes.slice(Number(start), Number(end)).join('');
  }),
  celMethod('split', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], listType(CelScalar.STRING), function (sep, n) {
    return splitN(this, sep, n);
  }),
  // A duration's getMilliseconds() is its whole length in milliseconds, as its getSeconds() is in seconds.
  celMethod('getMilliseconds', objectType('google.protobuf.Duration'), [], CelScalar.INT, function () {
    return (timeValue(this) ?? 0n) / 1_000_000n;
  }),
];

// ---- optionals ----

const optionalFuncs: CelFunc[] = [
  celFunc('optional.of', [DYN], MAP, (v) => optionalOf(v as CelInput)),
  celFunc('optional.none', [], MAP, () => optionalNone),
  celMethod('hasValue', MAP, [], CelScalar.BOOL, function () {
    return optionalValue(this).has;
  }),
  celMethod('value', MAP, [], DYN, function () {
    const o = optionalValue(this);
    if (!o.has) throw new Error('optional.none() dereference');
    return o.value as CelInput;
  }),
  celMethod('orValue', MAP, [DYN], DYN, function (d) {
    const o = optionalValue(this);
    return (o.has ? o.value : d) as CelInput;
  }),
  celMethod('or', MAP, [MAP], MAP, function (other) {
    optionalValue(other);
    return optionalValue(this).has ? this : other;
  }),
];

/** The strings-extension functions of @bufbuild/cel that goCompatibleFuncs replaces (split only with a limit). */
const replacedStringFuncs = new Set(['charAt', 'indexOf', 'lastIndexOf', 'substring', 'split']);

/** Every function a CRD rule may call beyond CEL's standard library. */
export const kubernetesCelFunctions: readonly CelFunc[] = [
  ...equalityFuncs,
  ...strings.filter((f) => !(replacedStringFuncs.has(f.name) && (f.name !== 'split' || f.arguments.length === 2))),
  ...goCompatibleFuncs,
  ...listFuncs,
  ...setFuncs,
  ...regexFuncs,
  ...quantityFuncs,
  ...urlFuncs,
  ...formatFuncs,
  ...ipFuncs,
  ...authzFuncs,
  ...optionalFuncs,
];

