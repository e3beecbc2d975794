import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, Toleration } from 'kubernetes-types/core/v1.js';
import { resources } from '../../api/resources.js';
import { attrs } from '../_testing.js';
import { create } from './default-toleration-seconds.js';

// plugin/pkg/admission/defaulttolerationseconds/admission_test.go TestForgivenessAdmission (upstream's descriptions, typos included)
const notReady = (s = 300): Toleration => ({ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s });
const unreachable = (s = 300): Toleration => ({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s });

const cases: { description: string; requested: Toleration[] | undefined; expected: Toleration[] }[] = [
  {
    description: 'pod has no tolerations, expect add tolerations for `notread:NoExecute` and `unreachable:NoExecute`',
    requested: undefined,
    expected: [notReady(), unreachable()],
  },
  {
    description: 'pod has tolerations, but none is for taint `notread:NoExecute` or `unreachable:NoExecute`, expect add tolerations for `notread:NoExecute` and `unreachable:NoExecute`',
    requested: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule', tolerationSeconds: 700 }],
    expected: [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule', tolerationSeconds: 700 }, notReady(), unreachable()],
  },
  {
    description: 'pod specified a toleration for taint `notReady:NoExecute`, expect add toleration for `unreachable:NoExecute`',
    requested: [notReady(700)],
    expected: [notReady(700), unreachable()],
  },
  {
    description: 'pod specified a toleration for taint `unreachable:NoExecute`, expect add toleration for `notReady:NoExecute`',
    requested: [unreachable(700)],
    expected: [unreachable(700), notReady()],
  },
  {
    description: 'pod specified tolerations for both `notread:NoExecute` and `unreachable:NoExecute`, expect no change',
    requested: [notReady(700), unreachable(700)],
    expected: [notReady(700), unreachable(700)],
  },
  {
    description: 'pod specified toleration for taint `unreachable`, expect add toleration for `notReady:NoExecute`',
    requested: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 700 }],
    expected: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 700 }, notReady()],
  },
  {
    description: 'pod has wildcard toleration for all kind of taints, expect no change',
    requested: [{ operator: 'Exists', tolerationSeconds: 700 }],
    expected: [{ operator: 'Exists', tolerationSeconds: 700 }],
  },
];

for (const tc of cases) {
  test(`TestForgivenessAdmission: ${tc.description}`, async () => {
    const pod: Pod = { metadata: { name: 'name', namespace: 'foo' }, spec: { containers: [] } };
    if (tc.requested !== undefined && pod.spec !== undefined) pod.spec.tolerations = tc.requested;
    await create().admit(attrs(pod, { operation: 'CREATE' }));
    assert.deepEqual(pod.spec?.tolerations, tc.expected);
  });
}

test('TestForgivenessAdmission: the operator is not checked, an Equal toleration for the key counts', async () => {
  const pod: Pod = { metadata: { name: 'p' }, spec: { containers: [], tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Equal', value: '' }] } };
  await create().admit(attrs(pod));
  assert.deepEqual(pod.spec?.tolerations, [{ key: 'node.kubernetes.io/not-ready', operator: 'Equal', value: '' }, unreachable()]);
});

test('TestHandles', () => {
  const h = create();
  const want = { UPDATE: true, CREATE: true, DELETE: false, CONNECT: false } as const;
  for (const [op, expected] of Object.entries(want)) assert.equal(h.handles(op as keyof typeof want), expected, op);
});

test('UPDATE adds the tolerations too; subresources and other resources are ignored', async () => {
  const upd: Pod = { metadata: { name: 'p' }, spec: { containers: [] } };
  await create().admit(attrs(upd, { operation: 'UPDATE' }));
  assert.deepEqual(upd.spec?.tolerations, [notReady(), unreachable()]);
  const status: Pod = { metadata: { name: 'p' }, spec: { containers: [] } };
  await create().admit(attrs(status, { subresource: 'status' }));
  assert.equal(status.spec?.tolerations, undefined);
  const notPod = { metadata: { name: 'n' }, spec: { containers: [] } } as Pod;
  await create().admit(attrs(notPod, { resource: resources.nodes }));
  assert.equal(notPod.spec?.tolerations, undefined);
});
