/**
 * Test-only protobuf encoder over the same schema, written the way gogo-protobuf's generated Marshal
 * behaves: non-pointer fields are always written (zero values too), pointers only when set, repeated
 * fields element by element, map entries sorted by key. Used for round trips; the hand-written byte
 * fixtures and the kubectl captures check the decoder independently of it.
 */
import { k8sSchema } from './schema/k8s-1.32.js';
import type { FieldTuple } from './schema/types.js';

const SCALARS = new Set(['double', 'float', 'int64', 'uint64', 'int32', 'fixed64', 'fixed32', 'bool', 'string', 'bytes', 'uint32', 'sfixed32', 'sfixed64', 'sint32', 'sint64']);
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** Appends protobuf primitives. */
export class WireWriter {
  private readonly parts: number[] = [];

  tag(field: number, wireType: number): this {
    return this.varint(BigInt(field * 8 + wireType));
  }

  varint(v: bigint | number): this {
    let x = BigInt.asUintN(64, BigInt(v));
    while (x >= 0x80n) {
      this.parts.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    this.parts.push(Number(x));
    return this;
  }

  bytes(field: number, b: Uint8Array | readonly number[]): this {
    this.tag(field, 2).varint(b.length);
    for (const x of b) this.parts.push(x);
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, Buffer.from(s, 'utf8'));
  }

  fixed64(field: number, v: number): this {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    this.tag(field, 1);
    for (const x of b) this.parts.push(x);
    return this;
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

/** `k8s\0` + runtime.Unknown{typeMeta{apiVersion, kind}, raw}. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const typeMeta = new WireWriter().string(1, apiVersion).string(2, kind).finish();
  const unknown = new WireWriter().bytes(1, typeMeta).bytes(2, raw).string(3, '').string(4, '').finish();
  return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...unknown]);
}

/** Encodes a JSON object of a kind (as the Go client would marshal it) into an envelope. */
export function encodeObject(obj: Record<string, unknown>): Uint8Array {
  const apiVersion = String(obj['apiVersion']);
  const kind = String(obj['kind']);
  const message = k8sSchema.kinds[apiVersion]?.[kind] ?? k8sSchema.kinds['meta.k8s.io/v1']?.[kind];
  if (message === undefined) throw new Error(`no message for ${apiVersion} ${kind}`);
  return envelope(apiVersion, kind, encodeMessage(message, obj));
}

export function encodeMessage(name: string, value: unknown): Uint8Array {
  const w = new WireWriter();
  switch (name) {
    case `${META}.Time`:
    case `${META}.MicroTime`: {
      if (typeof value !== 'string') return w.finish();
      const ms = Date.parse(value);
      const frac = /\.(\d+)Z$/.exec(value)?.[1] ?? '';
      const seconds = Math.floor(ms / 1000);
      return w.tag(1, 0).varint(seconds).tag(2, 0).varint(Number(frac.padEnd(9, '0').slice(0, 9))).finish();
    }
    case `${META}.Duration`:
      return w.tag(1, 0).varint(parseGoDuration(String(value))).finish();
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity':
      return w.string(1, String(value)).finish();
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString':
      if (typeof value === 'string') return w.tag(1, 0).varint(1).tag(2, 0).varint(0).string(3, value).finish();
      return w.tag(1, 0).varint(0).tag(2, 0).varint(Number(value)).string(3, '').finish();
    case `${META}.FieldsV1`:
    case 'k8s.io.apimachinery.pkg.runtime.RawExtension':
      return value === null || value === undefined ? w.finish() : w.bytes(1, Buffer.from(JSON.stringify(value))).finish();
  }
  const fields = k8sSchema.messages[name];
  if (fields === undefined) throw new Error(`unknown message ${name}`);
  if (k8sSchema.arrayWrappers.includes(name)) {
    for (const item of (value ?? []) as unknown[]) w.string(1, String(item));
    return w.finish();
  }
  const obj = (value ?? {}) as Record<string, unknown>;
  const pkg = name.slice(0, name.lastIndexOf('.'));
  for (const f of fields) writeField(w, f, pkg, obj);
  return w.finish();
}

function qualify(type: string, pkg: string): string {
  return SCALARS.has(type) || type.includes('.') ? type : `${pkg}.${type}`;
}

function writeField(w: WireWriter, f: FieldTuple, pkg: string, obj: Record<string, unknown>): void {
  const [name, number, type, flags, jsonName] = f;
  if (flags.includes('i')) {
    w.bytes(number, encodeMessage(qualify(type, pkg), obj));
    return;
  }
  const v = obj[jsonName ?? name];
  const map = /^map<([^,]+),(.+)>$/.exec(type);
  if (map !== null) {
    const entries = Object.entries((v ?? {}) as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [k, item] of entries) {
      const e = new WireWriter().string(1, k);
      writeValue(e, 2, qualify(map[2] ?? '', pkg), item);
      w.bytes(number, e.finish());
    }
    return;
  }
  const t = qualify(type, pkg);
  if (flags.includes('r')) {
    for (const item of (v ?? []) as unknown[]) writeValue(w, number, t, item);
    return;
  }
  const pointerLike = flags.includes('p') || flags.includes('s') || flags.includes('m');
  if (pointerLike && (v === undefined || v === null)) return;
  writeValue(w, number, t, v ?? zero(t));
}

function zero(type: string): unknown {
  if (type === 'string') return '';
  if (type === 'bool') return false;
  if (SCALARS.has(type)) return 0;
  return undefined;
}

function writeValue(w: WireWriter, number: number, type: string, v: unknown): void {
  switch (type) {
    case 'string':
      w.string(number, String(v));
      return;
    case 'bytes':
      w.bytes(number, Buffer.from(String(v), 'base64'));
      return;
    case 'bool':
      w.tag(number, 0).varint(v === true ? 1 : 0);
      return;
    case 'int32':
    case 'int64':
    case 'uint32':
    case 'uint64':
      w.tag(number, 0).varint(BigInt(Number(v)));
      return;
    case 'double':
      w.fixed64(number, Number(v));
      return;
    default:
      if (SCALARS.has(type)) throw new Error(`test encoder does not write ${type}`);
      w.bytes(number, encodeMessage(type, v));
  }
}

/** Parses the Go duration strings the fixtures use (`1h0m0s`, `1.5s`, `300ms`). */
export function parseGoDuration(s: string): number {
  const units: Record<string, number> = { h: 3.6e12, m: 6e10, s: 1e9, ms: 1e6, us: 1e3, µs: 1e3, ns: 1 };
  let total = 0;
  for (const m of s.matchAll(/([\d.]+)(h|ms|m|s|us|µs|ns)/g)) total += Number(m[1]) * (units[m[2] ?? ''] ?? 0);
  return Math.round(s.startsWith('-') ? -total : total);
}
