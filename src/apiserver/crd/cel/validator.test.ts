import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../api/field-errors.js';
import { CelValidator } from './validator.js';
import type { JSONSchemaProps } from '../crd-schema.js';

// Schema builders of upstream's schema/cel/validation_test.go.
const integerType: JSONSchemaProps = { type: 'integer' };
const int32Type: JSONSchemaProps = { type: 'integer', format: 'int32' };
const int64Type: JSONSchemaProps = { type: 'integer', format: 'int64' };
const numberType: JSONSchemaProps = { type: 'number' };
const floatType: JSONSchemaProps = { type: 'number', format: 'float' };
const doubleType: JSONSchemaProps = { type: 'number', format: 'double' };
const stringType: JSONSchemaProps = { type: 'string' };
const byteType: JSONSchemaProps = { type: 'string', format: 'byte' };
const booleanType: JSONSchemaProps = { type: 'boolean' };
const durationFormat: JSONSchemaProps = { type: 'string', format: 'duration' };
const dateFormat: JSONSchemaProps = { type: 'string', format: 'date' };
const dateTimeFormat: JSONSchemaProps = { type: 'string', format: 'date-time' };
const intOrStringType: JSONSchemaProps = { 'x-kubernetes-int-or-string': true };
const listType = (items: JSONSchemaProps): JSONSchemaProps => ({ type: 'array', 'x-kubernetes-list-type': 'atomic', items });
const listSetType = (items: JSONSchemaProps): JSONSchemaProps => ({ type: 'array', 'x-kubernetes-list-type': 'set', items });
const listMapType = (keys: string[], items: JSONSchemaProps): JSONSchemaProps => ({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys, items });
const mapType = (v: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', additionalProperties: v });
const objectType = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });
const nullable = (s: JSONSchemaProps): JSONSchemaProps => ({ ...s, nullable: true });
const preserve = (s: JSONSchemaProps = {}): JSONSchemaProps => ({ ...s, 'x-kubernetes-preserve-unknown-fields': true });
const objs = (...vals: unknown[]): Record<string, unknown> => Object.fromEntries(vals.map((v, i) => [`val${i + 1}`, v]));
const schemas = (...types: JSONSchemaProps[]): JSONSchemaProps => objectType(Object.fromEntries(types.map((t, i) => [`val${i + 1}`, t])));
/** `ValsEqualThemselvesAndDataLiteral`. */
const valsEqual = (a: string, b: string, lit: string): string => `${a} == ${b} && ${a} == ${lit} && ${lit} == ${a} && ${b} == ${lit} && ${lit} == ${b}`;
const valsEqualNoLiteral = (a: string, b: string): string => `${a} == ${a} && ${a} == ${b} && ${b} == ${a}`;

interface Case {
  name: string;
  schema: JSONSchemaProps;
  obj: unknown;
  oldObj?: unknown;
  isRoot?: boolean;
  valid?: string[];
  /** rule -> text its error must contain */
  errors?: Record<string, string>;
}

const maxInt64 = 9223372036854775807n;

// TestValidationExpressions, case by case. Left out: the rules whose expected error comes from the parts of
// cel-go's type checker this port does not have ("no matching overload" at compile time, regexes checked at
// compile time; "undefined field" is kept), and the float literal `%f` spellings of MaxFloat64.
const cases: Case[] = [
  {
    name: 'integers',
    obj: objs(2147483647, 2147483647, 2147483647, 2147483647, 1, 1),
    schema: schemas(integerType, integerType, int32Type, int32Type, int64Type, int64Type),
    valid: [
      valsEqual('self.val1', 'self.val2', '2147483647'),
      valsEqual('self.val3', 'self.val4', '2147483647'),
      'type(self.val1) == int',
      'self.val3 + 1 == 2147483647 + 1',
      'type(self.val3) == int',
      'type(self.val5) == int',
      `${maxInt64} - 1 + self.val5 == ${maxInt64}`,
    ],
    errors: { [`self.val5 + ${maxInt64} == 0`]: 'integer overflow', '1 / 0 == 1 / 0': 'division by zero', '1 % 0 == 0': 'modulus by zero' },
  },
  {
    name: 'numbers',
    obj: objs(1.7976931348623157e308, 1.7976931348623157e308, 3.4028234663852886e38, 3.4028234663852886e38, 1.5, 1.5, 1),
    schema: schemas(numberType, numberType, floatType, floatType, doubleType, doubleType, doubleType),
    valid: [
      valsEqualNoLiteral('self.val1', 'self.val2'),
      valsEqualNoLiteral('self.val3', 'self.val4'),
      valsEqual('self.val5', 'self.val6', '1.5'),
      'type(self.val1) == double',
      'type(self.val3) == double',
      'type(self.val5) == double',
      'type(self.val7) == double',
      'self.val7 == 1.0',
    ],
  },
  {
    name: 'numeric comparisons',
    obj: objs(5, 10, 15, 10.0, 10.0, 10.0, 10, 10, 10),
    schema: schemas(integerType, integerType, integerType, numberType, floatType, doubleType, numberType, floatType, doubleType),
    valid: [
      'double(self.val1) < self.val4',
      'double(self.val1) <= self.val4',
      'double(self.val2) <= self.val4',
      'double(self.val2) == self.val4',
      'double(self.val2) >= self.val4',
      'double(self.val3) > self.val4',
      'double(self.val3) >= self.val4',
      'self.val1 < int(self.val4)',
      'self.val2 == int(self.val4)',
      'self.val3 > int(self.val4)',
      'double(self.val1) < self.val5',
      'double(self.val2) == self.val5',
      'double(self.val3) > self.val5',
      'self.val1 < int(self.val5)',
      'self.val2 == int(self.val5)',
      'self.val3 > int(self.val5)',
      'double(self.val1) < self.val6',
      'double(self.val2) == self.val6',
      'double(self.val3) > self.val6',
      'double(self.val1) < self.val7',
      'double(self.val2) == self.val7',
      'double(self.val3) > self.val7',
      'self.val1 < int(self.val7)',
      'self.val2 == int(self.val7)',
      'self.val3 > int(self.val7)',
      'double(self.val1) < self.val8',
      'double(self.val2) == self.val8',
      'double(self.val3) > self.val8',
      'double(self.val1) < self.val9',
      'double(self.val2) == self.val9',
      'double(self.val3) > self.val9',
      'double(5) < 10.0',
      'double(10) == 10.0',
      'double(15) > 10.0',
      '5 < int(10.0)',
      '10 == int(10.0)',
      '15 > int(10.0)',
      'double(self.val1) < 10.0',
      'double(self.val2) == 10.0',
      'double(self.val3) > 10.0',
    ],
  },
  {
    name: 'unicode strings',
    obj: objs('Rook takes 👑', 'Rook takes 👑'),
    schema: schemas(stringType, stringType),
    valid: [
      valsEqual('self.val1', 'self.val2', "'Rook takes 👑'"),
      "self.val1.startsWith('Rook')",
      "!self.val1.startsWith('knight')",
      "self.val1.contains('takes')",
      "!self.val1.contains('gives')",
      "self.val1.endsWith('👑')",
      "!self.val1.endsWith('pawn')",
      "self.val1.matches('^[^0-9]*$')",
      "!self.val1.matches('^[0-9]*$')",
      'type(self.val1) == string',
      'size(self.val1) == 12',
      "self.val1.charAt(3) == 'k'",
      "self.val1.indexOf('o') == 1",
      "self.val1.indexOf('o', 2) == 2",
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'",
      "self.val1.replace(' ', 'x', 1) == 'Rookxtakes 👑'",
      "self.val1.split(' ') == ['Rook', 'takes', '👑']",
      "self.val1.split(' ', 2) == ['Rook', 'takes 👑']",
      "self.val1.substring(5) == 'takes 👑'",
      "self.val1.substring(0, 4) == 'Rook'",
      "self.val1.substring(4, 10).trim() == 'takes'",
      "self.val1.upperAscii() == 'ROOK TAKES 👑'",
      "self.val1.lowerAscii() == 'rook takes 👑'",
    ],
  },
  {
    name: 'escaped strings',
    obj: objs('l1\nl2', 'l1\nl2'),
    schema: schemas(stringType, stringType),
    valid: [valsEqual('self.val1', 'self.val2', "'l1\\nl2'"), "self.val1 == '''l1\nl2'''"],
  },
  {
    name: 'bytes',
    obj: objs('QUI=', 'QUI='),
    schema: schemas(byteType, byteType),
    valid: ['self.val1 == self.val2', "self.val1 == b'AB'", "self.val1 == bytes('AB')", "self.val1 == b'\\x41\\x42'", 'type(self.val1) == bytes', 'size(self.val1) == 2'],
  },
  {
    name: 'booleans',
    obj: objs(true, true, false, false),
    schema: schemas(booleanType, booleanType, booleanType, booleanType),
    valid: [valsEqual('self.val1', 'self.val2', 'true'), valsEqual('self.val3', 'self.val4', 'false'), 'self.val1 != self.val4', 'type(self.val1) == bool'],
  },
  {
    name: 'duration format',
    obj: objs('1h2m3s4ms', '1h2m3s4ms'),
    schema: schemas(durationFormat, durationFormat),
    valid: [
      valsEqual('self.val1', 'self.val2', "duration('1h2m3s4ms')"),
      "self.val1 == duration('1h2m') + duration('3s4ms')",
      'self.val1.getHours() == 1',
      'self.val1.getMinutes() == 62',
      'self.val1.getSeconds() == 3723',
      'self.val1.getMilliseconds() == 3723004',
      'type(self.val1) == google.protobuf.Duration',
    ],
  },
  {
    name: 'date format',
    obj: objs('1997-07-16', '1997-07-16'),
    schema: schemas(dateFormat, dateFormat),
    valid: [
      valsEqual('self.val1', 'self.val2', "timestamp('1997-07-16T00:00:00.000Z')"),
      'self.val1.getDate() == 16',
      'self.val1.getMonth() == 06',
      'self.val1.getFullYear() == 1997',
      'type(self.val1) == google.protobuf.Timestamp',
    ],
  },
  {
    name: 'date-time format',
    obj: objs('2011-08-18T19:03:37.010000000+01:00', '2011-08-18T19:03:37.010000000+01:00'),
    schema: schemas(dateTimeFormat, dateTimeFormat),
    valid: [
      valsEqual('self.val1', 'self.val2', "timestamp('2011-08-18T19:03:37.010+01:00')"),
      "self.val1 == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')",
      "self.val1.getDate('01:00') == 18",
      "self.val1.getMonth('01:00') == 7",
      "self.val1.getFullYear('01:00') == 2011",
      "self.val1.getHours('01:00') == 19",
      "self.val1.getMinutes('01:00') == 03",
      "self.val1.getSeconds('01:00') == 37",
      "self.val1.getMilliseconds('01:00') == 10",
      "self.val1.getHours('UTC') == 18",
      'type(self.val1) == google.protobuf.Timestamp',
    ],
  },
  {
    name: 'enums',
    obj: { enumStr: 'Pending' },
    schema: objectType({ enumStr: { type: 'string', enum: ['Pending', 'Available', 'Bound', 'Released', 'Failed'] } }),
    valid: ["self.enumStr == 'Pending'", "self.enumStr in ['Pending', 'Available']"],
  },
  // `string(self.val11) == self.val10` is left out: a CEL timestamp here is a protobuf Timestamp, which keeps no
  // UTC offset, so it prints in UTC where Go prints the offset it was parsed with.
  {
    name: 'conversions',
    obj: objs(10, 10.0, 10.49, 10.5, true, '10', 'MTA=', '3723.004s', '1h2m3s4ms', '2011-08-18T19:03:37.01+01:00', '2011-08-18T19:03:37.01+01:00', '2011-08-18T00:00:00Z', '2011-08-18'),
    schema: schemas(integerType, numberType, numberType, numberType, booleanType, stringType, byteType, stringType, durationFormat, stringType, dateTimeFormat, stringType, dateFormat),
    valid: [
      'int(self.val2) == self.val1',
      'int(self.val3) == self.val1',
      'int(self.val4) == self.val1',
      'int(self.val6) == self.val1',
      'double(self.val1) == self.val2',
      'double(self.val6) == self.val2',
      'bytes(self.val6) == self.val7',
      'string(self.val1) == self.val6',
      "string(self.val2) == '10'",
      "string(self.val3) == '10.49'",
      "string(self.val4) == '10.5'",
      "string(self.val5) == 'true'",
      'string(self.val7) == self.val6',
      'duration(self.val8) == self.val9',
      'timestamp(self.val10) == self.val11',
      'timestamp(self.val12) == self.val13',
      'string(self.val9) == self.val8',
      'string(self.val13) == self.val12',
    ],
  },
  {
    name: 'lists',
    obj: objs([1, 2, 3], [1, 2, 3]),
    schema: schemas(listType(integerType), listType(integerType)),
    valid: [
      valsEqual('self.val1', 'self.val2', '[1, 2, 3]'),
      '1 in self.val1',
      'self.val2[0] in self.val1',
      '!(0 in self.val1)',
      'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]',
      'self.val1 + [4, 5] == [1, 2, 3, 4, 5]',
    ],
  },
  {
    name: 'listSets',
    obj: objs(['a', 'b', 'c'], ['a', 'c', 'b']),
    schema: schemas(listSetType(stringType), listSetType(stringType)),
    valid: [
      "self.val1 == ['c', 'b', 'a']",
      'self.val1 == self.val2',
      "'a' in self.val1",
      'self.val2[0] in self.val1',
      "!('x' in self.val1)",
      "self.val1 + self.val2 == ['a', 'b', 'c']",
      "self.val1 + ['c', 'd'] == ['a', 'b', 'c', 'd']",
    ],
  },
  {
    name: 'listMaps',
    obj: {
      objs: [
        [{ k: 'a', v: '1' }, { k: 'b', v: '2' }],
        [{ k: 'b', v: '2' }, { k: 'a', v: '1' }],
        [{ k: 'b', v: '3' }, { k: 'a', v: '1' }],
        [{ k: 'c', v: '4' }],
      ],
    },
    schema: objectType({ objs: listType(listMapType(['k'], objectType({ k: stringType, v: stringType }))) }),
    valid: [
      'self.objs[0] == self.objs[1]',
      'self.objs[0] + self.objs[2] == self.objs[2]',
      'self.objs[2] + self.objs[0] == self.objs[0]',
      'self.objs[0] == [self.objs[0][0], self.objs[0][1]]',
      'self.objs[0] == [self.objs[0][1], self.objs[0][0]]',
      'self.objs[2] + [self.objs[0][0], self.objs[0][1]] == self.objs[0]',
      'size(self.objs[0] + [self.objs[3][0]]) == 3',
    ],
  },
  {
    name: 'maps',
    obj: objs({ k1: 'a', k2: 'b' }, { k2: 'b', k1: 'a' }),
    schema: schemas(mapType(stringType), mapType(stringType)),
    valid: ['self.val1 == self.val2', "'k1' in self.val1", "!('k3' in self.val1)", "self.val1 == {'k1': 'a', 'k2': 'b'}"],
  },
  {
    name: 'objects',
    obj: { objs: [{ f1: 'a', f2: 'b' }, { f1: 'a', f2: 'b' }] },
    schema: objectType({ objs: listType(objectType({ f1: stringType, f2: stringType })) }),
    valid: ['self.objs[0] == self.objs[1]'],
  },
  {
    name: 'object access',
    obj: { a: { b: 1, d: null }, a1: { b1: { c1: 4 } }, a3: {} },
    schema: objectType({
      a: objectType({ b: integerType, c: integerType, d: nullable(integerType) }),
      a1: objectType({ b1: objectType({ c1: integerType }), d2: objectType({ e2: integerType }) }),
    }),
    valid: ['has(self.a.b)', '!has(self.a.c)', '!has(self.a.d)', 'has(self.a1.b1.c1)', '!(has(self.a1.d2) && has(self.a1.d2.e2))', '!has(self.a1.d2)'],
    errors: { 'has(self.a.z)': "undefined field 'z'", 'has(self.a1.d2.e2)': 'no such key: d2' },
  },
  {
    name: 'map access',
    obj: { val: { b: 1, d: 2 } },
    schema: objectType({ val: mapType(integerType) }),
    valid: [
      "!('a' in self.val)",
      "'b' in self.val",
      "!('c' in self.val)",
      "'d' in self.val",
      '!has(self.val.a)',
      'has(self.val.b)',
      '!has(self.val.c)',
      'has(self.val.d)',
      'self.val.all(k, self.val[k] > 0)',
      'self.val.exists(k, self.val[k] > 1)',
      'self.val.exists_one(k, self.val[k] == 2)',
      '!self.val.exists(k, self.val[k] > 2)',
      '!self.val.exists_one(k, self.val[k] > 0)',
      'size(self.val) == 2',
      'self.val.map(k, self.val[k]).exists(v, v == 1)',
      'size(self.val.filter(k, self.val[k] > 1)) == 1',
    ],
    errors: { "self.val['c'] == 1": 'no such key: c' },
  },
  {
    name: 'listMap access',
    obj: { listMap: [{ k: 'a1', v: 'b1' }, { k: 'a2', v: 'b2' }, { k: 'a3', v: 'b3', v2: 'z' }] },
    schema: objectType({ listMap: listMapType(['k'], objectType({ k: stringType, v: stringType, v2: stringType })) }),
    valid: [
      'has(self.listMap[0].v)',
      "self.listMap.all(m, m.k.startsWith('a'))",
      "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')",
      "self.listMap.exists(m, m.k.endsWith('1'))",
      "self.listMap.exists_one(m, m.k == 'a3')",
      "!self.listMap.all(m, m.k.endsWith('1'))",
      "!self.listMap.exists(m, m.v == 'x')",
      "!self.listMap.exists_one(m, m.k.startsWith('a'))",
      "size(self.listMap.filter(m, m.k == 'a1')) == 1",
      "self.listMap.exists(m, m.k == 'a1' && m.v == 'b1')",
      "self.listMap.map(m, m.v).exists(v, v == 'b1')",
      "self.listMap.exists(m, has(m.v2) && m.v2 == 'z')",
      "!self.listMap.all(m, has(m.v2) && m.v2 != 'z')",
      "self.listMap.exists_one(m, has(m.v2) && m.v2 == 'z')",
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').size() == 1",
      "self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1",
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').map(m, m.v2).size() == 1",
      "self.listMap.exists(m, m.v2 == 'z')",
      "!self.listMap.all(m, m.v2 != 'z')",
    ],
    errors: {
      "self.listMap.all(m, m.v2 == 'z')": 'no such key: v2',
      "self.listMap.exists_one(m, m.v2 == 'z')": 'no such key: v2',
      "self.listMap.filter(m, m.v2 == 'z').size() == 1": 'no such key: v2',
      'self.listMap.map(m, m.v2).size() == 1': 'no such key: v2',
      "self.listMap.map(m, m.v2 == 'z', m.v2).size() == 1": 'no such key: v2',
    },
  },
  {
    name: 'list access',
    obj: { array: [1, 1, 2, 2, 3, 3, 4, 5] },
    schema: objectType({ array: listType(integerType) }),
    valid: [
      '2 in self.array',
      'self.array.all(e, e > 0)',
      'self.array.exists(e, e > 2)',
      'self.array.exists_one(e, e > 4)',
      '!self.array.all(e, e < 2)',
      '!self.array.exists(e, e < 0)',
      '!self.array.exists_one(e, e == 2)',
      'self.array.all(e, e < 100)',
      'size(self.array.filter(e, e%2 == 0)) == 3',
      'self.array.map(e, e * 20).filter(e, e > 50).exists(e, e == 60)',
      'size(self.array) == 8',
    ],
    errors: { 'self.array[100] == 0': 'index out of bounds: 100' },
  },
  {
    name: 'typemeta and objectmeta access not specified',
    isRoot: true,
    obj: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', generateName: 'pickItForMe', namespace: 'xyz' }, spec: { field1: 'a' } },
    schema: objectType({ spec: objectType({ field1: stringType }) }),
    valid: ["self.kind == 'Pod'", "self.apiVersion == 'v1'", "self.metadata.name == 'foo'", "self.metadata.generateName == 'pickItForMe'", "self.spec.field1 == 'a'"],
    errors: { 'has(self.metadata.namespace)': "undefined field 'namespace'" },
  },
  {
    name: 'embedded object',
    obj: { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', generateName: 'pickItForMe', namespace: 'xyz' }, spec: { field1: 'a' } } },
    schema: objectType({ embedded: { type: 'object', 'x-kubernetes-embedded-resource': true } }),
    valid: ["self.embedded.kind == 'Pod'", "self.embedded.apiVersion == 'v1'", "self.embedded.metadata.name == 'foo'", "self.embedded.metadata.generateName == 'pickItForMe'"],
    errors: { 'has(self.embedded.metadata.namespace)': "undefined field 'namespace'", 'has(self.embedded.spec)': "undefined field 'spec'" },
  },
  {
    name: 'embedded object with properties',
    obj: { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', generateName: 'pickItForMe', namespace: 'xyz' }, spec: { field1: 'a' } } },
    schema: objectType({
      embedded: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { kind: stringType, apiVersion: stringType, metadata: objectType({ name: stringType, generateName: stringType }), spec: objectType({ field1: stringType }) },
      },
    }),
    valid: [
      "self.embedded.kind == 'Pod'",
      "self.embedded.apiVersion == 'v1'",
      "self.embedded.metadata.name == 'foo'",
      "self.embedded.metadata.generateName == 'pickItForMe'",
      "self.embedded.spec.field1 == 'a'",
    ],
    errors: { 'has(self.embedded.metadata.namespace)': "undefined field 'namespace'" },
  },
  {
    name: 'embedded object with preserve unknown',
    obj: { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', generateName: 'pickItForMe', namespace: 'xyz' }, spec: { field1: 'a' } } },
    schema: objectType({ embedded: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-embedded-resource': true } }),
    valid: ["self.embedded.kind == 'Pod'", "self.embedded.apiVersion == 'v1'", "self.embedded.metadata.name == 'foo'", "self.embedded.metadata.generateName == 'pickItForMe'", 'has(self.embedded)'],
    errors: { 'has(self.embedded.spec)': "undefined field 'spec'" },
  },
  {
    name: 'string in intOrString',
    obj: { something: '25%' },
    schema: objectType({ something: intOrStringType }),
    valid: [
      "self.something == '25%'",
      'self.something != 1',
      "self.something == 1 || self.something == '25%'",
      "self.something == '25%' || self.something == 1",
      "type(self.something) == string && self.something == '25%'",
      "type(self.something) == int ? self.something == 1 : self.something == '25%'",
      "self.something != ['anything']",
    ],
  },
  {
    name: 'int in intOrString',
    obj: { something: 1 },
    schema: objectType({ something: intOrStringType }),
    valid: [
      'self.something == 1',
      "self.something != 'some string'",
      "self.something == 1 || self.something == '25%'",
      "self.something == '25%' || self.something == 1",
      'type(self.something) == int && self.something == 1',
      "type(self.something) == int ? self.something == 1 : self.something == '25%'",
      "self.something != ['anything']",
    ],
  },
  {
    name: 'null in intOrString',
    obj: { something: null },
    schema: objectType({ something: nullable(intOrStringType) }),
    valid: ['!has(self.something)'],
    errors: { 'type(self.something) == int': 'no such key' },
  },
  {
    name: 'percent comparison using intOrString',
    obj: { min: '50%', current: 5, available: 10 },
    schema: objectType({ min: intOrStringType, current: integerType, available: integerType }),
    valid: [
      "type(self.min) == string && self.min.matches(r'(\\d+(\\.\\d+)?%)')",
      "type(self.min) == int ? self.current <= self.min : double(self.current) / double(self.available) >= double(self.min.replace('%', '')) / 100.0",
    ],
  },
  {
    name: 'preserve unknown fields',
    obj: {
      withUnknown: { field1: 'a', field2: 'b' },
      withUnknownList: [{ field1: 'a', field2: 'b' }, { field1: 'x', field2: 'y' }, { field1: 'x', field2: 'y' }, {}, {}],
      withUnknownFieldList: [{ fieldOfUnknownType: 'a' }, { fieldOfUnknownType: 1 }, { fieldOfUnknownType: 1 }],
    },
    schema: objectType({
      withUnknown: preserve({ type: 'object' }),
      withUnknownList: listType(preserve({ type: 'object' })),
      withUnknownFieldList: listType(objectType({ fieldOfUnknownType: preserve() })),
    }),
    valid: [
      'has(self.withUnknown)',
      'self.withUnknownList.size() == 5',
      'self.withUnknownList[0] != self.withUnknownList[1]',
      'self.withUnknownList[1] == self.withUnknownList[2]',
      'self.withUnknownList[3] == self.withUnknownList[4]',
      'self.withUnknownFieldList[0] != self.withUnknownFieldList[1]',
      'self.withUnknownFieldList[1] == self.withUnknownFieldList[2]',
    ],
    errors: { 'has(self.withUnknown.field1)': "undefined field 'field1'" },
  },
  {
    name: 'known and unknown fields',
    obj: {
      withUnknown: { known: 1, unknown: 'a' },
      withUnknownList: [{ known: 1, unknown: 'a' }, { known: 1, unknown: 'b' }, { known: 1, unknown: 'b' }, { known: 1 }, { known: 1 }, { known: 2 }],
    },
    schema: objectType({
      withUnknown: preserve(objectType({ known: integerType })),
      withUnknownList: listType(preserve(objectType({ known: integerType }))),
    }),
    valid: [
      'self.withUnknown.known == 1',
      'self.withUnknownList[0] != self.withUnknownList[1]',
      'self.withUnknownList[1] == self.withUnknownList[2]',
      'self.withUnknownList[0] != self.withUnknownList[3]',
      'self.withUnknownList[0] != self.withUnknownList[5]',
      'self.withUnknownList[3] == self.withUnknownList[4]',
      'self.withUnknownList[4] != self.withUnknownList[5]',
    ],
    errors: { 'has(self.withUnknown.unknown)': "undefined field 'unknown'" },
  },
  {
    name: 'field nullability',
    obj: { setPlainStr: 'v1', setDefaultedStr: 'v2', setNullableStr: 'v3', setToNullNullableStr: null, unsetDefaultedStr: 'default value' },
    schema: objectType({
      unsetPlainStr: stringType,
      unsetDefaultedStr: { ...stringType, default: 'default value' },
      unsetNullableStr: nullable(stringType),
      setPlainStr: stringType,
      setDefaultedStr: { ...stringType, default: 'default value' },
      setNullableStr: nullable(stringType),
      setToNullNullableStr: nullable(stringType),
    }),
    valid: [
      '!has(self.unsetPlainStr)',
      "has(self.unsetDefaultedStr) && self.unsetDefaultedStr == 'default value'",
      '!has(self.unsetNullableStr)',
      "has(self.setPlainStr) && self.setPlainStr == 'v1'",
      "has(self.setDefaultedStr) && self.setDefaultedStr == 'v2'",
      "has(self.setNullableStr) && self.setNullableStr == 'v3'",
      'type(self.setNullableStr) != null_type',
      '!has(self.setToNullNullableStr)',
    ],
  },
  {
    name: 'null values in container types',
    obj: { m: { a: null, b: 'not-nil' }, l: [null, 'not-nil'], s: [null, 'not-nil'] },
    schema: objectType({ m: mapType(nullable(stringType)), l: listType(nullable(stringType)), s: listSetType(nullable(stringType)) }),
    valid: ['self.l.size() == 2', 'type(self.l[0]) == null_type', 'self.s.size() == 2', 'type(self.s[0]) == null_type'],
  },
  {
    name: 'escaping',
    obj: {
      true: 1, false: 2, null: 3, in: 4, as: 5, break: 6, const: 7, continue: 8, else: 9, for: 10, function: 11, if: 12, import: 13, let: 14, loop: 15,
      package: 16, namespace: 17, return: 18, var: 19, void: 20, while: 21, int: 101, uint: 102, double: 103, bool: 104, string: 105, bytes: 106,
      list: 107, map: 108, null_type: 109, type: 110, self: 201, getDate: 202, all: 203, size: '204', _true: 301, 'dot.dot': 401, 'dash-dash': 402,
      'slash/slash': 403, underscore_underscore: 404, doubleunderscore__doubleunderscore: 405,
    },
    schema: objectType({
      ...Object.fromEntries(
        ['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']
          .concat(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'self', 'getDate', 'all', '_true'])
          .concat(['dot.dot', 'dash-dash', 'slash/slash', 'underscore_underscore', 'doubleunderscore__doubleunderscore'])
          .map((k) => [k, integerType]),
      ),
      size: stringType,
    }),
    valid: [
      'self.__true__ == 1', 'self.__false__ == 2', 'self.__null__ == 3', 'self.__in__ == 4', 'self.__as__ == 5',
      'self.__break__ == 6', 'self.__const__ == 7', 'self.__continue__ == 8', 'self.__else__ == 9',
      'self.__for__ == 10', 'self.__function__ == 11', 'self.__if__ == 12', 'self.__import__ == 13',
      'self.__let__ == 14', 'self.__loop__ == 15', 'self.__package__ == 16', 'self.__namespace__ == 17',
      'self.__return__ == 18', 'self.__var__ == 19', 'self.__void__ == 20', 'self.__while__ == 21',
      'self.int == 101', 'self.uint == 102', 'self.double == 103', 'self.bool == 104',
      'self.string == 105', 'self.bytes == 106', 'self.list == 107', 'self.map == 108',
      'self.null_type == 109', 'self.type == 110',
      'self.self == 201',
      'self.getDate == 202',
      'self.all == 203',
      "self.size == '204'",
      'self._true == 301',
      'self.__true__ != 301',
      'self.dot__dot__dot == 401',
      'self.dash__dash__dash == 402',
      'self.slash__slash__slash == 403',
      'self.underscore_underscore == 404',
      'self.doubleunderscore__underscores__doubleunderscore == 405',
    ],
    errors: { 'self.__illegal__ == 301': "undefined field '__illegal__'" },
  },
  {
    name: 'map keys are not escaped',
    obj: { m: { '@': 1, '9': 2, int: 3, './-': 4, '👑': 5 } },
    schema: objectType({ m: mapType(integerType) }),
    valid: ["self.m['@'] == 1", "self.m['9'] == 2", "self.m['int'] == 3", "self.m['./-'] == 4", "self.m['👑'] == 5"],
  },
  {
    name: 'listMaps with unsupported identity characters in property names',
    obj: {
      objs: [
        [{ 'k!': 'a', 'k.': '1' }, { 'k!': 'b', 'k.': '2' }],
        [{ 'k!': 'b', 'k.': '2' }, { 'k!': 'a', 'k.': '1' }],
        [{ 'k!': 'b', 'k.': '2' }, { 'k!': 'c', 'k.': '1' }],
        [{ 'k!': 'b', 'k.': '2' }, { 'k!': 'a', 'k.': '3' }],
      ],
    },
    schema: objectType({ objs: listType(listMapType(['k!', 'k.'], objectType({ 'k!': stringType, 'k.': stringType }))) }),
    valid: ['self.objs[0] == self.objs[1]', "self.objs[0][0].k__dot__ == '1'", 'self.objs[0] != self.objs[3]'],
  },
  {
    name: 'container type composition',
    obj: {
      obj: { field: 'a' },
      mapOfMap: { x: { y: 'b' } },
      mapOfObj: { k: { field2: 'c' } },
      mapOfListMap: { o: [{ k: '1', v: 'd' }] },
      mapOfList: { l: ['e'] },
      listMapOfObj: [{ k2: '2', v2: 'f' }],
      listOfMap: [{ z: 'g' }],
      listOfObj: [{ field3: 'h' }],
      listOfListMap: [[{ k3: '3', v3: 'i' }]],
    },
    schema: objectType({
      obj: objectType({ field: stringType }),
      mapOfMap: mapType(mapType(stringType)),
      mapOfObj: mapType(objectType({ field2: stringType })),
      mapOfListMap: mapType(listMapType(['k'], objectType({ k: stringType, v: stringType }))),
      mapOfList: mapType(listType(stringType)),
      listMapOfObj: listMapType(['k2'], objectType({ k2: stringType, v2: stringType })),
      listOfMap: listType(mapType(stringType)),
      listOfObj: listType(objectType({ field3: stringType })),
      listOfListMap: listType(listMapType(['k3'], objectType({ k3: stringType, v3: stringType }))),
    }),
    valid: [
      "self.obj.field == 'a'",
      "self.mapOfMap['x']['y'] == 'b'",
      "self.mapOfObj['k'].field2 == 'c'",
      "self.mapOfListMap['o'].exists(e, e.k == '1' && e.v == 'd')",
      "self.mapOfList['l'][0] == 'e'",
      "self.listMapOfObj.exists(e, e.k2 == '2' && e.v2 == 'f')",
      "self.listOfMap[0]['z'] == 'g'",
      "self.listOfObj[0].field3 == 'h'",
      "self.listOfListMap[0].exists(e, e.k3 == '3' && e.v3 == 'i')",
    ],
  },
  // Upstream converts each field when it is read; here `self` is converted whole, so each invalid field is
  // tested on an object of its own.
  ...(
    [
      ['o', 'has(self.o)', 'invalid data, expected a map for the provided schema with type=object'],
      ['m', 'has(self.m)', 'invalid data, expected a map for the provided schema with type=object'],
      ['l', 'has(self.l)', 'invalid data, expected an array for the provided schema with type=array'],
      ['s', 'has(self.s)', 'invalid data, expected an array for the provided schema with type=array'],
      ['lm', 'has(self.lm)', 'invalid data, expected an array for the provided schema with type=array'],
      ['intorstring', 'has(self.intorstring)', 'invalid data, expected XIntOrString value to be either a string or integer'],
      ['nullable', "self.nullable[0] == 'x'", 'invalid data, got null for schema with nullable=false'],
    ] as const
  ).map(([field, rule, want]): Case => {
    const obj: Record<string, unknown> = { o: [], m: [], l: {}, s: {}, lm: {}, intorstring: true, nullable: [null] };
    return {
      name: `invalid data ${field}`,
      obj: { [field]: obj[field] },
      schema: objectType({
        o: objectType({ field: stringType }),
        m: mapType(stringType),
        l: listType(stringType),
        s: listSetType(stringType),
        lm: listMapType(['k'], objectType({ k: stringType, v: stringType })),
        intorstring: intOrStringType,
        nullable: listType(stringType),
      }),
      errors: { [rule]: want },
    };
  }),
  {
    name: 'stdlib list functions',
    obj: {
      ints: [1, 2, 2, 3],
      unsortedInts: [2, 1],
      emptyInts: [],
      doubles: [1.5, 2, 2, 3.5],
      unsortedDoubles: [2, 1],
      emptyDoubles: [],
      intBackedDoubles: [1, 2, 2, 3],
      unsortedIntBackedDDoubles: [2, 1],
      emptyIntBackedDDoubles: [],
      durations: ['1s', '1m', '1m', '1h'],
      unsortedDurations: ['1m', '1s'],
      emptyDurations: [],
      strings: ['a', 'b', 'b', 'c'],
      unsortedStrings: ['b', 'a'],
      emptyStrings: [],
      dates: ['2000-01-01', '2000-02-01', '2000-02-01', '2010-01-01'],
      unsortedDates: ['2000-02-01', '2000-01-01'],
      emptyDates: [],
      objs: [{ f1: 'a', f2: 'a' }, { f1: 'a', f2: 'b' }, { f1: 'a', f2: 'b' }, { f1: 'a', f2: 'c' }],
    },
    schema: objectType({
      ints: listType(integerType),
      unsortedInts: listType(integerType),
      emptyInts: listType(integerType),
      doubles: listType(doubleType),
      unsortedDoubles: listType(doubleType),
      emptyDoubles: listType(doubleType),
      intBackedDoubles: listType(doubleType),
      unsortedIntBackedDDoubles: listType(doubleType),
      emptyIntBackedDDoubles: listType(doubleType),
      durations: listType(durationFormat),
      unsortedDurations: listType(durationFormat),
      emptyDurations: listType(durationFormat),
      strings: listType(stringType),
      unsortedStrings: listType(stringType),
      emptyStrings: listType(stringType),
      dates: listType(dateFormat),
      unsortedDates: listType(dateFormat),
      emptyDates: listType(dateFormat),
      objs: listType(objectType({ f1: stringType, f2: stringType })),
    }),
    valid: [
      'self.ints.sum() == 8',
      'self.ints.min() == 1',
      'self.ints.max() == 3',
      'self.emptyInts.sum() == 0',
      'self.ints.isSorted()',
      'self.emptyInts.isSorted()',
      'self.unsortedInts.isSorted() == false',
      'self.ints.indexOf(2) == 1',
      'self.ints.lastIndexOf(2) == 2',
      'self.ints.indexOf(10) == -1',
      'self.ints.lastIndexOf(10) == -1',
      'self.doubles.sum() == 9.0',
      'self.doubles.min() == 1.5',
      'self.doubles.max() == 3.5',
      'self.doubles.isSorted()',
      'self.emptyDoubles.isSorted()',
      'self.unsortedDoubles.isSorted() == false',
      'self.doubles.indexOf(2.0) == 1',
      'self.doubles.lastIndexOf(2.0) == 2',
      'self.doubles.indexOf(10.0) == -1',
      'self.doubles.lastIndexOf(10.0) == -1',
      'self.intBackedDoubles.sum() == 8.0',
      'self.intBackedDoubles.min() == 1.0',
      'self.intBackedDoubles.max() == 3.0',
      'self.intBackedDoubles.isSorted()',
      'self.unsortedIntBackedDDoubles.isSorted() == false',
      'self.intBackedDoubles.indexOf(2.0) == 1',
      'self.intBackedDoubles.lastIndexOf(2.0) == 2',
      "self.durations.sum() == duration('1h2m1s')",
      "self.durations.min() == duration('1s')",
      "self.durations.max() == duration('1h')",
      'self.durations.isSorted()',
      'self.emptyDurations.isSorted()',
      'self.unsortedDurations.isSorted() == false',
      "self.durations.indexOf(duration('1m')) == 1",
      "self.durations.lastIndexOf(duration('1m')) == 2",
      "self.durations.indexOf(duration('2m')) == -1",
      "self.strings.min() == 'a'",
      "self.strings.max() == 'c'",
      'self.strings.isSorted()',
      'self.emptyStrings.isSorted()',
      'self.unsortedStrings.isSorted() == false',
      "self.strings.indexOf('b') == 1",
      "self.strings.lastIndexOf('b') == 2",
      "self.strings.indexOf('x') == -1",
      "self.strings.lastIndexOf('x') == -1",
      "self.dates.min() == timestamp('2000-01-01T00:00:00.000Z')",
      "self.dates.max() == timestamp('2010-01-01T00:00:00.000Z')",
      'self.dates.isSorted()',
      'self.emptyDates.isSorted()',
      'self.unsortedDates.isSorted() == false',
      "self.dates.indexOf(timestamp('2000-02-01T00:00:00.000Z')) == 1",
      "self.dates.lastIndexOf(timestamp('2000-02-01T00:00:00.000Z')) == 2",
      "self.dates.indexOf(timestamp('2005-02-01T00:00:00.000Z')) == -1",
      '[[1], [2]].indexOf([1]) == 0',
      "[{'a': 1}, {'b': 2}].lastIndexOf({'b': 2}) == 1",
      'self.objs.indexOf(self.objs[1]) == 1',
      'self.objs.lastIndexOf(self.objs[1]) == 2',
      '([0] + self.emptyInts).min() == 0',
      'dyn([]).sum() == 0',
      'dyn([1, 2]).sum() == 3',
      'dyn([1.0, 2.0]).sum() == 3.0',
    ],
    errors: {
      'self.emptyInts.min() == 1': 'min called on empty list',
      'self.emptyInts.max() == 3': 'max called on empty list',
      'self.emptyDoubles.min() == 1.0': 'min called on empty list',
      'self.emptyDoubles.max() == 3.0': 'max called on empty list',
      "self.emptyStrings.min() == 'a'": 'min called on empty list',
      "self.emptyStrings.max() == 'c'": 'max called on empty list',
    },
  },
  {
    name: 'stdlib regex functions',
    obj: { str: 'this is a 123 string 456' },
    schema: objectType({ str: stringType }),
    valid: [
      "self.str.find('[0-9]+') == '123'",
      "self.str.find('[0-9]+') != '456'",
      "self.str.find('xyz') == ''",
      "self.str.findAll('[0-9]+') == ['123', '456']",
      "self.str.findAll('[0-9]+', 0) == []",
      "self.str.findAll('[0-9]+', 1) == ['123']",
      "self.str.findAll('[0-9]+', 2) == ['123', '456']",
      "self.str.findAll('[0-9]+', 3) == ['123', '456']",
      "self.str.findAll('[0-9]+', -1) == ['123', '456']",
      "self.str.findAll('xyz') == []",
      "self.str.findAll('xyz', 1) == []",
    ],
  },
  {
    name: 'URL parsing',
    obj: { url: 'https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor' },
    schema: objectType({ url: stringType }),
    valid: [
      "url('/path').getScheme() == ''",
      "url('https://example.com/').getScheme() == 'https'",
      "url('https://example.com:80/').getHost() == 'example.com:80'",
      "url('https://example.com/').getHost() == 'example.com'",
      "url('https://[::1]:80/').getHost() == '[::1]:80'",
      "url('https://[::1]/').getHost() == '[::1]'",
      "url('/path').getHost() == ''",
      "url('https://example.com:80/').getHostname() == 'example.com'",
      "url('https://127.0.0.1/').getHostname() == '127.0.0.1'",
      "url('https://[::1]/').getHostname() == '::1'",
      "url('/path').getHostname() == ''",
      "url('https://example.com:80/').getPort() == '80'",
      "url('https://example.com/').getPort() == ''",
      "url('/path').getPort() == ''",
      "url('https://example.com/path').getEscapedPath() == '/path'",
      "url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
      "url('https://example.com').getEscapedPath() == ''",
      "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
      "url('https://example.com/path?key with spaces=value with spaces').getQuery() == { 'key with spaces': ['value with spaces']}",
      "url('https://example.com/path?').getQuery() == {}",
      "url('https://example.com/path').getQuery() == {}",
      "url(self.url).getScheme() == 'https'",
      "url(self.url).getHost() == 'kubernetes.io:80'",
      "url(self.url).getHostname() == 'kubernetes.io'",
      "url(self.url).getPort() == '80'",
      "url(self.url).getEscapedPath() == '/docs/home'",
      "url(self.url).getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
      "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
      "isURL('/path') == true",
      "isURL('https://a:b:c/') == false",
      "isURL('../relative-path') == false",
    ],
  },
  {
    name: 'transition rules',
    obj: { v: 'new' },
    oldObj: { v: 'old' },
    schema: objectType({ v: stringType }),
    valid: ['oldSelf.v != self.v', "oldSelf.v == 'old' && self.v == 'new'"],
  },
  { name: 'skipped transition rule for nil old primitive', obj: 'exists', schema: stringType, valid: ['oldSelf == self'] },
  { name: 'skipped transition rule for nil old array', obj: [], schema: listType(stringType), valid: ['oldSelf == self'] },
  { name: 'skipped transition rule for nil old object', obj: { f: 'exists' }, schema: objectType({ f: stringType }), valid: ['oldSelf.f == self.f'] },
];

const withRule = (s: JSONSchemaProps, rule: string): JSONSchemaProps => ({ ...s, 'x-kubernetes-validations': [{ rule }] });

for (const tc of cases) {
  test(`TestValidationExpressions/${tc.name}`, () => {
    for (const rule of tc.valid ?? []) {
      const errs = new CelValidator(withRule(tc.schema, rule)).validate(tc.obj, tc.oldObj, { path: 'root', resourceRoot: tc.isRoot === true });
      assert.deepEqual(errs.map(fieldErrorString), [], rule);
    }
    for (const [rule, want] of Object.entries(tc.errors ?? {})) {
      const errs = new CelValidator(withRule(tc.schema, rule)).validate(tc.obj, tc.oldObj, { path: 'root', resourceRoot: tc.isRoot === true });
      assert.ok(errs.length > 0, `${rule}: expected validation errors but got none`);
      for (const e of errs) {
        assert.equal(e.type, 'FieldValueInvalid', rule);
        assert.ok(fieldErrorString(e).includes(want), `${rule}: expected error to contain '${want}', but got: ${fieldErrorString(e)}`);
      }
    }
  });
}

// validation.go's error shapes: the node's path and type, the rule's message or `failed rule: <rule>`,
// messageExpression and its fallbacks, reason, fieldPath, runtime errors, transition rules and ratcheting.
interface ErrorCase {
  name: string;
  schema: JSONSchemaProps;
  obj: Record<string, unknown>;
  old?: Record<string, unknown>;
  want: string[];
}

const spec = (rules: Record<string, unknown>[], properties: Record<string, JSONSchemaProps> = { replicas: integerType, maxReplicas: integerType, name: stringType }): JSONSchemaProps =>
  objectType({ spec: { type: 'object', properties, 'x-kubernetes-validations': rules } });
const cr = (s: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'foo' }, spec: s });

const errorCases: ErrorCase[] = [
  {
    name: 'rule with a message',
    schema: spec([{ rule: 'self.replicas <= self.maxReplicas', message: 'replicas must be <= maxReplicas' }]),
    obj: cr({ replicas: 5, maxReplicas: 3 }),
    want: ['spec: Invalid value: "object": replicas must be <= maxReplicas'],
  },
  {
    name: 'rule without a message',
    schema: spec([{ rule: 'self.replicas <= self.maxReplicas' }]),
    obj: cr({ replicas: 5, maxReplicas: 3 }),
    want: ['spec: Invalid value: "object": failed rule: self.replicas <= self.maxReplicas'],
  },
  {
    name: 'message and rule are trimmed',
    schema: spec([{ rule: '  self.replicas <= self.maxReplicas ', message: ' too many ' }]),
    obj: cr({ replicas: 5, maxReplicas: 3 }),
    want: ['spec: Invalid value: "object": too many'],
  },
  {
    name: 'rule on the root is reported at the nil path',
    schema: { ...objectType({ spec: objectType({ replicas: integerType }) }), 'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('x')" }] },
    obj: cr({ replicas: 1 }),
    want: [`<nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith('x')`],
  },
  {
    name: 'rules on list items and map values run per element',
    schema: objectType({
      spec: objectType({
        tags: listType({ ...stringType, 'x-kubernetes-validations': [{ rule: 'self.size() < 4', message: 'tag too long' }] }),
        limits: mapType({ ...integerType, 'x-kubernetes-validations': [{ rule: 'self > 0' }] }),
      }),
    }),
    obj: cr({ tags: ['a', 'abcdef', 'xyzw'], limits: { cpu: 1, memory: -1 } }),
    want: ['spec.tags[1]: Invalid value: "string": tag too long', 'spec.tags[2]: Invalid value: "string": tag too long', 'spec.limits[memory]: Invalid value: "integer": failed rule: self > 0'],
  },
  {
    name: 'int-or-string reports the empty type',
    schema: objectType({ spec: objectType({ port: { ...intOrStringType, 'x-kubernetes-validations': [{ rule: 'type(self) == int' }] } }) }),
    obj: cr({ port: 'http' }),
    want: ['spec.port: Invalid value: "": failed rule: type(self) == int'],
  },
  {
    name: 'messageExpression',
    schema: spec([{ rule: 'self.replicas <= self.maxReplicas', messageExpression: "'replicas ' + string(self.replicas) + ' exceeds ' + string(self.maxReplicas)" }]),
    obj: cr({ replicas: 5, maxReplicas: 3 }),
    want: ['spec: Invalid value: "object": replicas 5 exceeds 3'],
  },
  {
    name: 'messageExpression is trimmed',
    schema: spec([{ rule: 'false', messageExpression: "'  padded  '" }]),
    obj: cr({}),
    want: ['spec: Invalid value: "object": padded'],
  },
  {
    name: 'messageExpression that fails falls back to the message',
    schema: spec([{ rule: 'false', message: 'static message', messageExpression: "self.nope + 'x'" }]),
    obj: cr({}),
    want: ['spec: Invalid value: "object": static message'],
  },
  {
    name: 'messageExpression that is empty falls back to the rule',
    schema: spec([{ rule: 'false', messageExpression: "'  '" }]),
    obj: cr({}),
    want: ['spec: Invalid value: "object": failed rule: false'],
  },
  {
    name: 'messageExpression with a line break falls back',
    schema: spec([{ rule: 'false', messageExpression: "'a\\nb'" }]),
    obj: cr({}),
    want: ['spec: Invalid value: "object": failed rule: false'],
  },
  {
    name: 'messageExpression that is not a string falls back',
    schema: spec([{ rule: 'false', messageExpression: '1' }]),
    obj: cr({}),
    want: ['spec: Invalid value: "object": failed rule: false'],
  },
  {
    name: 'reasons',
    schema: spec([
      { rule: 'false', message: 'forbidden', reason: 'FieldValueForbidden' },
      { rule: 'false', message: 'required', reason: 'FieldValueRequired' },
      { rule: 'false', message: 'duplicate', reason: 'FieldValueDuplicate' },
      { rule: 'false', message: 'invalid', reason: 'FieldValueInvalid' },
    ]),
    obj: cr({}),
    want: ['spec: Forbidden: forbidden', 'spec: Required value: required', 'spec: Duplicate value: "object"', 'spec: Invalid value: "object": invalid'],
  },
  {
    name: 'fieldPath is appended to the node path',
    schema: spec([
      { rule: 'self.replicas <= self.maxReplicas', message: 'too many', fieldPath: '.replicas' },
      { rule: 'false', fieldPath: ".labels['app.kubernetes.io/name']" },
    ], { replicas: integerType, maxReplicas: integerType, labels: mapType(stringType) }),
    obj: cr({ replicas: 5, maxReplicas: 3 }),
    want: ['spec.replicas: Invalid value: "object": too many', 'spec.labels[app.kubernetes.io/name]: Invalid value: "object": failed rule: false'],
  },
  {
    name: 'runtime errors',
    schema: spec([
      { rule: 'self.maxReplicas == 1' },
      { rule: 'self.replicas / 0 == 1', message: 'division' },
      { rule: "self.name + 1 == 'x'" },
    ], { replicas: integerType, maxReplicas: integerType, name: stringType }),
    obj: cr({ replicas: 1, name: 'a' }),
    want: [
      'spec: Invalid value: "object": no such key: maxReplicas evaluating rule: self.maxReplicas == 1',
      'spec: Invalid value: "object": division by zero evaluating rule: division',
      `spec: Invalid value: "object": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.name + 1 == 'x'`,
    ],
  },
  {
    name: 'a rule that selects an undeclared field is reported on every object',
    schema: spec([{ rule: 'self.replicas <= self.maxReplica' }]),
    obj: cr({ replicas: 1 }),
    want: ["spec: Invalid value: \"object\": rule compile error: compilation failed: ERROR: <input>:1:22: undefined field 'maxReplica'\n | self.replicas <= self.maxReplica\n | .....................^"],
  },
  {
    name: 'a rule that does not compile is reported on every object',
    schema: spec([{ rule: 'self.replicas >' }]),
    obj: cr({ replicas: 1 }),
    want: ['spec: Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:15: Syntax error: found > but expecting end of input\n | self.replicas >\n | ..............^'],
  },
  {
    name: 'transition rule on update',
    schema: objectType({ spec: objectType({ mode: { ...stringType, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] } }) }),
    obj: cr({ mode: 'b' }),
    old: cr({ mode: 'a' }),
    want: ['spec.mode: Invalid value: "string": Value is immutable'],
  },
  {
    name: 'transition rule skipped on create',
    schema: objectType({ spec: objectType({ mode: { ...stringType, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] } }) }),
    obj: cr({ mode: 'b' }),
    want: [],
  },
  {
    name: 'transition rule skipped when the field is new',
    schema: objectType({ spec: objectType({ mode: { ...stringType, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] } }) }),
    obj: cr({ mode: 'b' }),
    old: cr({}),
    want: [],
  },
  {
    name: 'optionalOldSelf binds an optional on create',
    schema: objectType({
      spec: objectType({
        mode: { ...stringType, 'x-kubernetes-validations': [{ rule: "!oldSelf.hasValue() ? self == 'initial' : self == oldSelf.value()", message: 'must start as initial', optionalOldSelf: true }] },
      }),
    }),
    obj: cr({ mode: 'b' }),
    want: ['spec.mode: Invalid value: "string": must start as initial'],
  },
  {
    name: 'optionalOldSelf binds the old value on update',
    schema: objectType({
      spec: objectType({
        mode: { ...stringType, 'x-kubernetes-validations': [{ rule: "oldSelf.orValue('initial') == self", message: 'immutable', optionalOldSelf: true }] },
      }),
    }),
    obj: cr({ mode: 'b' }),
    old: cr({ mode: 'a' }),
    want: ['spec.mode: Invalid value: "string": immutable'],
  },
  {
    name: 'map list items correlate with the old item of the same key',
    schema: objectType({
      spec: objectType({
        ports: listMapType(['name'], { ...objectType({ name: stringType, port: integerType }), 'x-kubernetes-validations': [{ rule: 'self.port == oldSelf.port', message: 'port is immutable' }] }),
      }),
    }),
    obj: cr({ ports: [{ name: 'b', port: 2 }, { name: 'a', port: 10 }, { name: 'c', port: 3 }] }),
    old: cr({ ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] }),
    want: ['spec.ports[1]: Invalid value: "object": port is immutable'],
  },
  {
    name: 'ratcheting: an unchanged invalid value is let through on update',
    schema: objectType({ spec: objectType({ name: { ...stringType, 'x-kubernetes-validations': [{ rule: "self.startsWith('a')" }] }, other: stringType }) }),
    obj: cr({ name: 'bad', other: 'changed' }),
    old: cr({ name: 'bad', other: 'x' }),
    want: [],
  },
  {
    name: 'ratcheting: a changed invalid value is rejected on update',
    schema: objectType({ spec: objectType({ name: { ...stringType, 'x-kubernetes-validations': [{ rule: "self.startsWith('a')" }] } }) }),
    obj: cr({ name: 'worse' }),
    old: cr({ name: 'bad' }),
    want: [`spec.name: Invalid value: "string": failed rule: self.startsWith('a')`],
  },
  {
    name: 'set list equality ignores order in transition rules',
    schema: objectType({ spec: objectType({ tags: { ...listSetType(stringType), 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] } }) }),
    obj: cr({ tags: ['b', 'a'] }),
    old: cr({ tags: ['a', 'b'] }),
    want: [],
  },
];

for (const tc of errorCases) {
  test(`validation errors/${tc.name}`, () => {
    const errs = new CelValidator(tc.schema).validate(tc.obj, tc.old);
    assert.deepEqual(errs.map(fieldErrorString), tc.want);
  });
}
