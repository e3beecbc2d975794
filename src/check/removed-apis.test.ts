import { test } from 'node:test';
import assert from 'node:assert/strict';
import { removedApi } from './removed-apis.js';

test('removed API versions name their replacement; served ones are not listed', () => {
  assert.deepEqual(removedApi('node.k8s.io/v1beta1', 'RuntimeClass'), { apiVersion: 'node.k8s.io/v1beta1', kind: 'RuntimeClass', removedIn: 'v1.25', replacement: 'node.k8s.io/v1' });
  assert.equal(removedApi('extensions/v1beta1', 'Deployment')?.replacement, 'apps/v1');
  assert.equal(removedApi('apps/v1beta2', 'StatefulSet')?.replacement, 'apps/v1');
  assert.equal(removedApi('batch/v1beta1', 'CronJob')?.replacement, 'batch/v1');
  assert.equal(removedApi('policy/v1beta1', 'PodSecurityPolicy')?.replacement, undefined);
  assert.equal(removedApi('apps/v1', 'Deployment'), undefined);
  assert.equal(removedApi('node.k8s.io/v1', 'RuntimeClass'), undefined);
});
