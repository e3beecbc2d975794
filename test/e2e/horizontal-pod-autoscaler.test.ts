/**
 * The real kubectl v1.32 and the horizontal pod autoscaler of `kubemix up`, a cluster without
 * metrics-server as a fresh kubeadm cluster is: `kubectl autoscale` then `kubectl get hpa` shows
 * `cpu: <unknown>/80%`, the conditions and events read as kube-controller-manager writes them, and a target
 * above maxReplicas is scaled into range. The controller syncs each HPA every 15 s, the first time 15 s
 * after it is created.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCluster, type TestCluster } from '../harness/local-cluster.js';

interface Hpa {
  status?: {
    currentReplicas?: number;
    desiredReplicas: number;
    lastScaleTime?: string;
    currentMetrics?: { type: string }[];
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

interface EventList {
  items: { reason: string; type: string; message: string; source?: { component?: string }; involvedObject: { name: string } }[];
}

const metricsErr =
  'failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)';

describe('kubectl and the horizontal pod autoscaler without a metrics API', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
    await c.kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s']);
  });
  after(async () => {
    await c.stop();
  });

  test('kubectl autoscale: cpu: <unknown>/80%, FailedGetResourceMetric; a target above maxReplicas is scaled down', async () => {
    await c.kubectl(['create', 'deployment', 'web', '--image=nginx:1.27']);
    await c.kubectl(['create', 'deployment', 'big', '--image=nginx:1.27', '--replicas=4']);
    assert.equal(await c.kubectl(['autoscale', 'deployment', 'web', '--max=3']), 'horizontalpodautoscaler.autoscaling/web autoscaled\n');
    assert.equal(await c.kubectl(['autoscale', 'deployment', 'big', '--min=1', '--max=2', '--cpu-percent=50']), 'horizontalpodautoscaler.autoscaling/big autoscaled\n');

    const synced = async (name: string): Promise<Hpa | undefined> => {
      const h = JSON.parse(await c.kubectl(['get', 'hpa', name, '-o', 'json'])) as Hpa;
      return (h.status?.conditions?.length ?? 0) > 0 ? h : undefined;
    };
    const web = await c.eventually('the first sync of hpa/web', () => synced('web'), 45_000);
    assert.deepEqual(
      web.status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message]),
      [
        ['AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale"],
        ['ScalingActive', 'False', 'FailedGetResourceMetric', `the HPA was unable to compute the replica count: ${metricsErr}`],
      ],
    );
    assert.deepEqual([web.status?.currentReplicas, web.status?.desiredReplicas, web.status?.currentMetrics], [1, 0, [{ type: '' }]]);
    assert.match(await c.kubectl(['get', 'hpa', 'web']), /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nweb\s+Deployment\/web\s+cpu: <unknown>\/80%\s+1\s+3\s+1\s+\d+s\n$/);

    const big = await c.eventually('the first sync of hpa/big', () => synced('big'), 45_000);
    assert.deepEqual(
      big.status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message]),
      [['AbleToScale', 'True', 'SucceededRescale', 'the HPA controller was able to update the target scale to 2']],
    );
    assert.equal(big.status?.desiredReplicas, 2);
    assert.equal(await c.kubectl(['get', 'deployment', 'big', '-o', 'jsonpath={.spec.replicas}']), '2');

    const events = await c.eventually('the HPA events', async () => {
      const l = JSON.parse(await c.kubectl(['get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler', '-o', 'json'])) as EventList;
      return l.items.length >= 3 ? l.items : undefined;
    });
    const seen = events.map((e) => [e.involvedObject.name, e.type, e.reason, e.message, e.source?.component]).sort((a, b) => String(a).localeCompare(String(b)));
    assert.deepEqual(seen, [
      ['big', 'Normal', 'SuccessfulRescale', 'New size: 2; reason: Current number of replicas above Spec.MaxReplicas', 'horizontal-pod-autoscaler'],
      ['web', 'Warning', 'FailedComputeMetricsReplicas', `invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${metricsErr}`, 'horizontal-pod-autoscaler'],
      ['web', 'Warning', 'FailedGetResourceMetric', metricsErr, 'horizontal-pod-autoscaler'],
    ]);
    const describe = await c.kubectl(['describe', 'hpa', 'web']);
    assert.match(describe, /\n\s+AbleToScale\s+True\s+SucceededGetScale\s+the HPA controller was able to get the target's current scale\n/);
    assert.match(describe, /\n\s+ScalingActive\s+False\s+FailedGetResourceMetric\s+the HPA was unable to compute the replica count: failed to get cpu utilization/);
  });
});
