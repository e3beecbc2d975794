/**
 * The string formats of CRD schemas: which ones 1.32 keeps (`formats.go`'s supported list, dashes
 * normalized away; integer and number formats only int32/int64 and float/double), and sample values each
 * check of kube-openapi's `strfmt.Default` takes and refuses.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { supportedFormat, validatesFormat } from './_formats.js';

describe('supportedFormat (StripUnsupportedFormatsPostProcess)', () => {
  const cases: Array<[format: string, type: string, want: string]> = [
    ['date-time', 'string', 'date-time'],
    ['datetime', 'string', 'datetime'],
    ['uuid', '', 'uuid'],
    ['quantity', 'string', ''],
    ['k8s-short-name', 'string', ''],
    ['unknown-format', 'string', ''],
    ['int32', 'integer', 'int32'],
    ['uint64', 'integer', ''],
    ['double', 'number', 'double'],
    ['int64', 'number', ''],
    ['byte', 'boolean', ''],
  ];
  for (const [format, type, want] of cases) test(`${format} on ${type === '' ? 'no type' : type}`, () => assert.equal(supportedFormat(format, type), want));
});

describe('validatesFormat', () => {
  const cases: Array<[format: string, valid: string[], invalid: string[]]> = [
    ['date', ['2024-02-29', '2023-12-31'], ['2023-02-29', '2024-1-01', '2024-13-01', '24-01-01']],
    ['date-time', ['2024-01-01T00:00:00Z', '2024-01-01t23:59:59.123+02:00'], ['2024-01-01', '2024-01-01T24:00:00Z', '2024-01-01T00:00:00']],
    ['byte', ['aGVsbG8=', 'YWJj'], ['', 'abc', 'a=bc']],
    ['uuid', ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'], ['123e4567-e89b-12d3-a456']],
    ['uuid4', ['123e4567-e89b-42d3-a456-426614174000'], ['123e4567-e89b-12d3-a456-426614174000']],
    ['ipv4', ['10.0.0.1'], ['10.0.0.256', '010.0.0.1', '::1']],
    ['ipv6', ['::1', '2001:db8::ffff'], ['10.0.0.1', '2001:db8:::1']],
    ['cidr', ['10.0.0.0/8', '2001:db8::/32'], ['10.0.0.0/33', '10.0.0.0', '10.0.0.0/08']],
    ['mac', ['00:1a:2b:3c:4d:5e', '00-1A-2B-3C-4D-5E', '001a.2b3c.4d5e'], ['00:1a:2b:3c:4d', '001a2b3c4d5e']],
    ['hostname', ['example.com', 'a', 'my-host.example.org'], ['-bad.example.com', 'under_score.com', 'a..b']],
    ['duration', ['1h30m', '-5s', '0', '3 days', '1 hr 5 min'], ['', '5', 'soon', '1x']],
    ['hexcolor', ['#fff', 'A0B1C2'], ['#ffff', 'ggg']],
    ['rgbcolor', ['rgb(255, 0, 10)'], ['rgb(256,0,0)', 'rgb(1,2)']],
    ['ssn', ['123-45-6789', '123 45 6789'], ['123456789', '123-45-678']],
    ['isbn10', ['0321751043', '0-321-75104-3'], ['0321751044']],
    ['isbn13', ['978-0321751041'], ['9780321751042']],
    ['creditcard', ['4111 1111 1111 1111'], ['4111 1111 1111 1112']],
    ['bsonobjectid', ['507f1f77bcf86cd799439011'], ['507f1f77bcf86cd79943901']],
    ['email', ['a@example.com', 'Alice <alice@example.com>'], ['example.com', 'a@@b']],
    ['uri', ['https://example.com/x?y=1', '/absolute/path'], ['relative/path', 'http://a/%zz']],
    ['password', ['anything'], []],
  ];
  for (const [format, valid, invalid] of cases) {
    test(format, () => {
      for (const v of valid) assert.equal(validatesFormat(format, v), true, `${format} should take ${JSON.stringify(v)}`);
      for (const v of invalid) assert.equal(validatesFormat(format, v), false, `${format} should refuse ${JSON.stringify(v)}`);
    });
  }
});
