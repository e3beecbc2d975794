import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ApiError } from '../../api/errors.js';
import { parseProtobufBody } from './body.js';

const testdata = new URL('../../../../src/apiserver/protobuf/testdata/', import.meta.url);

test('a kubectl body decodes to the object the handler stores', () => {
  const body = new Uint8Array(readFileSync(new URL('configmap.pb', testdata)));
  assert.deepEqual(parseProtobufBody(body, { kind: 'ConfigMap', apiVersion: 'v1' }), {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'cm1', creationTimestamp: null },
    data: { a: 'b', c: 'd' },
  });
});

test('a body that does not decode is a 400 BadRequest worded as kube-apiserver words it', () => {
  const body = Uint8Array.from(Buffer.from('not protobuf'));
  assert.throws(
    () => parseProtobufBody(body, { kind: 'Pod' }),
    (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 400);
      assert.equal(e.reason, 'BadRequest');
      assert.equal(e.message, 'the object provided is unrecognized (must be of type Pod): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (6e6f742070726f746f627566)');
      return true;
    },
  );
});
