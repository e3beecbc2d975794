import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { makePod } from '../../_testing/wrappers.js';
import { newTestFramework } from '../../_testing/framework.js';
import { CycleState } from '../../framework/cycle-state.js';
import { Code } from '../../framework/status.js';

function binder(bind: (pod: Pod, node: string) => Promise<void>): ReturnType<typeof newTestFramework>['fwk'] {
  return newTestFramework({
    profile: { schedulerName: 's', plugins: [{ name: 'DefaultBinder' }] },
    apiActions: { bind, preemptVictim: async () => undefined, clearNominatedNodeName: async () => undefined, podDisruptionBudgets: () => [] },
  }).fwk;
}

// defaultbinder/default_binder_test.go TestDefaultBinder.
void test('successful', async () => {
  const calls: string[] = [];
  const fwk = binder(async (p, n) => {
    calls.push(`${p.metadata?.name ?? ''}->${n}`);
  });
  const s = await fwk.runBindPlugins(new CycleState(), makePod('foo').obj(), 'foohost.kubernetes.mydomain.com');
  assert.ok(s.isSuccess());
  assert.deepEqual(calls, ['foo->foohost.kubernetes.mydomain.com']);
});

void test('binding error', async () => {
  const fwk = binder(async () => {
    throw new Error('binding error');
  });
  const s = await fwk.runBindPlugins(new CycleState(), makePod('foo').obj(), 'n');
  assert.equal(s.code, Code.Error);
  assert.equal(s.message(), 'running Bind plugin "DefaultBinder": binding error');
});
