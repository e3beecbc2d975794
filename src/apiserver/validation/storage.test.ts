/**
 * pkg/apis/core/validation/validation_test.go (v1.32): TestValidatePersistentVolumeClaim and
 * TestValidatePersistentVolumeClaimUpdate case by case (upstream asserts only failure or success; we assert
 * the exact messages its code produces), with 1.32's gates off; then status updates and the dispatcher.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim, PersistentVolumeClaimSpec } from 'kubernetes-types/core/v1.js';
import { fieldErrorString } from '../../api/field-errors.js';
import { validatePersistentVolumeClaim as validateCreate, validatePersistentVolumeClaimStatusUpdate, validatePersistentVolumeClaimUpdate as validateUpdate } from './storage.js';
import { dropDisabledFields } from '../registry/pvc-data-sources.js';

/**
 * The claim without the fields the strategy drops before validation (`DropDisabledFields`); upstream's
 * validation tables, ported here, run on claims whose disabled fields are already gone.
 */
function prepared(pvc: PersistentVolumeClaim, old?: PersistentVolumeClaim): PersistentVolumeClaim {
  const out = structuredClone(pvc);
  dropDisabledFields((out.spec ??= {}), old?.spec);
  return out;
}
const validatePersistentVolumeClaim = (pvc: PersistentVolumeClaim): ReturnType<typeof validateCreate> => validateCreate(prepared(pvc));
const validatePersistentVolumeClaimUpdate = (pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): ReturnType<typeof validateUpdate> => validateUpdate(prepared(pvc, old), old);
import { validate } from './index.js';

const rwoRox = ['ReadWriteOnce', 'ReadOnlyMany'];
const req = (storage: string): NonNullable<PersistentVolumeClaimSpec['resources']> => ({ requests: { storage } });
const goodSpec: PersistentVolumeClaimSpec = {
  selector: { matchExpressions: [{ key: 'key2', operator: 'Exists' }] },
  accessModes: rwoRox,
  resources: req('10G'),
  storageClassName: 'valid',
  volumeMode: 'Filesystem',
};
const claim = (spec: PersistentVolumeClaimSpec, extra: Partial<PersistentVolumeClaim> = {}): PersistentVolumeClaim => ({
  ...extra,
  metadata: { name: 'foo', namespace: 'ns', ...extra.metadata },
  spec,
});
const msgs = (errs: { field: string }[]): string[] => errs.map((e) => fieldErrorString(e as never));
const subdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const createCases: { name: string; pvc: PersistentVolumeClaim; want: string[] }[] = [
  { name: 'good-claim', pvc: claim(goodSpec), want: [] },
  { name: 'missing-name', pvc: { metadata: { namespace: 'ns' }, spec: goodSpec }, want: ['metadata.name: Required value: name or generateName is required'] },
  { name: 'missing-namespace', pvc: { metadata: { name: 'foo' }, spec: goodSpec }, want: ['metadata.namespace: Required value'] },
  { name: 'with-generate-name', pvc: claim(goodSpec, { metadata: { generateName: 'pvc-' } }), want: [] },
  { name: 'with-finalizers', pvc: claim(goodSpec, { metadata: { finalizers: ['example.com/foo'] } }), want: [] },
  { name: 'with-good-labels', pvc: claim(goodSpec, { metadata: { labels: { 'apps.kubernetes.io/name': 'test' } } }), want: [] },
  {
    name: 'with-bad-labels',
    pvc: claim(goodSpec, { metadata: { labels: { 'hello-world': 'hyphen not allowed' } } }),
    want: ['metadata.labels: Invalid value: "hyphen not allowed": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')'],
  },
  { name: 'with-read-write-once-pod', pvc: claim({ accessModes: ['ReadWriteOncePod'], resources: req('10G') }), want: [] },
  {
    name: 'with-read-write-once-pod-and-others',
    pvc: claim({ accessModes: ['ReadWriteOncePod', 'ReadWriteMany'], resources: req('10G') }),
    want: ['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes'],
  },
  { name: 'invalid-claim-zero-capacity', pvc: claim({ ...goodSpec, resources: req('0G') }), want: ['spec.resources[storage]: Invalid value: "0": must be greater than zero'] },
  {
    name: 'invalid-label-selector',
    pvc: claim({ ...goodSpec, selector: { matchExpressions: [{ key: 'key2', operator: 'InvalidOp', values: ['value1', 'value2'] }] } }),
    want: ['spec.selector.matchExpressions[0].operator: Invalid value: "InvalidOp": not a valid selector operator'],
  },
  {
    name: 'invalid-accessmode',
    pvc: claim({ accessModes: ['fakemode'], resources: req('10G') }),
    want: ['spec.accessModes: Unsupported value: "fakemode": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'],
  },
  { name: 'no-access-modes', pvc: claim({ resources: req('10G') }), want: ['spec.accessModes: Required value: at least 1 access mode is required'] },
  { name: 'no-resource-requests', pvc: claim({ accessModes: ['ReadWriteOnce'] }), want: ['spec.resources[storage]: Required value'] },
  { name: 'invalid-resource-requests', pvc: claim({ accessModes: ['ReadWriteOnce'], resources: { requests: { memory: '10G' } } }), want: ['spec.resources[storage]: Required value'] },
  { name: 'negative-storage-request', pvc: claim({ ...goodSpec, resources: req('-10G') }), want: ['spec.resources[storage]: Invalid value: "-10G": must be greater than zero'] },
  { name: 'zero-storage-request', pvc: claim({ ...goodSpec, resources: req('0') }), want: ['spec.resources[storage]: Invalid value: "0": must be greater than zero'] },
  { name: 'invalid-storage-class-name', pvc: claim({ ...goodSpec, storageClassName: '-invalid-' }), want: [`spec.storageClassName: Invalid value: "-invalid-": ${subdomainMsg}`] },
  { name: 'invalid-volume-mode', pvc: claim({ ...goodSpec, volumeMode: 'fakeVolumeMode' }), want: ['spec.volumeMode: Unsupported value: "fakeVolumeMode": supported values: "Block", "Filesystem"'] },
  {
    name: 'mismatch-data-source-and-ref',
    pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), dataSource: { kind: 'PersistentVolumeClaim', name: 'pvc1' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'pvc2' } }),
    want: ['spec: Invalid value: field.Path{name:"dataSource", index:"", parent:(*field.Path)(0xc000000000)}: must match dataSourceRef'],
  },
  {
    name: 'invaild-apigroup-in-data-source',
    pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), dataSource: { apiGroup: '^invalid', kind: 'Foo', name: 'foo1' } }),
    want: [`spec.dataSource.apiGroup: Invalid value: "^invalid": ${subdomainMsg}`],
  },
  {
    name: 'invaild-apigroup-in-data-source-ref',
    pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), dataSourceRef: { apiGroup: '^invalid', kind: 'Foo', name: 'foo1' } }),
    want: [`spec.dataSourceRef.apiGroup: Invalid value: "^invalid": ${subdomainMsg}`],
  },
  // VolumeAttributesClass is off in 1.32: the strategy drops the field, so an invalid name is not seen.
  { name: 'invalid-volume-attributes-class-name (gate off: dropped)', pvc: claim({ ...goodSpec, volumeAttributesClassName: '-invalid-' }), want: [] },
  {
    name: 'data source of the default group must be a claim; name and kind required',
    pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), dataSource: { kind: '', name: '' } }),
    want: ['spec.dataSource.name: Required value', 'spec.dataSource.kind: Required value', "spec.dataSource: Invalid value: \"\": must be 'PersistentVolumeClaim' when referencing the default apiGroup"],
  },
  {
    name: 'dataSourceRef.namespace is dropped with CrossNamespaceVolumeDataSource off',
    pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), dataSource: { kind: 'PersistentVolumeClaim', name: 'a' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'a', namespace: 'Bad_NS' } }),
    want: [],
  },
];

for (const tc of createCases) {
  test(`TestValidatePersistentVolumeClaim: ${tc.name}`, () => {
    assert.deepEqual(msgs(validatePersistentVolumeClaim(tc.pvc)), tc.want);
  });
}

// ---- TestValidatePersistentVolumeClaimUpdate ----

const withRV = (pvc: PersistentVolumeClaim): PersistentVolumeClaim => ({ ...pvc, metadata: { ...pvc.metadata, resourceVersion: '1' } });
const bound = { status: { phase: 'Bound' } };
const validClaim = claim({ accessModes: rwoRox, resources: req('10G') }, bound);
const validUpdateClaim = claim({ accessModes: rwoRox, resources: req('10G'), volumeName: 'volume' });
const volumeModeClaim = (volumeMode?: string): PersistentVolumeClaim => claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), volumeName: 'volume', ...(volumeMode !== undefined ? { volumeMode } : {}) });
const scAnn = (v: string): Partial<PersistentVolumeClaim> => ({ metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': v } } });
const rox10: PersistentVolumeClaimSpec = { accessModes: ['ReadOnlyMany'], resources: req('10G') };
const validClaimStorageClass = claim(rox10, scAnn('fast'));
const inSpec = (sc: string, extra: Partial<PersistentVolumeClaim> = {}): PersistentVolumeClaim => claim({ ...rox10, storageClassName: sc }, extra);
const sizeClaim = (size: string, phase: string): PersistentVolumeClaim => claim({ accessModes: rwoRox, resources: req(size) }, { status: { phase } });
const immutable = 'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n';
const lessThanPrevious = 'spec.resources.requests.storage: Forbidden: field can not be less than previous value';

const updateCases: { name: string; old: PersistentVolumeClaim; pvc: PersistentVolumeClaim; want: (string | RegExp)[] }[] = [
  { name: 'valid-update-volumeName-only', old: validClaim, pvc: validUpdateClaim, want: [] },
  { name: 'valid-no-op-update', old: validUpdateClaim, pvc: validUpdateClaim, want: [] },
  { name: 'invalid-update-change-resources-on-bound-claim', old: validUpdateClaim, pvc: claim({ accessModes: rwoRox, resources: req('20G'), volumeName: 'volume' }), want: [/Resources:/] },
  { name: 'invalid-update-change-access-modes-on-bound-claim', old: validUpdateClaim, pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), volumeName: 'volume' }), want: [/AccessModes:/] },
  { name: 'valid-update-volume-mode-block-to-block', old: volumeModeClaim('Block'), pvc: volumeModeClaim('Block'), want: [] },
  { name: 'valid-update-volume-mode-file-to-file', old: volumeModeClaim('Filesystem'), pvc: volumeModeClaim('Filesystem'), want: [] },
  { name: 'invalid-update-volume-mode-to-block', old: volumeModeClaim('Filesystem'), pvc: volumeModeClaim('Block'), want: [/VolumeMode:/, 'volumeMode: Invalid value: "Block": field is immutable'] },
  { name: 'invalid-update-volume-mode-to-file', old: volumeModeClaim('Block'), pvc: volumeModeClaim('Filesystem'), want: [/VolumeMode:/, 'volumeMode: Invalid value: "Filesystem": field is immutable'] },
  { name: 'invalid-update-volume-mode-nil-to-file', old: volumeModeClaim(), pvc: volumeModeClaim('Filesystem'), want: [/VolumeMode:/, 'volumeMode: Invalid value: "Filesystem": field is immutable'] },
  { name: 'invalid-update-volume-mode-block-to-nil', old: volumeModeClaim('Block'), pvc: volumeModeClaim(), want: [/VolumeMode:/, 'volumeMode: Invalid value: null: field is immutable'] },
  {
    name: 'invalid-update-change-storage-class-annotation-after-creation',
    old: validClaimStorageClass,
    pvc: claim({ ...rox10, volumeName: 'volume' }, scAnn('fast2')),
    want: ['metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "fast2": field is immutable'],
  },
  {
    name: 'valid-update-mutable-annotation',
    old: claim(rox10, { metadata: { annotations: { description: 'foo-description' } } }),
    pvc: claim({ ...rox10, volumeName: 'volume' }, { metadata: { annotations: { description: 'updated-or-added-foo-description' } } }),
    want: [],
  },
  { name: 'valid-size-update-resize-disabled', old: validClaim, pvc: sizeClaim('15G', 'Bound'), want: [] },
  { name: 'invalid-size-update-resize-enabled', old: validClaim, pvc: sizeClaim('5G', 'Bound'), want: [lessThanPrevious] },
  { name: 'unbound-size-update-resize-enabled', old: validClaim, pvc: sizeClaim('12G', 'Pending'), want: [/Resources:/] },
  { name: 'valid-upgrade-storage-class-annotation-to-spec', old: validClaimStorageClass, pvc: inSpec('fast'), want: [] },
  { name: 'valid-upgrade-nil-storage-class-spec-to-spec', old: claim(rox10), pvc: inSpec('fast'), want: [] },
  { name: 'invalid-upgrade-not-nil-storage-class-spec-to-spec', old: inSpec('fast'), pvc: inSpec('fast2'), want: [/StorageClassName:/] },
  { name: 'invalid-upgrade-to-nil-storage-class-spec-to-spec', old: inSpec('fast'), pvc: claim(rox10), want: [/StorageClassName:/] },
  { name: 'valid-upgrade-storage-class-annotation-and-nil-spec-to-spec-retro', old: claim(rox10, scAnn('fast')), pvc: inSpec('fast', scAnn('fast')), want: [] },
  { name: 'invalid-upgrade-storage-class-annotation-and-spec-to-spec-retro', old: inSpec('fast', scAnn('fast')), pvc: inSpec('fast2'), want: ['metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "": field is immutable', /StorageClassName:/] },
  { name: 'invalid-upgrade-storage-class-annotation-to-spec', old: validClaimStorageClass, pvc: inSpec('fast2'), want: ['metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "": field is immutable', /StorageClassName:/] },
  { name: 'valid-upgrade-storage-class-annotation-to-annotation-and-spec', old: validClaimStorageClass, pvc: inSpec('fast', scAnn('fast')), want: [] },
  { name: 'invalid-upgrade-storage-class-annotation-to-annotation-and-spec', old: validClaimStorageClass, pvc: inSpec('fast', scAnn('fast2')), want: ['metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "fast2": field is immutable'] },
  { name: 'invalid-downgrade-storage-class-spec-to-annotation', old: inSpec('fast'), pvc: validClaimStorageClass, want: ['metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "fast": field is immutable', /StorageClassName:/] },
  {
    name: 'valid-update-rwop-used-and-rwop-feature-disabled',
    old: claim({ accessModes: ['ReadWriteOncePod'], resources: req('10G'), volumeName: 'volume' }),
    pvc: claim({ accessModes: ['ReadWriteOncePod'], resources: req('10G'), volumeName: 'volume' }, { metadata: { annotations: { description: 'x' } } }),
    want: [],
  },
  {
    name: 'invalid-expand-shrink-recover-disabled',
    old: claim({ accessModes: ['ReadWriteOnce'], resources: req('15G') }, { status: { phase: 'Bound', capacity: { storage: '10G' } } }),
    pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('12G') }, { status: { phase: 'Bound', capacity: { storage: '10G' } } }),
    want: [lessThanPrevious],
  },
  {
    name: 'valid-expand-shrink (recovery enabled because the stored claim has allocatedResources)',
    old: claim({ accessModes: ['ReadWriteOnce'], resources: req('15G') }, { status: { phase: 'Bound', capacity: { storage: '10G' }, allocatedResources: { storage: '15G' } } }),
    pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('12G') }, { status: { phase: 'Bound', capacity: { storage: '10G' }, allocatedResources: { storage: '15G' } } }),
    want: [],
  },
  {
    name: 'invalid-expand-shrink-to-status (recovery enabled)',
    old: claim({ accessModes: ['ReadWriteOnce'], resources: req('15G') }, { status: { phase: 'Bound', capacity: { storage: '10G' }, allocatedResources: { storage: '15G' } } }),
    pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G') }, { status: { phase: 'Bound', capacity: { storage: '10G' }, allocatedResources: { storage: '15G' } } }),
    want: ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity'],
  },
  {
    name: 'allow-update-pvc-when-data-source-used',
    old: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), volumeName: 'volume', dataSource: { apiGroup: '^invalid', kind: 'Foo', name: 'foo' } }),
    pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), volumeName: 'volume', dataSource: { apiGroup: '^invalid', kind: 'Foo', name: 'foo' } }),
    want: [],
  },
  {
    name: 'allow-update-pvc-when-data-source-ref-used',
    old: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), volumeName: 'volume', dataSourceRef: { apiGroup: '^invalid', kind: 'Foo', name: 'foo' } }),
    pvc: claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), volumeName: 'volume', dataSourceRef: { apiGroup: '^invalid', kind: 'Foo', name: 'foo' } }),
    want: [],
  },
  {
    name: 'valid-update-volume-attributes-class-from-nil (gate off: dropped)',
    old: validClaim,
    pvc: claim({ accessModes: rwoRox, resources: req('10G'), volumeAttributesClassName: 'vac1' }, bound),
    want: [],
  },
  {
    name: 'invalid-update-volume-attributes-class-without-featuregate-enabled',
    old: claim({ accessModes: rwoRox, resources: req('10G'), volumeAttributesClassName: 'vac1' }, bound),
    pvc: claim({ accessModes: rwoRox, resources: req('10G'), volumeAttributesClassName: 'vac2' }, bound),
    want: ['spec.volumeAttributesClassName: Forbidden: update is forbidden when the VolumeAttributesClass feature gate is disabled'],
  },
  {
    name: 'invalid-update-volume-attributes-class-to-nil-without-featuregate-enabled',
    old: claim({ accessModes: rwoRox, resources: req('10G'), volumeAttributesClassName: 'vac1' }, bound),
    pvc: validClaim,
    want: [
      /VolumeAttributesClassName:/,
      'spec.volumeAttributesClassName: Forbidden: update is forbidden when the VolumeAttributesClass feature gate is disabled',
      'spec.volumeAttributesClassName: Forbidden: update from non-nil value to nil is forbidden',
    ],
  },
];

/** The strategy runs `ValidatePersistentVolumeClaim` twice; compare the deduplicated messages. */
const updateMessages = (pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): string[] => [...new Set(msgs(validatePersistentVolumeClaimUpdate(withRV(pvc), withRV(old))))];

for (const tc of updateCases) {
  test(`TestValidatePersistentVolumeClaimUpdate: ${tc.name}`, () => {
    const got = updateMessages(tc.pvc, tc.old);
    assert.equal(got.length, tc.want.length, got.join('\n'));
    tc.want.forEach((w, i) => {
      if (typeof w === 'string') assert.equal(got[i], w);
      else assert.ok(got[i]?.startsWith(immutable) === true && w.test(got[i] ?? ''), got[i]);
    });
  });
}

test('the immutability message starts with upstream\'s fixed text and shows the changed field old and new', () => {
  const [msg] = updateMessages(claim({ accessModes: ['ReadWriteOnce'], resources: req('10G'), volumeName: 'volume' }), validUpdateClaim);
  assert.equal(
    msg,
    `${immutable}  core.PersistentVolumeClaimSpec{\n- \tAccessModes: ["ReadWriteOnce","ReadOnlyMany"],\n+ \tAccessModes: ["ReadWriteOnce"],\n  \t... // 2 identical fields\n  }\n`,
  );
});

test('the storage request of a bound claim compares by value, not by spelling', () => {
  assert.deepEqual(updateMessages(sizeClaim('10000M', 'Bound'), validClaim), []);
  assert.deepEqual(updateMessages(claim({ accessModes: rwoRox, resources: req('10000M'), volumeName: 'volume' }), validUpdateClaim), []);
});

// ---- ValidatePersistentVolumeClaimStatusUpdate ----

const statusCases: { name: string; old: PersistentVolumeClaim; pvc: PersistentVolumeClaim; want: string[] }[] = [
  { name: 'valid capacity', old: validClaim, pvc: claim(validClaim.spec ?? {}, { status: { phase: 'Bound', capacity: { storage: '10G' } } }), want: [] },
  { name: 'negative capacity', old: validClaim, pvc: claim(validClaim.spec ?? {}, { status: { capacity: { storage: '-1.5G' } } }), want: ['status.capacity[storage]: Invalid value: -1500000000: must be a valid resource quantity'] },
  { name: 'no access modes', old: validClaim, pvc: claim({ resources: req('10G') }), want: ['Spec.accessModes: Required value'] },
  { name: 'allocatedResources are dropped (not validated) when the stored claim has none', old: validClaim, pvc: claim(validClaim.spec ?? {}, { status: { allocatedResources: { cpu: '-1' } } }), want: [] },
  {
    name: 'allocatedResources and allocatedResourceStatuses are validated once the stored claim uses them',
    old: claim(validClaim.spec ?? {}, { status: { allocatedResources: { storage: '10G' } } }),
    pvc: claim(validClaim.spec ?? {}, { status: { allocatedResources: { cpu: '1', storage: '-1' }, allocatedResourceStatuses: { storage: 'Bogus' } } }),
    want: [
      'status.allocatedResourceStatus: Unsupported value: storage: supported values: "ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"',
      'status.allocatedResources: Unsupported value: "cpu": supported values: "storage"',
      'status.allocatedResources[storage]: Invalid value: -1: must be a valid resource quantity',
    ],
  },
];

for (const tc of statusCases) {
  test(`ValidatePersistentVolumeClaimStatusUpdate: ${tc.name}`, () => {
    assert.deepEqual(msgs(validatePersistentVolumeClaimStatusUpdate(withRV(tc.pvc), withRV(tc.old))), tc.want);
  });
}

test('the dispatcher validates a PersistentVolumeClaim on create, update and status', () => {
  const kind = { group: '', kind: 'PersistentVolumeClaim' };
  assert.deepEqual(msgs(validate(kind, claim({}))), ['spec.accessModes: Required value: at least 1 access mode is required', 'spec.resources[storage]: Required value']);
  assert.deepEqual(msgs(validate(kind, withRV(sizeClaim('5G', 'Bound')), withRV(validClaim))), [lessThanPrevious]);
  assert.deepEqual(msgs(validate(kind, withRV(claim({})), withRV(validClaim), { subresource: 'status' })), ['Spec.accessModes: Required value']);
});
