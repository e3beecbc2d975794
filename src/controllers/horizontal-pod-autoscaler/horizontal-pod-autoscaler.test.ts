import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerStatus, MetricSpec } from 'kubernetes-types/autoscaling/v2.js';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import { resources } from '../../api/resources.js';
import type { Client, KubeObject } from '../../client/client.js';
import { WorkQueue } from '../../client/workqueue.js';
import type { WorkQueue as QueueContract } from '../_context.js';
import { FakeClient } from '../_testing/fake-client.js';
import { FakeClock, TestContext, waitFor, startControllers } from '../_testing/fakes.js';
import { makePod, template } from '../_testing/builders.js';
import { create, defaultSyncPeriodMs, type HorizontalController } from './horizontal-pod-autoscaler.js';

const resourceMetricsErr = 'unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)';
const customMetricsErr = 'unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered';
const cpuUtilizationErr = `failed to get cpu utilization: unable to get metrics for resource cpu: ${resourceMetricsErr}`;
const gotScale = { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: "the HPA controller was able to get the target's current scale" };
const cpu80: MetricSpec = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } };

/** The real work queue (delayed adds of a key keep the earliest time, as client-go's) on the fake clock. */
class HpaTestContext extends TestContext {
  override newQueue(): QueueContract<string> {
    return new WorkQueue<string>({ clock: this.clock });
  }
}

function deployment(name: string, replicas: number, selector = true): Deployment {
  const d: Deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' }, spec: { replicas, selector: { matchLabels: { app: name } }, template: template({ app: name }) } };
  if (!selector) delete (d.spec as { selector?: unknown }).selector;
  return d;
}

/** An HPA as the API server stores it: minReplicas and the CPU target defaulted. */
function hpa(name: string, o: { min?: number; max: number; target?: string; kind?: string; apiVersion?: string; metrics?: MetricSpec[] }): HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'default' },
    spec: {
      scaleTargetRef: { apiVersion: o.apiVersion ?? 'apps/v1', kind: o.kind ?? 'Deployment', name: o.target ?? name },
      minReplicas: o.min ?? 1,
      maxReplicas: o.max,
      metrics: o.metrics ?? [cpu80],
    },
  };
}

interface Env {
  client: FakeClient;
  ctx: HpaTestContext;
  clock: FakeClock;
  controller: HorizontalController;
  status(name?: string): HorizontalPodAutoscalerStatus | undefined;
  events(): string[];
}

/**
 * A started controller over a fake client. The sync period defaults to a day so that the tests calling
 * `reconcileKey` themselves can step the clock without the workers syncing too.
 */
async function setup(
  t: { after(fn: () => void): void },
  objects: { deployments?: Deployment[]; hpas: HorizontalPodAutoscaler[]; client?: Client; syncPeriodMs?: number },
): Promise<Env> {
  const clock = new FakeClock();
  const client = new FakeClient({ now: () => clock.now() });
  for (const d of objects.deployments ?? []) await client.create(resources.deployments, d);
  for (const h of objects.hpas) await client.create(resources.horizontalpodautoscalers, h);
  const ctx = new HpaTestContext(objects.client ?? client, clock);
  const controller = create(ctx, { syncPeriodMs: objects.syncPeriodMs ?? 24 * 3600_000 });
  await startControllers(t, ctx, controller);
  return {
    client,
    ctx,
    clock,
    controller,
    status: (name = 'web') => client.peek<HorizontalPodAutoscaler>(resources.horizontalpodautoscalers, name, 'default')?.status,
    events: () => ctx.events.map((e) => `${e.type} ${e.reason} ${e.message}`),
  };
}

const at = (clock: FakeClock): string => new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');

void test('no metrics API: the HPA reads the scale, then fails to get the CPU metric (kubectl autoscale deployment web --max=3)', async (t) => {
  const env = await setup(t, { deployments: [deployment('web', 1)], hpas: [hpa('web', { max: 3 })] });
  const r = await env.controller.reconcileKey('default/web');
  const first = `invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${cpuUtilizationErr}`;
  assert.deepEqual(r, { deleted: false, error: `failed to compute desired number of replicas based on listed metrics for Deployment/default/web: ${first}` });
  assert.deepEqual(env.status(), {
    currentReplicas: 1,
    desiredReplicas: 0,
    currentMetrics: [{ type: '' }],
    conditions: [
      { ...gotScale, lastTransitionTime: at(env.clock) },
      { type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric', message: `the HPA was unable to compute the replica count: ${cpuUtilizationErr}`, lastTransitionTime: at(env.clock) },
    ],
  });
  assert.deepEqual(env.events(), [`Warning FailedGetResourceMetric ${cpuUtilizationErr}`, `Warning FailedComputeMetricsReplicas ${first}`]);
  assert.deepEqual(new Set(env.ctx.events.map((e) => `${e.component} ${e.kind} ${e.object}`)), new Set(['horizontal-pod-autoscaler HorizontalPodAutoscaler default/web']));
  assert.equal(env.client.peek<Deployment>(resources.deployments, 'web', 'default')?.spec?.replicas, 1);

  // The next sync finds nothing to change: the same events, no write, the transition times kept.
  await waitFor(() => env.ctx.informer<HorizontalPodAutoscaler>(resources.horizontalpodautoscalers).get('default/web')?.status !== undefined);
  const writes = env.client.actions.filter((a) => a.verb !== 'create').length;
  const before = env.status();
  env.clock.step(15_000);
  await env.controller.reconcileKey('default/web');
  assert.equal(env.client.actions.filter((a) => a.verb !== 'create').length, writes);
  assert.deepEqual(env.status(), before);
  assert.equal(env.events().length, 4);
});

void test('each metric source fails with its absent API (TestConditionFailedGetMetrics)', async (t) => {
  const qps = (n: string): { name: string } => ({ name: n });
  const cases: { name: string; metric: MetricSpec; reason: string; err: string; wrapped: string }[] = [
    {
      name: 'FailedGetResourceMetric: average value target',
      metric: { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
      reason: 'FailedGetResourceMetric',
      err: `failed to get memory usage: unable to get metrics for resource memory: ${resourceMetricsErr}`,
      wrapped: 'failed to get memory resource metric value',
    },
    {
      name: 'FailedGetContainerResourceMetric',
      metric: { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } },
      reason: 'FailedGetContainerResourceMetric',
      err: cpuUtilizationErr,
      wrapped: 'failed to get app container metric value',
    },
    {
      name: 'FailedGetPodsMetric',
      metric: { type: 'Pods', pods: { metric: qps('qps'), target: { type: 'AverageValue', averageValue: '15' } } },
      reason: 'FailedGetPodsMetric',
      err: `unable to get metric qps: ${customMetricsErr}`,
      wrapped: 'failed to get pods metric value',
    },
    {
      name: 'FailedGetObjectMetric: value target',
      metric: { type: 'Object', object: { describedObject: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'some-deployment' }, metric: qps('qps'), target: { type: 'Value', value: '15' } } },
      reason: 'FailedGetObjectMetric',
      err: `unable to get metric qps: Deployment on default some-deployment/${customMetricsErr}`,
      wrapped: 'failed to get object metric value',
    },
    {
      name: 'FailedGetObjectMetric: average value target',
      metric: { type: 'Object', object: { describedObject: { apiVersion: 'v1', kind: 'Service', name: 'front' }, metric: qps('qps'), target: { type: 'AverageValue', averageValue: '15' } } },
      reason: 'FailedGetObjectMetric',
      err: `unable to get metric qps: Service on default front/${customMetricsErr}`,
      wrapped: 'failed to get object metric value: failed to get qps object metric',
    },
    {
      name: 'FailedGetExternalMetric: value target',
      metric: { type: 'External', external: { metric: { name: 'qps', selector: { matchLabels: { label: 'value' } } }, target: { type: 'Value', value: '15' } } },
      reason: 'FailedGetExternalMetric',
      err:
        'unable to get external metric default/qps/&LabelSelector{MatchLabels:map[string]string{label: value,},MatchExpressions:[]LabelSelectorRequirement{},}: ' +
        'unable to fetch metrics from external metrics API: the server could not find the requested resource (get qps.external.metrics.k8s.io)',
      wrapped: 'failed to get qps external metric value: failed to get external metric qps',
    },
    {
      name: 'FailedGetExternalMetric: average value target without selector',
      metric: { type: 'External', external: { metric: { name: 'queue_messages_ready' }, target: { type: 'AverageValue', averageValue: '30' } } },
      reason: 'FailedGetExternalMetric',
      err: 'unable to get external metric default/queue_messages_ready/nil: unable to fetch metrics from external metrics API: the server could not find the requested resource (get queue_messages_ready.external.metrics.k8s.io)',
      wrapped: 'failed to get queue_messages_ready external metric value: failed to get queue_messages_ready external metric',
    },
  ];
  for (const tc of cases) {
    await t.test(tc.name, async (t2) => {
      const env = await setup(t2, { deployments: [deployment('web', 3)], hpas: [hpa('web', { max: 10, metrics: [tc.metric] })] });
      await env.controller.reconcileKey('default/web');
      assert.deepEqual(
        env.status()?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
        [
          ['AbleToScale', 'True', 'SucceededGetScale', gotScale.message],
          ['ScalingActive', 'False', tc.reason, `the HPA was unable to compute the replica count: ${tc.err}`],
        ],
      );
      assert.deepEqual(env.events(), [`Warning ${tc.reason} ${tc.err}`, `Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: ${tc.wrapped}: ${tc.err}`]);
    });
  }
});

void test('several metrics all fail: the first names the condition (TestScaleUpOneMetricInvalid without metrics)', async (t) => {
  const pods: MetricSpec = { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } };
  const env = await setup(t, { deployments: [deployment('web', 3)], hpas: [hpa('web', { max: 6, metrics: [cpu80, pods] })] });
  await env.controller.reconcileKey('default/web');
  assert.deepEqual(env.status()?.currentMetrics, [{ type: '' }, { type: '' }]);
  assert.equal(env.status()?.conditions?.[1]?.reason, 'FailedGetResourceMetric');
  assert.deepEqual(env.events(), [
    `Warning FailedGetResourceMetric ${cpuUtilizationErr}`,
    `Warning FailedGetPodsMetric unable to get metric qps: ${customMetricsErr}`,
    `Warning FailedComputeMetricsReplicas invalid metrics (2 invalid out of 2), first error is: failed to get cpu resource metric value: ${cpuUtilizationErr}`,
  ]);
});

void test('replica limits (TestZeroReplicas, TestTooFewReplicas, TestTooManyReplicas, TestMinReplicas/TestMaxReplicas when metrics fail)', async (t) => {
  const metricsFail: { conditions: [string, string, string, string][]; events: string[] } = {
    conditions: [
      ['AbleToScale', 'True', 'SucceededGetScale', gotScale.message],
      ['ScalingActive', 'False', 'FailedGetResourceMetric', `the HPA was unable to compute the replica count: ${cpuUtilizationErr}`],
    ],
    events: [`Warning FailedGetResourceMetric ${cpuUtilizationErr}`, `Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${cpuUtilizationErr}`],
  };
  const cases: { name: string; min: number; max: number; replicas: number; want: number; conditions: [string, string, string, string][]; events: string[] }[] = [
    {
      name: 'a target at zero replicas has scaling disabled',
      min: 3,
      max: 5,
      replicas: 0,
      want: 0,
      conditions: [
        ['AbleToScale', 'True', 'SucceededGetScale', gotScale.message],
        ['ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero'],
      ],
      events: [],
    },
    {
      name: 'too few replicas are scaled up to minReplicas',
      min: 3,
      max: 5,
      replicas: 2,
      want: 3,
      conditions: [['AbleToScale', 'True', 'SucceededRescale', 'the HPA controller was able to update the target scale to 3']],
      events: ['Normal SuccessfulRescale New size: 3; reason: Current number of replicas below Spec.MinReplicas'],
    },
    {
      name: 'too many replicas are scaled down to maxReplicas',
      min: 3,
      max: 5,
      replicas: 10,
      want: 5,
      conditions: [['AbleToScale', 'True', 'SucceededRescale', 'the HPA controller was able to update the target scale to 5']],
      events: ['Normal SuccessfulRescale New size: 5; reason: Current number of replicas above Spec.MaxReplicas'],
    },
    { name: 'replicas at minReplicas go on to the metrics', min: 2, max: 5, replicas: 2, want: 2, ...metricsFail },
    { name: 'replicas at maxReplicas go on to the metrics', min: 2, max: 5, replicas: 5, want: 5, ...metricsFail },
  ];
  for (const tc of cases) {
    await t.test(tc.name, async (t2) => {
      const env = await setup(t2, { deployments: [deployment('web', tc.replicas)], hpas: [hpa('web', { min: tc.min, max: tc.max })] });
      await env.controller.reconcileKey('default/web');
      assert.equal(env.client.peek<Deployment>(resources.deployments, 'web', 'default')?.spec?.replicas, tc.want);
      const s = env.status();
      assert.deepEqual(s?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), tc.conditions);
      assert.deepEqual(env.events(), tc.events);
      const rescaled = tc.want !== tc.replicas;
      assert.equal(s?.lastScaleTime, rescaled ? at(env.clock) : undefined);
      // Without a rescale the last desiredReplicas (none yet) is kept.
      assert.equal(s?.desiredReplicas, rescaled ? tc.want : 0);
      assert.equal(s?.currentReplicas, tc.replicas === 0 ? undefined : tc.replicas);
      assert.deepEqual(
        env.client.actions.filter((a) => a.subresource === 'scale').map((a) => `${a.verb} ${a.resource}/${a.subresource}`),
        rescaled ? ['patch deployments/scale'] : [],
      );
    });
  }
});

void test('the scale target cannot be read (TestConditionFailedGetScale)', async (t) => {
  const cases: { name: string; hpa: HorizontalPodAutoscaler; event: string; error: string }[] = [
    {
      name: 'the target does not exist',
      hpa: hpa('web', { max: 3 }),
      event: 'deployments.apps "web" not found',
      error: 'failed to query scale subresource for Deployment/default/web: deployments.apps "web" not found',
    },
    {
      name: 'the kind is not served in the group',
      hpa: hpa('web', { max: 3, kind: 'Deployment', apiVersion: 'extensions/v1beta1' }),
      event: 'no matches for kind "Deployment" in group "extensions"',
      error: 'unable to determine resource for scale target reference: no matches for kind "Deployment" in group "extensions"',
    },
    {
      name: 'the kind has no scale subresource',
      hpa: hpa('web', { max: 3, kind: 'DaemonSet' }),
      event: 'the server could not find the requested resource',
      error: 'failed to query scale subresource for DaemonSet/default/web: the server could not find the requested resource',
    },
    {
      name: 'the apiVersion does not parse',
      hpa: hpa('web', { max: 3, apiVersion: 'apps/v1/extra' }),
      event: 'unexpected GroupVersion string: apps/v1/extra',
      error: 'invalid API version in scale target reference: unexpected GroupVersion string: apps/v1/extra',
    },
  ];
  for (const tc of cases) {
    await t.test(tc.name, async (t2) => {
      const env = await setup(t2, { hpas: [tc.hpa] });
      assert.deepEqual(await env.controller.reconcileKey('default/web'), { deleted: false, error: tc.error });
      assert.deepEqual(env.status(), {
        conditions: [{ type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message: `the HPA controller was unable to get the target's current scale: ${tc.event}`, lastTransitionTime: at(env.clock) }],
      });
      assert.deepEqual(env.events(), [`Warning FailedGetScale ${tc.event}`]);
    });
  }
});

void test('a failed rescale: FailedRescale and AbleToScale FailedUpdateScale (TestConditionFailedUpdateScale)', async (t) => {
  const env = await setup(t, { deployments: [deployment('web', 10)], hpas: [hpa('web', { min: 3, max: 5 })] });
  env.client.failures.set('patch/scale deployments', new Error('something went wrong'));
  const r = await env.controller.reconcileKey('default/web');
  assert.equal(r.error, 'failed to rescale Deployment/default/web: something went wrong');
  assert.deepEqual(env.events(), ['Warning FailedRescale New size: 5; reason: Current number of replicas above Spec.MaxReplicas; error: something went wrong']);
  assert.deepEqual(env.status(), {
    currentReplicas: 10,
    desiredReplicas: 0,
    conditions: [{ type: 'AbleToScale', status: 'False', reason: 'FailedUpdateScale', message: 'the HPA controller was unable to update the target scale: something went wrong', lastTransitionTime: at(env.clock) }],
  });
});

void test('a failed status update is an event and the error', async (t) => {
  const env = await setup(t, { deployments: [deployment('web', 0)], hpas: [hpa('web', { max: 5 })] });
  env.client.failures.set('update/status horizontalpodautoscalers', new Error('etcdserver: request timed out'));
  assert.equal((await env.controller.reconcileKey('default/web')).error, 'failed to update status for web: etcdserver: request timed out');
  assert.deepEqual(env.events(), ['Warning FailedUpdateStatus etcdserver: request timed out']);
});

void test('selectors (TestConditionInvalidSelectorMissing, TestConditionInvalidSelectorUnparsable)', async (t) => {
  await t.test('a scale without a selector', async (t2) => {
    const env = await setup(t2, { deployments: [deployment('web', 2, false)], hpas: [hpa('web', { max: 5 })] });
    await env.controller.reconcileKey('default/web');
    assert.deepEqual(
      env.status()?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['AbleToScale', 'True', 'SucceededGetScale', gotScale.message],
        ['ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector"],
      ],
    );
    assert.equal(env.status()?.currentMetrics, undefined);
    assert.deepEqual(env.events(), ['Warning SelectorRequired selector is required', 'Warning FailedComputeMetricsReplicas selector is required']);
  });
  await t.test('a Scale whose selector does not parse, read from a server that answers Scale objects', async (t2) => {
    const fake = new FakeClient();
    // As an HTTP client reads `deployments/scale` from kube-apiserver.
    const scales: Client = new Proxy(fake, {
      get: (target, prop, receiver) =>
        prop === 'get'
          ? async (res: typeof resources.deployments, name: string, opts?: { namespace?: string; subresource?: string }): Promise<KubeObject> => {
              if (opts?.subresource !== 'scale') return target.get(res, name, opts);
              const scale: Scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas: 2 }, status: { replicas: 2, selector: 'cheddar cheese' } };
              return scale;
            }
          : (Reflect.get(target, prop, receiver) as unknown),
    });
    await fake.create(resources.horizontalpodautoscalers, hpa('web', { max: 5 }));
    const ctx = new HpaTestContext(scales);
    const controller = create(ctx, { syncPeriodMs: 24 * 3600_000 });
    await startControllers(t2, ctx, controller);
    await controller.reconcileKey('default/web');
    const msg = "couldn't convert selector into a corresponding internal selector object: unable to parse requirement: found 'cheese', expected: in, notin, =, ==, !=, gt, lt";
    const status = fake.peek<HorizontalPodAutoscaler>(resources.horizontalpodautoscalers, 'web', 'default')?.status;
    assert.deepEqual(status?.conditions?.[1], { type: 'ScalingActive', status: 'False', reason: 'InvalidSelector', message: msg, lastTransitionTime: at(ctx.clock) });
    assert.equal(status?.currentReplicas, 2);
    assert.deepEqual(ctx.events.map((e) => `${e.reason} ${e.message}`), [`InvalidSelector ${msg}`, `FailedComputeMetricsReplicas ${msg}`]);
  });
});

void test('HPAs whose targets select the same pods (TestConditionAmbiguousSelectorWhenFullSelectorOverlap, ...NoSelectorOverlap)', async (t) => {
  await t.test('two HPAs of one Deployment: the selector is ambiguous once both have synced', async (t2) => {
    const env = await setup(t2, { deployments: [deployment('web', 2)], hpas: [hpa('a', { max: 5, target: 'web' }), hpa('b', { max: 5, target: 'web' })] });
    await env.client.create(resources.pods, makePod('web-1').labels({ app: 'web' }).obj());
    await waitFor(() => env.ctx.informer(resources.pods).list().length === 1);
    await env.controller.reconcileKey('default/a');
    assert.equal(env.status('a')?.conditions?.[1]?.reason, 'FailedGetResourceMetric');
    await env.controller.reconcileKey('default/b');
    const msg = 'pods by selector app=web are controlled by multiple HPAs: [default/a default/b]';
    assert.deepEqual(env.status('b')?.conditions?.[1], { type: 'ScalingActive', status: 'False', reason: 'AmbiguousSelector', message: msg, lastTransitionTime: at(env.clock) });
    assert.deepEqual(env.events().slice(-2), [`Warning AmbiguousSelector ${msg}`, `Warning FailedComputeMetricsReplicas ${msg}`]);
    await env.controller.reconcileKey('default/a');
    assert.equal(env.status('a')?.conditions?.[1]?.reason, 'AmbiguousSelector');
  });
  await t.test('HPAs of different Deployments are not ambiguous', async (t2) => {
    const env = await setup(t2, { deployments: [deployment('web', 2), deployment('api', 2)], hpas: [hpa('web', { max: 5 }), hpa('api', { max: 5 })] });
    await env.client.create(resources.pods, makePod('web-1').labels({ app: 'web' }).obj());
    await env.client.create(resources.pods, makePod('api-1').labels({ app: 'api' }).obj());
    await waitFor(() => env.ctx.informer(resources.pods).list().length === 2);
    for (const k of ['default/web', 'default/api', 'default/web']) await env.controller.reconcileKey(k);
    assert.equal(env.status('web')?.conditions?.[1]?.reason, 'FailedGetResourceMetric');
    assert.equal(env.status('api')?.conditions?.[1]?.reason, 'FailedGetResourceMetric');
  });
});

void test('an HPA stored without metrics takes the recommendation path: stabilized, then scaled down to minReplicas', async (t) => {
  const env = await setup(t, { deployments: [deployment('web', 4)], hpas: [hpa('web', { min: 2, max: 6, metrics: [] })] });
  await env.controller.reconcileKey('default/web');
  // The recommendation of 0 is held up by the initial recommendation (4) for the 5 minute stabilization window.
  assert.deepEqual(
    env.status()?.conditions?.map((c) => [c.type, c.status, c.reason ?? '']),
    [
      ['AbleToScale', 'True', 'ScaleDownStabilized'],
      ['', '', ''],
      ['ScalingLimited', 'False', 'DesiredWithinRange'],
    ],
  );
  assert.equal(env.client.peek<Deployment>(resources.deployments, 'web', 'default')?.spec?.replicas, 4);
  await waitFor(() => env.ctx.informer<HorizontalPodAutoscaler>(resources.horizontalpodautoscalers).get('default/web')?.status !== undefined);
  env.clock.step(5 * 60_000 + 1000);
  await env.controller.reconcileKey('default/web');
  assert.equal(env.client.peek<Deployment>(resources.deployments, 'web', 'default')?.spec?.replicas, 2);
  assert.deepEqual(env.events(), ['Normal SuccessfulRescale New size: 2; reason: All metrics below target']);
  assert.deepEqual(
    env.status()?.conditions?.map((c) => [c.type, c.status, c.reason ?? '']),
    [
      ['AbleToScale', 'True', 'SucceededRescale'],
      ['', '', ''],
      ['ScalingLimited', 'True', 'TooFewReplicas'],
    ],
  );
});

void test('an HPA is first synced one sync period after it appears, then every period until it is deleted', async (t) => {
  assert.equal(defaultSyncPeriodMs, 15_000);
  const env = await setup(t, { deployments: [deployment('web', 1)], hpas: [hpa('web', { max: 3 })], syncPeriodMs: defaultSyncPeriodMs });
  const syncs = (): number => env.events().filter((e) => e.startsWith('Warning FailedComputeMetricsReplicas')).length;
  const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 20));
  env.clock.step(14_000);
  await settle();
  assert.equal(syncs(), 0);
  assert.equal(env.status(), undefined);
  env.clock.step(1000);
  await waitFor(() => syncs() === 1);
  assert.equal(env.status()?.conditions?.[1]?.reason, 'FailedGetResourceMetric');
  // Its own status write (an update event) does not bring the next sync forward.
  await settle();
  env.clock.step(14_000);
  await settle();
  assert.equal(syncs(), 1);
  env.clock.step(1000);
  await waitFor(() => syncs() === 2);
  await env.client.delete(resources.horizontalpodautoscalers, 'web', { namespace: 'default' });
  await waitFor(() => env.ctx.informer(resources.horizontalpodautoscalers).list().length === 0);
  for (let i = 0; i < 3; i++) {
    env.clock.step(15_000);
    await settle();
  }
  assert.equal(syncs(), 2);
  assert.equal(env.clock.pendingTimers(), 0);
});

void test('a custom resource with a scale subresource is found through its CustomResourceDefinition', async (t) => {
  const gadgets = { group: 'example.com', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: true };
  const env = await setup(t, { hpas: [hpa('web', { max: 5, kind: 'Gadget', apiVersion: 'example.com/v1' })] });
  await env.client.create(resources.customresourcedefinitions, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } }] },
  } as KubeObject);
  await env.client.create(gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 7, selector: { matchLabels: { app: 'web' } } } } as KubeObject);
  await env.controller.reconcileKey('default/web');
  assert.deepEqual(env.events(), ['Normal SuccessfulRescale New size: 5; reason: Current number of replicas above Spec.MaxReplicas']);
  assert.equal(env.client.peek<{ spec?: { replicas?: number } } & KubeObject>(gadgets, 'web', 'default')?.spec?.replicas, 5);
});
