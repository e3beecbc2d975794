/**
 * A node whose agent stops: the node lifecycle controller marks it NotReady (Unknown) after the grace
 * period, taints it unreachable, and the taint eviction controller evicts its pods per their tolerations
 * (a short tolerationSeconds goes soon; the default 300 s keeps the pod). Seen through the real kubectl.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';
import { InProcessClient } from '../../src/apiserver/in-process-client.js';
import { componentUser } from '../../src/local/local-cluster.js';
import { NodeHost } from '../../src/node/index.js';

interface PodView {
  metadata: { name: string; deletionTimestamp?: string };
  status: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

describe('a node that stops posting status', () => {
  let c: TestCluster;
  let host: NodeHost;
  before(async () => {
    // Every other node heartbeats well inside the 3 s grace period: were they silent too, the zone would be
    // fully or partially disrupted and (as upstream) NoExecute tainting would stop.
    c = await startTestCluster({
      nodeMonitorGracePeriodMs: 3000,
      nodeStartupGracePeriodMs: 3000,
      leaseRenewIntervalMs: 500,
      nodeStatusUpdateFrequencyMs: 500,
    });
    host = new NodeHost({
      client: new InProcessClient(c.cluster.apiServer(), { user: componentUser('system:node:extra-1', ['system:nodes']) }),
      nodes: [
        { name: 'extra-1', os: 'linux', arch: 'amd64', internalIP: '127.0.2.1', podCIDR: '10.244.200.0/24', cpu: 4, memory: '8Gi', maxPods: 110, labels: { pool: 'extra' } },
      ],
      cni: 'preinstalled',
      leaseRenewIntervalMs: 500,
      nodeStatusUpdateFrequencyMs: 500,
    });
    await host.start();
  });
  after(async () => {
    host.stop();
    await c.stop();
  });

  test('becomes NotReady, is tainted unreachable, and its pods are evicted per their tolerations', async () => {
    await c.kubectl(['wait', '--for=condition=Ready', 'node/extra-1', '--timeout=30s']);
    const pod = (name: string, seconds?: number): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  nodeSelector:
    pool: extra
${seconds === undefined ? '' : `  tolerations:
  - key: node.kubernetes.io/unreachable
    operator: Exists
    effect: NoExecute
    tolerationSeconds: ${seconds}
`}  containers:
  - name: c
    image: busybox
`;
    await c.kubectl(['apply', '-f', '-'], pod('short', 2) + '---\n' + pod('patient'));
    await c.kubectl(['wait', '--for=condition=Ready', 'pod/short', 'pod/patient', '--timeout=30s']);

    host.stop();
    await c.eventually('NotReady', async () => (/extra-1\s+NotReady\s/.test(await c.kubectl(['get', 'node', 'extra-1'])) ? true : undefined), 30_000);
    const node = JSON.parse(await c.kubectl(['get', 'node', 'extra-1', '-o', 'json'])) as {
      spec: { taints?: { key: string; effect: string }[] };
      status: { conditions: { type: string; status: string; reason: string; message: string }[] };
    };
    const ready = node.status.conditions.find((x) => x.type === 'Ready');
    assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']);
    await c.eventually('the unreachable taints', async () => {
      const n = JSON.parse(await c.kubectl(['get', 'node', 'extra-1', '-o', 'json'])) as typeof node;
      const t = (n.spec.taints ?? []).map((x) => `${x.key}:${x.effect}`).sort();
      return t.includes('node.kubernetes.io/unreachable:NoExecute') && t.includes('node.kubernetes.io/unreachable:NoSchedule') ? t : undefined;
    }, 30_000).catch(async (e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : "timeout"}\n${await c.kubectl(['get', 'node', 'extra-1', '-o', 'yaml'])}`);
    });

    const short = await c.eventually('the short-toleration pod evicted', async () => {
      const p = JSON.parse(await c.kubectl(['get', 'pod', 'short', '-o', 'json'])) as PodView;
      return p.metadata.deletionTimestamp !== undefined ? p : undefined;
    }, 30_000);
    const target = short.status.conditions?.find((x) => x.type === 'DisruptionTarget');
    assert.deepEqual([target?.status, target?.reason, target?.message], ['True', 'DeletionByTaintManager', 'Taint manager: deleting due to NoExecute taint']);
    const events = await c.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=short', '-o', 'custom-columns=REASON:.reason,MESSAGE:.message', '--no-headers']);
    assert.match(events, /TaintManagerEviction\s+Marking for deletion Pod default\/short/);

    const patient = JSON.parse(await c.kubectl(['get', 'pod', 'patient', '-o', 'json'])) as PodView;
    assert.equal(patient.metadata.deletionTimestamp, undefined);
    const podReady = patient.status.conditions?.find((x) => x.type === 'Ready');
    assert.equal(podReady?.status, 'False');
  });
});
