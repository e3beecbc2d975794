import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet, Deployment } from 'kubernetes-types/apps/v1.js';
import { defaultCluster } from '../cluster/index.js';
import { clusterFromSpec } from './cluster.js';
import { podsOfWorkload } from './workloads.js';

const nodes = clusterFromSpec(defaultCluster(), 'default').nodes;

test('a DaemonSet gets one pod per node it should run on, pinned by matchFields and with the daemon tolerations', () => {
  const ds: DaemonSet = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'default', uid: 'u1' },
    spec: { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  };
  const r = podsOfWorkload(ds, nodes);
  assert.deepEqual(r.skippedNodes, ['control-plane', 'windows-2019-1', 'windows-2022-1']);
  assert.deepEqual(
    r.pods.map((p) => p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0]),
    ['linux-amd64-1', 'linux-amd64-2', 'linux-arm64-1'],
  );
  assert.deepEqual(
    r.pods[0]?.spec?.tolerations?.map((t) => t.key),
    ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable', 'node.kubernetes.io/disk-pressure', 'node.kubernetes.io/memory-pressure', 'node.kubernetes.io/pid-pressure', 'node.kubernetes.io/unschedulable'],
  );
  assert.deepEqual(r.pods[0]?.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid]), [['DaemonSet', 'agent', 'u1']]);
});

test('a Deployment\'s pods carry the pod-template-hash of their ReplicaSet and name it as their owner', () => {
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', uid: 'u2' },
    spec: { replicas: 3, selector: { matchLabels: { app: 'w' } }, template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
  const r = podsOfWorkload(d, nodes);
  assert.equal(r.pods.length, 3);
  const hash = r.pods[0]?.metadata?.labels?.['pod-template-hash'] ?? '';
  assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.deepEqual(r.pods[0]?.metadata?.ownerReferences?.map((o) => [o.kind, o.name]), [['ReplicaSet', `web-${hash}`]]);
  assert.equal(r.pods[0]?.metadata?.generateName, `web-${hash}-`);
});
