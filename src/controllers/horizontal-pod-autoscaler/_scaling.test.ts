import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior, HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';
import {
  calculateScaleDownLimitWithBehaviors,
  calculateScaleUpLimit,
  calculateScaleUpLimitWithScalingRules,
  convertDesiredReplicasWithRules,
  ScalingHistory,
  type TimestampedRecommendation,
  type TimestampedScaleEvent,
} from './_scaling.js';

const now = Date.parse('2025-01-01T00:00:00Z');
const minutesAgo = (m: number): number => now - m * 60_000;

void test('TestConvertDesiredReplicasWithRules', async (t) => {
  const cases: { annotation: string; current: number; desired: number; min: number; max: number; want: number; condition: string }[] = [
    { annotation: 'prenormalized desired replicas within range', current: 5, desired: 7, min: 3, max: 8, want: 7, condition: 'DesiredWithinRange' },
    { annotation: 'prenormalized desired replicas < minReplicas', current: 3, desired: 1, min: 2, max: 8, want: 2, condition: 'TooFewReplicas' },
    { annotation: 'prenormalized desired replicas within range (minReplicas 0)', current: 1, desired: 0, min: 0, max: 10, want: 0, condition: 'DesiredWithinRange' },
    { annotation: 'maxReplicas is the limit because maxReplicas < scaleUpLimit', current: 20, desired: 1000, min: 1, max: 10, want: 10, condition: 'TooManyReplicas' },
    { annotation: 'scaleUpLimit is the limit because scaleUpLimit < maxReplicas', current: 3, desired: 1000, min: 1, max: 2000, want: calculateScaleUpLimit(3), condition: 'ScaleUpLimit' },
  ];
  for (const tc of cases) {
    await t.test(tc.annotation, () => {
      const [replicas, condition] = convertDesiredReplicasWithRules(tc.current, tc.desired, tc.min, tc.max);
      assert.deepEqual([replicas, condition], [tc.want, tc.condition]);
    });
  }
  assert.deepEqual([calculateScaleUpLimit(1), calculateScaleUpLimit(3)], [4, 6]);
});

void test('TestNormalizeDesiredReplicas: the downscale stabilization window', async (t) => {
  const cases: { name: string; recommendations: TimestampedRecommendation[]; prenormalized: number; stabilized: number; logLength: number }[] = [
    { name: 'empty log', recommendations: [], prenormalized: 5, stabilized: 5, logLength: 1 },
    { name: 'stabilize', recommendations: [{ recommendation: 4, timestamp: minutesAgo(2) }, { recommendation: 5, timestamp: minutesAgo(1) }], prenormalized: 3, stabilized: 5, logLength: 3 },
    { name: 'no stabilize', recommendations: [{ recommendation: 1, timestamp: minutesAgo(2) }, { recommendation: 2, timestamp: minutesAgo(1) }], prenormalized: 3, stabilized: 3, logLength: 3 },
    { name: 'no stabilize - old recommendations', recommendations: [{ recommendation: 10, timestamp: minutesAgo(10) }, { recommendation: 9, timestamp: minutesAgo(9) }], prenormalized: 3, stabilized: 3, logLength: 2 },
    {
      name: 'stabilize - old recommendations',
      recommendations: [
        { recommendation: 10, timestamp: minutesAgo(10) },
        { recommendation: 4, timestamp: minutesAgo(1) },
        { recommendation: 5, timestamp: minutesAgo(2) },
        { recommendation: 9, timestamp: minutesAgo(9) },
      ],
      prenormalized: 3,
      stabilized: 5,
      logLength: 4,
    },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const h = new ScalingHistory(5 * 60_000);
      h.recommendations.set('', [...tc.recommendations]);
      assert.equal(h.stabilizeRecommendation('', tc.prenormalized, now), tc.stabilized);
      assert.equal(h.recommendations.get('')?.length, tc.logLength);
    });
  }
});

void test('TestCalculateScaleUpLimitWithScalingRules, TestCalculateScaleDownLimitWithBehaviors', () => {
  const rules = (selectPolicy: string): HPAScalingRules => ({
    stabilizationWindowSeconds: 300,
    selectPolicy,
    policies: [
      { type: 'Pods', value: 2, periodSeconds: 60 },
      { type: 'Percent', value: 50, periodSeconds: 60 },
    ],
  });
  assert.equal(calculateScaleUpLimitWithScalingRules(1, [], [], rules('Min'), now), 2);
  assert.equal(calculateScaleUpLimitWithScalingRules(1, [], [], rules('Max'), now), 3);
  assert.equal(calculateScaleUpLimitWithScalingRules(1, [], [], rules('Disabled'), now), 1);
  assert.equal(calculateScaleDownLimitWithBehaviors(5, [], [], rules('Min'), now), 3);
  assert.equal(calculateScaleDownLimitWithBehaviors(5, [], [], rules('Max'), now), 2);
  // Changes within a policy's period count from the replicas at its start; older ones do not.
  const ups: TimestampedScaleEvent[] = [
    { replicaChange: 4, timestamp: now - 30_000, outdated: false },
    { replicaChange: 42, timestamp: now - 61_000, outdated: false },
  ];
  assert.equal(calculateScaleUpLimitWithScalingRules(10, ups, [], rules('Max'), now), 9);
});

/** The behavior the API server defaults (GenerateHPAScaleUpRules / GenerateHPAScaleDownRules). */
function defaultBehavior(over: { scaleUp?: HPAScalingRules; scaleDown?: HPAScalingRules } = {}): HorizontalPodAutoscalerBehavior {
  return {
    scaleUp: over.scaleUp ?? {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    },
    scaleDown: over.scaleDown ?? { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
  };
}

const scaleDownRules = (selectPolicy: string): HPAScalingRules => ({ stabilizationWindowSeconds: 0, selectPolicy, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

void test('TestNormalizeDesiredReplicasWithBehavior: stabilization windows and policies', async (t) => {
  const cases: {
    name: string;
    behavior: HorizontalPodAutoscalerBehavior;
    recommendations?: TimestampedRecommendation[];
    scaleUpEvents?: TimestampedScaleEvent[];
    current: number;
    prenormalized: number;
    /** maxReplicas (default 100). */
    max?: number;
    want: number;
    ableToScale: string;
    scalingLimited: [string, string];
  }[] = [
    { name: 'no history: the recommendation stands', behavior: defaultBehavior(), current: 5, prenormalized: 7, want: 7, ableToScale: 'ReadyForNewScale', scalingLimited: ['False', 'DesiredWithinRange'] },
    {
      name: 'a higher recent recommendation holds a scale down (the 300 s window filled in)',
      behavior: defaultBehavior(),
      recommendations: [{ recommendation: 10, timestamp: minutesAgo(1) }],
      current: 10,
      prenormalized: 5,
      want: 10,
      ableToScale: 'ScaleDownStabilized',
      scalingLimited: ['False', 'DesiredWithinRange'],
    },
    {
      name: 'a lower recent recommendation holds a scale up',
      behavior: defaultBehavior({ scaleUp: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] } }),
      recommendations: [{ recommendation: 3, timestamp: now - 30_000 }],
      current: 3,
      prenormalized: 8,
      want: 3,
      ableToScale: 'ScaleUpStabilized',
      scalingLimited: ['False', 'DesiredWithinRange'],
    },
    { name: 'the default policies double at most', behavior: defaultBehavior(), current: 10, prenormalized: 50, want: 20, ableToScale: 'ReadyForNewScale', scalingLimited: ['True', 'ScaleUpLimit'] },
    { name: 'maxReplicas below the policies', behavior: defaultBehavior(), current: 10, prenormalized: 500, max: 15, want: 15, ableToScale: 'ReadyForNewScale', scalingLimited: ['True', 'TooManyReplicas'] },
    {
      name: 'recent scale ups use up the policy: no further scale up',
      behavior: defaultBehavior({ scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 60 }] } }),
      scaleUpEvents: [{ replicaChange: 10, timestamp: now - 10_000, outdated: false }],
      current: 12,
      prenormalized: 14,
      want: 12,
      ableToScale: 'ReadyForNewScale',
      scalingLimited: ['True', 'ScaleUpLimit'],
    },
    { name: 'a disabled scale down keeps the replicas', behavior: defaultBehavior({ scaleDown: scaleDownRules('Disabled') }), current: 8, prenormalized: 2, want: 8, ableToScale: 'ReadyForNewScale', scalingLimited: ['True', 'ScaleDownLimit'] },
    { name: 'minReplicas below the scale down', behavior: defaultBehavior({ scaleDown: scaleDownRules('Max') }), current: 8, prenormalized: 0, want: 2, ableToScale: 'ReadyForNewScale', scalingLimited: ['True', 'TooFewReplicas'] },
  ];
  for (const tc of cases) {
    await t.test(tc.name, () => {
      const h = new ScalingHistory(5 * 60_000);
      if (tc.recommendations !== undefined) h.recommendations.set('k', [...tc.recommendations]);
      if (tc.scaleUpEvents !== undefined) h.scaleUpEvents.set('k', [...tc.scaleUpEvents]);
      const hpa: HorizontalPodAutoscaler = { spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: tc.max ?? 100, behavior: structuredClone(tc.behavior) } };
      const n = h.normalizeDesiredReplicasWithBehaviors(hpa, 'k', tc.current, tc.prenormalized, 2, now);
      assert.deepEqual([n.desiredReplicas, n.ableToScale.reason, n.scalingLimited.status, n.scalingLimited.reason], [tc.want, tc.ableToScale, ...tc.scalingLimited]);
      if (tc.behavior.scaleDown?.stabilizationWindowSeconds === undefined) assert.equal(hpa.spec?.behavior?.scaleDown?.stabilizationWindowSeconds, 300);
    });
  }
});

void test('storeScaleEvent reuses an outdated slot and records nothing without a behavior', () => {
  const h = new ScalingHistory(5 * 60_000);
  h.storeScaleEvent(undefined, 'k', 2, 4, now);
  assert.equal(h.scaleUpEvents.get('k'), undefined);
  const behavior = defaultBehavior();
  h.storeScaleEvent(behavior, 'k', 2, 4, now - 60_000);
  h.storeScaleEvent(behavior, 'k', 4, 9, now);
  assert.deepEqual(h.scaleUpEvents.get('k'), [{ replicaChange: 5, timestamp: now, outdated: false }]);
  h.storeScaleEvent(behavior, 'k', 9, 3, now);
  assert.deepEqual(h.scaleDownEvents.get('k'), [{ replicaChange: 6, timestamp: now, outdated: false }]);
});
