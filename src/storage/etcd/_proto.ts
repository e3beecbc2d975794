/**
 * The protobuf encoding of the few etcd v3 KV messages the backend's unary calls send and receive
 * (etcdserverpb/rpc.proto and mvccpb/kv.proto, etcd 3.4-3.5): RangeRequest, TxnRequest with its Compare and
 * RequestOp, and their responses. Written by hand because a generic codec (protobufjs through gRPC's proto
 * loader) cost several times more per call than the call's own HTTP/2 framing, on the API server's thread.
 *
 * int64 fields are read and written as JavaScript numbers: revisions, versions and counts stay far below 2^53.
 * Fields a message does not declare here are skipped when reading, as protobuf requires.
 */

// ---- writing

/** Appends protobuf fields to a growing buffer. */
export class ProtoWriter {
  private buf: Buffer;
  private len = 0;

  constructor(capacity = 256) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  private varint(v: number): void {
    this.reserve(10);
    while (v > 0x7f) {
      this.buf[this.len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.len++] = v;
  }

  /**
   * A varint field (int64, uint64, enum, bool); zero is left out, as proto3 does for scalars, unless
   * `always` (a member of a oneof, whose presence is what says which member is set).
   */
  uint(field: number, v: number, always = false): this {
    if (v === 0 && !always) return this;
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`protobuf field ${field}: ${v} is not a non-negative safe integer`);
    this.varint(field * 8);
    this.varint(v);
    return this;
  }

  bool(field: number, v: boolean | undefined): this {
    return v === true ? this.uint(field, 1) : this;
  }

  /** A bytes field; empty is left out (proto3), unless `always` (an explicit empty value in a oneof). */
  bytes(field: number, v: Uint8Array | undefined, always = false): this {
    if (v === undefined || (v.length === 0 && !always)) return this;
    this.varint(field * 8 + 2);
    this.varint(v.length);
    this.reserve(v.length);
    this.buf.set(v, this.len);
    this.len += v.length;
    return this;
  }

  /** An embedded message field, written by `write` into this writer (always present, even when empty). */
  message(field: number, write: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter(64);
    write(inner);
    return this.bytes(field, inner.finish(), true);
  }

  /** The bytes written so far (a view, valid until the next write). */
  finish(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

// ---- reading

/** Wire types of protobuf's encoding. */
const varintType = 0;
const fixed64Type = 1;
const bytesType = 2;
const fixed32Type = 5;

/** Reads one message's fields in order. */
export class ProtoReader {
  private pos: number;

  constructor(
    private readonly buf: Buffer,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  /** The next field's number and wire type, or undefined at the end of the message. */
  next(): { field: number; type: number } | undefined {
    if (this.pos >= this.end) return undefined;
    const tag = this.varint();
    return { field: Math.floor(tag / 8), type: tag % 8 };
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error('protobuf: truncated varint');
      const b = this.buf[this.pos++] as number;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 0x80;
      if (scale > 2 ** 63) throw new Error('protobuf: varint longer than 10 bytes');
    }
  }

  /** A length-delimited field's bytes (a view on the message's buffer). */
  bytes(): Buffer {
    const n = this.varint();
    if (this.pos + n > this.end) throw new Error('protobuf: truncated length-delimited field');
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /** Skips a field of the given wire type. */
  skip(type: number): void {
    if (type === varintType) this.varint();
    else if (type === fixed64Type) this.pos += 8;
    else if (type === bytesType) this.bytes();
    else if (type === fixed32Type) this.pos += 4;
    else throw new Error(`protobuf: unsupported wire type ${type}`);
    if (this.pos > this.end) throw new Error('protobuf: truncated field');
  }
}

/** Reads each field of a message with `onField`, which answers false for fields it does not read (skipped). */
function readMessage(buf: Buffer, onField: (r: ProtoReader, field: number, type: number) => boolean): void {
  const r = new ProtoReader(buf);
  for (let f = r.next(); f !== undefined; f = r.next()) {
    if (!onField(r, f.field, f.type)) r.skip(f.type);
  }
}

// ---- etcd's messages

/** mvccpb.KeyValue. */
export interface EtcdKeyValue {
  key: Buffer;
  createRevision: number;
  modRevision: number;
  version: number;
  value: Buffer;
  lease: number;
}

export interface RangeRequest {
  key: Uint8Array;
  rangeEnd?: Uint8Array;
  limit?: number;
  revision?: number;
  countOnly?: boolean;
}

export interface RangeResponse {
  /** header.revision: the store's revision when the range was served. */
  revision: number;
  kvs: EtcdKeyValue[];
  more: boolean;
  count: number;
}

export interface DeleteRangeResponse {
  revision: number;
  deleted: number;
  prevKvs: EtcdKeyValue[];
}

/** Compare: the key's version, create or mod revision against `value` (etcd's CompareTarget Version / Create / Mod). */
export interface Compare {
  key: Uint8Array;
  target: 'Version' | 'Create' | 'Mod';
  result: 'Equal' | 'Greater' | 'Less' | 'NotEqual';
  value: number;
}

export type RequestOp =
  | { range: RangeRequest }
  | { put: { key: Uint8Array; value: Uint8Array } }
  | { deleteRange: { key: Uint8Array; prevKv?: boolean } };

export type ResponseOp = { range: RangeResponse } | { put: { revision: number } } | { deleteRange: DeleteRangeResponse };

export interface TxnResponse {
  revision: number;
  succeeded: boolean;
  responses: ResponseOp[];
}

const compareResults = { Equal: 0, Greater: 1, Less: 2, NotEqual: 3 } as const;
/** CompareTarget and the field of target_union it compares with. */
const compareTargets = { Version: { target: 0, field: 4 }, Create: { target: 1, field: 5 }, Mod: { target: 2, field: 6 } } as const;

function writeRange(w: ProtoWriter, r: RangeRequest): void {
  w.bytes(1, r.key, true)
    .bytes(2, r.rangeEnd)
    .uint(3, r.limit ?? 0)
    .uint(4, r.revision ?? 0)
    .bool(9, r.countOnly);
}

export function encodeRangeRequest(r: RangeRequest): Buffer {
  const w = new ProtoWriter(64 + r.key.length * 2);
  writeRange(w, r);
  return w.finish();
}

function writeCompare(w: ProtoWriter, c: Compare): void {
  const { target, field } = compareTargets[c.target];
  w.uint(1, compareResults[c.result]).uint(2, target).bytes(3, c.key, true);
  // A member of the target_union oneof: written even when zero.
  w.uint(field, c.value, true);
}

function writeOp(w: ProtoWriter, op: RequestOp): void {
  if ('range' in op) w.message(1, (m) => writeRange(m, op.range));
  else if ('put' in op) w.message(2, (m) => m.bytes(1, op.put.key, true).bytes(2, op.put.value));
  else w.message(3, (m) => m.bytes(1, op.deleteRange.key, true).bool(3, op.deleteRange.prevKv));
}

export function encodeTxnRequest(compare: readonly Compare[], success: readonly RequestOp[], failure: readonly RequestOp[]): Buffer {
  let size = 64;
  for (const op of success) if ('put' in op) size += op.put.value.length + op.put.key.length;
  const w = new ProtoWriter(size);
  for (const c of compare) w.message(1, (m) => writeCompare(m, c));
  for (const op of success) w.message(2, (m) => writeOp(m, op));
  for (const op of failure) w.message(3, (m) => writeOp(m, op));
  return w.finish();
}

/** ResponseHeader.revision. */
function headerRevision(buf: Buffer): number {
  let revision = 0;
  readMessage(buf, (r, field, type) => {
    if (field !== 3 || type !== varintType) return false;
    revision = r.varint();
    return true;
  });
  return revision;
}

export function decodeKeyValue(buf: Buffer): EtcdKeyValue {
  const kv: EtcdKeyValue = { key: Buffer.alloc(0), createRevision: 0, modRevision: 0, version: 0, value: Buffer.alloc(0), lease: 0 };
  readMessage(buf, (r, field, type) => {
    if (type === bytesType && field === 1) kv.key = r.bytes();
    else if (type === bytesType && field === 5) kv.value = r.bytes();
    else if (type !== varintType) return false;
    else if (field === 2) kv.createRevision = r.varint();
    else if (field === 3) kv.modRevision = r.varint();
    else if (field === 4) kv.version = r.varint();
    else if (field === 6) kv.lease = r.varint();
    else return false;
    return true;
  });
  return kv;
}

export function decodeRangeResponse(buf: Buffer): RangeResponse {
  const res: RangeResponse = { revision: 0, kvs: [], more: false, count: 0 };
  readMessage(buf, (r, field, type) => {
    if (type === bytesType && field === 1) res.revision = headerRevision(r.bytes());
    else if (type === bytesType && field === 2) res.kvs.push(decodeKeyValue(r.bytes()));
    else if (type === varintType && field === 3) res.more = r.varint() !== 0;
    else if (type === varintType && field === 4) res.count = r.varint();
    else return false;
    return true;
  });
  return res;
}

function decodeDeleteRangeResponse(buf: Buffer): DeleteRangeResponse {
  const res: DeleteRangeResponse = { revision: 0, deleted: 0, prevKvs: [] };
  readMessage(buf, (r, field, type) => {
    if (type === bytesType && field === 1) res.revision = headerRevision(r.bytes());
    else if (type === varintType && field === 2) res.deleted = r.varint();
    else if (type === bytesType && field === 3) res.prevKvs.push(decodeKeyValue(r.bytes()));
    else return false;
    return true;
  });
  return res;
}

function decodeResponseOp(buf: Buffer): ResponseOp {
  let op: ResponseOp | undefined;
  readMessage(buf, (r, field, type) => {
    if (type !== bytesType) return false;
    if (field === 1) op = { range: decodeRangeResponse(r.bytes()) };
    else if (field === 2) {
      let revision = 0;
      readMessage(r.bytes(), (p, f, t) => {
        if (f !== 1 || t !== bytesType) return false;
        revision = headerRevision(p.bytes());
        return true;
      });
      op = { put: { revision } };
    } else if (field === 3) op = { deleteRange: decodeDeleteRangeResponse(r.bytes()) };
    else return false;
    return true;
  });
  if (op === undefined) throw new Error('protobuf: ResponseOp without a response');
  return op;
}

export function decodeTxnResponse(buf: Buffer): TxnResponse {
  const res: TxnResponse = { revision: 0, succeeded: false, responses: [] };
  readMessage(buf, (r, field, type) => {
    if (type === bytesType && field === 1) res.revision = headerRevision(r.bytes());
    else if (type === varintType && field === 2) res.succeeded = r.varint() !== 0;
    else if (type === bytesType && field === 3) res.responses.push(decodeResponseOp(r.bytes()));
    else return false;
    return true;
  });
  return res;
}
