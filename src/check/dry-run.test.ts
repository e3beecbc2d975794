import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { defaultCluster } from '../cluster/index.js';
import { clusterFromSpec } from './cluster.js';
import { DryRunApi } from './dry-run.js';

const api = (): DryRunApi => new DryRunApi({ cluster: clusterFromSpec(defaultCluster(), 'default') });

test('a pod of a RuntimeClass gets its nodeSelector, its toleration and the 300 s NoExecute tolerations', async () => {
  const a = api();
  const rc = await a.create({
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name: 'windows-2019' },
    handler: 'h',
    scheduling: { nodeSelector: { 'kubernetes.io/os': 'windows' }, tolerations: [{ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }] },
  } as never);
  assert.equal(rc.ok, true);
  const r = await a.create({ apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'p-' }, spec: { runtimeClassName: 'windows-2019', containers: [{ name: 'c', image: 'x' }] } } as Pod);
  assert.ok(r.ok);
  const pod = r.obj as Pod;
  assert.deepEqual(pod.spec?.nodeSelector, { 'kubernetes.io/os': 'windows' });
  assert.deepEqual(pod.spec?.tolerations, [
    // DefaultTolerationSeconds runs before RuntimeClass in kube-apiserver's plugin order.
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' },
  ]);
  assert.equal(pod.metadata?.namespace, 'default');
  assert.equal(pod.metadata?.name, 'p-bbbbb');
  assert.equal(pod.status?.phase, 'Pending');
  assert.equal(pod.spec?.priority, 0);
});

test('the API server refusals come back with their messages, and nothing is remembered', async () => {
  const a = api();
  const noRc = await a.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { runtimeClassName: 'missing', containers: [{ name: 'c', image: 'x' }] } } as Pod);
  assert.deepEqual(noRc, { ok: false, reason: 'Forbidden', message: 'pods "p" is forbidden: pod rejected: RuntimeClass "missing" not found' });
  const noSa = await a.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'apps' }, spec: { serviceAccountName: 'agent', containers: [{ name: 'c', image: 'x' }] } } as Pod);
  assert.deepEqual(noSa, { ok: false, reason: 'Forbidden', message: 'pods "p" is forbidden: error looking up service account apps/agent: serviceaccount "agent" not found' });
  const sa = await a.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'agent', namespace: 'apps' } });
  assert.equal(sa.ok, true);
  const withSa = await a.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'apps' }, spec: { serviceAccountName: 'agent', containers: [{ name: 'c', image: 'x' }] } } as Pod);
  assert.equal(withSa.ok, true);
  const notServed = await a.create({ apiVersion: 'node.k8s.io/v1beta1', kind: 'RuntimeClass', metadata: { name: 'x' } });
  assert.deepEqual(notServed, { ok: false, reason: 'NotServed', message: 'no matches for kind "RuntimeClass" in version "node.k8s.io/v1beta1"' });
  assert.equal(a.hasRuntimeClass('x'), false);
});

test('priority classes resolve through the Priority admission, system classes included', async () => {
  const a = api();
  const r = await a.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'kube-system' }, spec: { priorityClassName: 'system-node-critical', containers: [{ name: 'c', image: 'x' }] } } as Pod);
  assert.ok(r.ok);
  assert.equal((r.obj as Pod).spec?.priority, 2000001000);
  const missing = await a.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { priorityClassName: 'high', containers: [{ name: 'c', image: 'x' }] } } as Pod);
  assert.deepEqual(missing, { ok: false, reason: 'Forbidden', message: 'pods "p" is forbidden: no PriorityClass with name high was found' });
});
