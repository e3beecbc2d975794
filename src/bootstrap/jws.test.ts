import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeDetachedSignature, detachedTokenIsValid } from './jws.js';

// k8s.io/cluster-bootstrap/token/jws/jws_test.go
const content = 'Hello from the other side. I must have called a thousand times.';
const secret = 'my voice is my passcode';
const id = 'joshua';

test('ComputeDetachedSignature', () => {
  assert.equal(computeDetachedSignature(content, id, secret), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8');
  // Try with null content
  assert.equal(computeDetachedSignature('', id, secret), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..7Ui1ALizW4jXphVUB7xUqC9vLYLL9RZeOFfVLoB7Tgk');
  // Try with no secret
  assert.equal(computeDetachedSignature(content, id, ''), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..UfkqvDGiIFxrMnFseDj9LYJOLNrvjW8aHhF71mvvAs8');
});

test('DetachedTokenIsValid', () => {
  const sig = 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8';
  assert.equal(detachedTokenIsValid(sig, content, id, secret), true);
  assert.equal(detachedTokenIsValid(`${sig}foo`, content, id, secret), false);
});
