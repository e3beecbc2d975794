/**
 * `TestValidateListSetsAndMaps` of apiextensions-apiserver's `pkg/apiserver/schema/listtype`, case by case
 * (the errors matched by type and path in any order, as upstream matches them), plus the exact messages
 * kube-apiserver prints for duplicates.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, FieldErrorType, type FieldError } from '../../api/field-errors.js';
import type { JSONSchemaProps } from './crd-schema.js';
import { validateListSetsAndMaps } from './_list-type.js';

const arr = (extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({ type: 'array', ...extra });
const set = (items?: JSONSchemaProps): JSONSchemaProps => arr({ 'x-kubernetes-list-type': 'set', ...(items !== undefined ? { items } : {}) });
const map = (keys: string[], items: JSONSchemaProps): JSONSchemaProps => arr({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys, items });
const str: JSONSchemaProps = { type: 'string' };
const nullableStr: JSONSchemaProps = { type: 'string', nullable: true };
const stringMap = (values: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', additionalProperties: values });
const obj = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });

interface Match {
  type: FieldError['type'];
  path: string;
}
const duplicate = (path: string): Match => ({ type: FieldErrorType.Duplicate, path });
const invalid = (path: string): Match => ({ type: FieldErrorType.Invalid, path });

const cases: Array<{ name: string; schema?: JSONSchemaProps; obj?: Record<string, unknown>; errors?: Match[] }> = [
  { name: 'nil' },
  { name: 'no schema', obj: {} },
  { name: 'no object', schema: {} },
  { name: 'list without schema', obj: { array: ['a', 'b', 'a'] } },
  { name: 'list without items', obj: { array: ['a', 'b', 'a'] }, schema: obj({ array: arr() }) },
  { name: 'set list with one item', obj: { array: ['a'] }, schema: obj({ array: set() }) },
  { name: 'set list with two equal items', obj: { array: ['a', 'a'] }, schema: obj({ array: set() }), errors: [duplicate('root.array[1]')] },
  { name: 'set list with two different items', obj: { array: ['a', 'b'] }, schema: obj({ array: set() }) },
  {
    name: 'set list with multiple duplicated items',
    obj: { array: ['a', 'a', 'b', 'c', 'd', 'c'] },
    schema: obj({ array: set() }),
    errors: [duplicate('root.array[1]'), duplicate('root.array[5]')],
  },
  { name: 'normal list with items', obj: { array: ['a', 'b', 'a'] }, schema: obj({ array: arr({ items: str }) }) },
  { name: 'set list with items', obj: { array: ['a', 'b', 'a'] }, schema: obj({ array: set(str) }), errors: [duplicate('root.array[2]')] },
  {
    name: 'set list with items under additionalProperties',
    obj: { array: ['a', 'b', 'a'] },
    schema: { type: 'object', additionalProperties: set(str) },
    errors: [duplicate('root[array][2]')],
  },
  {
    name: 'set list with items under items',
    obj: {
      array: [
        ['a', 'b', 'a'],
        ['b', 'b', 'a'],
      ],
    },
    schema: obj({ array: arr({ items: set(str) }) }),
    errors: [duplicate('root.array[0][2]'), duplicate('root.array[1][1]')],
  },
  {
    name: 'nested set lists',
    obj: { array: ['a', 'b', 'a', ['b', 'b', 'a']] },
    schema: obj({ array: set(set()) }),
    errors: [duplicate('root.array[2]'), duplicate('root.array[3][1]')],
  },
  {
    name: 'set list with compound map items',
    obj: {
      strings: ['a', 'b', 'a'],
      integers: [1, 2, 1],
      booleans: [false, true, true],
      float64: [1.0, 2.0, 2.0],
      nil: ['a', null, null],
      'empty maps': [{ a: 'b' }, {}, {}],
      'map values': [{ a: 'b' }, { a: 'c' }, { a: 'b' }],
      'nil values': [{ a: null }, { b: 'c', a: null }],
      array: [[], ['a'], ['b'], ['a']],
      'nil array': [[], [null], [null, null], [null], ['a']],
      'multiple duplicates': [{ a: 'b' }, { a: 'c' }, { a: 'b' }, { a: 'c' }, { a: 'c' }],
    },
    schema: obj({
      strings: set(str),
      integers: set({ type: 'integer' }),
      booleans: set({ type: 'boolean' }),
      float64: set({ type: 'number' }),
      nil: set(nullableStr),
      'empty maps': set(stringMap(str)),
      'map values': set(stringMap(str)),
      'nil values': set(stringMap(nullableStr)),
      array: set(arr({ items: str })),
      'nil array': set(arr({ items: nullableStr })),
      'multiple duplicates': set(stringMap(str)),
    }),
    errors: [
      duplicate('root.strings[2]'),
      duplicate('root.integers[2]'),
      duplicate('root.booleans[2]'),
      duplicate('root.float64[2]'),
      duplicate('root.nil[2]'),
      duplicate('root.empty maps[2]'),
      duplicate('root.map values[2]'),
      duplicate('root.array[3]'),
      duplicate('root.nil array[3]'),
      duplicate('root.multiple duplicates[2]'),
      duplicate('root.multiple duplicates[3]'),
    ],
  },
  {
    name: 'set list with compound array items',
    obj: { array: [[], ['a'], ['a']] },
    schema: obj({ array: set(str) }),
    errors: [duplicate('root.array[2]')],
  },
  {
    name: 'map list with compound map items',
    obj: {
      strings: ['a'],
      integers: [1],
      booleans: [false],
      float64: [1.0],
      nil: [null],
      array: [['a']],
      'one key': [{ a: '0', c: '2' }, { a: '1', c: '1' }, { a: '1', c: '2' }, {}],
      'two keys': [{ a: '1', b: '1', c: '1' }, { a: '1', b: '2', c: '2' }, { a: '1', b: '2', c: '3' }, {}],
      'undefined key': [{ a: '1', b: '1', c: '1' }, { a: '1', c: '2' }, { a: '1', c: '3' }, {}],
      'compound key': [
        { a: [], c: '1' },
        { a: null, c: '1' },
        { a: ['a'], c: '1' },
        { a: ['a', 42], c: '2' },
        { a: ['a', 42], c: ['3'] },
      ],
      'nil key': [{ a: [], c: '1' }, { a: null, c: '1' }, { c: '1' }, { a: null }],
      'nil item': [null, { a: '0', c: '1' }, { a: null }, { c: '1' }],
      'nil item multiple keys': [null, { b: '0', c: '1' }, { a: null }, { c: '1' }],
      'multiple duplicates': [
        { a: [], c: '1' },
        { a: null, c: '1' },
        { a: ['a'], c: '1' },
        { a: ['a', 42], c: '2' },
        { a: ['a', 42], c: ['3'] },
        { a: ['a'], c: '1', d: '1' },
        { a: ['a'], c: '1', d: '2' },
      ],
    },
    schema: obj({
      strings: map(['a'], str),
      integers: map(['a'], { type: 'integer' }),
      booleans: map(['a'], { type: 'boolean' }),
      float64: map(['a'], { type: 'number' }),
      nil: map(['a'], nullableStr),
      array: map(['a'], arr({ items: str })),
      'one key': map(['a'], stringMap(str)),
      'two keys': map(['a', 'b'], stringMap(str)),
      'undefined key': map(['a', 'b'], stringMap(str)),
      'compound key': map(['a'], stringMap(nullableStr)),
      'nil key': map(['a'], obj({ a: { type: 'array', nullable: true, items: str }, c: str })),
      'nil item': map(['a'], obj({ a: { type: 'array', nullable: true, items: str }, c: str })),
      'nil item multiple keys': map(['a', 'b'], obj({ a: { type: 'array', nullable: true, items: str }, b: str, c: str })),
      'multiple duplicates': map(['a'], stringMap(nullableStr)),
    }),
    errors: [
      invalid('root.strings[0]'),
      invalid('root.integers[0]'),
      invalid('root.booleans[0]'),
      invalid('root.float64[0]'),
      invalid('root.array[0]'),
      duplicate('root.one key[2]'),
      duplicate('root.two keys[2]'),
      duplicate('root.undefined key[2]'),
      duplicate('root.compound key[4]'),
      duplicate('root.nil key[3]'),
      duplicate('root.nil item[3]'),
      duplicate('root.nil item multiple keys[3]'),
      duplicate('root.multiple duplicates[4]'),
      duplicate('root.multiple duplicates[5]'),
    ],
  },
];

describe('ValidateListSetsAndMaps', () => {
  for (const tc of cases) {
    test(tc.name, () => {
      const errs = tc.obj === undefined ? [] : validateListSetsAndMaps('root', tc.schema, tc.obj);
      const got = errs.map((e) => `${e.type} ${e.field}`).sort();
      const want = (tc.errors ?? []).map((m) => `${m.type} ${m.path}`).sort();
      assert.deepEqual(got, want);
    });
  }
});

describe('duplicate messages', () => {
  const ports = obj({ ports: map(['name'], obj({ name: str, port: { type: 'integer' } })) });
  const cases2: Array<{ name: string; schema: JSONSchemaProps; obj: Record<string, unknown>; want: string[] }> = [
    { name: 'a set of strings prints the string', schema: obj({ tags: set(str) }), obj: { tags: ['a', 'b', 'a'] }, want: ['tags[2]: Duplicate value: "a"'] },
    { name: 'a set of integers prints the number', schema: obj({ ids: set({ type: 'integer' }) }), obj: { ids: [80, 80] }, want: ['ids[1]: Duplicate value: 80'] },
    {
      name: 'a set of objects prints the Go map',
      schema: obj({ s: set(stringMap(str)) }),
      obj: { s: [{ b: 'x', a: 'y' }, { a: 'y', b: 'x' }] },
      want: ['s[1]: Duplicate value: map[string]interface {}{"a":"y", "b":"x"}'],
    },
    {
      name: 'a map list with one key prints the key as a Go map',
      schema: ports,
      obj: { ports: [{ name: 'a', port: 1 }, { name: 'a', port: 2 }] },
      want: ['ports[1]: Duplicate value: map[string]interface {}{"name":"a"}'],
    },
    { name: 'a missing key is the empty map', schema: ports, obj: { ports: [{ port: 1 }, { port: 2 }] }, want: ['ports[1]: Duplicate value: map[string]interface {}{}'] },
    {
      name: 'two keys print both, integers plain',
      schema: obj({ ports: map(['port', 'protocol'], obj({ port: { type: 'integer' }, protocol: str })) }),
      obj: { ports: [{ port: 80, protocol: 'TCP' }, { port: 80, protocol: 'UDP' }, { protocol: 'TCP', port: 80 }] },
      want: ['ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}'],
    },
    {
      name: 'an item that is not an object stops the list',
      schema: ports,
      obj: { ports: [{ name: 'a' }, 'b', { name: 'a' }] },
      want: ['ports[1]: Invalid value: "b": must be an object for an array of list-type map'],
    },
  ];
  for (const tc of cases2) {
    test(tc.name, () => {
      assert.deepEqual(validateListSetsAndMaps('', tc.schema, tc.obj).map(fieldErrorString), tc.want);
    });
  }
});
