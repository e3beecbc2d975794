import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WireReader, WireType, toInt32, toInt64, toUint64, zigzag32, zigzag64 } from './wire.js';

const reader = (...bytes: number[]): WireReader => new WireReader(Uint8Array.from(bytes));

test('varints from the protobuf encoding guide', () => {
  // https://protobuf.dev/programming-guides/encoding/#varints
  assert.equal(toUint64(reader(0x01).varint64()), 1);
  assert.equal(toUint64(reader(0x96, 0x01).varint64()), 150);
  assert.equal(toUint64(reader(0xac, 0x02).varint64()), 300);
  assert.equal(toUint64(reader(0xff, 0xff, 0xff, 0xff, 0x0f).varint64()), 0xffffffff);
  assert.equal(toUint64(reader(0x80, 0x80, 0x80, 0x80, 0x10).varint64()), 2 ** 32);
});

test('negative int32 and int64 are ten-byte two\'s complement varints', () => {
  const minusOne = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
  assert.equal(toInt32(reader(...minusOne).varint64()), -1);
  assert.equal(toInt64(reader(...minusOne).varint64()), -1);
  // -2 as int64
  assert.equal(toInt64(reader(0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01).varint64()), -2);
  // 1700000000 seconds (a metav1.Time) fits in five bytes
  assert.equal(toInt64(reader(0x80, 0xe2, 0xcf, 0xaa, 0x06).varint64()), 1700000000);
});

test('zigzag decoding of sint32 and sint64', () => {
  assert.equal(zigzag32(reader(0x00).varint64()), 0);
  assert.equal(zigzag32(reader(0x01).varint64()), -1);
  assert.equal(zigzag32(reader(0x02).varint64()), 1);
  assert.equal(zigzag32(reader(0xfd, 0xff, 0xff, 0xff, 0x0f).varint64()), -2147483647);
  assert.equal(zigzag64(reader(0x03).varint64()), -2);
  assert.equal(zigzag64(reader(0x04).varint64()), 2);
});

test('a tag carries the field number and the wire type', () => {
  assert.deepEqual(reader(0x08).tag(), { fieldNumber: 1, wireType: WireType.varint });
  assert.deepEqual(reader(0x12).tag(), { fieldNumber: 2, wireType: WireType.lengthDelimited });
  assert.deepEqual(reader(0x8a, 0x01).tag(), { fieldNumber: 17, wireType: WireType.lengthDelimited });
  assert.throws(() => reader(0x02).tag(), /illegal field number 0/);
});

test('fixed32, fixed64 and length-delimited payloads', () => {
  assert.equal(reader(0x78, 0x56, 0x34, 0x12).fixed32(), 0x12345678);
  assert.deepEqual(reader(1, 0, 0, 0, 2, 0, 0, 0).fixed64(), { lo: 1, hi: 2 });
  const r = reader(0x03, 0x61, 0x62, 0x63, 0x01);
  assert.deepEqual([...r.bytes()], [0x61, 0x62, 0x63]);
  assert.equal(r.offset, 4);
  assert.equal(r.done, false);
});

test('truncated input is an error, not a short read', () => {
  assert.throws(() => reader(0x80).varint64(), /unexpected end of data/);
  assert.throws(() => reader(0x05, 0x61).bytes(), /overruns the message/);
  assert.throws(() => reader(1, 2, 3).fixed32(), /unexpected end of data/);
  assert.throws(() => reader(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01).varint64(), /varint longer than 10 bytes/);
});

test('skipping unknown fields of every wire type, groups included', () => {
  // field 1 varint 150, field 2 fixed64, field 3 bytes "ab", field 4 group { field 1 varint 1 }, field 5 fixed32, then field 6 varint 7
  const r = reader(0x08, 0x96, 0x01, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 0x1a, 0x02, 0x61, 0x62, 0x23, 0x08, 0x01, 0x24, 0x2d, 1, 2, 3, 4, 0x30, 0x07);
  for (let i = 0; i < 5; i++) {
    const t = r.tag();
    r.skip(t.wireType, t.fieldNumber);
  }
  assert.deepEqual(r.tag(), { fieldNumber: 6, wireType: WireType.varint });
  assert.equal(toUint64(r.varint64()), 7);
  assert.equal(r.done, true);
  assert.throws(() => reader(0x0e).skip(6, 1), /illegal wire type 6 for field 1/);
  assert.throws(() => reader(0x24).skip(WireType.startGroup, 3), /mismatched end group for field 3/);
});
