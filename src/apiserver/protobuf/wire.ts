/**
 * Protocol Buffers wire format (https://protobuf.dev/programming-guides/encoding/): a bounds-checked
 * reader of tags, varints, fixed-width numbers and length-delimited fields. It knows nothing about
 * Kubernetes; `decode.ts` drives it with the schema.
 */

export const WireType = {
  varint: 0,
  fixed64: 1,
  lengthDelimited: 2,
  startGroup: 3,
  endGroup: 4,
  fixed32: 5,
} as const;
export type WireType = (typeof WireType)[keyof typeof WireType];

/** A 64-bit varint or fixed64 as two unsigned 32-bit halves, so no precision is lost while reading. */
export interface Uint64Parts {
  readonly lo: number;
  readonly hi: number;
}

const TWO_32 = 4294967296;

/** Reads one message's bytes front to back. Every read throws a descriptive Error on truncated input. */
export class WireReader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  get offset(): number {
    return this.pos;
  }

  /** Reads a field key; returns the field number and wire type. */
  tag(): { fieldNumber: number; wireType: number } {
    const at = this.pos;
    const { lo, hi } = this.varint64();
    const key = hi * TWO_32 + lo;
    const fieldNumber = Math.floor(key / 8);
    if (fieldNumber === 0 || fieldNumber > 0x1fffffff) throw new Error(`illegal field number ${fieldNumber} at offset ${at}`);
    return { fieldNumber, wireType: lo & 7 };
  }

  varint64(): Uint64Parts {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      if (i < 4) lo += (b & 0x7f) * 2 ** (7 * i);
      else if (i === 4) {
        lo += (b & 0x0f) * 2 ** 28;
        hi += (b & 0x70) >>> 4;
      } else hi += (b & 0x7f) * 2 ** (7 * i - 32);
      if (b < 0x80) return { lo: lo >>> 0, hi: hi >>> 0 };
    }
    throw new Error(`varint longer than 10 bytes at offset ${this.pos}`);
  }

  fixed32(): number {
    this.need(4);
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 4).getUint32(0, true);
    this.pos += 4;
    return v;
  }

  fixed64(): Uint64Parts {
    const lo = this.fixed32();
    const hi = this.fixed32();
    return { lo, hi };
  }

  /** The payload of a length-delimited field (a view, not a copy). */
  bytes(): Uint8Array {
    const { lo, hi } = this.varint64();
    if (hi !== 0 || lo > this.buf.length - this.pos) {
      throw new Error(`length-delimited field of ${hi * TWO_32 + lo} bytes overruns the message at offset ${this.pos}`);
    }
    const out = this.buf.subarray(this.pos, this.pos + lo);
    this.pos += lo;
    return out;
  }

  /** Skips a field of the given wire type (unknown fields are ignored, as Go's generated Unmarshal does). */
  skip(wireType: number, fieldNumber: number): void {
    switch (wireType) {
      case WireType.varint:
        this.varint64();
        return;
      case WireType.fixed64:
        this.need(8);
        this.pos += 8;
        return;
      case WireType.lengthDelimited:
        this.bytes();
        return;
      case WireType.fixed32:
        this.need(4);
        this.pos += 4;
        return;
      case WireType.startGroup:
        for (;;) {
          const t = this.tag();
          if (t.wireType === WireType.endGroup) {
            if (t.fieldNumber !== fieldNumber) throw new Error(`mismatched end group for field ${fieldNumber}`);
            return;
          }
          this.skip(t.wireType, t.fieldNumber);
        }
      default:
        throw new Error(`illegal wire type ${wireType} for field ${fieldNumber}`);
    }
  }

  private byte(): number {
    const b = this.buf[this.pos];
    if (b === undefined) throw new Error(`unexpected end of data at offset ${this.pos}`);
    this.pos++;
    return b;
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new Error(`unexpected end of data at offset ${this.pos}`);
  }
}

/** int64 / int32 (two's complement, sign-extended to 64 bits on the wire) as a JS number. */
export function toInt64(v: Uint64Parts): number {
  return v.hi >= 0x80000000 ? (v.hi - TWO_32) * TWO_32 + v.lo : v.hi * TWO_32 + v.lo;
}

export function toUint64(v: Uint64Parts): number {
  return v.hi * TWO_32 + v.lo;
}

export function toInt32(v: Uint64Parts): number {
  return v.lo | 0;
}

export function zigzag64(v: Uint64Parts): number {
  const n = toUint64(v);
  return v.lo & 1 ? -(n + 1) / 2 : n / 2;
}

export function zigzag32(v: Uint64Parts): number {
  return (v.lo >>> 1) ^ -(v.lo & 1);
}
