import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { breakdownRule, compactRules, compactString, missingRules } from './escalation.js';

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({ verbs, apiGroups, resources, ...(resourceNames !== undefined ? { resourceNames } : {}) });

test('rules break down into one verb, group, resource and name each', () => {
  assert.deepEqual(breakdownRule(rule(['get', 'list'], [''], ['pods', 'services'])), [
    rule(['get'], [''], ['pods']),
    rule(['list'], [''], ['pods']),
    rule(['get'], [''], ['services']),
    rule(['list'], [''], ['services']),
  ]);
  assert.deepEqual(breakdownRule({ verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] }), [
    { verbs: ['get'], nonResourceURLs: ['/healthz'] },
    { verbs: ['get'], nonResourceURLs: ['/version'] },
  ]);
});

test('owner rules cover what they hold, wildcards included (Covers)', () => {
  const owner = [rule(['*'], [''], ['pods']), rule(['get'], ['apps'], ['*']), rule(['get'], [''], ['*/status']), rule(['get'], [''], ['configmaps'], ['cm1']), { verbs: ['get'], nonResourceURLs: ['/api/*'] }];
  assert.deepEqual(missingRules(owner, [rule(['delete', 'get'], [''], ['pods'])]), []);
  assert.deepEqual(missingRules(owner, [rule(['get'], ['apps'], ['deployments', 'replicasets'])]), []);
  assert.deepEqual(missingRules(owner, [rule(['get'], [''], ['nodes/status'])]), []);
  assert.deepEqual(missingRules(owner, [rule(['get'], [''], ['configmaps'], ['cm1'])]), []);
  assert.deepEqual(missingRules(owner, [{ verbs: ['get'], nonResourceURLs: ['/api/v1'] }]), []);
  assert.deepEqual(missingRules(owner, [rule(['get'], [''], ['configmaps'])]), [rule(['get'], [''], ['configmaps'])]);
  assert.deepEqual(missingRules(owner, [rule(['list'], ['apps'], ['deployments'])]), [rule(['list'], ['apps'], ['deployments'])]);
});

test('missing rules print compacted as rbacv1helpers.CompactString', () => {
  const missing = compactRules([rule(['list'], [''], ['nodes']), rule(['watch'], [''], ['nodes']), rule(['get'], [''], ['secrets'], ['s1'])]);
  assert.deepEqual(missing.map(compactString), ['{APIGroups:[""], Resources:["nodes"], Verbs:["list" "watch"]}', '{APIGroups:[""], Resources:["secrets"], ResourceNames:["s1"], Verbs:["get"]}']);
  assert.equal(compactString({ verbs: ['*'], nonResourceURLs: ['*'] }), '{NonResourceURLs:["*"], Verbs:["*"]}');
});
