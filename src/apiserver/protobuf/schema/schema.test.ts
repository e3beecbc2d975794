import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiVersionOf, resources } from '../../../api/resources.js';
import { k8sSchema } from './k8s-1.32.js';

const SCALARS = new Set(['double', 'float', 'int64', 'uint64', 'int32', 'fixed64', 'fixed32', 'bool', 'string', 'bytes', 'uint32', 'sfixed32', 'sfixed64', 'sint32', 'sint64']);

test('every field type resolves to a scalar or a message of the schema', () => {
  const missing: string[] = [];
  for (const [name, fields] of Object.entries(k8sSchema.messages)) {
    const pkg = name.slice(0, name.lastIndexOf('.'));
    for (const [field, , type] of fields) {
      for (const t of (/^map<([^,]+),(.+)>$/.exec(type)?.slice(1) ?? [type])) {
        const full = SCALARS.has(t) || t.includes('.') ? t : `${pkg}.${t}`;
        if (!SCALARS.has(full) && k8sSchema.messages[full] === undefined && full !== 'k8s.io.apimachinery.pkg.api.resource.Quantity') missing.push(`${name}.${field}: ${full}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

test('field numbers are unique within a message and flags are known letters', () => {
  for (const [name, fields] of Object.entries(k8sSchema.messages)) {
    const numbers = fields.map((f) => f[1]);
    assert.equal(new Set(numbers).size, numbers.length, name);
    for (const f of fields) assert.match(f[3], /^r?o?i?[psm]?$/, `${name}.${f[0]}`);
  }
});

test('every built-in kind the API server serves has a protobuf message (CRDs are JSON only)', () => {
  const missing = Object.values(resources)
    .filter((r) => r.group !== 'apiextensions.k8s.io')
    .filter((r) => k8sSchema.kinds[apiVersionOf(r)]?.[r.kind] === undefined)
    .map((r) => `${apiVersionOf(r)} ${r.kind}`);
  assert.deepEqual(missing, []);
});

test('the field numbers of upstream generated.proto (coordination/v1 LeaseSpec, meta/v1 ObjectMeta)', () => {
  assert.deepEqual(
    k8sSchema.messages['k8s.io.api.coordination.v1.LeaseSpec']?.map((f) => [f[0], f[1]]),
    [['holderIdentity', 1], ['leaseDurationSeconds', 2], ['acquireTime', 3], ['renewTime', 4], ['leaseTransitions', 5], ['strategy', 6], ['preferredHolder', 7]],
  );
  const meta = Object.fromEntries(k8sSchema.messages['k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta']?.map((f) => [f[0], f[1]]) ?? []);
  assert.deepEqual(meta, {
    name: 1, generateName: 2, namespace: 3, selfLink: 4, uid: 5, resourceVersion: 6, generation: 7, creationTimestamp: 8,
    deletionTimestamp: 9, deletionGracePeriodSeconds: 10, labels: 11, annotations: 12, ownerReferences: 13, finalizers: 14, managedFields: 17,
  });
});
