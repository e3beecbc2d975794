/**
 * Decoding of `application/vnd.kubernetes.protobuf` request bodies into the JSON objects the API server
 * works with. kubectl >= 1.31 (client-go "Use protobuf for core clients", kubernetes#125314) sends built-in
 * types this way.
 *
 * The result is the JSON the Go client would have sent for the same Go struct: upstream decodes the
 * protobuf into the Go struct, so everything the JSON path sees follows from `encoding/json` on that struct.
 * gogo-protobuf writes every non-pointer field, even when zero, so the wire alone cannot tell
 * `generateName: ""` (dropped by `omitempty`) from `replicas: 0` (a pointer, kept); the schema carries the
 * Go facts (`omitempty`, pointer, `,inline`) for that.
 */
import { WireReader, WireType, toInt32, toInt64, toUint64, zigzag32, zigzag64, type Uint64Parts } from './wire.js';
import { k8sSchema } from './schema/k8s-1.32.js';
import type { FieldTuple, ProtoSchema } from './schema/types.js';
import { isEmptyObject } from '../patch/json.js';

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

/** The `k8s\0` magic that precedes a `runtime.Unknown` envelope. */
export const PROTOBUF_PREFIX: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** True for `application/vnd.kubernetes.protobuf` with or without parameters, in any letter case. */
export function isProtobufContentType(ct: string): boolean {
  return (ct.split(';')[0] ?? '').trim().toLowerCase() === PROTOBUF_CONTENT_TYPE;
}

export interface DecodedProtobufObject {
  apiVersion: string;
  kind: string;
  /** The object as JSON, `kind` and `apiVersion` first. */
  object: Record<string, unknown>;
}

/** Group/version/kind to assume when the envelope leaves them empty (upstream's `copyKindDefaults`). */
export interface KindDefaults {
  readonly apiVersion?: string;
  readonly kind?: string;
}

/** metav1 types that `AddToGroupVersion` registers in every group version. */
const META_IN_EVERY_VERSION = new Set(['WatchEvent', 'ListOptions', 'GetOptions', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions']);
/** metav1 types registered as unversioned (`v1`) besides meta.k8s.io/v1. */
const META_UNVERSIONED = new Set(['Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList']);
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
/** kube-apiserver's scheme name, as `runtime.NewNotRegisteredErrForKind` prints it. */
const SCHEME_NAME = 'k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30';

/**
 * A body that cannot be decoded. `actual` is the kind and apiVersion read from the envelope (after
 * defaulting) when decoding got that far; upstream's `transformDecodeError` words the 400 from it.
 */
export class ProtobufDecodeError extends Error {
  constructor(
    message: string,
    readonly actual?: { readonly apiVersion: string; readonly kind: string },
  ) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

/**
 * The message of the 400 BadRequest kube-apiserver answers for a body that failed to decode
 * (`transformDecodeError` in k8s.io/apiserver/pkg/endpoints/handlers/rest.go): `intoKind` is the kind
 * the endpoint expects.
 */
export function decodeErrorMessage(err: ProtobufDecodeError, intoKind: string, body: Uint8Array): string {
  if (err.actual !== undefined && err.actual.kind !== '') {
    return `${err.actual.kind} in version ${JSON.stringify(versionOf(err.actual.apiVersion))} cannot be handled as a ${intoKind}: ${err.message}`;
  }
  return `the object provided is unrecognized (must be of type ${intoKind}): ${err.message} (${summarizeData(body, 30)})`;
}

function summarizeData(data: Uint8Array, maxLength: number): string {
  if (data.length === 0) return '<empty>';
  if (data[0] === 0x7b) return data.length > maxLength ? `${utf8.decode(data.subarray(0, maxLength))} ...` : utf8.decode(data);
  const hex = Buffer.from(data.subarray(0, maxLength)).toString('hex');
  return data.length > maxLength ? `${hex} ...` : hex;
}

const SPECIAL = {
  [`${META}.Time`]: 'time',
  [`${META}.MicroTime`]: 'microTime',
  [`${META}.Duration`]: 'duration',
  [`${META}.FieldsV1`]: 'rawJson',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawJson',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
} as const satisfies Record<string, string>;
type Special = (typeof SPECIAL)[keyof typeof SPECIAL];

export interface FieldInfo {
  readonly protoName: string;
  readonly number: number;
  readonly json: string;
  /** scalar type name, or the fully qualified message name */
  readonly type: string;
  readonly isMessage: boolean;
  /** set for `map<K,V>`: key scalar, value as above */
  readonly map?: { readonly key: string; readonly value: string; readonly valueIsMessage: boolean };
  readonly repeated: boolean;
  readonly omitEmpty: boolean;
  readonly inline: boolean;
  readonly goKind: 'pointer' | 'slice' | 'map' | 'value';
}

interface MessageInfo {
  readonly name: string;
  readonly fields: readonly FieldInfo[];
  readonly byNumber: ReadonlyMap<number, FieldInfo>;
}

const SCALAR_TYPES = new Set(['double', 'float', 'int64', 'uint64', 'int32', 'fixed64', 'fixed32', 'bool', 'string', 'bytes', 'uint32', 'sfixed32', 'sfixed64', 'sint32', 'sint64']);

/** An index over a schema: message lookup by name, kind lookup by apiVersion. Immutable once built. */
export class ProtobufDecoder {
  private readonly messages = new Map<string, MessageInfo>();
  private readonly arrayWrappers: ReadonlySet<string>;

  constructor(private readonly schema: ProtoSchema = k8sSchema) {
    this.arrayWrappers = new Set(schema.arrayWrappers);
    for (const [name, fields] of schemaFields(schema)) {
      this.messages.set(name, { name, fields, byNumber: new Map(fields.map((f) => [f.number, f])) });
    }
  }

  /** The protobuf message of a kind, or undefined when this server does not know the kind. */
  messageFor(apiVersion: string, kind: string): string | undefined {
    const direct = this.schema.kinds[apiVersion]?.[kind];
    if (direct !== undefined) return direct;
    if (META_IN_EVERY_VERSION.has(kind) || (META_UNVERSIONED.has(kind) && apiVersion === 'v1')) return this.schema.kinds['meta.k8s.io/v1']?.[kind];
    return undefined;
  }

  /** Decodes a `k8s\0` + `runtime.Unknown` body. Throws an Error (a 400 BadRequest for the caller) on bad input. */
  decodeObject(body: Uint8Array, defaults: KindDefaults = {}): DecodedProtobufObject {
    if (body.length === 0) throw new ProtobufDecodeError('empty data');
    if (body.length < PROTOBUF_PREFIX.length || PROTOBUF_PREFIX.some((b, i) => body[i] !== b)) {
      throw new ProtobufDecodeError(`provided data does not appear to be a protobuf message, expected prefix [${PROTOBUF_PREFIX.join(' ')}]`);
    }
    if (body.length === PROTOBUF_PREFIX.length) throw new ProtobufDecodeError('empty body');
    let unknown: { apiVersion: string; kind: string; raw: Uint8Array };
    try {
      unknown = readUnknown(body.subarray(PROTOBUF_PREFIX.length));
    } catch (e) {
      throw new ProtobufDecodeError((e as Error).message);
    }
    let { apiVersion, kind } = unknown;
    if (kind === '') kind = defaults.kind ?? '';
    if (versionOf(apiVersion) === '' && defaults.apiVersion !== undefined && versionOf(defaults.apiVersion) !== '') apiVersion = defaults.apiVersion;
    const actual = { apiVersion, kind };
    const typeMeta = `runtime.TypeMeta{APIVersion:${JSON.stringify(unknown.apiVersion)}, Kind:${JSON.stringify(unknown.kind)}}`;
    if (kind === '') throw new ProtobufDecodeError(`Object 'Kind' is missing in '${typeMeta}'`, actual);
    if (versionOf(apiVersion) === '') throw new ProtobufDecodeError(`Object 'apiVersion' is missing in '${typeMeta}'`, actual);
    const message = this.messageFor(apiVersion, kind);
    if (message === undefined) {
      throw new ProtobufDecodeError(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ${JSON.stringify(SCHEME_NAME)}`, actual);
    }
    let decoded: unknown;
    try {
      decoded = this.decodeMessage(message, unknown.raw);
    } catch (e) {
      throw new ProtobufDecodeError((e as Error).message, actual);
    }
    if (!isRecord(decoded)) throw new ProtobufDecodeError(`${message} does not decode to an object`, actual);
    return { apiVersion, kind, object: { kind, apiVersion, ...decoded } };
  }

  /**
   * Decodes one message (no envelope) to its JSON value: an object for ordinary messages, or the JSON form
   * of the special types (`Time` -> RFC 3339 string, `IntOrString` -> number or string, ...).
   */
  decodeMessage(messageName: string, bytes: Uint8Array): unknown {
    const special = (SPECIAL as Readonly<Record<string, Special>>)[messageName];
    if (special !== undefined) return this.decodeSpecial(special, messageName, bytes);
    const info = this.messages.get(messageName);
    if (info === undefined) throw new Error(`unknown protobuf message ${messageName}`);
    if (this.arrayWrappers.has(messageName)) {
      const items = info.byNumber.get(1);
      if (items === undefined) throw new Error(`bad array wrapper ${messageName}`);
      return this.readFields(info, bytes).get(1)?.map((v) => this.convert(items, items.type, items.isMessage, v)) ?? [];
    }
    const seen = this.readFields(info, bytes);
    const out: Record<string, unknown> = {};
    for (const f of info.fields) {
      if (f.json === '-') continue;
      const values = seen.get(f.number);
      if (f.inline) {
        const nested = this.decodeMessage(f.type, concat((values ?? []) as Uint8Array[]));
        if (isRecord(nested)) Object.assign(out, nested);
        continue;
      }
      if (values === undefined) {
        const zero = this.zeroJson(f);
        if (zero !== undefined) out[f.json] = zero.value;
        continue;
      }
      const v = this.present(f, values);
      if (v === OMIT || (f.omitEmpty && isGoEmpty(f, v))) continue;
      out[f.json] = v;
    }
    return out;
  }

  /** Reads all fields of one message: number -> raw values in wire order (messages and bytes as views). */
  private readFields(info: MessageInfo, bytes: Uint8Array): Map<number, RawValue[]> {
    const seen = new Map<number, RawValue[]>();
    const r = new WireReader(bytes);
    while (!r.done) {
      const { fieldNumber, wireType } = r.tag();
      const f = info.byNumber.get(fieldNumber);
      if (f === undefined) {
        r.skip(wireType, fieldNumber);
        continue;
      }
      const list = seen.get(fieldNumber) ?? [];
      seen.set(fieldNumber, list);
      const type = f.map !== undefined ? 'message' : f.isMessage ? 'message' : f.type;
      const expected = expectedWireType(type);
      if (wireType === expected) list.push(readScalar(r, wireType));
      else if (f.repeated && wireType === WireType.lengthDelimited && expected !== WireType.lengthDelimited) {
        const packed = new WireReader(r.bytes());
        while (!packed.done) list.push(readScalar(packed, expected));
      } else throw new Error(`proto: wrong wireType = ${wireType} for field ${f.protoName} of ${info.name}`);
    }
    return seen;
  }

  /** JSON of a field that was on the wire; OMIT when Go would leave it out. */
  private present(f: FieldInfo, values: readonly RawValue[]): unknown {
    if (f.map !== undefined) {
      const m = f.map;
      const out: Record<string, unknown> = {};
      for (const entry of values as Uint8Array[]) {
        let key: RawValue | undefined;
        let value: RawValue | undefined;
        const r = new WireReader(entry);
        while (!r.done) {
          const t = r.tag();
          if (t.fieldNumber === 1 && t.wireType === expectedWireType(m.key)) key = readScalar(r, t.wireType);
          else if (t.fieldNumber === 2 && t.wireType === expectedWireType(m.valueIsMessage ? 'message' : m.value)) value = readScalar(r, t.wireType);
          else r.skip(t.wireType, t.fieldNumber);
        }
        const k = key === undefined ? zeroScalar(m.key) : this.convert(f, m.key, false, key);
        const v = value === undefined ? (m.valueIsMessage ? this.decodeMessage(m.value, new Uint8Array()) : zeroScalar(m.value)) : this.convert(f, m.value, m.valueIsMessage, value);
        out[String(k)] = v;
      }
      return out;
    }
    if (f.repeated) return values.map((v) => this.convert(f, f.type, f.isMessage, v));
    // A non-repeated message field seen several times is merged, which for protobuf equals decoding the
    // concatenated bytes; a scalar seen several times keeps the last value.
    if (f.isMessage) return this.decodeMessage(f.type, concat(values as Uint8Array[]));
    const last = values[values.length - 1];
    return last === undefined ? OMIT : this.convert(f, f.type, false, last);
  }

  /**
   * What `encoding/json` writes for a field holding the Go zero value (a field not on the wire): `{ value }`,
   * or undefined when `omitempty` leaves it out. A struct that is not a pointer is written whatever its tag.
   */
  zeroJson(f: FieldInfo): { value: unknown } | undefined {
    if (f.omitEmpty && f.goKind !== 'value') return undefined;
    if (f.goKind !== 'value' || f.repeated || f.map !== undefined || f.type === 'bytes') return { value: null };
    if (f.isMessage) return { value: this.decodeMessage(f.type, new Uint8Array()) };
    const value = zeroScalar(f.type);
    return f.omitEmpty && isGoEmpty(f, value) ? undefined : { value };
  }

  private convert(f: FieldInfo, type: string, isMessage: boolean, v: RawValue): unknown {
    if (isMessage) return this.decodeMessage(type, v as Uint8Array);
    switch (type) {
      case 'string':
        return utf8.decode(v as Uint8Array);
      case 'bytes':
        return Buffer.from(v as Uint8Array).toString('base64');
      case 'bool':
        return (v as Uint64Parts).lo !== 0 || (v as Uint64Parts).hi !== 0;
      case 'int32':
      case 'sfixed32':
        return toInt32(v as Uint64Parts);
      case 'uint32':
      case 'fixed32':
        return (v as Uint64Parts).lo >>> 0;
      case 'int64':
      case 'sfixed64':
        return toInt64(v as Uint64Parts);
      case 'uint64':
      case 'fixed64':
        return toUint64(v as Uint64Parts);
      case 'sint32':
        return zigzag32(v as Uint64Parts);
      case 'sint64':
        return zigzag64(v as Uint64Parts);
      case 'double': {
        const p = v as Uint64Parts;
        const dv = new DataView(new ArrayBuffer(8));
        dv.setUint32(0, p.lo, true);
        dv.setUint32(4, p.hi, true);
        return dv.getFloat64(0, true);
      }
      case 'float': {
        const dv = new DataView(new ArrayBuffer(4));
        dv.setUint32(0, (v as Uint64Parts).lo, true);
        return dv.getFloat32(0, true);
      }
      default:
        throw new Error(`unsupported protobuf type ${type} of field ${f.protoName}`);
    }
  }

  private decodeSpecial(kind: Special, name: string, bytes: Uint8Array): unknown {
    const fields = new Map<number, RawValue>();
    const r = new WireReader(bytes);
    while (!r.done) {
      const t = r.tag();
      fields.set(t.fieldNumber, readScalar(r, t.wireType));
    }
    const num = (n: number): number => {
      const v = fields.get(n);
      if (v === undefined) return 0;
      if (v instanceof Uint8Array) throw new Error(`proto: wrong wireType = ${WireType.lengthDelimited} for field ${n} of ${name}`);
      return toInt64(v);
    };
    const bin = (n: number): Uint8Array | undefined => {
      const v = fields.get(n);
      if (v === undefined || v instanceof Uint8Array) return v;
      throw new Error(`proto: wrong wireType = ${WireType.varint} for field ${n} of ${name}`);
    };
    switch (kind) {
      case 'time':
        // Go's metav1.Time writes nothing for the zero time, which marshals to JSON null.
        return bytes.length === 0 ? null : formatTime(num(1), num(2), false);
      case 'microTime':
        return bytes.length === 0 ? null : formatTime(num(1), num(2), true);
      case 'duration':
        return formatGoDuration(num(1));
      case 'quantity': {
        const s = bin(1);
        return s === undefined || s.length === 0 ? '0' : utf8.decode(s);
      }
      case 'intOrString':
        return num(1) === 1 ? utf8.decode(bin(3) ?? new Uint8Array()) : toInt32({ lo: num(2) >>> 0, hi: 0 });
      case 'rawJson': {
        const raw = bin(1);
        if (raw === undefined || raw.length === 0) return null;
        if (PROTOBUF_PREFIX.every((b, i) => raw[i] === b)) return this.decodeObject(raw).object;
        try {
          return JSON.parse(utf8.decode(raw)) as unknown;
        } catch (e) {
          throw new Error(`${name} does not hold JSON: ${(e as Error).message}`);
        }
      }
    }
  }
}

type RawValue = Uint64Parts | Uint8Array;

const OMIT = Symbol('omit');
const utf8 = new TextDecoder();
const defaultDecoder = new ProtobufDecoder();

/**
 * Decodes a protobuf request body (`k8s\0` + `runtime.Unknown`) into its JSON object, which includes
 * `apiVersion` and `kind`. Throws a `ProtobufDecodeError` with upstream's message for malformed bodies and
 * unknown kinds; `decodeErrorMessage` words the 400 BadRequest for it.
 */
export function decodeProtobufObject(body: Uint8Array, defaults?: KindDefaults): DecodedProtobufObject {
  return defaultDecoder.decodeObject(body, defaults);
}

/** `ProtobufDecoder.zeroJson` for the built-in schema. */
export function goZeroJson(f: FieldInfo): { value: unknown } | undefined {
  return defaultDecoder.zeroJson(f);
}

/** Every message of a schema with its fields, by fully qualified name. */
export function schemaFields(schema: ProtoSchema): Map<string, FieldInfo[]> {
  const fields = new Map<string, FieldInfo[]>();
  for (const [name, tuples] of Object.entries(schema.messages)) {
    const pkg = name.slice(0, name.lastIndexOf('.'));
    fields.set(name, tuples.map((t) => fieldInfo(t, pkg)));
  }
  return fields;
}

/** The message a field's value (or its elements, or its map values) is, if any. */
export function valueMessage(f: FieldInfo): string | undefined {
  if (f.map !== undefined) return f.map.valueIsMessage ? f.map.value : undefined;
  return f.isMessage ? f.type : undefined;
}

/** How a field holds its values in JSON: `one` itself, `each` element of a list, the `values` of a map. */
export function valueShape(f: FieldInfo): 'one' | 'each' | 'values' {
  return f.map !== undefined ? 'values' : f.repeated ? 'each' : 'one';
}

export function fieldInfo(t: FieldTuple, pkg: string): FieldInfo {
  const [protoName, number, type, flags, json] = t;
  const qualify = (name: string): string => (SCALAR_TYPES.has(name) || name.includes('.') ? name : `${pkg}.${name}`);
  const mapMatch = /^map<([^,]+),(.+)>$/.exec(type);
  const goKind = flags.includes('p') ? 'pointer' : flags.includes('s') ? 'slice' : flags.includes('m') ? 'map' : 'value';
  const base = { protoName, number, json: json ?? protoName, repeated: flags.includes('r'), omitEmpty: flags.includes('o'), inline: flags.includes('i'), goKind } as const;
  if (mapMatch !== null) {
    const value = qualify(mapMatch[2] ?? '');
    return { ...base, type: 'map', isMessage: false, map: { key: mapMatch[1] ?? 'string', value, valueIsMessage: !SCALAR_TYPES.has(value) } };
  }
  const full = qualify(type);
  return { ...base, type: full, isMessage: !SCALAR_TYPES.has(full) };
}

function readUnknown(bytes: Uint8Array): { apiVersion: string; kind: string; raw: Uint8Array } {
  const out: { apiVersion: string; kind: string; raw: Uint8Array } = { apiVersion: '', kind: '', raw: new Uint8Array() };
  const r = new WireReader(bytes);
  while (!r.done) {
    const { fieldNumber, wireType } = r.tag();
    if (fieldNumber === 1 && wireType === WireType.lengthDelimited) {
      const tm = new WireReader(r.bytes());
      while (!tm.done) {
        const t = tm.tag();
        if (t.fieldNumber === 1 && t.wireType === WireType.lengthDelimited) out.apiVersion = utf8.decode(tm.bytes());
        else if (t.fieldNumber === 2 && t.wireType === WireType.lengthDelimited) out.kind = utf8.decode(tm.bytes());
        else tm.skip(t.wireType, t.fieldNumber);
      }
    } else if (fieldNumber === 2 && wireType === WireType.lengthDelimited) out.raw = r.bytes();
    else if (fieldNumber <= 4 && wireType !== WireType.lengthDelimited) throw new Error(`proto: wrong wireType = ${wireType} for field ${fieldNumber} of runtime.Unknown`);
    else r.skip(wireType, fieldNumber);
  }
  return out;
}

function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}

function expectedWireType(type: string): number {
  switch (type) {
    case 'double':
    case 'fixed64':
    case 'sfixed64':
      return WireType.fixed64;
    case 'float':
    case 'fixed32':
    case 'sfixed32':
      return WireType.fixed32;
    case 'string':
    case 'bytes':
    case 'message':
      return WireType.lengthDelimited;
    default:
      return WireType.varint;
  }
}

function readScalar(r: WireReader, wireType: number): RawValue {
  switch (wireType) {
    case WireType.varint:
      return r.varint64();
    case WireType.fixed64:
      return r.fixed64();
    case WireType.fixed32:
      return { lo: r.fixed32(), hi: 0 };
    case WireType.lengthDelimited:
      return r.bytes();
    default:
      throw new Error(`unexpected wire type ${wireType}`);
  }
}

function zeroScalar(type: string): unknown {
  if (type === 'string') return '';
  if (type === 'bool') return false;
  if (type === 'bytes') return null;
  return 0;
}

/** Go's `isEmptyValue` on the decoded Go value, seen through its JSON form. */
export function isGoEmpty(f: FieldInfo, v: unknown): boolean {
  // A pointer that was on the wire is non-nil, so never empty (a non-nil *Time to the zero time marshals as null).
  if (f.goKind === 'pointer') return false;
  if (f.goKind === 'slice' || f.goKind === 'map' || f.repeated || f.map !== undefined) {
    return v === null || (Array.isArray(v) && v.length === 0) || v === '' || (isRecord(v) && isEmptyObject(v));
  }
  if (f.isMessage) return false;
  return v === '' || v === 0 || v === false;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  return Buffer.concat(parts);
}

/** `metav1.Time` (RFC 3339, seconds) and `metav1.MicroTime` (RFC 3339 with 6 fractional digits), in UTC. */
export function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString();
  const base = iso.slice(0, iso.indexOf('.'));
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

/** Go's `time.Duration.String()` (`1h0m0s`, `1.5s`, `300ms`, `0s`). */
export function formatGoDuration(nanoseconds: number): string {
  if (nanoseconds === 0) return '0s';
  const neg = nanoseconds < 0;
  let u = Math.abs(nanoseconds);
  const sign = neg ? '-' : '';
  if (u < 1e9) {
    // Sub-second: a single unit with a fraction.
    const [unit, scale] = u < 1e3 ? ['ns', 1] : u < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${sign}${fraction(u, scale)}${unit}`;
  }
  const h = Math.floor(u / 3.6e12);
  u -= h * 3.6e12;
  const m = Math.floor(u / 6e10);
  u -= m * 6e10;
  const s = fraction(u, 1e9);
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

function fraction(value: number, scale: number): string {
  const whole = Math.floor(value / scale);
  const rest = value - whole * scale;
  if (rest === 0) return String(whole);
  const digits = String(scale).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}
