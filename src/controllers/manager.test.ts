import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { resources } from '../api/resources.js';
import { FakeClock } from '../client/index.js';
import { FakeClient } from './_testing/fake-client.js';
import { waitFor } from './_testing/fakes.js';
import { replicaSet } from './_testing/builders.js';
import { createControllerManager } from './manager.js';
import { selectControllers } from './registry.js';
import { names } from './names.js';

void test('--controllers selection: *, names and -name', () => {
  const all = selectControllers(['*']);
  assert.ok(all.includes(names.ReplicaSet) && all.includes(names.NodeLifecycle));
  assert.deepEqual(selectControllers([names.ReplicaSet]), [names.ReplicaSet]);
  assert.ok(!selectControllers(['*', `-${names.DaemonSet}`]).includes(names.DaemonSet));
  assert.throws(() => selectControllers(['bogus-controller']), /"bogus-controller" is not in the list of known controllers/);
});

void test('the manager runs its controllers with the client informers and work queues', async (t) => {
  const client = new FakeClient();
  const m = createControllerManager({ client, leaderElect: false, controllers: [names.ReplicaSet] });
  m.start();
  t.after(() => m.stop());
  await client.create(resources.replicasets, replicaSet('web', 2));
  await waitFor(() => client.peekAll<Pod>(resources.pods).length === 2, 20_000);
  assert.deepEqual(m.controllerNames(), [names.ReplicaSet]);
});

void test('leader election: one manager acts; when it stops the other takes over the Lease', async (t) => {
  const client = new FakeClient();
  const clock = new FakeClock(Date.parse('2025-01-01T00:00:00Z'));
  const a = createControllerManager({ client, clock, identity: 'a', controllers: [names.ReplicaSet] });
  const b = createControllerManager({ client, clock, identity: 'b', controllers: [names.ReplicaSet] });
  const turn = async (ms: number): Promise<void> => {
    clock.step(ms);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  a.start();
  for (let i = 0; i < 10 && !a.isLeader(); i++) await turn(0);
  assert.equal(a.isLeader(), true);
  b.start();
  t.after(async () => {
    await a.stop();
    await b.stop();
  });
  for (let i = 0; i < 10; i++) await turn(2000);
  assert.equal(b.isLeader(), false);
  const lease = client.peek<Lease>(resources.leases, 'kube-controller-manager', 'kube-system');
  assert.equal(lease?.spec?.holderIdentity, 'a');
  assert.equal(lease?.spec?.leaseDurationSeconds, 15);
  assert.match(lease?.spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  await a.stop();
  assert.equal(client.peek<Lease>(resources.leases, 'kube-controller-manager', 'kube-system')?.spec?.holderIdentity, '');
  for (let i = 0; i < 10 && !b.isLeader(); i++) await turn(2000);
  assert.equal(b.isLeader(), true);
  const after = client.peek<Lease>(resources.leases, 'kube-controller-manager', 'kube-system');
  assert.equal(after?.spec?.holderIdentity, 'b');
  assert.equal(after?.spec?.leaseTransitions, 1);
});
