import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LimitRange, Pod } from 'kubernetes-types/core/v1.js';
import { attrs, fakeLookup } from '../_testing.js';
import { create } from './limit-ranger.js';

const lr: LimitRange = {
  metadata: { name: 'limits', namespace: 'ns' },
  spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' }, max: { cpu: '1' }, min: { cpu: '50m' } }] },
};
const lookup = fakeLookup({ limitRanges: [lr] });

test('defaults container requests and limits and records them in the annotation', async () => {
  const pod: Pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: { limits: { memory: '128Mi' } } }] } };
  await create().admit(attrs(pod), lookup);
  assert.deepEqual(pod.spec?.containers[0]?.resources, { limits: { memory: '128Mi', cpu: '500m' }, requests: { cpu: '100m' } });
  assert.equal(pod.metadata?.annotations?.['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu request for container nginx; cpu limit for container nginx');
});

test('enforces min and max per container', async () => {
  const tooBig: Pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '2' }, requests: { cpu: '10m' } } }] } };
  await assert.rejects(create().validate(attrs(tooBig), lookup), {
    message: 'pods "p" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, maximum cpu usage per Container is 1, but limit is 2]',
  });
});

test('namespaces without LimitRanges are untouched', async () => {
  const pod: Pod = { metadata: { name: 'p', namespace: 'other' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
  await create().admit(attrs(pod), lookup);
  await create().validate(attrs(pod), lookup);
  assert.equal(pod.spec?.containers[0]?.resources, undefined);
});
