import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeKeyValue, decodeRangeResponse, decodeTxnResponse, encodeRangeRequest, encodeTxnRequest, ProtoWriter } from './_proto.js';

const k = Buffer.from('k');
const hex = (s: string): Buffer => Buffer.from(s, 'hex');

// The backend's three transactions and a range, as bytes. Each was checked by decoding it with protobufjs
// and etcd's rpc.proto (the range is byte for byte what protobufjs encodes); the zero create_revision is
// present, as a oneof member must be, and Compare's result Equal (0) is left out, as proto3 does.
void test('requests encode as etcd reads them', () => {
  const cases: { name: string; got: Buffer; want: string }[] = [
    {
      name: 'create: Txn(If CreateRevision(k) == 0, Then Put(k, v))',
      got: encodeTxnRequest([{ key: k, target: 'Create', result: 'Equal', value: 0 }], [{ put: { key: k, value: Buffer.from('v') } }], []),
      want: '0a0710011a016b2800120812060a016b120176',
    },
    {
      name: 'update: Txn(If CreateRevision(k) > 0 && ModRevision(k) == 300, Then Put, Else Get)',
      got: encodeTxnRequest(
        [
          { key: k, target: 'Create', result: 'Greater', value: 0 },
          { key: k, target: 'Mod', result: 'Equal', value: 300 },
        ],
        [{ put: { key: k, value: Buffer.from('v') } }],
        [{ range: { key: k } }],
      ),
      want: '0a09080110011a016b28000a0810021a016b30ac02120812060a016b1201761a050a030a016b',
    },
    {
      name: 'delete: Txn(If CreateRevision(k) > 0, Then Delete(k, prevKv), Else Get)',
      got: encodeTxnRequest([{ key: k, target: 'Create', result: 'Greater', value: 0 }], [{ deleteRange: { key: k, prevKv: true } }], [{ range: { key: k } }]),
      want: '0a09080110011a016b280012071a050a016b18011a050a030a016b',
    },
    {
      name: 'range with an end, a limit, a revision and count_only',
      got: encodeRangeRequest({ key: Buffer.from('/a/'), rangeEnd: Buffer.from('/a0'), limit: 500, revision: 123456789, countOnly: true }),
      want: '0a032f612f12032f613018f40320959aef3a4801',
    },
    {
      name: 'range of one key leaves the zero fields out',
      got: encodeRangeRequest({ key: k, limit: 0, revision: 0 }),
      want: '0a016b',
    },
  ];
  for (const tc of cases) assert.equal(tc.got.toString('hex'), tc.want, tc.name);
});

void test('a put larger than the writer’s first buffer is written whole', () => {
  const value = Buffer.alloc(100_000, 7);
  const got = encodeTxnRequest([], [{ put: { key: k, value } }], []);
  // TxnRequest.success (field 2) > RequestOp.request_put (field 2) > PutRequest.value (field 2).
  assert.equal(got.length, 1 + 3 + 1 + 3 + 3 + 1 + 3 + value.length);
  assert.deepEqual(got.subarray(got.length - value.length), value);
});

void test('responses decode as etcd sends them', () => {
  // Encoded by protobufjs from etcd's rpc.proto: a failed update's TxnResponse (its Else Get found the key),
  // with a cluster id above 2^53 in the header, and a delete's (prev_kv) followed by a put's.
  const failed = decodeTxnResponse(
    hex('0a1508b298eaf1948386fccd01100118b1d1f9d603200210001a230a210a0618b1d1f9d60312130a016b100518ac0220072a0568656c6c6f300018012001'),
  );
  assert.equal(failed.revision, 987654321);
  assert.equal(failed.succeeded, false);
  const op = failed.responses[0];
  assert.ok(op !== undefined && 'range' in op);
  assert.equal(op.range.revision, 987654321);
  assert.equal(op.range.more, true);
  assert.equal(op.range.count, 1);
  assert.deepEqual(
    op.range.kvs.map((kv) => ({ ...kv, key: kv.key.toString(), value: kv.value.toString() })),
    [{ key: 'k', createRevision: 5, modRevision: 300, version: 7, value: 'hello', lease: 0 }],
  );

  const deleted = decodeTxnResponse(hex('0a02182a10011a161a140a02182a10011a0c0a016b1005182920022a01781a0612040a02182a'));
  assert.equal(deleted.revision, 42);
  assert.equal(deleted.succeeded, true);
  const [del, put] = deleted.responses;
  assert.ok(del !== undefined && 'deleteRange' in del);
  assert.equal(del.deleteRange.deleted, 1);
  assert.deepEqual(
    del.deleteRange.prevKvs.map((kv) => [kv.key.toString(), kv.createRevision, kv.modRevision, kv.version, kv.value.toString()]),
    [['k', 5, 41, 2, 'x']],
  );
  assert.deepEqual(put, { put: { revision: 42 } });
});

void test('fields a message does not declare here are skipped', () => {
  const w = new ProtoWriter();
  w.bytes(1, k).uint(2, 5);
  // An unknown varint, a fixed64, a fixed32 and a length-delimited field between the known ones.
  w.uint(14, 99).bytes(15, Buffer.from('ignored'));
  const withFixed = Buffer.concat([w.finish(), hex('8101' + '0102030405060708'), hex('8d01' + '01020304')]);
  const tail = new ProtoWriter().uint(3, 6).bytes(5, Buffer.from('v')).finish();
  const kv = decodeKeyValue(Buffer.concat([withFixed, tail]));
  assert.deepEqual([kv.key.toString(), kv.createRevision, kv.modRevision, kv.value.toString()], ['k', 5, 6, 'v']);
});

void test('a truncated message is an error, not a partial answer', () => {
  const whole = encodeRangeRequest({ key: Buffer.from('/registry/pods/') });
  assert.throws(() => decodeRangeResponse(Buffer.concat([hex('12'), hex('0a'), whole.subarray(0, 3)])), /truncated/);
  assert.throws(() => decodeRangeResponse(hex('20ff')), /truncated varint/);
});

void test('a negative or unsafe integer is refused instead of being encoded wrong', () => {
  assert.throws(() => encodeRangeRequest({ key: k, revision: -1 }), RangeError);
  assert.throws(() => encodeRangeRequest({ key: k, limit: 2 ** 53 }), RangeError);
});
