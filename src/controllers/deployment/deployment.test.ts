import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { resources } from '../../api/resources.js';
import { FakeClient } from '../_testing/fake-client.js';
import { TestContext, waitFor, startControllers } from '../_testing/fakes.js';
import { template } from '../_testing/builders.js';
import { create as createReplicaSetController } from '../replicaset/replicaset.js';
import { create } from './deployment.js';
import {
  cleanupUnhealthyReplicas,
  computeHash,
  DesiredReplicasAnnotation,
  MaxReplicasAnnotation,
  maxSurge,
  newRSNewReplicas,
  planScale,
  reconcileNewReplicaSet,
  reconcileOldReplicaSets,
  resolveFenceposts,
  rolloutStatus,
  safeEncodeString,
  scaleDownOldReplicaSetsForRollingUpdate,
  setNewReplicaSetAnnotations,
} from './_util.js';

type IntOrString = number | string;

/** upstream's test helper `newDeployment(name, replicas, revisionHistoryLimit, maxSurge, maxUnavailable, selector)`. */
function newDeployment(replicas: number, surge: IntOrString = 0, unavailable: IntOrString = 0): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'foo', namespace: 'default', uid: 'd-uid', generation: 1 },
    spec: {
      replicas,
      selector: { matchLabels: { foo: 'bar' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } },
      template: template({ foo: 'bar' }),
    },
  };
}

function rs(name: string, replicas: number, created: string, available = 0): ReplicaSet {
  return {
    metadata: { name, namespace: 'default', uid: `${name}-uid`, creationTimestamp: created },
    spec: { replicas, selector: { matchLabels: { foo: 'bar' } }, template: template({ foo: 'bar' }) },
    status: { replicas, availableReplicas: available },
  };
}

const oldT = '2025-01-01T00:00:00Z';
const newT = '2025-01-01T01:00:00Z';

void test('SafeEncodeString and ComputeHash give upstream-shaped pod-template-hash values', () => {
  assert.equal(safeEncodeString('0123456789'), 'bcdfghjklm'.split('').map((_, i) => 'bcdfghjklmnpqrstvwxz2456789'[(48 + i) % 27]).join(''));
  const h = computeHash(template({ app: 'x' }), undefined);
  assert.match(h, /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  assert.equal(computeHash(template({ app: 'x' }), undefined), h, 'stable');
  assert.notEqual(computeHash(template({ app: 'x' }), 1), h, 'collisionCount changes the hash');
  assert.notEqual(computeHash(template({ app: 'x' }, 'nginx:1.28'), undefined), h);
});

void test('ResolveFenceposts', async (t) => {
  const cases: { maxSurge?: string; maxUnavailable?: string; desired: number; surge: number; unavailable: number; err: boolean }[] = [
    { maxSurge: '0%', maxUnavailable: '0%', desired: 0, surge: 0, unavailable: 1, err: false },
    { maxSurge: '39%', maxUnavailable: '39%', desired: 10, surge: 4, unavailable: 3, err: false },
    { maxSurge: 'oops', maxUnavailable: '39%', desired: 10, surge: 0, unavailable: 0, err: true },
    { maxSurge: '55%', maxUnavailable: 'urg', desired: 10, surge: 0, unavailable: 0, err: true },
    { maxUnavailable: '39%', desired: 10, surge: 0, unavailable: 3, err: false },
    { maxSurge: 'oops', desired: 10, surge: 0, unavailable: 0, err: true },
    { maxSurge: '55%', desired: 10, surge: 6, unavailable: 0, err: false },
    { desired: 10, surge: 0, unavailable: 1, err: false },
  ];
  for (const [i, tc] of cases.entries()) {
    await t.test(`case ${i}`, () => {
      if (tc.err) {
        assert.throws(() => resolveFenceposts(tc.maxSurge, tc.maxUnavailable, tc.desired));
        return;
      }
      assert.deepEqual(resolveFenceposts(tc.maxSurge, tc.maxUnavailable, tc.desired), { surge: tc.surge, unavailable: tc.unavailable });
    });
  }
});

void test('NewRSNewReplicas', async (t) => {
  const cases = [
    { name: 'can not scale up - to newRSReplicas', strategy: 'RollingUpdate', depReplicas: 1, newRSReplicas: 5, maxSurge: 1, expected: 5 },
    { name: 'scale up - to depReplicas', strategy: 'RollingUpdate', depReplicas: 6, newRSReplicas: 2, maxSurge: 10, expected: 6 },
    { name: 'recreate - to depReplicas', strategy: 'Recreate', depReplicas: 3, newRSReplicas: 1, maxSurge: 1, expected: 3 },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const d = newDeployment(tc.depReplicas, tc.maxSurge, 1);
      if (d.spec?.strategy !== undefined) (d.spec.strategy as { type?: string }).type = tc.strategy;
      const rs5 = rs('rs5', 5, oldT);
      const newRC = rs('new', tc.newRSReplicas, newT);
      assert.equal(newRSNewReplicas(d, [rs5], newRC), tc.expected);
    });
  }
});

void test('reconcileNewReplicaSet', async (t) => {
  const cases = [
    { name: 'should not scale up', deploymentReplicas: 10, maxSurge: 0, oldReplicas: 10, newReplicas: 0, scaleExpected: false, expectedNewReplicas: 0 },
    { name: 'should scale up by surge', deploymentReplicas: 10, maxSurge: 2, oldReplicas: 10, newReplicas: 0, scaleExpected: true, expectedNewReplicas: 2 },
    { name: 'should scale up to fill room', deploymentReplicas: 10, maxSurge: 2, oldReplicas: 5, newReplicas: 0, scaleExpected: true, expectedNewReplicas: 7 },
    { name: 'should not scale up past surge', deploymentReplicas: 10, maxSurge: 2, oldReplicas: 10, newReplicas: 2, scaleExpected: false, expectedNewReplicas: 0 },
    { name: 'should scale down', deploymentReplicas: 2, maxSurge: 0, oldReplicas: 0, newReplicas: 3, scaleExpected: true, expectedNewReplicas: 2 },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const newRS = rs('foo-v2', tc.newReplicas, newT);
      const oldRS = rs('foo-v1', tc.oldReplicas, oldT);
      const d = newDeployment(tc.deploymentReplicas, tc.maxSurge, 0);
      const got = reconcileNewReplicaSet(d, [oldRS, newRS], newRS);
      assert.equal(got !== undefined, tc.scaleExpected);
      if (tc.scaleExpected) assert.equal(got, tc.expectedNewReplicas);
    });
  }
});

void test('reconcileOldReplicaSets', async (t) => {
  const cases = [
    { deploymentReplicas: 10, maxUnavailable: 0, oldReplicas: 10, newReplicas: 0, readyOld: 10, readyNew: 0, scaleExpected: true, expectedOld: 9 },
    { deploymentReplicas: 10, maxUnavailable: 2, oldReplicas: 10, newReplicas: 0, readyOld: 10, readyNew: 0, scaleExpected: true, expectedOld: 8 },
    { deploymentReplicas: 10, maxUnavailable: 2, oldReplicas: 10, newReplicas: 0, readyOld: 8, readyNew: 0, scaleExpected: true, expectedOld: 8 },
    { deploymentReplicas: 10, maxUnavailable: 2, oldReplicas: 10, newReplicas: 0, readyOld: 9, readyNew: 0, scaleExpected: true, expectedOld: 8 },
    { deploymentReplicas: 10, maxUnavailable: 2, oldReplicas: 8, newReplicas: 2, readyOld: 8, readyNew: 0, scaleExpected: false, expectedOld: 8 },
  ];
  for (const [i, tc] of cases.entries()) {
    await t.test(`case ${i}`, () => {
      const newRS = rs('foo-v2', tc.newReplicas, newT, tc.readyNew);
      const oldRS = rs('foo-v1', tc.oldReplicas, oldT, tc.readyOld);
      const d = newDeployment(tc.deploymentReplicas, 0, tc.maxUnavailable);
      const ops = reconcileOldReplicaSets([oldRS, newRS], [oldRS], newRS, d);
      assert.equal(ops.length > 0, tc.scaleExpected);
      const last = ops.at(-1);
      if (tc.scaleExpected) assert.equal(last?.to, tc.expectedOld);
    });
  }
});

void test('cleanupUnhealthyReplicas', async (t) => {
  const cases = [
    { oldReplicas: 10, readyPods: 8, maxCleanupCount: 1, cleanupCountExpected: 1 },
    { oldReplicas: 10, readyPods: 8, maxCleanupCount: 3, cleanupCountExpected: 2 },
    { oldReplicas: 10, readyPods: 8, maxCleanupCount: 0, cleanupCountExpected: 0 },
    { oldReplicas: 10, readyPods: 10, maxCleanupCount: 3, cleanupCountExpected: 0 },
  ];
  for (const [i, tc] of cases.entries()) {
    await t.test(`case ${i}`, () => {
      const oldRS = rs('foo-v2', tc.oldReplicas, oldT, tc.readyPods);
      assert.equal(cleanupUnhealthyReplicas([oldRS], tc.maxCleanupCount).cleaned, tc.cleanupCountExpected);
    });
  }
});

void test('scaleDownOldReplicaSetsForRollingUpdate', async (t) => {
  const cases = [
    { deploymentReplicas: 10, maxUnavailable: 0, readyPods: 10, oldReplicas: 10, scaleExpected: true, expectedOld: 9 },
    { deploymentReplicas: 10, maxUnavailable: 2, readyPods: 10, oldReplicas: 10, scaleExpected: true, expectedOld: 8 },
    { deploymentReplicas: 10, maxUnavailable: 2, readyPods: 8, oldReplicas: 10, scaleExpected: false, expectedOld: 10 },
    { deploymentReplicas: 10, maxUnavailable: 2, readyPods: 10, oldReplicas: 0, scaleExpected: false, expectedOld: 0 },
    { deploymentReplicas: 10, maxUnavailable: 2, readyPods: 1, oldReplicas: 10, scaleExpected: false, expectedOld: 10 },
  ];
  for (const [i, tc] of cases.entries()) {
    await t.test(`case ${i}`, () => {
      const oldRS = rs('foo-v2', tc.oldReplicas, oldT, tc.readyPods);
      const d = newDeployment(tc.deploymentReplicas, 0, tc.maxUnavailable);
      const r = scaleDownOldReplicaSetsForRollingUpdate([oldRS], [oldRS], d);
      assert.equal(r.scaled > 0, tc.scaleExpected);
      if (tc.scaleExpected) assert.equal(r.ops[0]?.to, tc.expectedOld);
    });
  }
});

void test('scale (proportional scaling)', async (t) => {
  const cases: {
    name: string;
    deployment: Deployment;
    oldDeployment: Deployment;
    newRS?: ReplicaSet;
    oldRSs: ReplicaSet[];
    expectedNew?: number;
    expectedOld: number[];
  }[] = [
    { name: 'normal scaling event: 10 -> 12', deployment: newDeployment(12), oldDeployment: newDeployment(10), newRS: rs('foo-v1', 10, newT), oldRSs: [], expectedNew: 12, expectedOld: [] },
    { name: 'normal scaling event: 10 -> 5', deployment: newDeployment(5), oldDeployment: newDeployment(10), newRS: rs('foo-v1', 10, newT), oldRSs: [], expectedNew: 5, expectedOld: [] },
    { name: 'proportional scaling: 5 -> 10', deployment: newDeployment(10), oldDeployment: newDeployment(5), newRS: rs('foo-v2', 2, newT), oldRSs: [rs('foo-v1', 3, oldT)], expectedNew: 4, expectedOld: [6] },
    { name: 'proportional scaling: 5 -> 3', deployment: newDeployment(3), oldDeployment: newDeployment(5), newRS: rs('foo-v2', 2, newT), oldRSs: [rs('foo-v1', 3, oldT)], expectedNew: 1, expectedOld: [2] },
    { name: 'proportional scaling: 9 -> 4', deployment: newDeployment(4), oldDeployment: newDeployment(9), newRS: rs('foo-v2', 8, newT), oldRSs: [rs('foo-v1', 1, oldT)], expectedNew: 4, expectedOld: [0] },
    { name: 'proportional scaling: 7 -> 10', deployment: newDeployment(10), oldDeployment: newDeployment(7), newRS: rs('foo-v3', 2, newT), oldRSs: [rs('foo-v2', 3, oldT), rs('foo-v1', 2, '2024-12-31T00:00:00Z')], expectedNew: 3, expectedOld: [4, 3] },
    { name: 'proportional scaling: 13 -> 8', deployment: newDeployment(8), oldDeployment: newDeployment(13), newRS: rs('foo-v3', 2, newT), oldRSs: [rs('foo-v2', 8, oldT), rs('foo-v1', 3, '2024-12-31T00:00:00Z')], expectedNew: 1, expectedOld: [5, 2] },
    { name: 'leftover distribution: 3 -> 4', deployment: newDeployment(4), oldDeployment: newDeployment(3), newRS: rs('foo-v3', 1, newT), oldRSs: [rs('foo-v2', 1, oldT), rs('foo-v1', 1, '2024-12-31T00:00:00Z')], expectedNew: 2, expectedOld: [1, 1] },
    { name: 'leftover distribution: 3 -> 2', deployment: newDeployment(2), oldDeployment: newDeployment(3), newRS: rs('foo-v3', 1, newT), oldRSs: [rs('foo-v2', 1, oldT), rs('foo-v1', 1, '2024-12-31T00:00:00Z')], expectedNew: 1, expectedOld: [1, 0] },
    { name: 'proportional scaling (no new rs): 4 -> 5', deployment: newDeployment(5), oldDeployment: newDeployment(4), oldRSs: [rs('foo-v2', 2, oldT), rs('foo-v1', 2, '2024-12-31T00:00:00Z')], expectedOld: [3, 2] },
    { name: 'proportional scaling: 6 -> 0', deployment: newDeployment(0), oldDeployment: newDeployment(6), newRS: rs('foo-v3', 3, newT), oldRSs: [rs('foo-v2', 2, oldT), rs('foo-v1', 1, '2024-12-31T00:00:00Z')], expectedNew: 0, expectedOld: [0, 0] },
    { name: 'proportional scaling: 0 -> 6', deployment: newDeployment(6), oldDeployment: newDeployment(0), newRS: rs('foo-v3', 0, newT), oldRSs: [rs('foo-v2', 0, oldT), rs('foo-v1', 0, '2024-12-31T00:00:00Z')], expectedNew: 6, expectedOld: [0, 0] },
    { name: 'deployment with surge pods', deployment: newDeployment(20, 2), oldDeployment: newDeployment(10, 2), newRS: rs('foo-v2', 6, newT), oldRSs: [rs('foo-v1', 6, oldT)], expectedNew: 11, expectedOld: [11] },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const desired = tc.oldDeployment.spec?.replicas ?? 0;
      const max = desired + maxSurge(tc.oldDeployment);
      for (const r of [tc.newRS, ...tc.oldRSs]) {
        if (r !== undefined) (r.metadata as { annotations?: Record<string, string> }).annotations = { [DesiredReplicasAnnotation]: String(desired), [MaxReplicasAnnotation]: String(max) };
      }
      const ops = planScale(tc.deployment, tc.newRS, tc.oldRSs);
      const size = (r: ReplicaSet): number => ops.find((o) => o.rs === r)?.to ?? r.spec?.replicas ?? 0;
      if (tc.newRS !== undefined) assert.equal(size(tc.newRS), tc.expectedNew);
      assert.deepEqual(tc.oldRSs.map(size), tc.expectedOld);
    });
  }
});

void test('SetNewReplicaSetAnnotations copies change-cause, raises the revision and keeps revision history on rollback', () => {
  const d = newDeployment(3);
  (d.metadata as { annotations?: Record<string, string> }).annotations = {
    'kubernetes.io/change-cause': 'kubectl set image',
    'kubectl.kubernetes.io/last-applied-configuration': '{}',
    'deployment.kubernetes.io/revision': '2',
  };
  const r = rs('foo-v1', 0, oldT);
  (r.metadata as { annotations?: Record<string, string> }).annotations = { 'deployment.kubernetes.io/revision': '1' };
  assert.equal(setNewReplicaSetAnnotations(d, r, '3', true), true);
  assert.deepEqual(r.metadata?.annotations, {
    'deployment.kubernetes.io/revision': '3',
    'deployment.kubernetes.io/revision-history': '1',
    'kubernetes.io/change-cause': 'kubectl set image',
  });
});

interface Harness {
  client: FakeClient;
  ctx: TestContext;
}

async function setup(t: { after(fn: () => void): void }): Promise<Harness> {
  const client = new FakeClient();
  const ctx = new TestContext(client);
  await startControllers(t, ctx, create(ctx), createReplicaSetController(ctx));
  return { client, ctx };
}

/** Plays the kubelet: marks every pending pod Running and Ready. */
async function makePodsReady(client: FakeClient, now: string): Promise<number> {
  let n = 0;
  for (const p of client.peekAll<Pod>(resources.pods)) {
    if (p.status?.phase === 'Running') continue;
    await client.update(resources.pods, { ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } }, { subresource: 'status' });
    n++;
  }
  return n;
}

function deploymentObj(name: string, replicas: number, image: string): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: template({ app: name }, image),
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
  };
}

async function rollUntilStable(h: Harness, name: string): Promise<Deployment | undefined> {
  for (let i = 0; i < 50; i++) {
    await h.ctx.settle();
    const moved = await makePodsReady(h.client, new Date(h.ctx.clock.now()).toISOString());
    await h.ctx.settle();
    const d = h.client.peek<Deployment>(resources.deployments, name, 'default');
    const want = d?.spec?.replicas ?? 0;
    const pods = h.client.peekAll<Pod>(resources.pods).length;
    if (moved === 0 && d?.status?.updatedReplicas === want && d.status.availableReplicas === want && d.status.replicas === want && pods === want) return d;
  }
  return h.client.peek<Deployment>(resources.deployments, name, 'default');
}

void test('a new deployment creates <name>-<hash> with revision 1, events and conditions', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.deployments, deploymentObj('web', 3, 'nginx:1.27'));
  const d = await rollUntilStable(h, 'web');
  const rss = h.client.peekAll<ReplicaSet>(resources.replicasets);
  assert.equal(rss.length, 1);
  const r = rss[0];
  const hash = r?.metadata?.labels?.['pod-template-hash'] ?? '';
  assert.equal(r?.metadata?.name, `web-${hash}`);
  assert.equal(r?.spec?.selector.matchLabels?.['pod-template-hash'], hash);
  assert.equal(r?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  assert.equal(r?.metadata?.annotations?.['deployment.kubernetes.io/desired-replicas'], '3');
  assert.equal(r?.metadata?.annotations?.['deployment.kubernetes.io/max-replicas'], '4');
  assert.equal(d?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  assert.deepEqual(
    d?.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      ['Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "web-${hash}" has successfully progressed.`],
    ],
  );
  // The revision annotation goes with UpdateStatus (sync.go getNewReplicaSet): the controller never writes
  // the main resource, whose annotation changes would bump the generation.
  assert.equal(d?.metadata?.generation, 1);
  assert.equal(d?.status?.observedGeneration, 1);
  assert.deepEqual(
    h.client.actions.filter((a) => a.resource === 'deployments' && a.verb !== 'create' && a.subresource !== 'status'),
    [],
  );
  assert.deepEqual(
    h.ctx.events.filter((e) => e.reason === 'ScalingReplicaSet').map((e) => e.message),
    [`Scaled up replica set web-${hash} from 0 to 3`],
  );
});

void test('a template change rolls out within maxSurge/maxUnavailable and keeps the old ReplicaSet at 0 for undo', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.deployments, deploymentObj('web', 4, 'nginx:1.27'));
  await rollUntilStable(h, 'web');
  const d = h.client.peek<Deployment>(resources.deployments, 'web', 'default');
  const next = structuredClone(d) as Deployment;
  if (next.spec?.template.spec?.containers[0] !== undefined) next.spec.template.spec.containers[0].image = 'nginx:1.28';
  (next.metadata as { annotations?: Record<string, string> }).annotations = { ...(next.metadata?.annotations ?? {}), 'kubernetes.io/change-cause': 'upgrade to 1.28' };
  await h.client.update(resources.deployments, next);
  let maxPods = 0;
  for (let i = 0; i < 50; i++) {
    await h.ctx.settle();
    maxPods = Math.max(maxPods, h.client.peekAll<Pod>(resources.pods).length);
    await makePodsReady(h.client, new Date(h.ctx.clock.now()).toISOString());
    await h.ctx.settle();
    const cur = h.client.peek<Deployment>(resources.deployments, 'web', 'default');
    if (cur?.status?.updatedReplicas === 4 && cur.status.replicas === 4 && cur.status.availableReplicas === 4) break;
  }
  assert.ok(maxPods <= 5, `never more than replicas+maxSurge pods, saw ${maxPods}`);
  const rss = h.client.peekAll<ReplicaSet>(resources.replicasets).sort((a, b) =>
    (a.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? '').localeCompare(b.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? ''),
  );
  assert.equal(rss.length, 2);
  assert.equal(rss[0]?.spec?.replicas, 0);
  assert.equal(rss[1]?.spec?.replicas, 4);
  assert.equal(rss[1]?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '2');
  assert.equal(rss[1]?.metadata?.annotations?.['kubernetes.io/change-cause'], 'upgrade to 1.28');
  assert.equal(rss[1]?.spec?.template?.spec?.containers[0]?.image, 'nginx:1.28');
  const after = h.client.peek<Deployment>(resources.deployments, 'web', 'default');
  assert.equal(after?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '2');
  // Only the client's template change moved the generation; the new revision came with status.
  assert.equal(after?.metadata?.generation, 2);
  assert.equal(after?.status?.observedGeneration, 2);
  const scaling = h.ctx.events.filter((e) => e.reason === 'ScalingReplicaSet').map((e) => e.message);
  assert.ok(scaling.some((m) => /^Scaled down replica set web-\w+ to \d from \d$/.test(m)), scaling.join('\n'));

  // kubectl rollout undo: the template of revision 1 is patched back; the old ReplicaSet becomes revision 3.
  const cur = h.client.peek<Deployment>(resources.deployments, 'web', 'default') as Deployment;
  const tpl = structuredClone(rss[0]?.spec?.template);
  if (tpl?.metadata?.labels !== undefined) delete (tpl.metadata.labels as Record<string, string>)['pod-template-hash'];
  await h.client.update(resources.deployments, { ...cur, spec: { ...cur.spec, template: tpl } } as Deployment);
  await rollUntilStable(h, 'web');
  const back = h.client.peek<ReplicaSet>(resources.replicasets, rss[0]?.metadata?.name ?? '', 'default');
  assert.equal(back?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '3');
  assert.equal(back?.metadata?.annotations?.['deployment.kubernetes.io/revision-history'], '1');
  assert.equal(back?.spec?.replicas, 4);
});

void test('paused deployments do not roll out; scaling still applies', async (t) => {
  const h = await setup(t);
  await h.client.create(resources.deployments, deploymentObj('web', 2, 'nginx:1.27'));
  await rollUntilStable(h, 'web');
  const d = h.client.peek<Deployment>(resources.deployments, 'web', 'default') as Deployment;
  const paused = structuredClone(d);
  if (paused.spec !== undefined) {
    (paused.spec as { paused?: boolean }).paused = true;
    if (paused.spec.template.spec?.containers[0] !== undefined) paused.spec.template.spec.containers[0].image = 'nginx:1.28';
  }
  await h.client.update(resources.deployments, paused);
  await h.ctx.settle();
  assert.equal(h.client.peekAll<ReplicaSet>(resources.replicasets).length, 1, 'no new ReplicaSet while paused');
  await waitFor(() => h.client.peek<Deployment>(resources.deployments, 'web', 'default')?.status?.conditions?.some((c) => c.reason === 'DeploymentPaused') === true);
  const p = h.client.peek<Deployment>(resources.deployments, 'web', 'default');
  assert.equal(p?.status?.conditions?.find((c) => c.type === 'Progressing')?.message, 'Deployment is paused');
});

void test('Recreate scales the old ReplicaSet to zero before creating the new one', async (t) => {
  const h = await setup(t);
  const obj = deploymentObj('db', 2, 'postgres:16');
  if (obj.spec !== undefined) obj.spec.strategy = { type: 'Recreate' };
  await h.client.create(resources.deployments, obj);
  await rollUntilStable(h, 'db');
  const d = h.client.peek<Deployment>(resources.deployments, 'db', 'default') as Deployment;
  const next = structuredClone(d);
  if (next.spec?.template.spec?.containers[0] !== undefined) next.spec.template.spec.containers[0].image = 'postgres:17';
  await h.client.update(resources.deployments, next);
  for (let i = 0; i < 20; i++) {
    await h.ctx.settle();
    const images = new Set(h.client.peekAll<Pod>(resources.pods).map((p) => p.spec?.containers[0]?.image));
    assert.ok(images.size <= 1, `old and new pods never run together: ${[...images].join(',')}`);
    await makePodsReady(h.client, new Date(h.ctx.clock.now()).toISOString());
  }
  await rollUntilStable(h, 'db');
  const rss = h.client.peekAll<ReplicaSet>(resources.replicasets);
  assert.equal(rss.length, 2);
  const pods = h.client.peekAll<Pod>(resources.pods);
  assert.equal(pods.length, 2);
  assert.ok(pods.every((p) => p.spec?.containers[0]?.image === 'postgres:17'));
  const msgs = h.ctx.events.filter((e) => e.reason === 'ScalingReplicaSet').map((e) => e.message);
  const downIdx = msgs.findIndex((m) => m.startsWith('Scaled down'));
  const upIdx = msgs.findIndex((m, i) => i > 0 && m.startsWith('Scaled up'));
  assert.ok(downIdx >= 0 && upIdx > downIdx, msgs.join('\n'));
});

void test('revisionHistoryLimit deletes the oldest idle ReplicaSets', async (t) => {
  const h = await setup(t);
  const obj = deploymentObj('web', 1, 'nginx:1');
  if (obj.spec !== undefined) obj.spec.revisionHistoryLimit = 1;
  await h.client.create(resources.deployments, obj);
  await rollUntilStable(h, 'web');
  for (const image of ['nginx:2', 'nginx:3']) {
    const d = h.client.peek<Deployment>(resources.deployments, 'web', 'default') as Deployment;
    const next = structuredClone(d);
    if (next.spec?.template.spec?.containers[0] !== undefined) next.spec.template.spec.containers[0].image = image;
    await h.client.update(resources.deployments, next);
    await rollUntilStable(h, 'web');
  }
  await h.ctx.settle();
  const images = h.client.peekAll<ReplicaSet>(resources.replicasets).map((r) => r.spec?.template?.spec?.containers[0]?.image).sort();
  assert.deepEqual(images, ['nginx:2', 'nginx:3']);
});

void test('syncRolloutStatus conditions', async (t) => {
  const now = Date.parse('2025-01-01T01:00:00Z');
  const past = '2025-01-01T00:59:00Z';
  const longAgo = '2025-01-01T00:40:00Z';
  const pdl = (d: Deployment, secs: number | undefined): Deployment => {
    if (d.spec !== undefined) (d.spec as { progressDeadlineSeconds?: number }).progressDeadlineSeconds = secs ?? 2147483647;
    return d;
  };
  const withStatus = (d: Deployment, s: NonNullable<Deployment['status']>): Deployment => ({ ...d, status: s });
  const cond = (type: string, status: string, reason: string, at = past): NonNullable<NonNullable<Deployment['status']>['conditions']>[number] => ({
    type,
    status,
    reason,
    message: '',
    lastUpdateTime: at,
    lastTransitionTime: at,
  });
  const newRS = (replicas: number, available: number): ReplicaSet => ({ ...rs('foo-v2', replicas, newT, available), status: { replicas, availableReplicas: available, readyReplicas: available } });
  const progressing = (s: NonNullable<Deployment['status']> | undefined): string[] => {
    const c = s?.conditions?.find((x) => x.type === 'Progressing');
    return c === undefined ? [] : [c.status, c.reason ?? '', c.message ?? '', c.lastTransitionTime === past ? 'kept' : 'new'];
  };
  const halfway = (): ReplicaSet => ({ ...newRS(2, 1), status: { replicas: 2, availableReplicas: 1, readyReplicas: 1 } });
  const cases: { name: string; d: Deployment; allRSs: ReplicaSet[]; newRS?: ReplicaSet; want: string[] }[] = [
    {
      name: 'General: remove Progressing condition and do not estimate progress if deployment has no Progress Deadline',
      d: withStatus(pdl(newDeployment(2), undefined), { replicas: 2, conditions: [cond('Progressing', 'True', 'ReplicaSetUpdated')] }),
      allRSs: [newRS(2, 2)],
      newRS: newRS(2, 2),
      want: [],
    },
    {
      name: 'General: do not estimate progress of deployment with only one active ReplicaSet',
      d: withStatus(pdl(newDeployment(3), 60), { replicas: 3, updatedReplicas: 3, availableReplicas: 3, conditions: [cond('Progressing', 'True', 'NewReplicaSetAvailable')] }),
      allRSs: [newRS(3, 3)],
      newRS: newRS(3, 3),
      want: ['True', 'NewReplicaSetAvailable', '', 'kept'],
    },
    {
      name: "DeploymentProgressing: dont update lastTransitionTime if deployment already has Progressing=True",
      d: withStatus(pdl(newDeployment(2), 60), { replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [cond('Progressing', 'True', 'ReplicaSetUpdated')] }),
      allRSs: [halfway()],
      newRS: halfway(),
      want: ['True', 'ReplicaSetUpdated', 'ReplicaSet "foo-v2" is progressing.', 'kept'],
    },
    {
      name: 'DeploymentProgressing: update everything if deployment has Progressing=False',
      d: withStatus(pdl(newDeployment(2), 60), { replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [cond('Progressing', 'False', 'ProgressDeadlineExceeded')] }),
      allRSs: [halfway()],
      newRS: halfway(),
      want: ['True', 'ReplicaSetUpdated', 'ReplicaSet "foo-v2" is progressing.', 'new'],
    },
    {
      name: 'DeploymentProgressing: create Progressing condition if it does not exist',
      d: withStatus(pdl(newDeployment(2), 60), { replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 }),
      allRSs: [halfway()],
      newRS: halfway(),
      want: ['True', 'ReplicaSetUpdated', 'ReplicaSet "foo-v2" is progressing.', 'new'],
    },
    {
      name: "DeploymentComplete: dont update lastTransitionTime if deployment already has Progressing=True",
      d: withStatus(pdl(newDeployment(2), 60), { replicas: 2, updatedReplicas: 1, conditions: [cond('Progressing', 'True', 'ReplicaSetUpdated')] }),
      allRSs: [newRS(2, 2)],
      newRS: newRS(2, 2),
      want: ['True', 'NewReplicaSetAvailable', 'ReplicaSet "foo-v2" has successfully progressed.', 'kept'],
    },
    {
      name: 'DeploymentComplete: create Progressing condition if it does not exist',
      d: withStatus(pdl(newDeployment(2), 60), { replicas: 2, updatedReplicas: 1 }),
      allRSs: [newRS(2, 2)],
      newRS: newRS(2, 2),
      want: ['True', 'NewReplicaSetAvailable', 'ReplicaSet "foo-v2" has successfully progressed.', 'new'],
    },
    {
      name: 'DeploymentComplete: defend against NPE when newRS=nil',
      d: withStatus(pdl(newDeployment(0), 60), { conditions: [cond('Progressing', 'True', 'ReplicaSetUpdated')] }),
      allRSs: [rs('foo-v1', 0, oldT, 0)],
      want: ['True', 'NewReplicaSetAvailable', 'Deployment "foo" has successfully progressed.', 'kept'],
    },
    {
      name: 'DeploymentTimedOut: update status if rollout exceeds Progress Deadline',
      d: withStatus(pdl(newDeployment(2), 60), { replicas: 2, updatedReplicas: 1, availableReplicas: 1, readyReplicas: 1, conditions: [cond('Progressing', 'True', 'ReplicaSetUpdated', longAgo)] }),
      allRSs: [newRS(2, 1)],
      newRS: { ...newRS(2, 1), status: { replicas: 1, availableReplicas: 1, readyReplicas: 1 } },
      want: ['False', 'ProgressDeadlineExceeded', 'ReplicaSet "foo-v2" has timed out progressing.', 'new'],
    },
    {
      name: 'DeploymentTimedOut: do not update status if deployment has existing timedOut condition',
      d: withStatus(pdl(newDeployment(2), 60), { replicas: 2, updatedReplicas: 1, availableReplicas: 1, readyReplicas: 1, conditions: [cond('Progressing', 'False', 'ProgressDeadlineExceeded')] }),
      allRSs: [newRS(2, 1)],
      newRS: { ...newRS(2, 1), status: { replicas: 1, availableReplicas: 1, readyReplicas: 1 } },
      want: ['False', 'ProgressDeadlineExceeded', '', 'kept'],
    },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const s = rolloutStatus(tc.allRSs, tc.newRS, tc.d, now);
      assert.deepEqual(progressing(s), tc.want);
    });
  }
});
