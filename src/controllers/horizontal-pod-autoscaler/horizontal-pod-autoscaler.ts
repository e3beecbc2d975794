/**
 * The horizontal pod autoscaler controller (`pkg/controller/podautoscaler/horizontal.go`, v1.32) in a cluster
 * without metrics APIs, as kubemix is: every sync period each HPA's scale target is read through its `scale`
 * subresource and the HPA's status and conditions are written as kube-controller-manager writes them. A
 * target whose replicas are outside [minReplicas, maxReplicas] is scaled into range; a target at zero
 * replicas has scaling disabled; otherwise every metric fails with the error of its absent API (see
 * `_metrics.ts`), which users see as `cpu: <unknown>/80%` in `kubectl get hpa` and as the ScalingActive
 * condition and Warning events in `kubectl describe hpa`.
 */
import type {
  CrossVersionObjectReference,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerCondition,
  HorizontalPodAutoscalerStatus,
  MetricSpec,
  MetricStatus,
  MetricTarget,
} from 'kubernetes-types/autoscaling/v2.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { labelSelectorAsSelector, parseSelector, Selector, SelectorParseError } from '../../api/labels.js';
import { resources, type ResourceType } from '../../api/resources.js';
import {
  asError,
  errorMessage,
  NamespaceIndex,
  objectKey,
  runWorkers,
  semanticEqual,
  type Controller,
  type ControllerContext,
  type EventRecorder,
  type Informer,
  type WorkQueue,
} from '../_context.js';
import { formatTime } from '../_pods.js';
import { eventComponents, names } from '../names.js';
import { getExternalMetricReplicas, getMetricReplicas, getObjectMetricReplicas, getResourceReplicas } from './_metrics.js';
import { getScale, parseGroupVersion, restMappings, updateScale, type ScaleView } from './_scale.js';
import { ScalingHistory, type ConditionChange } from './_scaling.js';
import { deepCopy } from '../../util/deep-copy.js';

export interface HorizontalPodAutoscalerOptions {
  /** `--horizontal-pod-autoscaler-sync-period`: how often each HPA is reconciled (default 15 s). */
  syncPeriodMs?: number;
  /** `--horizontal-pod-autoscaler-downscale-stabilization` (default 5 min). */
  downscaleStabilizationWindowMs?: number;
  /** `--concurrent-horizontal-pod-autoscaler-syncs` (default 5). */
  workers?: number;
}

export const defaultSyncPeriodMs = 15_000;
export const defaultDownscaleStabilizationWindowMs = 5 * 60_000;

/** `HorizontalPodAutoscalerConditionType`s. */
export const conditionTypes = {
  AbleToScale: 'AbleToScale',
  ScalingActive: 'ScalingActive',
  ScalingLimited: 'ScalingLimited',
} as const;

type ConditionStatus = 'True' | 'False';

/** A metric whose replica count could not be computed: the condition to set and the error to report. */
interface MetricFailure {
  condition: HorizontalPodAutoscalerCondition;
  error: string;
}

/**
 * `computeReplicasForMetrics`' answer. Upstream also answers a replica count; here it is always its failure
 * signal, -1, since no metric yields a value.
 */
interface MetricsResult {
  statuses: MetricStatus[] | undefined;
  /** Absent only for an HPA without metrics (the API server defaults one, so it takes an undefaulted object). */
  error: string | undefined;
}

/**
 * `setConditionInList`: sets the condition of `type` in place, appending it when absent; the transition time
 * moves only when the status changes. Reason and message are omitted when empty (omitempty).
 */
export function setCondition(hpa: HorizontalPodAutoscaler, type: string, status: ConditionStatus | '', reason: string, message: string, now: number): void {
  const st = ((hpa as { status?: HorizontalPodAutoscalerStatus }).status ??= {} as HorizontalPodAutoscalerStatus);
  const list = ((st as { conditions?: HorizontalPodAutoscalerCondition[] }).conditions ??= []);
  let cond = list.find((c) => c.type === type);
  if (cond === undefined) {
    cond = { type, status: '' };
    list.push(cond);
  }
  const c = cond as { status: string; lastTransitionTime?: string; reason?: string; message?: string };
  if (c.status !== status) c.lastTransitionTime = formatTime(now);
  c.status = status;
  if (reason === '') delete c.reason;
  else c.reason = reason;
  if (message === '') delete c.message;
  else c.message = message;
}

export class HorizontalController implements Controller {
  readonly name = names.HorizontalPodAutoscaler;
  private readonly queue: WorkQueue<string>;
  private readonly hpaInformer: Informer<HorizontalPodAutoscaler>;
  private readonly podInformer: Informer<Pod>;
  private readonly recorder: EventRecorder;
  private readonly syncPeriodMs: number;
  private readonly workers: number;
  private readonly history: ScalingHistory;
  /** `hpaSelectors`: each HPA's last known target selector, `labels.Nothing()` until its first sync. */
  private readonly hpaSelectors = new Map<string, Selector>();
  private readonly stopped = new AbortController();

  constructor(
    private readonly ctx: ControllerContext,
    opts: HorizontalPodAutoscalerOptions = {},
  ) {
    this.queue = ctx.newQueue();
    this.hpaInformer = ctx.informer<HorizontalPodAutoscaler>(resources.horizontalpodautoscalers);
    this.podInformer = ctx.informer<Pod>(resources.pods);
    this.recorder = ctx.recorder(eventComponents.horizontalPodAutoscaler);
    this.syncPeriodMs = opts.syncPeriodMs ?? defaultSyncPeriodMs;
    this.workers = opts.workers ?? 5;
    this.history = new ScalingHistory(opts.downscaleStabilizationWindowMs ?? defaultDownscaleStabilizationWindowMs);
  }

  /** `Run`: the workers start once the HPA and pod caches have synced. */
  start(): void {
    this.hpaInformer.addHandlers({
      onAdd: (h) => this.enqueueHPA(h),
      onUpdate: (_old, h) => this.enqueueHPA(h),
      onDelete: (h) => this.deleteHPA(h),
    });
    const signal = this.stopped.signal;
    void Promise.all([this.hpaInformer.waitForSync(signal), this.podInformer.waitForSync(signal)]).then(
      () => runWorkers(this.queue, (key) => this.processNextWorkItem(key), this.workers),
      () => undefined,
    );
  }

  stop(): void {
    this.stopped.abort();
    this.queue.shutDown();
  }

  /**
   * `enqueueHPA`: every add and update waits one sync period in the queue (upstream's
   * `FixedItemIntervalRateLimiter`), so a new HPA is first reconciled a sync period after it appears, and
   * an update does not hurry the next sync. Registers the HPA's selector as Nothing until its first sync.
   */
  private enqueueHPA(hpa: HorizontalPodAutoscaler): void {
    const key = objectKey(hpa);
    this.queue.addAfter(key, this.syncPeriodMs);
    if (!this.hpaSelectors.has(key)) this.hpaSelectors.set(key, Selector.nothing());
  }

  /** `deleteHPA`: forgets the key's backoff and its selector; the pending sync finds it gone and drops its history. */
  private deleteHPA(hpa: HorizontalPodAutoscaler): void {
    const key = objectKey(hpa);
    this.queue.forget(key);
    this.hpaSelectors.delete(key);
  }

  /**
   * `processNextWorkItem`: reconciles the key and, unless the HPA is gone, queues it again one sync period
   * later, whatever the outcome (errors are only logged upstream, never retried sooner).
   */
  private async processNextWorkItem(key: string): Promise<void> {
    let deleted = false;
    try {
      ({ deleted } = await this.reconcileKey(key));
    } catch {
      // A bug, not an outcome: upstream's HandleCrash would log it; the HPA is tried again next period.
    }
    if (!deleted) this.queue.addAfter(key, this.syncPeriodMs);
  }

  /** `reconcileKey`: answers whether the HPA is gone and the error upstream would log. */
  async reconcileKey(key: string): Promise<{ deleted: boolean; error?: string }> {
    const hpa = this.hpaInformer.get(key);
    if (hpa === undefined) {
      this.history.forget(key);
      return { deleted: true };
    }
    const error = await this.reconcileAutoscaler(hpa, key);
    return error === undefined ? { deleted: false } : { deleted: false, error };
  }

  /** `setCondition`, at the controller's clock. */
  private setCondition(hpa: HorizontalPodAutoscaler, type: string, status: ConditionStatus | '', reason: string, message: string): void {
    setCondition(hpa, type, status, reason, message, this.ctx.clock.now());
  }

  /** The `setCondition` calls of `normalizeDesiredReplicas` and `normalizeDesiredReplicasWithBehaviors`. */
  private applyChange(hpa: HorizontalPodAutoscaler, type: string, c: ConditionChange): void {
    this.setCondition(hpa, type, c.status, c.reason, c.message);
  }

  /** `reconcileAutoscaler`: one sync of one HPA; answers the error upstream returns (and logs). */
  private async reconcileAutoscaler(hpaShared: HorizontalPodAutoscaler, key: string): Promise<string | undefined> {
    // A copy: the informer's object is shared (and may be frozen).
    const hpa = deepCopy(hpaShared);
    const hpaStatusOriginal: HorizontalPodAutoscalerStatus | undefined = deepCopy(hpa.status);
    const namespace = hpa.metadata?.namespace ?? '';
    const ref: CrossVersionObjectReference = hpa.spec?.scaleTargetRef ?? { kind: '', name: '' };
    const reference = `${ref.kind}/${namespace}/${ref.name}`;
    const now = (): number => this.ctx.clock.now();

    const failedGetScale = async (err: string): Promise<void> => {
      this.recorder.event(hpa, 'Warning', 'FailedGetScale', err);
      this.setCondition(hpa, conditionTypes.AbleToScale, 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${err}`);
      await this.updateStatusIfNeeded(hpaStatusOriginal, hpa);
    };
    let group: string;
    try {
      ({ group } = parseGroupVersion(ref.apiVersion ?? ''));
    } catch (e) {
      await failedGetScale(errorMessage(e));
      return `invalid API version in scale target reference: ${errorMessage(e)}`;
    }
    let mappings: ResourceType[];
    try {
      mappings = await restMappings(this.ctx.client, group, ref.kind);
    } catch (e) {
      await failedGetScale(errorMessage(e));
      return `unable to determine resource for scale target reference: ${errorMessage(e)}`;
    }
    let found: { scale: ScaleView; target: ResourceType };
    try {
      found = await this.scaleForResourceMappings(namespace, ref.name, mappings);
    } catch (e) {
      await failedGetScale(errorMessage(e));
      return `failed to query scale subresource for ${reference}: ${errorMessage(e)}`;
    }
    const { scale, target } = found;
    this.setCondition(hpa, conditionTypes.AbleToScale, 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
    const currentReplicas = scale.specReplicas;
    this.history.recordInitialRecommendation(currentReplicas, key, now());

    let metricStatuses: MetricStatus[] | undefined;
    let desiredReplicas = 0;
    let rescaleReason = '';
    const minReplicas = hpa.spec?.minReplicas ?? 1;
    const maxReplicas = hpa.spec?.maxReplicas ?? 0;
    let rescale = true;

    if (currentReplicas === 0 && minReplicas !== 0) {
      // Autoscaling is disabled for this resource.
      desiredReplicas = 0;
      rescale = false;
      this.setCondition(hpa, conditionTypes.ScalingActive, 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
    } else if (currentReplicas > maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desiredReplicas = maxReplicas;
    } else if (currentReplicas < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desiredReplicas = minReplicas;
    } else {
      const metrics = this.computeReplicasForMetrics(hpa, scale, hpa.spec?.metrics ?? []);
      metricStatuses = metrics.statuses;
      if (metrics.error !== undefined) {
        this.setCurrentReplicasAndMetricsInStatus(hpa, currentReplicas, metricStatuses);
        await this.updateStatusIfNeeded(hpaStatusOriginal, hpa);
        this.recorder.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', metrics.error);
        return `failed to compute desired number of replicas based on listed metrics for ${reference}: ${metrics.error}`;
      }
      // Only an HPA without metrics gets here (no error, and upstream's failure signal -1 as the metrics'
      // recommendation, which leaves desiredReplicas at 0): a scale down, bounded by minReplicas and the
      // stabilization window.
      if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
      const normalized =
        hpa.spec?.behavior === undefined
          ? this.history.normalizeDesiredReplicas(hpa, key, currentReplicas, desiredReplicas, minReplicas, now())
          : this.history.normalizeDesiredReplicasWithBehaviors(hpa, key, currentReplicas, desiredReplicas, minReplicas, now());
      this.applyChange(hpa, conditionTypes.AbleToScale, normalized.ableToScale);
      this.applyChange(hpa, conditionTypes.ScalingLimited, normalized.scalingLimited);
      desiredReplicas = normalized.desiredReplicas;
      rescale = desiredReplicas !== currentReplicas;
    }

    if (rescale) {
      try {
        await updateScale(this.ctx.client, target, namespace, ref.name, desiredReplicas);
      } catch (e) {
        const err = errorMessage(e);
        this.recorder.event(hpa, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${err}`);
        this.setCondition(hpa, conditionTypes.AbleToScale, 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${err}`);
        this.setCurrentReplicasAndMetricsInStatus(hpa, currentReplicas, metricStatuses);
        await this.updateStatusIfNeeded(hpaStatusOriginal, hpa);
        return `failed to rescale ${reference}: ${err}`;
      }
      this.setCondition(hpa, conditionTypes.AbleToScale, 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desiredReplicas}`);
      this.recorder.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`);
      this.history.storeScaleEvent(hpa.spec?.behavior, key, currentReplicas, desiredReplicas, now());
    } else {
      desiredReplicas = currentReplicas;
    }
    this.setStatus(hpa, currentReplicas, desiredReplicas, metricStatuses, rescale);
    return this.updateStatusIfNeeded(hpaStatusOriginal, hpa);
  }

  /**
   * `scaleForResourceMappings`: the scale of the first mapping that answers, else the first mapping's
   * error.
   */
  private async scaleForResourceMappings(namespace: string, name: string, mappings: readonly ResourceType[]): Promise<{ scale: ScaleView; target: ResourceType }> {
    let firstErr: Error | undefined;
    for (const [i, mapping] of mappings.entries()) {
      try {
        return { scale: await getScale(this.ctx.client, mapping, namespace, name), target: mapping };
      } catch (e) {
        if (i === 0) firstErr = asError(e);
      }
    }
    throw firstErr ?? new Error('unrecognized resource');
  }

  /**
   * `computeReplicasForMetrics`: validates the target's selector, then computes each metric. Every metric
   * fails here (no metrics API is served), so upstream's "all metrics invalid" branch is always taken: the
   * first failure's condition is set and the error names it.
   */
  private computeReplicasForMetrics(hpa: HorizontalPodAutoscaler, scale: ScaleView, metricSpecs: readonly MetricSpec[]): MetricsResult {
    const selectorError = this.validateAndParseSelector(hpa, scale.selector);
    if (selectorError !== undefined) return { statuses: undefined, error: selectorError };
    // The status of a metric that failed is the zero MetricStatus, `{type: ""}`.
    const statuses: MetricStatus[] = metricSpecs.map(() => ({ type: '' }));
    let first: MetricFailure | undefined;
    for (const spec of metricSpecs) {
      const failure = this.computeReplicasForMetric(hpa, spec);
      first ??= failure;
    }
    const c = first?.condition;
    // With no metrics at all upstream sets its zero condition and reports no error.
    this.setCondition(hpa, c?.type ?? '', (c?.status ?? '') as ConditionStatus | '', c?.reason ?? '', c?.message ?? '');
    const error = first === undefined ? undefined : `invalid metrics (${metricSpecs.length} invalid out of ${metricSpecs.length}), first error is: ${first.error}`;
    return { statuses, error };
  }

  /**
   * `validateAndParseSelector`: the target's selector must be set, parse, and select no pod another HPA's
   * target also selects. Answers the error, having recorded the event and set ScalingActive.
   */
  private validateAndParseSelector(hpa: HorizontalPodAutoscaler, selector: string): string | undefined {
    if (selector === '') {
      const errMsg = 'selector is required';
      this.recorder.event(hpa, 'Warning', 'SelectorRequired', errMsg);
      this.setCondition(hpa, conditionTypes.ScalingActive, 'False', 'InvalidSelector', "the HPA target's scale is missing a selector");
      return errMsg;
    }
    let parsed: Selector;
    try {
      parsed = parseSelector(selector);
    } catch (e) {
      if (!(e instanceof SelectorParseError)) throw e;
      const errMsg = `couldn't convert selector into a corresponding internal selector object: ${e.message}`;
      this.recorder.event(hpa, 'Warning', 'InvalidSelector', errMsg);
      this.setCondition(hpa, conditionTypes.ScalingActive, 'False', 'InvalidSelector', errMsg);
      return errMsg;
    }
    const key = objectKey(hpa);
    // Only an HPA registered by enqueueHPA (not deleted since) records its selector.
    if (this.hpaSelectors.has(key)) this.hpaSelectors.set(key, parsed);
    const namespace = hpa.metadata?.namespace ?? '';
    const pods = this.podInformer.byIndex(NamespaceIndex, namespace).filter((p) => parsed.matches(p.metadata?.labels));
    const selectingHpas = this.hpasControllingPodsUnderSelector(namespace, pods);
    if (selectingHpas.length > 1) {
      const errMsg = `pods by selector ${selector} are controlled by multiple HPAs: [${selectingHpas.join(' ')}]`;
      this.recorder.event(hpa, 'Warning', 'AmbiguousSelector', errMsg);
      this.setCondition(hpa, conditionTypes.ScalingActive, 'False', 'AmbiguousSelector', errMsg);
      return errMsg;
    }
    return undefined;
  }

  /**
   * `hpasControllingPodsUnderSelector`: the HPAs of the namespace whose recorded selector selects any of the
   * pods, as `namespace/name`. Sorted (upstream lists them in map order).
   */
  private hpasControllingPodsUnderSelector(namespace: string, pods: readonly Pod[]): string[] {
    const hpas = new Set<string>();
    for (const [key, selector] of this.hpaSelectors) {
      if (!key.startsWith(`${namespace}/`)) continue;
      if (pods.some((p) => selector.matches(p.metadata?.labels))) hpas.add(key);
    }
    return [...hpas].sort();
  }

  /** `getUnableComputeReplicaCountCondition`: records the Warning event and answers the ScalingActive condition. */
  private unableToComputeReplicaCount(hpa: HorizontalPodAutoscaler, reason: string, err: string): MetricFailure {
    this.recorder.event(hpa, 'Warning', reason, err);
    return { condition: { type: conditionTypes.ScalingActive, status: 'False', reason, message: `the HPA was unable to compute the replica count: ${err}` }, error: err };
  }

  /** `computeReplicasForMetric`: one metric's failure, its error wrapped as upstream wraps it per source type. */
  private computeReplicasForMetric(hpa: HorizontalPodAutoscaler, spec: MetricSpec): MetricFailure {
    const wrap = (f: MetricFailure, prefix: string): MetricFailure => ({ condition: f.condition, error: `${prefix}: ${f.error}` });
    switch (spec.type) {
      case 'Object': {
        const selectorErr = metricSelectorError(spec.object?.metric.selector);
        if (selectorErr !== undefined) return wrap(this.unableToComputeReplicaCount(hpa, 'FailedGetObjectMetric', selectorErr), 'failed to get object metric value');
        return wrap(this.computeStatusForObjectMetric(hpa, spec), 'failed to get object metric value');
      }
      case 'Pods': {
        const selectorErr = metricSelectorError(spec.pods?.metric.selector);
        if (selectorErr !== undefined) return wrap(this.unableToComputeReplicaCount(hpa, 'FailedGetPodsMetric', selectorErr), 'failed to get pods metric value');
        // `computeStatusForPodsMetric`.
        return wrap(this.unableToComputeReplicaCount(hpa, 'FailedGetPodsMetric', getMetricReplicas(spec.pods?.metric.name ?? '')), 'failed to get pods metric value');
      }
      case 'Resource': {
        const name = spec.resource?.name ?? '';
        // `computeStatusForResourceMetric`.
        const err = computeStatusForResourceMetricGeneric(spec.resource?.target ?? { type: '' }, name);
        return wrap(this.unableToComputeReplicaCount(hpa, 'FailedGetResourceMetric', err), `failed to get ${name} resource metric value`);
      }
      case 'ContainerResource': {
        // `computeStatusForContainerResourceMetric`.
        const err = computeStatusForResourceMetricGeneric(spec.containerResource?.target ?? { type: '' }, spec.containerResource?.name ?? '');
        return wrap(this.unableToComputeReplicaCount(hpa, 'FailedGetContainerResourceMetric', err), `failed to get ${spec.containerResource?.container ?? ''} container metric value`);
      }
      case 'External':
        return wrap(this.computeStatusForExternalMetric(hpa, spec), `failed to get ${spec.external?.metric.name ?? ''} external metric value`);
      default:
        // The API server's validation rejects other types.
        return this.unableToComputeReplicaCount(hpa, 'InvalidMetricSourceType', `unknown metric source type ${JSON.stringify(spec.type)}`);
    }
  }

  /** `computeStatusForObjectMetric`. */
  private computeStatusForObjectMetric(hpa: HorizontalPodAutoscaler, spec: MetricSpec): MetricFailure {
    const object = spec.object;
    const metricName = object?.metric.name ?? '';
    const describedObject = object?.describedObject ?? { kind: '', name: '' };
    const namespace = hpa.metadata?.namespace ?? '';
    if (object?.target.type === 'Value' && object.target.value !== undefined) {
      return this.unableToComputeReplicaCount(hpa, 'FailedGetObjectMetric', getObjectMetricReplicas(metricName, namespace, describedObject));
    }
    if (object?.target.type === 'AverageValue' && object.target.averageValue !== undefined) {
      const f = this.unableToComputeReplicaCount(hpa, 'FailedGetObjectMetric', getObjectMetricReplicas(metricName, namespace, describedObject));
      return { condition: f.condition, error: `failed to get ${metricName} object metric: ${f.error}` };
    }
    return this.unableToComputeReplicaCount(hpa, 'FailedGetObjectMetric', 'invalid object metric source: neither a value target nor an average value target was set');
  }

  /** `computeStatusForExternalMetric`. */
  private computeStatusForExternalMetric(hpa: HorizontalPodAutoscaler, spec: MetricSpec): MetricFailure {
    const external = spec.external;
    const metricName = external?.metric.name ?? '';
    const err = (): string => getExternalMetricReplicas(metricName, hpa.metadata?.namespace ?? '', external?.metric.selector);
    if (external?.target.averageValue !== undefined) {
      const f = this.unableToComputeReplicaCount(hpa, 'FailedGetExternalMetric', err());
      return { condition: f.condition, error: `failed to get ${metricName} external metric: ${f.error}` };
    }
    if (external?.target.value !== undefined) {
      const f = this.unableToComputeReplicaCount(hpa, 'FailedGetExternalMetric', err());
      return { condition: f.condition, error: `failed to get external metric ${metricName}: ${f.error}` };
    }
    return this.unableToComputeReplicaCount(hpa, 'FailedGetExternalMetric', 'invalid external metric source: neither a value target nor an average value target was set');
  }

  /** `setCurrentReplicasAndMetricsInStatus`: keeps the last desiredReplicas. */
  private setCurrentReplicasAndMetricsInStatus(hpa: HorizontalPodAutoscaler, currentReplicas: number, metricStatuses: MetricStatus[] | undefined): void {
    this.setStatus(hpa, currentReplicas, hpa.status?.desiredReplicas ?? 0, metricStatuses, false);
  }

  /**
   * `setStatus`: a new status of current and desired replicas, metric statuses, the kept conditions and
   * lastScaleTime (now, on a rescale). Encoded as Go encodes it: a zero currentReplicas and empty lists are
   * omitted, desiredReplicas is always written; observedGeneration is not kept (upstream does not set it).
   */
  private setStatus(hpa: HorizontalPodAutoscaler, currentReplicas: number, desiredReplicas: number, metricStatuses: MetricStatus[] | undefined, rescale: boolean): void {
    const old = hpa.status;
    const status: HorizontalPodAutoscalerStatus = { desiredReplicas };
    const lastScaleTime = rescale ? formatTime(this.ctx.clock.now()) : old?.lastScaleTime;
    if (lastScaleTime !== undefined) status.lastScaleTime = lastScaleTime;
    if (currentReplicas !== 0) status.currentReplicas = currentReplicas;
    if (metricStatuses !== undefined && metricStatuses.length > 0) status.currentMetrics = metricStatuses;
    if (old?.conditions !== undefined && old.conditions.length > 0) status.conditions = old.conditions;
    (hpa as { status?: HorizontalPodAutoscalerStatus }).status = status;
  }

  /** `updateStatusIfNeeded`: writes the status unless it equals the one read. */
  private async updateStatusIfNeeded(oldStatus: HorizontalPodAutoscalerStatus | undefined, hpa: HorizontalPodAutoscaler): Promise<string | undefined> {
    if (semanticEqual(oldStatus ?? {}, hpa.status ?? {})) return undefined;
    return this.updateStatus(hpa);
  }

  /** `updateStatus`: PUT of the status subresource (optimistic on the informer's resourceVersion). */
  private async updateStatus(hpa: HorizontalPodAutoscaler): Promise<string | undefined> {
    try {
      await this.ctx.client.update(resources.horizontalpodautoscalers, hpa, { namespace: hpa.metadata?.namespace ?? '', subresource: 'status', answer: 'none' });
      return undefined;
    } catch (e) {
      this.recorder.event(hpa, 'Warning', 'FailedUpdateStatus', errorMessage(e));
      return `failed to update status for ${hpa.metadata?.name ?? ''}: ${errorMessage(e)}`;
    }
  }
}

/**
 * `computeStatusForResourceMetricGeneric`: an average value target reads usage, an average utilization
 * target utilization; both fail at the resource metrics query. Answers the error.
 */
function computeStatusForResourceMetricGeneric(target: MetricTarget, resourceName: string): string {
  if (target.averageValue !== undefined) return `failed to get ${resourceName} usage: ${getResourceReplicas(resourceName)}`;
  if (target.averageUtilization === undefined) return 'invalid resource metric source: neither an average utilization target nor an average value (usage) target was set';
  return `failed to get ${resourceName} utilization: ${getResourceReplicas(resourceName)}`;
}

/** `metav1.LabelSelectorAsSelector` of a metric's selector: its error, if any. */
function metricSelectorError(selector: LabelSelector | undefined): string | undefined {
  try {
    labelSelectorAsSelector(selector);
    return undefined;
  } catch (e) {
    if (e instanceof SelectorParseError) return e.message;
    throw e;
  }
}

/** `startHPAControllerWithMetricsClient` (cmd/kube-controller-manager/app/autoscaling.go). */
export function create(ctx: ControllerContext, opts: HorizontalPodAutoscalerOptions = {}): HorizontalController {
  return new HorizontalController(ctx, opts);
}
