import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import { resources } from '../../api/resources.js';
import { attrs, fakeLookup } from '../_testing.js';
import { create } from './priority.js';

const pc = (name: string, value: number, extra: Partial<PriorityClass> = {}): PriorityClass => ({ metadata: { name }, value, ...extra });
const pod = (spec: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({ metadata: { name: 'p', namespace: 'default' }, spec: { containers: [], ...spec } });

test('no class name and no default: priority 0, PreemptLowerPriority', async () => {
  const p = pod();
  await create().admit(attrs(p), fakeLookup());
  assert.equal(p.spec?.priority, 0);
  assert.equal(p.spec?.preemptionPolicy, 'PreemptLowerPriority');
  assert.equal(p.spec?.priorityClassName, undefined);
});

test('the global default class (lowest value among defaults) applies to pods without a class', async () => {
  const p = pod();
  await create().admit(attrs(p), fakeLookup({ priorityClasses: [pc('hi', 100, { globalDefault: true }), pc('lo', 10, { globalDefault: true, preemptionPolicy: 'Never' })] }));
  assert.equal(p.spec?.priorityClassName, 'lo');
  assert.equal(p.spec?.priority, 10);
  assert.equal(p.spec?.preemptionPolicy, 'Never');
});

test('system classes are built in', async () => {
  for (const [name, value] of [
    ['system-node-critical', 2000001000],
    ['system-cluster-critical', 2000000000],
  ] as const) {
    const p = pod({ priorityClassName: name });
    await create().admit(attrs(p), fakeLookup());
    assert.equal(p.spec?.priority, value);
  }
});

test('a missing class is forbidden', async () => {
  await assert.rejects(create().admit(attrs(pod({ priorityClassName: 'x' })), fakeLookup()), {
    message: 'pods "p" is forbidden: no PriorityClass with name x was found',
  });
});

test('a spec.priority that differs from the class is forbidden', async () => {
  await assert.rejects(create().admit(attrs(pod({ priorityClassName: 'hi', priority: 5 })), fakeLookup({ priorityClasses: [pc('hi', 100)] })), {
    message: 'pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 100 from the given PriorityClass name',
  });
  const same = pod({ priorityClassName: 'hi', priority: 100 });
  await create().admit(attrs(same), fakeLookup({ priorityClasses: [pc('hi', 100)] }));
});

test('update keeps the stored priority and preemption policy', async () => {
  const old = pod({ priority: 7, preemptionPolicy: 'Never' });
  const cur = pod();
  await create().admit(attrs(cur, { operation: 'UPDATE', oldObject: old }), fakeLookup());
  assert.equal(cur.spec?.priority, 7);
  assert.equal(cur.spec?.preemptionPolicy, 'Never');
});

test('only one PriorityClass may be globalDefault', async () => {
  const lookup = fakeLookup({ priorityClasses: [pc('existing', 1, { globalDefault: true })] });
  const a = attrs(pc('another', 2, { globalDefault: true }), { resource: resources.priorityclasses });
  await assert.rejects(create().validate(a, lookup), { message: 'priorityclasses.scheduling.k8s.io "another" is forbidden: PriorityClass existing is marked as default. Only one default can exist' });
  await create().validate(attrs(pc('existing', 1, { globalDefault: true }), { operation: 'UPDATE', resource: resources.priorityclasses }), lookup);
});
