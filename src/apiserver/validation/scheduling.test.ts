import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeSelector, Pod, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { aggregateMessage, fieldErrorString, Path } from '../../api/field-errors.js';
import { validatePodCreate } from './pod.js';
import { validateNodeSelector, validateOnlyAddedTolerations, validatePreferredSchedulingTerms, validateTaints, validateTolerations } from './scheduling.js';

const tolPath = Path.root('tolerations');

// pkg/apis/core/validation/validation_test.go (tolerations success cases)
const tolerationSuccess: { name: string; tolerations: Toleration[] }[] = [
  { name: 'populate forgiveness tolerations with exists operator in annotations.', tolerations: [{ key: 'foo', operator: 'Exists', value: '', effect: 'NoExecute', tolerationSeconds: 60 }] },
  { name: 'populate forgiveness tolerations with equal operator in annotations.', tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoExecute', tolerationSeconds: 60 }] },
  { name: 'populate tolerations equal operator in annotations.', tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' }] },
  { name: 'empty key with Exists operator is OK for toleration, empty toleration key means match all taint keys.', tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }] },
  { name: 'empty operator is OK for toleration, defaults to Equal.', tolerations: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }] },
  { name: 'empty effect is OK for toleration, empty toleration effect means match all taint effects.', tolerations: [{ key: 'foo', operator: 'Equal', value: 'bar' }] },
  { name: 'negative tolerationSeconds is OK for toleration.', tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: -2 }] },
];

for (const tc of tolerationSuccess) {
  test(`ValidateTolerations success: ${tc.name}`, () => assert.deepEqual(validateTolerations(tc.tolerations, tolPath), []));
}

// pkg/apis/core/validation/validation_test.go (tolerations error cases), with the full 1.32 message
const tolerationErrors: { name: string; tolerations: Toleration[]; field: string; message: string }[] = [
  {
    name: 'invalid toleration key',
    tolerations: [{ key: 'nospecialchars^=@', operator: 'Equal', value: 'bar', effect: 'NoSchedule' }],
    field: 'tolerations[0].key',
    message:
      'tolerations[0].key: Invalid value: "nospecialchars^=@": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
  },
  {
    name: 'invalid toleration operator',
    tolerations: [{ key: 'foo', operator: 'In', value: 'bar', effect: 'NoSchedule' }],
    field: 'tolerations[0].operator',
    message: 'tolerations[0].operator: Unsupported value: "In": supported values: "Equal", "Exists"',
  },
  {
    name: "value must be empty when `operator` is 'Exists'",
    tolerations: [{ key: 'foo', operator: 'Exists', value: 'bar', effect: 'NoSchedule' }],
    field: 'tolerations[0].operator',
    message:
      'tolerations[0].operator: Invalid value: core.Toleration{Key:"foo", Operator:"Exists", Value:"bar", Effect:"NoSchedule", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is \'Exists\'',
  },
  {
    name: "operator must be 'Exists' when `key` is empty",
    tolerations: [{ operator: 'Equal', value: 'bar', effect: 'NoSchedule' }],
    field: 'tolerations[0].operator',
    message: 'tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
  },
  {
    name: "effect must be 'NoExecute' when `TolerationSeconds` is set",
    tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 20 }],
    field: 'tolerations[0].effect',
    message: "tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
  },
  {
    name: 'invalid toleration effect',
    tolerations: [{ key: 'foo', operator: 'Exists', effect: 'Bogus' }],
    field: 'tolerations[0].effect',
    message: 'tolerations[0].effect: Unsupported value: "Bogus": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
  },
];

for (const tc of tolerationErrors) {
  test(`ValidateTolerations error: ${tc.name}`, () => {
    const errs = validateTolerations(tc.tolerations, tolPath);
    assert.ok(errs.length > 0);
    assert.equal(errs[0]?.field, tc.field);
    assert.equal(errs[0] === undefined ? "" : fieldErrorString(errs[0]), tc.message);
  });
}

test('ValidateTolerations: an Equal value must be a valid label value', () => {
  const errs = validateTolerations([{ key: 'foo', operator: 'Equal', value: 'not a value' }], tolPath);
  assert.equal(
    aggregateMessage(errs),
    'tolerations[0].operator: Invalid value: "not a value": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')',
  );
});

test('pod update: existing toleration can not be modified except its tolerationSeconds', () => {
  const old: Toleration[] = [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }];
  assert.deepEqual(validateOnlyAddedTolerations([{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }, { key: 'b', operator: 'Exists' }], old, Path.root('spec').child('tolerations')), []);
  const errs = validateOnlyAddedTolerations([{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }], old, Path.root('spec').child('tolerations'));
  assert.equal(aggregateMessage(errs), 'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds');
});

// pkg/apis/core/validation/validation_test.go (node affinity in TestValidatePod error cases)
const nodeSelectorSuccess: { name: string; ns: NodeSelector }[] = [
  {
    name: 'serialized node affinity requirements',
    ns: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'key2', operator: 'In', values: ['value1', 'value2'] }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['host1'] }] }] },
  },
  { name: 'serialized node affinity requirements II', ns: { nodeSelectorTerms: [{ matchExpressions: [] }] } },
];

for (const tc of nodeSelectorSuccess) {
  test(`ValidateNodeSelector success: ${tc.name}`, () => assert.deepEqual(validateNodeSelector(tc.ns, Path.root('nodeSelector')), []));
}

const nodeSelectorErrors: { name: string; ns: NodeSelector; message: string }[] = [
  {
    name: "invalid node selector requirement in node affinity, operator can't be null",
    ns: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'key1' } as never] }] },
    message: 'nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "": not a valid selector operator',
  },
  {
    name: 'invalid node selector requirement in node affinity, key is invalid',
    ns: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'invalid key ___@#', operator: 'Exists' }] }] },
    message:
      'nodeSelector.nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: "invalid key ___@#": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
  },
  {
    name: 'invalid node field selector requirement in node affinity, more values for field selector',
    ns: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['host1', 'host2'] }] }] },
    message: "nodeSelector.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
  },
  {
    name: 'invalid node field selector requirement in node affinity, invalid operator',
    ns: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }] },
    message: 'nodeSelector.nodeSelectorTerms[0].matchFields[0].operator: Invalid value: "Exists": not a valid selector operator',
  },
  {
    name: 'invalid node field selector requirement in node affinity, invalid key',
    ns: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.namespace', operator: 'In', values: ['ns1'] }] }] },
    message: 'nodeSelector.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "metadata.namespace": not a valid field selector key',
  },
  {
    name: 'invalid requiredDuringSchedulingIgnoredDuringExecution node selector, nodeSelectorTerms must have at least one term',
    ns: { nodeSelectorTerms: [] },
    message: 'nodeSelector.nodeSelectorTerms: Required value: must have at least one node selector term',
  },
  {
    name: 'invalid node selector requirement in node affinity, In with no values',
    ns: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: [] }] }] },
    message: "nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  },
  {
    name: 'invalid node selector requirement in node affinity, Exists with values',
    ns: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Exists', values: ['v'] }] }] },
    message: "nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
  },
  {
    name: 'invalid node selector requirement in node affinity, Gt with two values',
    ns: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Gt', values: ['1', '2'] }] }] },
    message: "nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
  },
];

for (const tc of nodeSelectorErrors) {
  test(`ValidateNodeSelector error: ${tc.name}`, () => assert.equal(aggregateMessage(validateNodeSelector(tc.ns, Path.root('nodeSelector'))), tc.message));
}

test('invalid preferredSchedulingTerm in node affinity, weight should be in range 1-100', () => {
  const path = Path.root('spec').child('affinity', 'nodeAffinity', 'preferredDuringSchedulingIgnoredDuringExecution');
  assert.equal(
    aggregateMessage(validatePreferredSchedulingTerms([{ weight: 199, preference: { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] } }], path)),
    'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 199: must be in the range 1-100',
  );
  assert.deepEqual(validatePreferredSchedulingTerms([{ weight: 1, preference: {} }, { weight: 100, preference: {} }], path), []);
  assert.equal(validatePreferredSchedulingTerms([{ weight: 0, preference: {} }], path).length, 1);
});

test('node affinity errors are reported at their pod paths', () => {
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      containers: [{ name: 'c', image: 'i', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' }],
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['host1', 'host2'] }] }] } } },
    },
  };
  assert.equal(
    aggregateMessage(validatePodCreate(pod)),
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
  );
});

test('node taints: key/effect validation and duplicate key+effect', () => {
  const taints: Taint[] = [
    { key: 'a', value: 'b', effect: 'NoSchedule' },
    { key: 'a', value: 'c', effect: 'NoSchedule' },
    { key: 'a', effect: 'NoExecute' },
    { key: '', effect: 'Bogus' },
  ];
  assert.deepEqual(
    validateTaints(taints, Path.root('spec').child('taints')).map(fieldErrorString),
    [
      'spec.taints[1]: Duplicate value: core.Taint{Key:"a", Value:"c", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
      'spec.taints[3].key: Invalid value: "": name part must be non-empty',
      'spec.taints[3].key: Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
      'spec.taints[3].effect: Unsupported value: "Bogus": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ],
  );
  assert.deepEqual(validateTaints([{ key: 'k', effect: '' }], Path.root('spec').child('taints')).map(fieldErrorString), ['spec.taints[0].effect: Required value']);
});
