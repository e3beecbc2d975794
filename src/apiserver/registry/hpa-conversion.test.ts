/**
 * autoscaling/v1 <-> v2 HorizontalPodAutoscaler conversion: the upstream table of
 * pkg/apis/autoscaling/v1/conversion_test.go, the round-trip annotations Go writes and reads
 * (pkg/apis/autoscaling/v1/conversion.go), and a v2 object read and written back as v1.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredObject } from '../storage/watch-cache.js';
import { behaviorSpecsAnnotation, conditionsAnnotation, hpaV1ToV2, hpaV2ToV1, metricSpecsAnnotation, metricStatusesAnnotation } from './hpa-conversion.js';

const scaleTargetRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const cpuUtilization = (averageUtilization: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } } });

function v2(spec: Record<string, unknown>, status?: Record<string, unknown>, annotations?: Record<string, string>): StoredObject {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default', ...(annotations === undefined ? {} : { annotations }) },
    spec: { scaleTargetRef, ...spec },
    ...(status === undefined ? {} : { status }),
  };
}

function v1(spec: Record<string, unknown>, annotations?: Record<string, string>, status?: Record<string, unknown>): StoredObject {
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default', ...(annotations === undefined ? {} : { annotations }) },
    spec: { scaleTargetRef, maxReplicas: 3, ...spec },
    ...(status === undefined ? {} : { status }),
  };
}

const annotationsOf = (obj: StoredObject) => obj.metadata?.annotations;

describe('TestConvert_autoscaling_HorizontalPodAutoscalerSpec_To_v1_HorizontalPodAutoscalerSpec (#101370)', () => {
  // Upstream converts into a pre-filled `out`; our conversion builds a fresh object, as the API server's
  // decoder always gives it, so `out` has no column here. Where upstream's expectation only holds because
  // `out` was pre-filled (TestConversionWithoutMetrics keeps out's 60), the fresh-object answer is asserted.
  const cpuAverageValueThenUtilization = [
    { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '300m' } } },
    cpuUtilization(70),
  ];
  const cases: { name: string; metrics: unknown[]; want: Record<string, unknown> }[] = [
    { name: 'TestConversionWithCPUAverageValueAndUtilizationBoth1', metrics: cpuAverageValueThenUtilization, want: { minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 70 } },
    { name: 'TestConversionWithCPUAverageValueAndUtilizationBoth2', metrics: cpuAverageValueThenUtilization, want: { minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 70 } },
    { name: 'TestConversionWithoutMetrics', metrics: [], want: { minReplicas: 1, maxReplicas: 3 } },
    { name: 'TestConversionWithCPUUtilizationOnly', metrics: [cpuUtilization(60)], want: { minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 60 } },
  ];
  for (const tc of cases) {
    test(tc.name, () => {
      const got = hpaV2ToV1(v2({ minReplicas: 1, maxReplicas: 3, metrics: tc.metrics }));
      assert.deepEqual(got['spec'], { scaleTargetRef, ...tc.want });
    });
  }
  test('the CPU metric with only an averageValue is kept in the metrics annotation', () => {
    const got = hpaV2ToV1(v2({ minReplicas: 1, maxReplicas: 3, metrics: cpuAverageValueThenUtilization }));
    assert.deepEqual(annotationsOf(got), { [metricSpecsAnnotation]: '[{"type":"Resource","resource":{"name":"cpu","targetAverageValue":"300m"}}]' });
  });
});

describe('v2 -> v1 writes what v1 cannot express into annotations, as Go marshals the alpha v1 types', () => {
  const full = v2(
    {
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [
        cpuUtilization(50),
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
        { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, target: { type: 'AverageValue', averageValue: '1k' } } },
        { type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main-route' }, metric: { name: 'requests-per-second' }, target: { type: 'Value', value: '10k' } } },
        { type: 'External', external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'worker_tasks', a: 'b' } } }, target: { type: 'AverageValue', averageValue: '30' } } },
        { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } },
        cpuUtilization(90),
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } },
    },
    {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 25 } } },
        { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, current: { averageValue: '800' } } },
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '300m', averageUtilization: 30 } } },
      ],
      conditions: [
        { type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
        { type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric', message: 'got <nil> & gave up' },
      ],
    },
    { team: 'web', [metricSpecsAnnotation]: 'stale' },
  );
  const got = hpaV2ToV1(full);

  test('the first CPU utilization target is targetCPUUtilizationPercentage; no CPU utilization target is in the annotation', () => {
    assert.deepEqual(got['spec'], { scaleTargetRef, minReplicas: 1, maxReplicas: 10, targetCPUUtilizationPercentage: 50 });
    assert.equal(
      annotationsOf(got)?.[metricSpecsAnnotation],
      '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}},' +
        '{"type":"Pods","pods":{"metricName":"packets-per-second","targetAverageValue":"1k"}},' +
        '{"type":"Object","object":{"target":{"kind":"Ingress","name":"main-route","apiVersion":"networking.k8s.io/v1"},"metricName":"requests-per-second","targetValue":"10k"}},' +
        '{"type":"External","external":{"metricName":"queue_messages_ready","metricSelector":{"matchLabels":{"a":"b","queue":"worker_tasks"}},"targetAverageValue":"30"}},' +
        '{"type":"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":60,"container":"app"}}]',
    );
  });

  test('the last CPU status with a utilization is currentCPUUtilizationPercentage; every status metric is in the annotation', () => {
    assert.deepEqual(got['status'], { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 30 });
    assert.equal(
      annotationsOf(got)?.[metricStatusesAnnotation],
      '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":25,"currentAverageValue":"250m"}},' +
        '{"type":"Pods","pods":{"metricName":"packets-per-second","currentAverageValue":"800"}},' +
        '{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":30,"currentAverageValue":"300m"}}]',
    );
  });

  test('conditions keep a zero lastTransitionTime as null and escape <, > and & as Go does', () => {
    assert.equal(
      annotationsOf(got)?.[conditionsAnnotation],
      '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T10:00:00Z","reason":"ReadyForNewScale","message":"recommended size matches current size"},' +
        '{"type":"ScalingActive","status":"False","lastTransitionTime":null,"reason":"FailedGetResourceMetric","message":"got \\u003cnil\\u003e \\u0026 gave up"}]',
    );
  });

  test('the behavior is the internal type marshalled without json tags: Go field names, nil as null', () => {
    assert.equal(
      annotationsOf(got)?.[behaviorSpecsAnnotation],
      '{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":null,"Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}]}}',
    );
  });

  test('other annotations are kept and a stale round-trip annotation is replaced', () => {
    assert.deepEqual(Object.keys(annotationsOf(got) ?? {}).sort(), ['team', behaviorSpecsAnnotation, conditionsAnnotation, metricSpecsAnnotation, metricStatusesAnnotation].sort());
    assert.equal(annotationsOf(full)?.[metricSpecsAnnotation], 'stale', 'the stored object is not changed');
  });

  test('an HPA with only a CPU target and no status gets no annotations at all', () => {
    const plain = hpaV2ToV1(v2({ maxReplicas: 3, metrics: [cpuUtilization(80)] }, undefined, { [conditionsAnnotation]: '[]' }));
    assert.equal(plain.metadata?.annotations, undefined);
    assert.equal(plain['status'], undefined);
  });
});

describe('v1 -> v2 reads the annotations back and drops them', () => {
  test('the metrics from the annotation come first, then the CPU target; the CPU status is replaced by the annotation', () => {
    const got = hpaV1ToV2(
      v1(
        { targetCPUUtilizationPercentage: 50 },
        { [metricSpecsAnnotation]: '[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}}]', [metricStatusesAnnotation]: '[{"type":"Resource","resource":{"name":"memory","currentAverageValue":"100Mi"}}]', keep: 'me' },
        { currentReplicas: 1, desiredReplicas: 1, currentCPUUtilizationPercentage: 40 },
      ),
    );
    assert.deepEqual(got['spec'], {
      scaleTargetRef,
      maxReplicas: 3,
      metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } }, cpuUtilization(50)],
    });
    assert.deepEqual(got['status'], { currentReplicas: 1, desiredReplicas: 1, currentMetrics: [{ type: 'Resource', resource: { name: 'memory', current: { averageValue: '100Mi' } } }] });
    assert.deepEqual(got.metadata?.annotations, { keep: 'me' });
  });

  test('the alpha v1 metric forms convert as upstream converts them, keys matched case-insensitively', () => {
    const metrics = [
      { type: 'Object', object: { target: { kind: 'Service', name: 's' }, metricName: 'm', averageValue: '5' } },
      { type: 'Object', object: { target: { kind: 'Service', name: 's' }, metricName: 'm', targetValue: '7' } },
      { type: 'External', external: { metricName: 'q', targetValue: '3' } },
      { type: 'External', external: { metricName: 'q', targetAverageValue: '4', metricSelector: { matchLabels: { a: 'b' } } } },
      { TYPE: 'Pods', Pods: { MetricName: 'qps' } },
      { type: 'ContainerResource', containerResource: { name: 'memory', container: 'app', targetAverageValue: '1Gi' } },
    ];
    const got = hpaV1ToV2(v1({}, { [metricSpecsAnnotation]: JSON.stringify(metrics) }));
    assert.deepEqual((got['spec'] as { metrics: unknown }).metrics, [
      // Object: the value is always set (v1's targetValue is not a pointer), the type follows averageValue.
      { type: 'Object', object: { describedObject: { kind: 'Service', name: 's' }, metric: { name: 'm' }, target: { type: 'AverageValue', value: '0', averageValue: '5' } } },
      { type: 'Object', object: { describedObject: { kind: 'Service', name: 's' }, metric: { name: 'm' }, target: { type: 'Value', value: '7' } } },
      { type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '3' } } },
      { type: 'External', external: { metric: { name: 'q', selector: { matchLabels: { a: 'b' } } }, target: { type: 'AverageValue', averageValue: '4' } } },
      { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '0' } } },
      { type: 'ContainerResource', containerResource: { name: 'memory', container: 'app', target: { type: 'AverageValue', averageValue: '1Gi' } } },
    ]);
  });

  test('the behavior annotation is read as Go reads the internal type, whatever the key case', () => {
    const got = hpaV1ToV2(v1({}, { [behaviorSpecsAnnotation]: '{"scaleUp":{"stabilizationWindowSeconds":30,"policies":[{"type":"Pods","value":2,"periodSeconds":60}]}}' }));
    assert.deepEqual((got['spec'] as { behavior: unknown }).behavior, { scaleUp: { stabilizationWindowSeconds: 30, policies: [{ type: 'Pods', value: 2, periodSeconds: 60 }] } });
  });

  const zeroBehaviors = ['{}', 'null', '{"ScaleUp":null,"ScaleDown":null}'];
  for (const text of zeroBehaviors) {
    test(`a behavior annotation ${text} decodes to the zero behavior, which is not set`, () => {
      const got = hpaV1ToV2(v1({}, { [behaviorSpecsAnnotation]: text }));
      assert.equal((got['spec'] as { behavior?: unknown }).behavior, undefined);
      assert.equal(got.metadata?.annotations, undefined);
    });
  }

  // pkg/apis/autoscaling/v2beta1/conversion_test.go TestHorizontalPodAutoscalerAnnotations, run through v1.
  const malformed = [
    { name: 'test empty value for Annotations', value: '' },
    { name: 'test random value for Annotations', value: 'abc' },
    { name: 'test empty array value for Annotations', value: '[]' },
  ];
  for (const tc of malformed) {
    test(tc.name, () => {
      const input = v1({}, { [conditionsAnnotation]: tc.value, [metricSpecsAnnotation]: tc.value, [behaviorSpecsAnnotation]: tc.value, [metricStatusesAnnotation]: tc.value }, { currentReplicas: 1, desiredReplicas: 1 });
      const before = structuredClone(input);
      const got = hpaV1ToV2(input);
      assert.deepEqual(input, before, 'the input is not changed');
      assert.equal(got.metadata?.annotations, undefined);
      // No metric from anywhere: the conversion fills in the 80% CPU target.
      assert.deepEqual(got['spec'], { scaleTargetRef, maxReplicas: 3, metrics: [cpuUtilization(80)] });
      assert.deepEqual(got['status'], { currentReplicas: 1, desiredReplicas: 1 });
    });
  }

  test('an annotation with a value Go would refuse is skipped whole', () => {
    const got = hpaV1ToV2(
      v1(
        { targetCPUUtilizationPercentage: 60 },
        {
          [metricSpecsAnnotation]: '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"1k"}},{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"lots"}}]',
          [conditionsAnnotation]: '[{"type":"AbleToScale","status":"True","lastTransitionTime":"yesterday"}]',
          [behaviorSpecsAnnotation]: '{"ScaleUp":{"StabilizationWindowSeconds":"30"}}',
        },
        { currentReplicas: 1, desiredReplicas: 1, currentCPUUtilizationPercentage: 10 },
      ),
    );
    assert.deepEqual(got['spec'], { scaleTargetRef, maxReplicas: 3, metrics: [cpuUtilization(60)] });
    assert.deepEqual(got['status'], { currentReplicas: 1, desiredReplicas: 1, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 10 } } }] });
  });

  test('condition times are read as RFC 3339 and kept in UTC to the second', () => {
    const got = hpaV1ToV2(v1({}, { [conditionsAnnotation]: '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2024-05-01T12:00:00.5+02:00"}]' }));
    assert.deepEqual(got['status'], { conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z' }] });
  });
});

describe('a v2 HPA read as v1 and written back as v1 is unchanged', () => {
  test('memory and pods metrics, behavior, current metrics and conditions survive v2 -> v1 -> v2', () => {
    const original = v2(
      {
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } },
          { type: 'Pods', pods: { metric: { name: 'packets-per-second', selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] } }, target: { type: 'AverageValue', averageValue: '1k' } } },
        ],
        behavior: {
          scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
          scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Min', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] },
        },
      },
      {
        observedGeneration: 1,
        currentReplicas: 2,
        desiredReplicas: 2,
        currentMetrics: [
          { type: 'Resource', resource: { name: 'memory', current: { averageValue: '300Mi', averageUtilization: 60 } } },
          { type: 'Pods', pods: { metric: { name: 'packets-per-second' }, current: { averageValue: '800' } } },
        ],
        conditions: [
          { type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
          { type: 'ScalingActive', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from memory resource utilization (percentage of request)' },
        ],
      },
      { team: 'web' },
    );
    const asV1 = hpaV2ToV1(original);
    assert.equal((asV1['spec'] as Record<string, unknown>)['targetCPUUtilizationPercentage'], undefined);
    // What a client sends back: the v1 object as it read it, through JSON.
    const back = hpaV1ToV2(JSON.parse(JSON.stringify(asV1)) as StoredObject);
    assert.deepEqual(back, original);
  });
});
