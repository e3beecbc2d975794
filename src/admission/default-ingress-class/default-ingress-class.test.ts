import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Ingress, IngressClass } from 'kubernetes-types/networking/v1.js';
import { resources } from '../../api/resources.js';
import { attrs, fakeLookup } from '../_testing.js';
import { create } from './default-ingress-class.js';

// plugin/pkg/admission/network/defaultingressclass/admission_test.go (TestAdmission), v1.32.

const ic = (name: string, o: { annotation?: string; created?: string } = {}): IngressClass => ({
  kind: 'IngressClass',
  metadata: {
    name,
    ...(o.created !== undefined ? { creationTimestamp: o.created } : {}),
    ...(o.annotation !== undefined ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': o.annotation } } : {}),
  },
});

const defaultClass1 = ic('default1', { annotation: 'true' });
const defaultClass2 = ic('default2', { annotation: 'true' });
// Class that has explicit default = false
const classWithFalseDefault = ic('nondefault1', { annotation: 'false' });
// Class with missing default annotation (=non-default)
const classWithNoDefault = ic('nondefault2');
// Class with empty default annotation (=non-default)
const classWithEmptyDefault = ic('nondefault2', { annotation: '' });
const defaultClassWithCreateTime1 = ic('default1', { annotation: 'true', created: '2022-01-01T00:00:00.000000001Z' });
const defaultClassWithCreateTime2 = ic('default2', { annotation: 'true', created: '2022-01-01T00:00:00Z' });
const nonDefaults = [classWithFalseDefault, classWithNoDefault, classWithEmptyDefault];

const cases: { name: string; classes: IngressClass[]; classField?: string; classAnnotation?: string; expectedClass: string | undefined }[] = [
  { name: 'no default, no modification of Ingress', classes: nonDefaults, expectedClass: undefined },
  { name: 'one default, modify Ingress with class=nil', classes: [defaultClass1, ...nonDefaults], expectedClass: 'default1' },
  { name: "one default, no modification of Ingress with class field=''", classes: [defaultClass1, ...nonDefaults], classField: '', expectedClass: '' },
  { name: "one default, no modification of Ingress with class field='foo'", classes: [defaultClass1, ...nonDefaults], classField: 'foo', expectedClass: 'foo' },
  { name: "one default, no modification of Ingress with class annotation='foo'", classes: [defaultClass1, ...nonDefaults], classAnnotation: 'foo', expectedClass: undefined },
  { name: 'two defaults with the same creation time, choose the one with the lower name', classes: [defaultClass1, defaultClass2, ...nonDefaults], expectedClass: 'default1' },
  { name: "two defaults, no modification with Ingress with class field=''", classes: [defaultClass1, defaultClass2, ...nonDefaults], classField: '', expectedClass: '' },
  { name: 'two defaults, choose the one with the newer creation time', classes: [defaultClassWithCreateTime1, defaultClassWithCreateTime2, ...nonDefaults], expectedClass: 'default1' },
];

for (const tc of cases) {
  test(`TestAdmission/${tc.name}`, async () => {
    const ingress: Ingress = {
      kind: 'Ingress',
      metadata: { name: 'testing', namespace: 'testing', ...(tc.classAnnotation !== undefined ? { annotations: { 'kubernetes.io/ingress.class': tc.classAnnotation } } : {}) },
      spec: tc.classField !== undefined ? { ingressClassName: tc.classField } : {},
    };
    const plugin = create();
    const a = attrs(ingress, { resource: resources.ingresses });
    const lookup = fakeLookup({ ingressClasses: tc.classes });
    // admissiontesting.WithReinvocationTesting: a second pass must change nothing.
    await plugin.admit(a, lookup);
    await plugin.admit(a, lookup);
    assert.equal(ingress.spec?.ingressClassName, tc.expectedClass);
  });
}

test('only CREATE of the main resource is defaulted', async () => {
  const lookup = fakeLookup({ ingressClasses: [defaultClass1] });
  for (const o of [{ operation: 'UPDATE' as const }, { subresource: 'status' }]) {
    const ingress: Ingress = { kind: 'Ingress', metadata: { name: 'testing', namespace: 'testing' }, spec: {} };
    await create().admit(attrs(ingress, { resource: resources.ingresses, ...o }), lookup);
    assert.equal(ingress.spec?.ingressClassName, undefined);
  }
});

test('a failed class list refuses the Ingress as Forbidden', async () => {
  const ingress: Ingress = { kind: 'Ingress', metadata: { name: 'testing', namespace: 'testing' }, spec: {} };
  const lookup = { ...fakeLookup(), listIngressClasses: () => Promise.reject(new Error('the cache is not synced')) };
  await assert.rejects(create().admit(attrs(ingress, { resource: resources.ingresses }), lookup), (e: Error) => {
    assert.equal(e.message, 'ingresses.networking.k8s.io "testing" is forbidden: the cache is not synced');
    return true;
  });
});
