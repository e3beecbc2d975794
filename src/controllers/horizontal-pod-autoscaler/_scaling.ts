/**
 * How the HPA controller turns a recommendation into the replica count it sets
 * (`pkg/controller/podautoscaler/horizontal.go`, v1.32): the downscale stabilization window, the min/max and
 * scale-up limits without `spec.behavior`, and the stabilization windows and scaling policies with it. The
 * controller keeps the recent recommendations and scale events of each HPA in memory (`ScalingHistory`);
 * they are lost on restart, as upstream's are.
 */
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerBehavior, HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';

const scaleUpLimitFactor = 2.0;
const scaleUpLimitMinimum = 4.0;
const maxInt32 = 2147483647;
const minInt32 = -2147483648;

/** A condition the normalization asks the controller to set (upstream calls `setCondition` in place). */
export interface ConditionChange {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** What `normalizeDesiredReplicas*` decide: the count, and the AbleToScale and ScalingLimited conditions. */
export interface Normalized {
  desiredReplicas: number;
  ableToScale: ConditionChange;
  scalingLimited: ConditionChange;
}

export interface TimestampedRecommendation {
  recommendation: number;
  timestamp: number;
}

export interface TimestampedScaleEvent {
  /** Absolute value, non-negative. */
  replicaChange: number;
  timestamp: number;
  outdated: boolean;
}

/** `NormalizationArg`. */
interface NormalizationArg {
  key: string;
  scaleUpBehavior: HPAScalingRules;
  scaleDownBehavior: HPAScalingRules;
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
  desiredReplicas: number;
}

const readyForNewScale: ConditionChange = { status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' };

/**
 * The controller's `recommendations`, `scaleUpEvents` and `scaleDownEvents` maps, keyed by the HPA's
 * `namespace/name`, with the methods of upstream that read and write them. Times are ms since epoch from the
 * controller's clock.
 */
export class ScalingHistory {
  /** Latest unstabilized recommendations of each HPA. */
  readonly recommendations = new Map<string, TimestampedRecommendation[]>();
  /** Latest scale events of each HPA (only with `spec.behavior`). */
  readonly scaleUpEvents = new Map<string, TimestampedScaleEvent[]>();
  readonly scaleDownEvents = new Map<string, TimestampedScaleEvent[]>();

  constructor(private readonly downscaleStabilisationWindowMs: number) {}

  /** `reconcileKey` for a deleted HPA: drops its history. */
  forget(key: string): void {
    this.recommendations.delete(key);
    this.scaleUpEvents.delete(key);
    this.scaleDownEvents.delete(key);
  }

  /** `recordInitialRecommendation`: the current scale is the first recommendation. */
  recordInitialRecommendation(currentReplicas: number, key: string, now: number): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ recommendation: currentReplicas, timestamp: now }]);
  }

  /**
   * `stabilizeRecommendation`: replaces the oldest sample outside the window with this recommendation (or
   * appends it) and returns the highest recommendation within the downscale stabilization window.
   */
  stabilizeRecommendation(key: string, prenormalizedDesiredReplicas: number, now: number): number {
    let maxRecommendation = prenormalizedDesiredReplicas;
    let oldSampleIndex = -1;
    const cutoff = now - this.downscaleStabilisationWindowMs;
    const recs = this.recommendations.get(key) ?? [];
    recs.forEach((rec, i) => {
      if (rec.timestamp < cutoff) oldSampleIndex = i;
      else if (rec.recommendation > maxRecommendation) maxRecommendation = rec.recommendation;
    });
    const sample = { recommendation: prenormalizedDesiredReplicas, timestamp: now };
    if (oldSampleIndex >= 0) recs[oldSampleIndex] = sample;
    else recs.push(sample);
    this.recommendations.set(key, recs);
    return maxRecommendation;
  }

  /** `normalizeDesiredReplicas`: without `spec.behavior`. */
  normalizeDesiredReplicas(hpa: HorizontalPodAutoscaler, key: string, currentReplicas: number, prenormalizedDesiredReplicas: number, minReplicas: number, now: number): Normalized {
    const stabilizedRecommendation = this.stabilizeRecommendation(key, prenormalizedDesiredReplicas, now);
    const ableToScale: ConditionChange =
      stabilizedRecommendation !== prenormalizedDesiredReplicas
        ? { status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' }
        : readyForNewScale;
    const [desiredReplicas, reason, message] = convertDesiredReplicasWithRules(currentReplicas, stabilizedRecommendation, minReplicas, hpa.spec?.maxReplicas ?? 0);
    const scalingLimited: ConditionChange = { status: desiredReplicas === stabilizedRecommendation ? 'False' : 'True', reason, message };
    return { desiredReplicas, ableToScale, scalingLimited };
  }

  /**
   * `normalizeDesiredReplicasWithBehaviors`: (1) the stabilization windows pick the lowest recent
   * recommendation for a scale up and the highest for a scale down, (2) the scaling policies limit the rate
   * over their periods, (3) min/max bound the result. `hpa` is the controller's working copy:
   * `maybeInitScaleDownStabilizationWindow` fills in the scale-down window there.
   */
  normalizeDesiredReplicasWithBehaviors(hpa: HorizontalPodAutoscaler, key: string, currentReplicas: number, prenormalizedDesiredReplicas: number, minReplicas: number, now: number): Normalized {
    this.maybeInitScaleDownStabilizationWindow(hpa);
    const behavior = hpa.spec?.behavior ?? {};
    const arg: NormalizationArg = {
      key,
      // The API server defaults both rules whenever `behavior` is set (SetDefaults_HorizontalPodAutoscalerBehavior).
      scaleUpBehavior: behavior.scaleUp ?? {},
      scaleDownBehavior: behavior.scaleDown ?? {},
      minReplicas,
      maxReplicas: hpa.spec?.maxReplicas ?? 0,
      currentReplicas,
      desiredReplicas: prenormalizedDesiredReplicas,
    };
    const [stabilizedRecommendation, stabilizedReason, stabilizedMessage] = this.stabilizeRecommendationWithBehaviors(arg, now);
    arg.desiredReplicas = stabilizedRecommendation;
    const ableToScale: ConditionChange =
      stabilizedRecommendation !== prenormalizedDesiredReplicas ? { status: 'True', reason: stabilizedReason, message: stabilizedMessage } : readyForNewScale;
    const [desiredReplicas, reason, message] = this.convertDesiredReplicasWithBehaviorRate(arg, now);
    const scalingLimited: ConditionChange = { status: desiredReplicas === stabilizedRecommendation ? 'False' : 'True', reason, message };
    return { desiredReplicas, ableToScale, scalingLimited };
  }

  /** `maybeInitScaleDownStabilizationWindow`: `--horizontal-pod-autoscaler-downscale-stabilization` when unset. */
  private maybeInitScaleDownStabilizationWindow(hpa: HorizontalPodAutoscaler): void {
    const scaleDown = hpa.spec?.behavior?.scaleDown;
    if (scaleDown !== undefined && scaleDown.stabilizationWindowSeconds === undefined) {
      (scaleDown as { stabilizationWindowSeconds?: number }).stabilizationWindowSeconds = Math.trunc(this.downscaleStabilisationWindowMs / 1000);
    }
  }

  /**
   * `stabilizeRecommendationWithBehaviors`: replaces a sample older than both windows with this
   * recommendation (or appends it) and brings the current count within [lowest recent recommendation of the
   * scale-up window, highest of the scale-down window].
   */
  private stabilizeRecommendationWithBehaviors(args: NormalizationArg, now: number): [number, string, string] {
    let oldSampleIndex = -1;
    let upRecommendation = args.desiredReplicas;
    const upCutoff = now - (args.scaleUpBehavior.stabilizationWindowSeconds ?? 0) * 1000;
    let downRecommendation = args.desiredReplicas;
    const downCutoff = now - (args.scaleDownBehavior.stabilizationWindowSeconds ?? 0) * 1000;
    const recs = this.recommendations.get(args.key) ?? [];
    recs.forEach((rec, i) => {
      if (rec.timestamp > upCutoff) upRecommendation = Math.min(rec.recommendation, upRecommendation);
      if (rec.timestamp > downCutoff) downRecommendation = Math.max(rec.recommendation, downRecommendation);
      if (rec.timestamp < upCutoff && rec.timestamp < downCutoff) oldSampleIndex = i;
    });
    let recommendation = args.currentReplicas;
    if (recommendation < upRecommendation) recommendation = upRecommendation;
    if (recommendation > downRecommendation) recommendation = downRecommendation;
    const sample = { recommendation: args.desiredReplicas, timestamp: now };
    if (oldSampleIndex >= 0) recs[oldSampleIndex] = sample;
    else recs.push(sample);
    this.recommendations.set(args.key, recs);
    if (args.desiredReplicas >= args.currentReplicas) {
      return [recommendation, 'ScaleUpStabilized', 'recent recommendations were lower than current one, applying the lowest recent recommendation'];
    }
    return [recommendation, 'ScaleDownStabilized', 'recent recommendations were higher than current one, applying the highest recent recommendation'];
  }

  /** `convertDesiredReplicasWithBehaviorRate`: the policies' limits and min/max; stabilization is done before. */
  private convertDesiredReplicasWithBehaviorRate(args: NormalizationArg, now: number): [number, string, string] {
    const ups = this.scaleUpEvents.get(args.key) ?? [];
    const downs = this.scaleDownEvents.get(args.key) ?? [];
    if (args.desiredReplicas > args.currentReplicas) {
      let scaleUpLimit = calculateScaleUpLimitWithScalingRules(args.currentReplicas, ups, downs, args.scaleUpBehavior, now);
      // No further scale up until the recorded scale-up events age out.
      if (scaleUpLimit < args.currentReplicas) scaleUpLimit = args.currentReplicas;
      let maximumAllowedReplicas = args.maxReplicas;
      let limit: [string, string];
      if (maximumAllowedReplicas > scaleUpLimit) {
        maximumAllowedReplicas = scaleUpLimit;
        limit = ['ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate'];
      } else {
        limit = ['TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
      }
      if (args.desiredReplicas > maximumAllowedReplicas) return [maximumAllowedReplicas, ...limit];
    } else if (args.desiredReplicas < args.currentReplicas) {
      let scaleDownLimit = calculateScaleDownLimitWithBehaviors(args.currentReplicas, ups, downs, args.scaleDownBehavior, now);
      // No further scale down until the recorded scale-down events age out.
      if (scaleDownLimit > args.currentReplicas) scaleDownLimit = args.currentReplicas;
      let minimumAllowedReplicas = args.minReplicas;
      let limit: [string, string];
      if (minimumAllowedReplicas < scaleDownLimit) {
        minimumAllowedReplicas = scaleDownLimit;
        limit = ['ScaleDownLimit', 'the desired replica count is decreasing faster than the maximum scale rate'];
      } else {
        limit = ['TooFewReplicas', 'the desired replica count is less than the minimum replica count'];
      }
      if (args.desiredReplicas < minimumAllowedReplicas) return [minimumAllowedReplicas, ...limit];
    }
    return [args.desiredReplicas, 'DesiredWithinRange', 'the desired count is within the acceptable range'];
  }

  /**
   * `storeScaleEvent`: records a rescale for the policies' periods, reusing a slot marked outdated. Only with
   * `spec.behavior` (without it nothing reads the events).
   */
  storeScaleEvent(behavior: HorizontalPodAutoscalerBehavior | undefined, key: string, prevReplicas: number, newReplicas: number, now: number): void {
    if (behavior === undefined) return;
    const up = newReplicas > prevReplicas;
    const events = (up ? this.scaleUpEvents : this.scaleDownEvents).get(key) ?? [];
    markScaleEventsOutdated(events, getLongestPolicyPeriod(up ? behavior.scaleUp : behavior.scaleDown), now);
    let oldSampleIndex = -1;
    events.forEach((e, i) => {
      if (e.outdated) oldSampleIndex = i;
    });
    const newEvent = { replicaChange: up ? newReplicas - prevReplicas : prevReplicas - newReplicas, timestamp: now, outdated: false };
    if (oldSampleIndex >= 0) events[oldSampleIndex] = newEvent;
    else events.push(newEvent);
    (up ? this.scaleUpEvents : this.scaleDownEvents).set(key, events);
  }
}

/** `getReplicasChangePerPeriod`: the replicas added (or removed) by the events within the period. */
function getReplicasChangePerPeriod(periodSeconds: number, scaleEvents: readonly TimestampedScaleEvent[], now: number): number {
  const cutoff = now - periodSeconds * 1000;
  let replicas = 0;
  for (const rec of scaleEvents) if (rec.timestamp > cutoff) replicas += rec.replicaChange;
  return replicas;
}

/**
 * `convertDesiredReplicasWithRules`: min/max and, to resist bogus usage reports (kubernetes#32304), at most
 * `max(2 * current, 4)`. Answers the count, the ScalingLimited reason and its message.
 */
export function convertDesiredReplicasWithRules(currentReplicas: number, desiredReplicas: number, hpaMinReplicas: number, hpaMaxReplicas: number): [number, string, string] {
  const minimumAllowedReplicas = hpaMinReplicas;
  const scaleUpLimit = calculateScaleUpLimit(currentReplicas);
  let maximumAllowedReplicas: number;
  let limit: [string, string];
  if (hpaMaxReplicas > scaleUpLimit) {
    maximumAllowedReplicas = scaleUpLimit;
    limit = ['ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate'];
  } else {
    maximumAllowedReplicas = hpaMaxReplicas;
    limit = ['TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
  }
  if (desiredReplicas < minimumAllowedReplicas) {
    return [minimumAllowedReplicas, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count'];
  }
  if (desiredReplicas > maximumAllowedReplicas) return [maximumAllowedReplicas, ...limit];
  return [desiredReplicas, 'DesiredWithinRange', 'the desired count is within the acceptable range'];
}

/** `calculateScaleUpLimit`. */
export function calculateScaleUpLimit(currentReplicas: number): number {
  return Math.trunc(Math.max(scaleUpLimitFactor * currentReplicas, scaleUpLimitMinimum));
}

/** `markScaleEventsOutdated`: events older than the longest policy period may be reused. */
function markScaleEventsOutdated(scaleEvents: TimestampedScaleEvent[], longestPolicyPeriod: number, now: number): void {
  const cutoff = now - longestPolicyPeriod * 1000;
  for (const e of scaleEvents) if (e.timestamp < cutoff) e.outdated = true;
}

/** `getLongestPolicyPeriod`. */
function getLongestPolicyPeriod(scalingRules: HPAScalingRules | undefined): number {
  let longest = 0;
  for (const p of scalingRules?.policies ?? []) if (p.periodSeconds > longest) longest = p.periodSeconds;
  return longest;
}

/** The arguments of the two limits: current replicas, the HPA's recent scale events, the rules, the time. */
type LimitArgs = [currentReplicas: number, scaleUpEvents: readonly TimestampedScaleEvent[], scaleDownEvents: readonly TimestampedScaleEvent[], scalingRules: HPAScalingRules, now: number];

/**
 * `calculateScaleUpLimitWithScalingRules`: the most replicas the scale-up policies allow now (`Max`: the
 * most permissive policy, `Min`: the least, `Disabled`: no change).
 */
export function calculateScaleUpLimitWithScalingRules(...args: LimitArgs): number {
  return limitWithScalingRules(true, ...args);
}

/**
 * `calculateScaleDownLimitWithBehaviors`: the fewest replicas the scale-down policies allow now (`Max`: the
 * most permissive policy, `Min`: the least, `Disabled`: no change).
 */
export function calculateScaleDownLimitWithBehaviors(...args: LimitArgs): number {
  return limitWithScalingRules(false, ...args);
}

/**
 * The loop the two functions above share upstream: each policy proposes a count from the replicas at the
 * start of its period (a scale up rounds a percentage up, a scale down truncates it), and the select policy
 * picks among the proposals.
 */
function limitWithScalingRules(up: boolean, ...[currentReplicas, scaleUpEvents, scaleDownEvents, scalingRules, now]: LimitArgs): number {
  if (scalingRules.selectPolicy === 'Disabled') return currentReplicas;
  // The least change (`Min`) is the lowest count when scaling up and the highest when scaling down.
  const lowest = (scalingRules.selectPolicy === 'Min') === up;
  let result = lowest ? maxInt32 : minInt32;
  let proposed = 0;
  for (const policy of scalingRules.policies ?? []) {
    const added = getReplicasChangePerPeriod(policy.periodSeconds, scaleUpEvents, now);
    const deleted = getReplicasChangePerPeriod(policy.periodSeconds, scaleDownEvents, now);
    const periodStartReplicas = currentReplicas - added + deleted;
    if (policy.type === 'Pods') proposed = up ? periodStartReplicas + policy.value : periodStartReplicas - policy.value;
    else if (policy.type === 'Percent') proposed = up ? Math.ceil(periodStartReplicas * (1 + policy.value / 100)) : Math.trunc(periodStartReplicas * (1 - policy.value / 100));
    result = lowest ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}
