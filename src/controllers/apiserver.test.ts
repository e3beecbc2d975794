/**
 * The controllers against the real API server (in-process client: admission, defaulting, validation,
 * status subresources, watch cache), so the fakes cannot hide a disagreement with the server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Endpoints, Pod } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { isApiError } from '../api/errors.js';
import type { Deployment, ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { resources } from '../api/resources.js';
import { ensurePki } from '../bootstrap/pki.js';
import { createApiServer } from '../apiserver/wiring.js';
import { InProcessClient } from '../apiserver/in-process-client.js';
import { openBackend } from '../storage/index.js';
import { createControllerManager } from './manager.js';
import { names } from './names.js';
import type { Client } from '../client/client.js';

interface Env {
  client: InProcessClient;
  writes: { n: number };
}

async function startEnv(t: { after(fn: () => Promise<void>): void }, controllers: string[]): Promise<Env> {
  const dir = await mkdtemp(join(tmpdir(), 'kubemix-controllers-'));
  const pki = await ensurePki(dir);
  const backend = await openBackend({ kind: 'sqlite', dataDir: dir });
  const server = createApiServer({ backend, tls: { caPem: pki.ca.certPem, certPem: pki.apiserver.certPem, keyPem: pki.apiserver.keyPem }, port: 0, host: '127.0.0.1' });
  await server.start();
  const client = new InProcessClient(server, { user: { username: 'system:kube-controller-manager', groups: ['system:masters', 'system:authenticated'] } });
  const writes = { n: 0 };
  // Count the controllers' writes: a steady cluster must not keep writing (a sync loop would).
  const counting: Client = {
    get: (r, n, o) => client.get(r, n, o),
    list: (r, o) => client.list(r, o),
    watch: (r, o) => client.watch(r, o),
    create: (r, o, w) => (writes.n++, client.create(r, o, w)),
    update: (r, o, w) => (writes.n++, client.update(r, o, w)),
    patch: (r, n, ty, p, o) => (writes.n++, client.patch(r, n, ty, p, o)),
    delete: (r, n, o) => (writes.n++, client.delete(r, n, o)),
    deleteCollection: (r, o) => (writes.n++, client.deleteCollection(r, o)),
    createSubresource: (r, n, s, b, o) => (writes.n++, client.createSubresource(r, n, s, b, o)),
  };
  const manager = createControllerManager({ client: counting, leaderElect: false, rootCAPem: pki.ca.certPem, controllers });
  manager.start();
  t.after(async () => {
    await manager.stop();
    await server.stop();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { client, writes };
}

async function gone(f: () => Promise<unknown>): Promise<boolean> {
  try {
    await f();
    return false;
  } catch {
    return true;
  }
}

async function until(pred: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not reached');
}

void test('Deployment -> ReplicaSet -> Pods through the real API server, then cascading delete', async (t) => {
  const { client, writes } = await startEnv(t, [names.Deployment, names.ReplicaSet, names.GarbageCollector, names.ServiceAccount, names.RootCACertPublisher]);
  await until(async () => {
    try {
      await client.get(resources.serviceaccounts, 'default', { namespace: 'default' });
      return true;
    } catch {
      return false;
    }
  });
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', annotations: { 'kubernetes.io/change-cause': 'first' } },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
  };
  await client.create(resources.deployments, d, { namespace: 'default' });
  await until(async () => (await client.list<Pod>(resources.pods, { namespace: 'default' })).items.length === 3);
  const rss = (await client.list<ReplicaSet>(resources.replicasets, { namespace: 'default' })).items;
  assert.equal(rss.length, 1);
  const rs = rss[0];
  const hash = rs?.metadata?.labels?.['pod-template-hash'] ?? '';
  assert.equal(rs?.metadata?.name, `web-${hash}`);
  assert.equal(rs?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  assert.equal(rs?.metadata?.annotations?.['kubernetes.io/change-cause'], 'first');
  await until(async () => (await client.get<Deployment>(resources.deployments, 'web', { namespace: 'default' })).status?.replicas === 3);
  const got = await client.get<Deployment>(resources.deployments, 'web', { namespace: 'default' });
  assert.equal(got.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
  assert.equal(got.status?.observedGeneration, got.metadata?.generation);
  assert.equal(got.status?.conditions?.find((c) => c.type === 'Progressing')?.reason, 'ReplicaSetUpdated');
  for (const p of (await client.list<Pod>(resources.pods, { namespace: 'default' })).items) {
    assert.match(p.metadata?.name ?? '', new RegExp(`^web-${hash}-[a-z0-9]{5}$`));
    assert.equal(p.metadata?.ownerReferences?.[0]?.name, `web-${hash}`);
  }
  // Pods become Running and Ready (a kubelet's job); the rollout then settles and the controllers stop writing.
  for (const p of (await client.list<Pod>(resources.pods, { namespace: 'default' })).items) {
    await client.update(resources.pods, { ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { namespace: 'default', subresource: 'status' });
  }
  await until(async () => (await client.get<Deployment>(resources.deployments, 'web', { namespace: 'default' })).status?.conditions?.some((c) => c.reason === 'NewReplicaSetAvailable') === true);
  await new Promise((r) => setTimeout(r, 300));
  const before = writes.n;
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(writes.n, before, 'no writes once the rollout is complete');
  const cm = await client.get(resources.configmaps, 'kube-root-ca.crt', { namespace: 'default' });
  assert.ok(cm.metadata?.name === 'kube-root-ca.crt');

  await client.delete(resources.deployments, 'web', { namespace: 'default', propagationPolicy: 'Foreground' });
  await until(async () => (await client.list(resources.replicasets, { namespace: 'default' })).items.length === 0);
  await until(async () => {
    try {
      await client.get(resources.deployments, 'web', { namespace: 'default' });
      return false;
    } catch {
      return true;
    }
  });
});

void test('a deleted namespace is emptied and finalized; Services get Endpoints and EndpointSlices', async (t) => {
  const { client } = await startEnv(t, [names.Namespace, names.ServiceAccount, names.Endpoints, names.EndpointSlice, names.GarbageCollector]);
  await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  await until(async () => !(await gone(() => client.get(resources.serviceaccounts, 'default', { namespace: 'team' }))));
  await client.create(
    resources.services,
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'team' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } },
    { namespace: 'team' },
  );
  const pod = await client.create<Pod>(
    resources.pods,
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'team', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    { namespace: 'team' },
  );
  await client.update(resources.pods, { ...pod, status: { phase: 'Running', podIP: '10.244.0.5', podIPs: [{ ip: '10.244.0.5' }], conditions: [{ type: 'Ready', status: 'True' }] } }, { namespace: 'team', subresource: 'status' });
  await until(async () => {
    const ep = await client.get<Endpoints>(resources.endpoints, 'web', { namespace: 'team' }).catch(() => undefined);
    return ep?.subsets?.[0]?.addresses?.[0]?.ip === '10.244.0.5';
  });
  await until(async () => {
    const l = await client.list<EndpointSlice>(resources.endpointslices, { namespace: 'team', labelSelector: 'kubernetes.io/service-name=web' });
    return l.items.length === 1 && l.items[0]?.endpoints?.[0]?.addresses[0] === '10.244.0.5';
  });
  await client.delete(resources.namespaces, 'team');
  await until(async () => gone(() => client.get(resources.namespaces, 'team')), 30_000);
});

void test('a PodDisruptionBudget kept by the disruption controller makes pods/eviction answer 429, then allow', async (t) => {
  const { client } = await startEnv(t, [names.ReplicaSet, names.Disruption, names.ServiceAccount]);
  await until(async () => !(await gone(() => client.get(resources.serviceaccounts, 'default', { namespace: 'default' }))));
  await client.create(
    resources.replicasets,
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'db', namespace: 'default' }, spec: { replicas: 2, selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'postgres' }] } } } },
    { namespace: 'default' },
  );
  await until(async () => (await client.list<Pod>(resources.pods, { namespace: 'default' })).items.length === 2);
  for (const p of (await client.list<Pod>(resources.pods, { namespace: 'default' })).items) {
    await client.update(resources.pods, { ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { namespace: 'default', subresource: 'status' });
  }
  await client.create(
    resources.poddisruptionbudgets,
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'db', namespace: 'default' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'db' } } } },
    { namespace: 'default' },
  );
  await until(async () => (await client.get<PodDisruptionBudget>(resources.poddisruptionbudgets, 'db', { namespace: 'default' })).status?.currentHealthy === 2);
  const pdb = await client.get<PodDisruptionBudget>(resources.poddisruptionbudgets, 'db', { namespace: 'default' });
  assert.deepEqual([pdb.status?.desiredHealthy, pdb.status?.expectedPods, pdb.status?.disruptionsAllowed], [2, 2, 0]);
  assert.equal(pdb.status?.conditions?.[0]?.reason, 'InsufficientPods');
  const victim = (await client.list<Pod>(resources.pods, { namespace: 'default' })).items[0]?.metadata?.name ?? '';
  const evict = (): Promise<unknown> =>
    client.createSubresource(resources.pods, victim, 'eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: victim, namespace: 'default' } }, { namespace: 'default' });
  await assert.rejects(evict(), (e: unknown) => isApiError(e) && e.code === 429 && e.message === "Cannot evict pod as it would violate the pod's disruption budget.");
  const cur = await client.get<PodDisruptionBudget>(resources.poddisruptionbudgets, 'db', { namespace: 'default' });
  await client.update(resources.poddisruptionbudgets, { ...cur, spec: { ...cur.spec, minAvailable: 1 } }, { namespace: 'default' });
  await until(async () => (await client.get<PodDisruptionBudget>(resources.poddisruptionbudgets, 'db', { namespace: 'default' })).status?.disruptionsAllowed === 1);
  await evict();
  const after = await client.get<PodDisruptionBudget>(resources.poddisruptionbudgets, 'db', { namespace: 'default' });
  assert.ok(after.status?.disruptedPods?.[victim] !== undefined || after.status?.disruptionsAllowed === 0);
});

void test('pods/eviction marks the pod DisruptionTarget (EvictionByEvictionAPI) before deleting it; preconditions are checked against the latest pod', async (t) => {
  const { client } = await startEnv(t, [names.ServiceAccount]);
  await until(async () => !(await gone(() => client.get(resources.serviceaccounts, 'default', { namespace: 'default' }))));
  const pod = await client.create<Pod>(
    resources.pods,
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } },
    { namespace: 'default' },
  );
  await client.update(resources.pods, { ...pod, status: { phase: 'Running' } }, { namespace: 'default', subresource: 'status' });
  const evict = (preconditions?: { uid?: string }): Promise<unknown> =>
    client.createSubresource(
      resources.pods,
      'web',
      'eviction',
      { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web', namespace: 'default' }, ...(preconditions !== undefined ? { deleteOptions: { preconditions } } : {}) },
      { namespace: 'default' },
    );
  await assert.rejects(
    evict({ uid: 'not-the-uid' }),
    (e: unknown) =>
      isApiError(e) &&
      e.code === 409 &&
      e.message === `Operation cannot be fulfilled on Pod "web": the UID in the precondition (not-the-uid) does not match the UID in record (${pod.metadata?.uid ?? ''}). The object might have been deleted and then recreated`,
  );
  const managers = async (): Promise<string[]> => ((await client.get<Pod>(resources.pods, 'web', { namespace: 'default' })).metadata?.managedFields ?? []).map((m) => `${m.manager ?? ''} ${m.subresource ?? ''}`);
  const before = await managers();
  await evict({ uid: pod.metadata?.uid ?? '' });
  // The condition is written past the handlers that track field ownership, as upstream's eviction does.
  assert.deepEqual(await managers(), before);
  const evicted = await client.get<Pod>(resources.pods, 'web', { namespace: 'default' });
  assert.notEqual(evicted.metadata?.deletionTimestamp, undefined);
  const cond = evicted.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
  assert.deepEqual([cond?.status, cond?.reason, cond?.message], ['True', 'EvictionByEvictionAPI', 'Eviction API: evicting']);
});
