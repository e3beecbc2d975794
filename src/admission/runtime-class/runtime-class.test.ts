import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, Toleration } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass as RC } from 'kubernetes-types/node/v1.js';
import { ApiError } from '../../api/errors.js';
import { attrs, fakeLookup } from '../_testing.js';
import { create, setOverhead, setScheduling, validateOverhead } from './runtime-class.js';

// plugin/pkg/admission/runtimeclass/admission_test.go

function newOverheadValidPod(name: string, numContainers: number, resources: NonNullable<Pod['spec']>['containers'][number]['resources'], withOverhead: boolean): Pod {
  const pod: Pod = { metadata: { name, namespace: 'test' }, spec: { containers: [] } };
  for (let i = 0; i < numContainers; i++) {
    const c: NonNullable<Pod['spec']>['containers'][number] = { image: `foo:V${i}`, name: `foo-${i}` };
    if (resources !== undefined) c.resources = resources;
    pod.spec?.containers.push(c);
  }
  if (withOverhead && pod.spec !== undefined) pod.spec.overhead = { cpu: '100m', memory: '1' };
  return pod;
}

function newSchedulingValidPod(name: string, nodeSelector: Record<string, string> | undefined, tolerations: Toleration[] | undefined): Pod {
  const pod: Pod = { metadata: { name, namespace: 'test' }, spec: { containers: [] } };
  if (pod.spec !== undefined) {
    if (nodeSelector !== undefined) pod.spec.nodeSelector = nodeSelector;
    if (tolerations !== undefined) pod.spec.tolerations = tolerations;
  }
  return pod;
}

const guaranteed = { limits: { cpu: '1', memory: '10' }, requests: { cpu: '1', memory: '10' } };

const rcWithOverhead = (cpu: string, memory: string): RC => ({ metadata: { name: 'foo' }, handler: 'bar', overhead: { podFixed: { cpu, memory } } });

const setOverheadCases: { name: string; runtimeClass: RC; pod: Pod; expectError: boolean; expectedPod?: Pod }[] = [
  {
    name: 'overhead, no container requirements',
    runtimeClass: rcWithOverhead('100m', '1'),
    pod: newOverheadValidPod('no-resource-req-no-overhead', 1, undefined, false),
    expectError: false,
    expectedPod: newOverheadValidPod('no-resource-req-no-overhead', 1, undefined, true),
  },
  {
    name: 'overhead, guaranteed pod',
    runtimeClass: rcWithOverhead('100m', '1'),
    pod: newOverheadValidPod('guaranteed', 1, guaranteed, false),
    expectError: false,
    expectedPod: newOverheadValidPod('guaranteed', 1, guaranteed, true),
  },
  {
    name: 'overhead, pod with differing overhead already set',
    runtimeClass: rcWithOverhead('10', '10G'),
    pod: newOverheadValidPod('empty-requiremennts-overhead', 1, undefined, true),
    expectError: true,
  },
  {
    name: 'overhead, pod with same overhead already set',
    runtimeClass: rcWithOverhead('100m', '1'),
    pod: newOverheadValidPod('empty-requiremennts-overhead', 1, undefined, true),
    expectError: false,
  },
];

for (const tc of setOverheadCases) {
  test(`TestSetOverhead/${tc.name}`, () => {
    const a = attrs(tc.pod);
    if (tc.expectError) {
      assert.throws(() => setOverhead(a, tc.pod, tc.runtimeClass), (e: unknown) => e instanceof ApiError && e.code === 403 && e.message === `pods "${tc.pod.metadata?.name}" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`);
      return;
    }
    setOverhead(a, tc.pod, tc.runtimeClass);
    if (tc.expectedPod !== undefined) assert.deepEqual(tc.pod, tc.expectedPod);
  });
}

const setSchedulingCases: { name: string; runtimeClass: RC; pod: Pod; expectError: boolean; expectedPod?: Pod }[] = [
  {
    name: 'scheduling, nil scheduling',
    runtimeClass: { metadata: { name: 'foo' }, handler: 'bar' },
    pod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, []),
    expectError: false,
    expectedPod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, []),
  },
  {
    name: 'scheduling, conflict node selector',
    runtimeClass: { metadata: { name: 'foo' }, handler: 'bar', scheduling: { nodeSelector: { foo: 'conflict' } } },
    pod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, []),
    expectError: true,
  },
  {
    name: 'scheduling, nil node selector',
    runtimeClass: { metadata: { name: 'foo' }, handler: 'bar', scheduling: { nodeSelector: { foo: 'bar' } } },
    pod: newSchedulingValidPod('pod-with-conflict-node-selector', undefined, undefined),
    expectError: false,
    expectedPod: newSchedulingValidPod('pod-with-conflict-node-selector', { foo: 'bar' }, undefined),
  },
  {
    name: 'scheduling, node selector with the same key value',
    runtimeClass: { metadata: { name: 'foo' }, handler: 'bar', scheduling: { nodeSelector: { foo: 'bar' } } },
    pod: newSchedulingValidPod('pod-with-same-key-value-node-selector', { foo: 'bar' }, undefined),
    expectError: false,
    expectedPod: newSchedulingValidPod('pod-with-same-key-value-node-selector', { foo: 'bar' }, undefined),
  },
  {
    name: 'scheduling, node selector with different key value',
    runtimeClass: { metadata: { name: 'foo' }, handler: 'bar', scheduling: { nodeSelector: { foo: 'bar', fizz: 'buzz' } } },
    pod: newSchedulingValidPod('pod-with-different-key-value-node-selector', { foo: 'bar' }, undefined),
    expectError: false,
    expectedPod: newSchedulingValidPod('pod-with-different-key-value-node-selector', { foo: 'bar', fizz: 'buzz' }, undefined),
  },
  {
    name: 'scheduling, multiple tolerations',
    runtimeClass: {
      metadata: { name: 'foo' },
      handler: 'bar',
      scheduling: {
        tolerations: [
          { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
          { key: 'fizz', operator: 'Equal', value: 'buzz', effect: 'NoSchedule' },
        ],
      },
    },
    pod: newSchedulingValidPod('pod-with-tolerations', { foo: 'bar' }, [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' }]),
    expectError: false,
    expectedPod: newSchedulingValidPod('pod-with-tolerations', { foo: 'bar' }, [
      { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
      { key: 'fizz', operator: 'Equal', value: 'buzz', effect: 'NoSchedule' },
    ]),
  },
];

for (const tc of setSchedulingCases) {
  test(`TestSetScheduling/${tc.name}`, () => {
    const a = attrs(tc.pod);
    if (tc.expectError) {
      assert.throws(() => setScheduling(a, tc.pod, tc.runtimeClass), ApiError);
      return;
    }
    setScheduling(a, tc.pod, tc.runtimeClass);
    assert.deepEqual(tc.pod, tc.expectedPod);
  });
}

test('TestSetScheduling: the nodeSelector conflict message', () => {
  const pod = newSchedulingValidPod('p', { 'kubernetes.io/os': 'linux' }, undefined);
  assert.throws(
    () => setScheduling(attrs(pod), pod, { metadata: { name: 'windows-2019' }, handler: 'runhcs-wcow-process', scheduling: { nodeSelector: { 'kubernetes.io/os': 'windows' } } }),
    (e: unknown) => e instanceof ApiError && e.message === 'pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[kubernetes.io/os] = windows; pod.spec.nodeSelector[kubernetes.io/os] = linux',
  );
});

const runtimeClassName = 'runtimeClassName';
const admitCases: { name: string; expectError: boolean; found: boolean }[] = [
  { name: 'runtimeClass found by lister', expectError: false, found: true },
  { name: 'runtimeClass found by client', expectError: false, found: true },
  { name: 'runtimeClass not found by lister nor client', expectError: true, found: false },
];

for (const tc of admitCases) {
  test(`TestAdmit/${tc.name}`, async () => {
    const pod: Pod = { metadata: { name: 'podname' }, spec: { containers: [], runtimeClassName } };
    const lookup = fakeLookup({ runtimeClasses: tc.found ? [{ metadata: { name: runtimeClassName }, handler: '' }] : [] });
    const p = create();
    if (tc.expectError) await assert.rejects(p.admit(attrs(pod), lookup), ApiError);
    else await p.admit(attrs(pod), lookup);
  });
}

test('TestAdmit: a missing RuntimeClass is the 403 of a real 1.32 API server', async () => {
  // shared/fixtures/apiserver-1.32/errors/403-forbidden-runtimeclass.json
  const fixture = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'pods "rc-missing" is forbidden: pod rejected: RuntimeClass "nope" not found',
    reason: 'Forbidden',
    details: { name: 'rc-missing', kind: 'pods' },
    code: 403,
  };
  const pod: Pod = { metadata: { name: 'rc-missing', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }], runtimeClassName: 'nope' } };
  await assert.rejects(create().admit(attrs(pod), fakeLookup()), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.deepEqual(e.toStatus(), fixture);
    return true;
  });
});

test('TestAdmit: subresources, other resources and updates are ignored', async () => {
  const pod: Pod = { metadata: { name: 'p' }, spec: { containers: [], runtimeClassName: 'missing' } };
  const p = create();
  await p.admit(attrs(pod, { subresource: 'status' }), fakeLookup());
  await p.admit(attrs(pod, { operation: 'UPDATE' }), fakeLookup());
});

const validateCases: { name: string; pod: Pod; expectError: boolean }[] = [
  { name: 'No Overhead in RunntimeClass, Overhead set in pod', pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteed, true), expectError: true },
  { name: 'Non-matching Overheads', pod: newOverheadValidPod('no-resource-req-no-overhead', 1, undefined, true), expectError: true },
  { name: 'Matching Overheads', pod: newOverheadValidPod('no-resource-req-no-overhead', 1, undefined, false), expectError: false },
];

for (const tc of validateCases) {
  // Upstream's TestValidate pods name no RuntimeClass, so only the pod's own overhead matters.
  test(`TestValidate/${tc.name}`, async () => {
    const p = create();
    if (tc.expectError) await assert.rejects(p.validate(attrs(tc.pod), fakeLookup()), (e: unknown) => e instanceof ApiError && e.message.endsWith('pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'));
    else await p.validate(attrs(tc.pod), fakeLookup());
  });
}

const validateOverheadCases: { name: string; runtimeClass: RC | undefined; pod: Pod; expectError: boolean }[] = [
  { name: 'Overhead part of RuntimeClass, no Overhead defined in pod', runtimeClass: rcWithOverhead('100m', '1'), pod: newOverheadValidPod('no-requirements', 1, undefined, false), expectError: true },
  { name: 'No Overhead in RunntimeClass, Overhead set in pod', runtimeClass: { metadata: { name: 'foo' }, handler: 'bar' }, pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteed, true), expectError: true },
  { name: 'No RunntimeClass, Overhead set in pod', runtimeClass: undefined, pod: newOverheadValidPod('no-resource-req-no-overhead', 1, guaranteed, true), expectError: true },
  { name: 'Non-matching Overheads', runtimeClass: rcWithOverhead('10', '10G'), pod: newOverheadValidPod('no-resource-req-no-overhead', 1, undefined, true), expectError: true },
  { name: 'Matching Overheads', runtimeClass: rcWithOverhead('100m', '1'), pod: newOverheadValidPod('no-resource-req-no-overhead', 1, undefined, true), expectError: false },
];

for (const tc of validateOverheadCases) {
  test(`TestValidateOverhead/${tc.name}`, () => {
    const a = attrs(tc.pod);
    if (tc.expectError) assert.throws(() => validateOverhead(a, tc.pod, tc.runtimeClass), ApiError);
    else validateOverhead(a, tc.pod, tc.runtimeClass);
  });
}

test('Matching overheads compare as quantities, not strings', () => {
  const pod = newOverheadValidPod('p', 1, undefined, false);
  if (pod.spec !== undefined) pod.spec.overhead = { cpu: '0.1', memory: '1' };
  validateOverhead(attrs(pod), pod, rcWithOverhead('100m', '1'));
});
