import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../api/field-errors.js';
import { defaultCustomResourceDefinition } from './defaults.js';
import type { CrdSpec, CrdVersion, CustomResourceDefinition } from './apiextensions.js';
import { validate } from './index.js';

const kind = { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' };
const objectSchema = { openAPIV3Schema: { type: 'object' } };
const v = (name: string, more: Partial<CrdVersion> = {}): CrdVersion => ({ name, served: true, storage: true, schema: objectSchema, ...more });
const spec = (more: Partial<CrdSpec> = {}): CrdSpec => ({
  group: 'group.com',
  scope: 'Namespaced',
  names: { plural: 'plural', singular: 'singular', kind: 'Plural', listKind: 'PluralList' },
  versions: [v('version')],
  ...more,
});
/** A CRD as the strategy hands it to validation: defaulted, storedVersions recorded. */
const crd = (name: string, s: CrdSpec, storedVersions: string[] | null = ['version']): CustomResourceDefinition => {
  const obj: CustomResourceDefinition = { metadata: { name }, spec: s, status: storedVersions === null ? {} : { storedVersions } };
  defaultCustomResourceDefinition(obj);
  return obj;
};
const errs = (obj: CustomResourceDefinition, old?: CustomResourceDefinition): string[] => validate(kind, obj as never, old as never).map(fieldErrorString);
const dns1035 = (value: string): string =>
  `Invalid value: "${value}": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`;
const goVersion = (name: string, storage: boolean): string =>
  `apiextensions.CustomResourceDefinitionVersion{Name:"${name}", Served:true, Storage:${storage}, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}`;

// apiextensions-apiserver's TestValidateCustomResourceDefinition, case by case (the v1 form of each).
test('ValidateCustomResourceDefinition', () => {
  const cases: [string, CustomResourceDefinition, string[]][] = [
    ['a valid CRD', crd('plural.group.com', spec()), []],
    ['mismatched name', crd('plural.not.group.com', spec()), ['metadata.name: Invalid value: "plural.not.group.com": must be spec.names.plural+"."+spec.group']],
    [
      'missing values',
      crd('plural.group.com', { group: '', scope: '', names: {}, versions: [] }, null),
      [
        'metadata.name: Invalid value: "plural.group.com": must be spec.names.plural+"."+spec.group',
        'spec.group: Required value',
        'spec.scope: Required value',
        'spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: must have exactly one version marked as storage version',
        'spec.names.plural: Required value',
        'spec.names.singular: Required value',
        'spec.names.kind: Required value',
        'spec.names.listKind: Required value',
        'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
      ],
    ],
    [
      'bad names 01',
      crd('plural.group', spec({ group: 'group', scope: 'foo', names: { plural: 'pl.ural', singular: 'sin.gular', kind: 'Plural', listKind: 'Plural', shortNames: ['S.H'] } })),
      [
        'metadata.name: Invalid value: "plural.group": must be spec.names.plural+"."+spec.group',
        'spec.group: Invalid value: "group": should be a domain with at least one dot',
        'spec.scope: Unsupported value: "foo": supported values: "Cluster", "Namespaced"',
        `spec.names.plural: ${dns1035('pl.ural')}`,
        `spec.names.singular: ${dns1035('sin.gular')}`,
        `spec.names.shortNames[0]: ${dns1035('S.H')}`,
        'spec.names.listKind: Invalid value: "Plural": kind and listKind may not be the same',
      ],
    ],
    [
      'bad names 02',
      crd('plural.group.com', spec({ group: 'group.c(*&om', names: { plural: 'plural', singular: 'singular', kind: 'da.ta', listKind: 'Plural.List' } })),
      [
        'metadata.name: Invalid value: "plural.group.com": must be spec.names.plural+"."+spec.group',
        `spec.group: Invalid value: "group.c(*&om": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        `spec.names.kind: Invalid value: "da.ta": may have mixed case, but should otherwise match: ${dns1035('da.ta').replace('Invalid value: "da.ta": ', '')}`,
        `spec.names.listKind: Invalid value: "Plural.List": may have mixed case, but should otherwise match: ${dns1035('plural.list').replace('Invalid value: "plural.list": ', '')}`,
      ],
    ],
    [
      'no storage version',
      crd('plural.group.com', spec({ versions: [v('version', { storage: false }), v('version2', { storage: false })] }), null),
      [
        `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${goVersion('version', false)}, ${goVersion('version2', false)}}: must have exactly one version marked as storage version`,
        'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
      ],
    ],
    [
      'multiple storage versions',
      crd('plural.group.com', spec({ versions: [v('version'), v('version2')] })),
      [
        `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${goVersion('version', true)}, ${goVersion('version2', true)}}: must have exactly one version marked as storage version`,
        'status.storedVersions: Invalid value: []string{"version"}: must have the storage version version2',
      ],
    ],
    [
      'duplicate version',
      crd('plural.group.com', spec({ versions: [v('version'), v('version', { storage: false })] })),
      [`spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${goVersion('version', true)}, ${goVersion('version', false)}}: must contain unique version names`],
    ],
    [
      'invalid version name (also reported as the internal spec.version)',
      crd('plural.group.com', spec({ versions: [v('V1')] }), ['V1']),
      [`spec.versions[0].name: ${dns1035('V1')}`, `spec.version: ${dns1035('V1')}`],
    ],
    ['schemas are required', crd('plural.group.com', spec({ versions: [{ name: 'version', served: true, storage: true }] })), ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']],
    [
      'a schema without a type: one version reports at the top-level validation it is converted to',
      crd('plural.group.com', spec({ versions: [v('version', { schema: { openAPIV3Schema: { properties: { spec: { properties: { x: { type: 'string' } } } } } } })] })),
      [
        'spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
        'spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root',
      ],
    ],
    [
      'different schemas per version report per version',
      crd('plural.group.com', spec({ versions: [v('version'), v('version2', { storage: false, schema: { openAPIV3Schema: { type: 'string' } } })] })),
      ['spec.versions[1].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root'],
    ],
    [
      'metadata at the root may only restrict name and generateName',
      crd('plural.group.com', spec({ versions: [v('version', { schema: { openAPIV3Schema: { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } } } })] })),
      ['spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified'],
    ],
    [
      'metadata restricting name is fine',
      crd('plural.group.com', spec({ versions: [v('version', { schema: { openAPIV3Schema: { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } } } } })] })),
      [],
    ],
    [
      'additionalProperties and properties forbidden',
      crd('plural.group.com', spec({ versions: [v('version', { schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } } } } } })] })),
      ['spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive'],
    ],
    [
      'invalid type, uniqueItems, preserve-unknown-fields false',
      crd('plural.group.com', spec({ versions: [v('version', { schema: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'foo' }, b: { type: 'array', items: { type: 'string' }, uniqueItems: true }, c: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } } } } })] })),
      [
        'spec.validation.openAPIV3Schema.properties[a].type: Unsupported value: "foo": supported values: "array", "boolean", "integer", "number", "object", "string"',
        'spec.validation.openAPIV3Schema.properties[b].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
        'spec.validation.openAPIV3Schema.properties[c].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined',
      ],
    ],
    [
      'status subresource needs an object root',
      crd('plural.group.com', spec({ versions: [v('version', { subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'string' } } })] })),
      [
        'spec.validation.openAPIV3Schema.type: Invalid value: "string": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
        'spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root',
      ],
    ],
    [
      'scale paths and printer columns',
      crd('plural.group.com', spec({ versions: [v('version', { subresources: { scale: { specReplicasPath: '.status.r', statusReplicasPath: 'status.r' } }, additionalPrinterColumns: [{ name: 'x', type: 'text', jsonPath: '' }] })] })),
      [
        'spec.subresources.scale.specReplicasPath: Invalid value: ".status.r": should be a json path under .spec',
        'spec.subresources.scale.statusReplicasPath: Invalid value: "status.r": must be a simple json path starting with .',
        'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
        'spec.additionalPrinterColumns[0].JSONPath: Required value',
      ],
    ],
    [
      'deprecationWarning on a version that is not deprecated',
      crd('plural.group.com', spec({ versions: [v('version', { deprecationWarning: 'old' })] })),
      ['spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions'],
    ],
    ['webhookconfig: missing', crd('plural.group.com', spec({ conversion: { strategy: 'Webhook' } })), ['spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook', 'spec.conversion.conversionReviewVersions: Required value']],
    ['conversion strategy not supported', crd('plural.group.com', spec({ conversion: { strategy: 'Other' } })), ['spec.conversion.strategy: Unsupported value: "Other": supported values: "None", "Webhook"']],
    [
      'webhookconfig: http URL, no recognised review version',
      crd('plural.group.com', spec({ conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v2'], clientConfig: { url: 'http://example.com/convert' } } } })),
      [
        "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
        'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
      ],
    ],
    [
      'webhookconfig: a service without a name is reported as without a namespace, as upstream swaps them',
      crd('plural.group.com', spec({ conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'ns', port: 0 } } } } })),
      ['spec.conversion.webhookClientConfig.service.namespace: Required value', 'spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive'],
    ],
    [
      'protected group without approval',
      crd('plural.group.k8s.io', spec({ group: 'group.k8s.io' })),
      ['metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'],
    ],
    [
      'preserveUnknownFields true',
      crd('plural.group.com', spec({ preserveUnknownFields: true })),
      ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'],
    ],
  ];
  for (const [name, obj, want] of cases) assert.deepEqual(errs(obj), want, name);
});

test('defaulting fills singular, listKind and the None conversion before validation', () => {
  const obj = crd('plural.group.com', spec({ names: { plural: 'plural', kind: 'Plural' } }));
  assert.deepEqual(obj.spec?.names, { plural: 'plural', kind: 'Plural', singular: 'plural', listKind: 'PluralList' });
  assert.deepEqual(obj.spec?.conversion, { strategy: 'None' });
  assert.deepEqual(errs(obj), []);
});

// TestValidateCustomResourceDefinitionUpdate, the immutable fields.
test('ValidateCustomResourceDefinitionUpdate', () => {
  const established = (o: CustomResourceDefinition): CustomResourceDefinition => ({ ...o, status: { ...o.status, conditions: [{ type: 'Established', status: 'True' }] } });
  const old = established(crd('plural.group.com', spec()));
  const cases: [string, CustomResourceDefinition, CustomResourceDefinition, string[]][] = [
    ['unchanged', crd('plural.group.com', spec()), old, []],
    [
      'changeable scope and kind before established, never group or plural',
      crd('plural.group.com', spec({ group: 'abc.com', scope: 'Cluster', names: { plural: 'plural2', singular: 'singular', kind: 'Other', listKind: 'PluralList' } })),
      crd('plural.group.com', spec()),
      ['spec.group: Invalid value: "abc.com": field is immutable', 'spec.names.plural: Invalid value: "plural2": field is immutable'],
    ],
    [
      'scope and kind are immutable once established',
      crd('plural.group.com', spec({ scope: 'Cluster', names: { plural: 'plural', singular: 'singular', kind: 'Other', listKind: 'PluralList' } })),
      old,
      ['spec.scope: Invalid value: "Cluster": field is immutable', 'spec.names.kind: Invalid value: "Other": field is immutable'],
    ],
    [
      'the storage version must stay in storedVersions',
      { ...crd('plural.group.com', spec({ versions: [v('version', { storage: false }), v('version2')] })), status: { storedVersions: ['version'] } },
      old,
      ['status.storedVersions: Invalid value: []string{"version"}: must have the storage version version2'],
    ],
    [
      'a stored version may not leave spec.versions',
      { ...crd('plural.group.com', spec({ versions: [v('version2')] })), status: { storedVersions: ['version', 'version2'] } },
      old,
      [
        'status.storedVersions[0]: Invalid value: "version": missing from spec.versions; version was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in version and removes version from status.storedVersions',
      ],
    ],
  ];
  for (const [name, obj, o, want] of cases) assert.deepEqual(errs(obj, o), want, name);
});

// The x-kubernetes-validations checks of ValidateCustomResourceDefinitionOpenAPISchema: the rule's fields, then
// whether it compiles (CEL errors, listed after the schema errors). Parse errors carry @bufbuild/cel's wording
// after cel-go's `ERROR: <input>:line:col: Syntax error:` prefix; cel-go's would read "mismatched input ...".
test('x-kubernetes-validations', () => {
  const withRules = (rules: Record<string, unknown>[], specProps: Record<string, unknown> = { replicas: { type: 'integer' } }, extra: Record<string, unknown> = {}): CustomResourceDefinition =>
    crd(
      'plural.group.com',
      spec({ versions: [v('version', { schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: specProps as never, 'x-kubernetes-validations': rules, ...extra } } } } })] }),
    );
  const p = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations';
  const goRule = (rule: string, more = ''): string =>
    `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:${more === '' ? '""' : JSON.stringify(more)}, Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
  const cases: [string, CustomResourceDefinition, string[]][] = [
    ['valid rules', withRules([{ rule: 'self.replicas >= 0' }, { rule: 'self.replicas == oldSelf.replicas', message: 'immutable', fieldPath: '.replicas', reason: 'FieldValueForbidden' }]), []],
    ['empty rule', withRules([{ rule: ' ' }]), [`${p}[0].rule: Required value: rule is not specified`]],
    ['blank message', withRules([{ rule: 'true', message: ' ' }]), [`${p}[0].message: Invalid value: " ": message must be non-empty if specified`]],
    ['message with a line break', withRules([{ rule: 'true', message: 'a\nb' }]), [`${p}[0].message: Invalid value: "a\\nb": message must not contain line breaks`]],
    ['multi-line rule without a message', withRules([{ rule: 'true &&\ntrue' }]), [`${p}[0].message: Required value: message must be specified if rule contains line breaks`]],
    ['blank messageExpression', withRules([{ rule: 'true', messageExpression: ' ' }]), [`${p}[0].messageExpression: Required value: messageExpression must be non-empty if specified`]],
    [
      'unsupported reason',
      withRules([{ rule: 'true', reason: 'Bad' }]),
      [`${p}[0].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`],
    ],
    ['fieldPath of no field', withRules([{ rule: 'true', fieldPath: '.nope' }]), [`${p}[0].fieldPath: Invalid value: ".nope": fieldPath must be a valid path: does not refer to a valid field`]],
    [
      'fieldPath with an index',
      withRules([{ rule: 'true', fieldPath: '.list[0]' }], { list: { type: 'array', items: { type: 'string' } } }),
      [`${p}[0].fieldPath: Invalid value: ".list[0]": fieldPath must be a valid path: expected single quoted string but got 0`],
    ],
    [
      'blank fieldPath',
      withRules([{ rule: 'true', fieldPath: '   ' }]),
      [
        `${p}[0].fieldPath: Invalid value: "   ": fieldPath must be non-empty if specified`,
        `${p}[0].fieldPath: Invalid value: "   ": fieldPath must be a valid path: expected [ or . but got:    `,
      ],
    ],
    ['fieldPath that ends early', withRules([{ rule: 'true', fieldPath: '.' }]), [`${p}[0].fieldPath: Invalid value: ".": fieldPath must be a valid path: unexpected end of JSON path`]],
    ['fieldPath into a map', withRules([{ rule: 'true', fieldPath: ".labels['a.b']" }], { labels: { type: 'object', additionalProperties: { type: 'string' } } }), []],
    [
      'message too long',
      withRules([{ rule: 'true', message: 'x'.repeat(2049) }]),
      [`${p}[0].message: Invalid value: "xxxxxxxxxx...": message must have a maximum length of 2048 characters`],
    ],
    // A schema error at the node holds its rules' compilation back.
    ['schema errors first', withRules([{ rule: 'self.replicas >', reason: 'Bad' }]), [`${p}[0].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`]],
    [
      'enum values must pass the rules',
      withRules([], { mode: { type: 'string', enum: ['a', 'bb'], 'x-kubernetes-validations': [{ rule: 'self.size() == 1', message: 'one letter' }] } }),
      ['spec.validation.openAPIV3Schema.properties[spec].properties[mode].enum[1]: Invalid value: "string": one letter'],
    ],
    [
      'rule that does not parse',
      withRules([{ rule: 'self.replicas >' }]),
      [`${p}[0].rule: Invalid value: ${goRule('self.replicas >')}: compilation failed: ERROR: <input>:1:15: Syntax error: found > but expecting end of input\n | self.replicas >\n | ..............^`],
    ],
    [
      'undeclared reference',
      withRules([{ rule: 'replicas > 1' }]),
      [`${p}[0].rule: Invalid value: ${goRule('replicas > 1')}: compilation failed: ERROR: <input>:1:1: undeclared reference to 'replicas' (in container '')\n | replicas > 1\n | ^`],
    ],
    [
      'undefined field',
      withRules([{ rule: 'self.replica > 1' }]),
      [`${p}[0].rule: Invalid value: ${goRule('self.replica > 1')}: compilation failed: ERROR: <input>:1:5: undefined field 'replica'\n | self.replica > 1\n | ....^`],
    ],
    [
      'undefined field in a comprehension over a list of objects',
      withRules([{ rule: "self.items.all(i, i.nmae != '')" }], { items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } }),
      [`${p}[0].rule: Invalid value: ${goRule("self.items.all(i, i.nmae != '')")}: compilation failed: ERROR: <input>:1:20: undefined field 'nmae'\n | self.items.all(i, i.nmae != '')\n | ...................^`],
    ],
    ['map values are selected by key', withRules([{ rule: "self.labels.app == 'x' && self.labels['b'] == 'y'" }], { labels: { type: 'object', additionalProperties: { type: 'string' } } }), []],
    [
      'messageExpression that does not compile',
      withRules([{ rule: 'true', messageExpression: 'self.' }]),
      [`${p}[0].messageExpression: Invalid value: ${goRule('true', 'self.')}: messageExpression compilation failed: ERROR: <input>:1:5: Syntax error: found . but expecting end of input\n | self.\n | ....^`],
    ],
    [
      'oldSelf under a list that is not a map list',
      withRules([], { tags: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } }),
      [
        'spec.validation.openAPIV3Schema.properties[spec].properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[tags]',
      ],
    ],
    ['optionalOldSelf without oldSelf', withRules([{ rule: 'true', optionalOldSelf: true }]), [`${p}[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`]],
  ];
  for (const [name, obj, want] of cases) assert.deepEqual(errs(obj), want, name);
});
