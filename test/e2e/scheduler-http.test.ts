/**
 * The scheduler as a plain API client: it runs through the HTTP client (over HTTPS, with the admin
 * certificate) against kubemix's API server, as it would against any Kubernetes API server.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resources } from '../../src/api/resources.js';
import type { KubeObject } from '../../src/client/client.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { startTestApiServer, type TestApiServer } from '../harness/api-server.js';

type Obj = KubeObject & Record<string, unknown>;

function node(name: string, os: string, taints: { key: string; value?: string; effect: string }[] = []): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': os, 'kubernetes.io/arch': 'amd64' } },
    spec: { taints },
    status: {
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    },
  };
}

describe('the scheduler through the HTTP client', () => {
  let srv: TestApiServer;
  let scheduler: Scheduler;
  before(async () => {
    srv = await startTestApiServer();
    const admin = srv.http();
    await admin.create(resources.serviceaccounts, { metadata: { name: 'default', namespace: 'default' } });
    for (const n of [node('lin-1', 'linux'), node('lin-2', 'linux'), node('win-1', 'windows', [{ key: 'os', value: 'windows', effect: 'NoSchedule' }])]) {
      const created = await admin.create<Obj>(resources.nodes, n);
      // TaintNodesByCondition admission taints new nodes not-ready; the node lifecycle controller would lift it.
      await admin.update(resources.nodes, { ...created, spec: n['spec'] });
    }
    scheduler = new Scheduler({ client: srv.http() });
    scheduler.start();
  });
  after(async () => {
    await scheduler.stop();
    await srv.stop();
  });

  test('binds pods with Scheduled events and reports the unschedulable ones in kube-scheduler\'s words', async () => {
    const admin = srv.http();
    const pod = (name: string, os: string): Obj => ({
      metadata: { name, namespace: 'default' },
      spec: { nodeSelector: { 'kubernetes.io/os': os }, containers: [{ name: 'c', image: 'nginx' }] },
    });
    await admin.create(resources.pods, pod('web', 'linux'));
    await admin.create(resources.pods, pod('iis', 'windows'));
    const deadline = Date.now() + 20_000;
    let web: Obj | undefined;
    let iis: Obj | undefined;
    while (Date.now() < deadline) {
      web = await admin.get<Obj>(resources.pods, 'web', { namespace: 'default' });
      iis = await admin.get<Obj>(resources.pods, 'iis', { namespace: 'default' });
      const cond = ((iis['status'] as { conditions?: { type: string; reason?: string }[] }).conditions ?? []).find((x) => x.type === 'PodScheduled');
      if ((web['spec'] as { nodeName?: string }).nodeName !== undefined && cond?.reason === 'Unschedulable') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.match((web?.['spec'] as { nodeName?: string }).nodeName ?? '', /^lin-[12]$/);
    const cond = ((iis?.['status'] as { conditions?: { type: string; status: string; reason?: string; message?: string }[] }).conditions ?? []).find((x) => x.type === 'PodScheduled');
    const message = "0/3 nodes are available: 1 node(s) had untolerated taint {os: windows}, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
    assert.deepEqual([cond?.status, cond?.reason, cond?.message], ['False', 'Unschedulable', message]);
    const events = await admin.list<Obj>(resources.events, { namespace: 'default' });
    const byReason = (reason: string): Obj[] => events.items.filter((e) => e['reason'] === reason);
    assert.ok(byReason('Scheduled').some((e) => /^Successfully assigned default\/web to lin-[12]$/.test(String(e['message']))));
    assert.ok(byReason('FailedScheduling').some((e) => e['message'] === message && e['type'] === 'Warning'));
  });

  test('a pod that has finished no longer takes room on its node (the pod informer leaves out terminal pods)', async () => {
    const admin = srv.http();
    const tiny = node('tiny', 'linux');
    (tiny['metadata'] as { labels: Record<string, string> }).labels['size'] = 'tiny';
    const st = tiny['status'] as { capacity: Record<string, string>; allocatable: Record<string, string> };
    st.capacity['pods'] = '1';
    st.allocatable['pods'] = '1';
    const created = await admin.create<Obj>(resources.nodes, tiny);
    await admin.update(resources.nodes, { ...created, spec: tiny['spec'] });
    const pod = (name: string): Obj => ({ metadata: { name, namespace: 'default' }, spec: { nodeSelector: { size: 'tiny' }, restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } });
    const boundTo = async (name: string): Promise<string | undefined> => {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const p = await admin.get<Obj>(resources.pods, name, { namespace: 'default' });
        const n = (p['spec'] as { nodeName?: string }).nodeName;
        if (n !== undefined) return n;
        await new Promise((r) => setTimeout(r, 100));
      }
      return undefined;
    };
    await admin.create(resources.pods, pod('job-1'));
    assert.equal(await boundTo('job-1'), 'tiny');
    const done = await admin.get<Obj>(resources.pods, 'job-1', { namespace: 'default' });
    await admin.update(resources.pods, { ...done, status: { phase: 'Succeeded' } }, { subresource: 'status' });
    await admin.create(resources.pods, pod('job-2'));
    assert.equal(await boundTo('job-2'), 'tiny');
  });
});
