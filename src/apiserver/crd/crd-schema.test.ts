/**
 * Custom resource validation against a structural schema, message by message as kube-apiserver 1.32
 * prints them: kube-openapi's validators (`pkg/validation/validate`, messages of `pkg/validation/errors`)
 * through apiextensions-apiserver's `kubeOpenAPIResultToFieldErrors`, embedded resources
 * (`schema/objectmeta/validation.go`), list types (`schema/listtype/validation.go`), ratcheting on update,
 * and the null pruning and defaulting decoding does first.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../api/field-errors.js';
import { defaultCustomResource, pruneCustomResource, validateCustomResource, type JSONSchemaProps } from './crd-schema.js';

const root = (spec: Record<string, JSONSchemaProps>, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: { type: 'object', properties: spec, ...extra } },
});
const cr = (spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec });

/** What the server does to a request body before validating it: prune, drop nulls, default. */
function decoded(schema: JSONSchemaProps, obj: Record<string, unknown>): Record<string, unknown> {
  const o = structuredClone(obj);
  pruneCustomResource(schema, o);
  defaultCustomResource(schema, o);
  return o;
}

function errors(schema: JSONSchemaProps, obj: Record<string, unknown>, old?: Record<string, unknown>): string[] {
  return validateCustomResource(schema, decoded(schema, obj), old === undefined ? undefined : decoded(schema, old)).map(fieldErrorString);
}

const cases: Array<{ name: string; schema: JSONSchemaProps; spec: Record<string, unknown>; want: string[] }> = [
  { name: 'a valid object', schema: root({ replicas: { type: 'integer' } }), spec: { replicas: 3 }, want: [] },
  {
    name: 'a string for an integer names the JSON type',
    schema: root({ replicas: { type: 'integer' } }),
    spec: { replicas: 'three' },
    want: ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
  },
  {
    name: 'a fraction for an integer is a number',
    schema: root({ replicas: { type: 'integer' } }),
    spec: { replicas: 1.5 },
    want: ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'],
  },
  { name: 'an integer is a number', schema: root({ ratio: { type: 'number' } }), spec: { ratio: 2 }, want: [] },
  {
    name: 'an object for a string',
    schema: root({ name: { type: 'string' } }),
    spec: { name: { a: 1 } },
    want: ['spec.name: Invalid value: "object": spec.name in body must be of type string: "object"'],
  },
  {
    name: 'a boolean for an array',
    schema: root({ list: { type: 'array', items: { type: 'string' } } }),
    spec: { list: true },
    want: ['spec.list: Invalid value: "boolean": spec.list in body must be of type array: "boolean"'],
  },
  {
    name: 'a boolean for int-or-string names both types',
    schema: root({ port: { 'x-kubernetes-int-or-string': true } }),
    spec: { port: true },
    want: ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
  },
  {
    name: 'int-or-string with the anyOf controller-gen writes',
    schema: root({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }),
    spec: { port: 1.5 },
    want: [
      'spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"',
      '<nil>: Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
      'spec.port: Invalid value: "number": spec.port in body must be of type integer: "number"',
    ],
  },
  { name: 'int-or-string takes both', schema: root({ a: { 'x-kubernetes-int-or-string': true }, b: { 'x-kubernetes-int-or-string': true } }), spec: { a: 1, b: '50%' }, want: [] },
  {
    name: 'a null non-nullable field is dropped, so a required one is missing',
    schema: root({ name: { type: 'string' }, other: { type: 'string' } }, { required: ['name'] }),
    spec: { name: null, other: null },
    want: ['spec.name: Required value'],
  },
  { name: 'a nullable field keeps its null', schema: root({ name: { type: 'string', nullable: true } }, { required: ['name'] }), spec: { name: null }, want: [] },
  {
    name: 'a null list item is kept and fails its type',
    schema: root({ list: { type: 'array', items: { type: 'string' } } }),
    spec: { list: ['a', null] },
    want: ['spec.list[1]: Invalid value: "null": spec.list[1] in body must be of type string: "null"'],
  },
  {
    name: 'required fields are reported after the properties, in the schema order',
    schema: root({ a: { type: 'string' }, b: { type: 'integer' }, c: { type: 'string' } }, { required: ['c', 'a'] }),
    spec: { b: 'x' },
    want: ['spec.b: Invalid value: "string": spec.b in body must be of type integer: "string"', 'spec.c: Required value', 'spec.a: Required value'],
  },
  {
    name: 'an enum of strings',
    schema: root({ mode: { type: 'string', enum: ['Fast', 'Slow'] } }),
    spec: { mode: 'Medium' },
    want: ['spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"'],
  },
  {
    name: 'an enum of integers lists their JSON',
    schema: root({ level: { type: 'integer', enum: [1, 2, 3] } }),
    spec: { level: 5 },
    want: ['spec.level: Unsupported value: 5: supported values: "1", "2", "3"'],
  },
  {
    name: 'the enum is checked after the type',
    schema: root({ mode: { type: 'string', enum: ['a'] } }),
    spec: { mode: 1 },
    want: ['spec.mode: Invalid value: "integer": spec.mode in body must be of type string: "integer"', 'spec.mode: Unsupported value: 1: supported values: "a"'],
  },
  {
    name: 'minimum and maximum, inclusive',
    schema: root({ a: { type: 'integer', minimum: 1 }, b: { type: 'integer', maximum: 10 } }),
    spec: { a: 0, b: 11 },
    want: ['spec.a: Invalid value: 0: spec.a in body should be greater than or equal to 1', 'spec.b: Invalid value: 11: spec.b in body should be less than or equal to 10'],
  },
  {
    name: 'exclusive bounds',
    schema: root({ a: { type: 'number', minimum: 1, exclusiveMinimum: true, maximum: 2, exclusiveMaximum: true } }),
    spec: { a: 2.5 },
    want: ['spec.a: Invalid value: 2.5: spec.a in body should be less than 2'],
  },
  {
    name: 'an integer is compared with the bound truncated, as Go converts it',
    schema: root({ a: { type: 'integer', maximum: 2.5 } }),
    spec: { a: 3 },
    want: ['spec.a: Invalid value: 3: spec.a in body should be less than or equal to 2'],
  },
  {
    name: 'a fraction prints the bound as Go prints a float64',
    schema: root({ a: { type: 'number', maximum: 1000000 } }),
    spec: { a: 1000000.5 },
    want: ['spec.a: Invalid value: 1.0000005e+06: spec.a in body should be less than or equal to 1e+06'],
  },
  {
    name: 'multipleOf, then minimum',
    schema: root({ a: { type: 'integer', multipleOf: 5, minimum: 10 } }),
    spec: { a: 7 },
    want: ['spec.a: Invalid value: 7: spec.a in body should be a multiple of 5', 'spec.a: Invalid value: 7: spec.a in body should be greater than or equal to 10'],
  },
  { name: 'multipleOf a fraction', schema: root({ a: { type: 'number', multipleOf: 0.1 } }), spec: { a: 0.3 }, want: [] },
  {
    name: 'maxLength counts characters and omits the value',
    schema: root({ name: { type: 'string', maxLength: 3 } }),
    spec: { name: 'ééééé' },
    want: ['spec.name: Too long: may not be more than 3 bytes'],
  },
  {
    name: 'only the first string failure is reported',
    schema: root({ name: { type: 'string', minLength: 5, pattern: '^[a-z]+$' } }),
    spec: { name: 'AB' },
    want: ['spec.name: Invalid value: "AB": spec.name in body should be at least 5 chars long'],
  },
  {
    name: 'a pattern',
    schema: root({ name: { type: 'string', pattern: '^[a-z]+$' } }),
    spec: { name: 'ABC' },
    want: ["spec.name: Invalid value: \"ABC\": spec.name in body should match '^[a-z]+$'"],
  },
  {
    name: 'items first, then minItems',
    schema: root({ list: { type: 'array', minItems: 3, items: { type: 'string' } } }),
    spec: { list: [1] },
    want: ['spec.list[0]: Invalid value: "integer": spec.list[0] in body must be of type string: "integer"', 'spec.list: Invalid value: 1: spec.list in body should have at least 3 items'],
  },
  {
    name: 'maxItems is Too many',
    schema: root({ list: { type: 'array', maxItems: 1, items: { type: 'string' } } }),
    spec: { list: ['a', 'b'] },
    want: ['spec.list: Too many: 2: must have at most 1 item'],
  },
  {
    name: 'minProperties stops the object',
    schema: root({ labels: { type: 'object', minProperties: 2, additionalProperties: { type: 'string' } } }),
    spec: { labels: { a: 1 } },
    want: ['spec.labels: Invalid value: 1: spec.labels in body should have at least 2 properties'],
  },
  {
    name: 'maxProperties is Too many items',
    schema: root({ labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } } }),
    spec: { labels: { a: 'x', b: 'y' } },
    want: ['spec.labels: Too many: 2: must have at most 1 item'],
  },
  {
    name: 'additionalProperties values are named with dots',
    schema: root({ labels: { type: 'object', additionalProperties: { type: 'string' } } }),
    spec: { labels: { 'app.kubernetes.io/name': 1 } },
    want: ['spec.labels.app.kubernetes.io/name: Invalid value: "integer": spec.labels.app.kubernetes.io/name in body must be of type string: "integer"'],
  },
  {
    name: 'date-time',
    schema: root({ at: { type: 'string', format: 'date-time' } }),
    spec: { at: '2024-13-01T00:00:00Z' },
    want: ['spec.at: Invalid value: "2024-13-01T00:00:00Z": spec.at in body must be of type date-time: "2024-13-01T00:00:00Z"'],
  },
  { name: 'a valid date-time', schema: root({ at: { type: 'string', format: 'date-time' } }), spec: { at: '2024-02-29T23:59:59.5+01:00' }, want: [] },
  {
    name: 'a number for a formatted string names the format',
    schema: root({ at: { type: 'string', format: 'date-time' } }),
    spec: { at: 5 },
    want: ['spec.at: Invalid value: "int64": spec.at in body must be of type date-time: "int64"'],
  },
  {
    name: 'uuid and ipv4',
    schema: root({ id: { type: 'string', format: 'uuid' }, ip: { type: 'string', format: 'ipv4' } }),
    spec: { id: 'nope', ip: '10.0.0.256' },
    want: ['spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"', 'spec.ip: Invalid value: "10.0.0.256": spec.ip in body must be of type ipv4: "10.0.0.256"'],
  },
  { name: 'a format 1.32 does not support is not checked', schema: root({ n: { type: 'string', format: 'quantity' }, m: { type: 'string', format: 'k8s-short-name' } }), spec: { n: '!', m: '!' }, want: [] },
  {
    name: 'an embedded resource needs apiVersion and kind and valid metadata',
    schema: root({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    spec: { template: { metadata: { name: 'a/b', labels: { 'bad key!': 'x' } } } },
    want: [
      'spec.template.apiVersion: Required value',
      'spec.template.kind: Required value',
      "spec.template.metadata.name: Invalid value: \"a/b\": may not contain '/'",
      'spec.template.metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    ],
  },
  {
    name: 'an embedded kind must be a DNS-1035 label but for case',
    schema: root({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    spec: { template: { apiVersion: 'a/b/c', kind: 'My_Kind' } },
    want: [
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "spec.template.kind: Invalid value: \"My_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ],
  },
  {
    name: 'list types come after the schema errors',
    schema: root({
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 10 } } } },
    }),
    spec: { tags: ['a', 'a'], ports: [{ name: 'a', port: 1 }, { name: 'a', port: 20 }] },
    want: [
      'spec.ports[1].port: Invalid value: 20: spec.ports[1].port in body should be less than or equal to 10',
      'spec.tags[1]: Duplicate value: "a"',
      'spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}',
    ],
  },
  {
    name: 'CEL rules are evaluated',
    schema: root({ a: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 100', message: 'too small' }] } }, { 'x-kubernetes-validations': [{ rule: 'has(self.a)' }] }),
    spec: { a: 1 },
    want: ['spec.a: Invalid value: "integer": too small'],
  },
];

describe('validateCustomResource', () => {
  for (const tc of cases) {
    test(tc.name, () => {
      assert.deepEqual(errors(tc.schema, cr(tc.spec)), tc.want);
    });
  }
});

describe('ratcheting on update', () => {
  const schema = root({ a: { type: 'string', maxLength: 3 }, b: { type: 'string', maxLength: 3 }, tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } });
  test('an unchanged invalid field is let through', () => {
    assert.deepEqual(errors(schema, cr({ a: 'toolong', b: 'ok' }), cr({ a: 'toolong' })), []);
  });
  test('a changed one is not', () => {
    assert.deepEqual(errors(schema, cr({ a: 'toolong', b: 'toolong' }), cr({ a: 'toolong' })), ['spec.b: Too long: may not be more than 3 bytes']);
  });
  test('duplicates the old object already had are not checked again', () => {
    assert.deepEqual(errors(schema, cr({ tags: ['x', 'x', 'y', 'y'] }), cr({ tags: ['x', 'x'] })), []);
  });
  test('duplicates are checked when the old object had none', () => {
    assert.deepEqual(errors(schema, cr({ tags: ['x', 'x'] }), cr({ tags: ['x'] })), ['spec.tags[1]: Duplicate value: "x"']);
  });
});

describe('decoding', () => {
  test('a null non-nullable field with a default takes the default', () => {
    const schema = root({ mode: { type: 'string', default: 'Fast' }, opt: { type: 'string' }, keep: { type: 'string', nullable: true } });
    assert.deepEqual(decoded(schema, cr({ mode: null, opt: null, keep: null }))['spec'], { mode: 'Fast', keep: null });
  });
  test('an embedded resource keeps its apiVersion and kind, and its metadata goes through ObjectMeta', () => {
    const schema = root({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } } });
    const o = cr({ template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: {}, colour: 'red' }, spec: {}, extra: 1 } });
    assert.deepEqual(pruneCustomResource(schema, o), ['spec.template.extra', 'spec.template.metadata.colour']);
    assert.deepEqual(o['spec'], { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', creationTimestamp: null }, spec: {} } });
  });
});

describe('the root metadata', () => {
  const schema: JSONSchemaProps = { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } }, spec: { type: 'object' } } };
  test('a schema may restrict metadata.name', () => {
    assert.deepEqual(errors(schema, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'toolong', namespace: 'default' }, spec: {} }), [
      'metadata.name: Too long: may not be more than 5 bytes',
    ]);
  });
  test('other metadata is not the schema’s concern', () => {
    assert.deepEqual(errors(schema, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'ok', labels: { a: 'b' }, resourceVersion: '5' }, spec: {} }), []);
  });
});

describe('the scale subresource paths (ValidateScaleSpec, ValidateScaleStatus)', () => {
  const schema: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
  const scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };
  const obj = (spec: unknown, status: unknown): Record<string, unknown> => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec, status });
  const scaleErrors = (o: Record<string, unknown>, subresource = ''): string[] => validateCustomResource(schema, o, undefined, { scale, subresource }).map(fieldErrorString);
  const cases: Array<{ name: string; obj: Record<string, unknown>; subresource?: string; want: string[] }> = [
    { name: 'absent replicas are fine', obj: obj({}, {}), want: [] },
    { name: 'negative spec replicas', obj: obj({ replicas: -1 }, {}), want: ['.spec.replicas: Invalid value: -1: should be a non-negative integer'] },
    { name: 'more than an int32', obj: obj({ replicas: 2147483648 }, {}), want: ['.spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647'] },
    {
      name: 'a string names the Go types',
      obj: obj({ replicas: 'two' }, { replicas: 1.5, selector: 3 }),
      want: [
        '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: two is of the type string, expected int64',
        '.status.replicas: Invalid value: 0: .status.replicas accessor error: 1.5 is of the type float64, expected int64',
        '.status.selector: Invalid value: "": .status.selector accessor error: 3 is of the type int64, expected string',
      ],
    },
    { name: 'a status update checks only the status paths', obj: obj({ replicas: -1 }, { replicas: -2 }), subresource: 'status', want: ['.status.replicas: Invalid value: -2: should be a non-negative integer'] },
    {
      name: 'a value on the way that is not an object',
      obj: obj('x', {}),
      // NestedFieldNoCopy names the path up to the field it could not look up, not the value that is no map.
      want: [
        'spec: Invalid value: "string": spec in body must be of type object: "string"',
        '.spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected map[string]interface{}',
      ],
    },
  ];
  for (const tc of cases) test(tc.name, () => assert.deepEqual(scaleErrors(tc.obj, tc.subresource), tc.want));
});

// customResourceStrategy.Validate: the CEL rules run last, after the schema errors, and not at all when a
// schema error means the object does not have the shape the rules were written for (hasBlockingErr).
describe('x-kubernetes-validations', () => {
  const rules = [{ rule: 'self.replicas <= self.maxReplicas', message: 'replicas must be <= maxReplicas' }];
  const schema = root({ replicas: { type: 'integer', minimum: 0 }, maxReplicas: { type: 'integer' }, mode: { type: 'string', enum: ['a', 'b'] } }, { 'x-kubernetes-validations': rules });
  test('rule errors follow the schema errors', () => {
    assert.deepEqual(errors(schema, cr({ replicas: 5, maxReplicas: -1 })), ['spec: Invalid value: "object": replicas must be <= maxReplicas']);
    assert.deepEqual(errors(schema, cr({ replicas: -5, maxReplicas: -6 })), [
      'spec.replicas: Invalid value: -5: spec.replicas in body should be greater than or equal to 0',
      'spec: Invalid value: "object": replicas must be <= maxReplicas',
    ]);
  });
  test('a blocking schema error stops the rules', () => {
    assert.deepEqual(errors(schema, cr({ replicas: 5, maxReplicas: 1, mode: 'c' })), [
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
  });
  test('a valid object passes', () => {
    assert.deepEqual(errors(schema, cr({ replicas: 1, maxReplicas: 2 })), []);
  });
  test('transition rules see the stored object on update', () => {
    const immutable = root({ mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] } });
    assert.deepEqual(errors(immutable, cr({ mode: 'b' }), cr({ mode: 'a' })), ['spec.mode: Invalid value: "string": Value is immutable']);
    assert.deepEqual(errors(immutable, cr({ mode: 'a' }), cr({ mode: 'a' })), []);
    assert.deepEqual(errors(immutable, cr({ mode: 'b' })), []);
  });
});
