/**
 * HorizontalPodAutoscalers as `pkg/apis/autoscaling/validation` (v1.32) checks them, with the options the
 * registry strategy derives. kubemix stores HPAs as autoscaling/v2 and turns an autoscaling/v1 request into
 * that form before validating (../registry/converting-store.ts), so these validators always see v2, whose
 * field paths are those of the internal type upstream reports (a v1 `targetCPUUtilizationPercentage` is
 * `spec.metrics[0].resource.target.averageUtilization`, as it is upstream).
 *
 * 1.32 has neither `behavior.*.tolerance` (HPAConfigurableTolerance, 1.33) nor the apiVersion checks of
 * `scaleTargetRef` (1.34); HPAScaleToZero is off by default, so `minReplicas` must be at least 1 unless
 * the stored object already has 0.
 */
import type {
  ContainerResourceMetricSource,
  CrossVersionObjectReference,
  ExternalMetricSource,
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HPAScalingPolicy,
  HPAScalingRules,
  MetricIdentifier,
  MetricSpec,
  MetricTarget,
  ObjectMetricSource,
  PodsMetricSource,
  ResourceMetricSource,
} from 'kubernetes-types/autoscaling/v2.js';
import { type FieldError, fieldErrors, Path } from '../../api/field-errors.js';
import { isDNS1123Label, nameIsDNSSubdomain, validatePathSegmentName } from './_names.js';
import { goQuantity } from './_go.js';
import { validateNonnegativeField, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validateContainerResourceName } from './resources.js';

/** `MaxPeriodSeconds`: the longest scaling policy period. */
export const maxPeriodSeconds = 1800;
/** `MaxStabilizationWindowSeconds`: the longest stabilization window. */
export const maxStabilizationWindowSeconds = 3600;

const validMetricSourceTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const validSelectPolicyTypes = ['Disabled', 'Max', 'Min'];
const validPolicyTypes = ['Percent', 'Pods'];

/** `ValidateCrossVersionObjectReference`: kind and name are required path segment names. */
export function validateCrossVersionObjectReference(ref: Partial<CrossVersionObjectReference> | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['kind', 'name'] as const) {
    const v = ref?.[f] ?? '';
    if (v === '') errs.push(fieldErrors.required(path.child(f), ''));
    else for (const m of validatePathSegmentName(v, false)) errs.push(fieldErrors.invalid(path.child(f), v, m));
  }
  return errs;
}

/** `validateHorizontalPodAutoscalerSpec`. */
function validateHorizontalPodAutoscalerSpec(spec: HorizontalPodAutoscaler['spec'], path: Path, minReplicasLowerBound: number): FieldError[] {
  const errs: FieldError[] = [];
  const min = spec?.minReplicas;
  const max = spec?.maxReplicas ?? 0;
  if (min != null && min < minReplicasLowerBound) {
    errs.push(fieldErrors.invalid(path.child('minReplicas'), min, `must be greater than or equal to ${minReplicasLowerBound}`));
  }
  if (max < 1) errs.push(fieldErrors.invalid(path.child('maxReplicas'), max, 'must be greater than 0'));
  if (min != null && max < min) errs.push(fieldErrors.invalid(path.child('maxReplicas'), max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionObjectReference(spec?.scaleTargetRef, path.child('scaleTargetRef')));
  errs.push(...validateMetrics(spec?.metrics, path.child('metrics'), min));
  errs.push(...validateBehavior(spec?.behavior, path.child('behavior')));
  return errs;
}

/** `ValidateHorizontalPodAutoscaler` (create): `minReplicas` at least 1 with HPAScaleToZero off. */
export function validateHorizontalPodAutoscaler(hpa: HorizontalPodAutoscaler): FieldError[] {
  const errs = validateObjectMeta(hpa.metadata, { namespaced: true, nameFn: nameIsDNSSubdomain });
  errs.push(...validateHorizontalPodAutoscalerSpec(hpa.spec, Path.root('spec'), 1));
  return errs;
}

/** `ValidateHorizontalPodAutoscalerUpdate`: an HPA stored with `minReplicas: 0` may keep it. */
export function validateHorizontalPodAutoscalerUpdate(hpa: HorizontalPodAutoscaler, old: HorizontalPodAutoscaler): FieldError[] {
  const errs = validateObjectMetaUpdate(hpa.metadata, old.metadata);
  const lowerBound = old.spec?.minReplicas === 0 ? 0 : 1;
  errs.push(...validateHorizontalPodAutoscalerSpec(hpa.spec, Path.root('spec'), lowerBound));
  return errs;
}

/** `ValidateHorizontalPodAutoscalerStatusUpdate`: replica counts are non-negative. */
export function validateHorizontalPodAutoscalerStatusUpdate(hpa: HorizontalPodAutoscaler, old: HorizontalPodAutoscaler): FieldError[] {
  const errs = validateObjectMetaUpdate(hpa.metadata, old.metadata);
  const sp = Path.root('status');
  errs.push(...validateNonnegativeField(hpa.status?.currentReplicas ?? 0, sp.child('currentReplicas')));
  errs.push(...validateNonnegativeField(hpa.status?.desiredReplicas ?? 0, sp.child('desiredReplicas')));
  return errs;
}

/** `validateMetrics`: scaling to zero needs an Object or External metric. */
function validateMetrics(metrics: readonly MetricSpec[] | undefined, path: Path, minReplicas: number | undefined): FieldError[] {
  const errs: FieldError[] = [];
  let hasObjectOrExternal = false;
  (metrics ?? []).forEach((m, i) => {
    errs.push(...validateMetricSpec(m, path.index(i)));
    if (m.type === 'Object' || m.type === 'External') hasObjectOrExternal = true;
  });
  if (minReplicas === 0 && !hasObjectOrExternal) {
    errs.push(fieldErrors.forbidden(path, 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  return errs;
}

/** `validateBehavior`. */
function validateBehavior(behavior: HorizontalPodAutoscalerBehavior | undefined, path: Path): FieldError[] {
  if (behavior == null) return [];
  return [...validateScalingRules(behavior.scaleUp, path.child('scaleUp')), ...validateScalingRules(behavior.scaleDown, path.child('scaleDown'))];
}

/** `validateScalingRules`. */
function validateScalingRules(rules: HPAScalingRules | undefined, path: Path): FieldError[] {
  if (rules == null) return [];
  const errs: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (window != null && window < 0) errs.push(fieldErrors.invalid(path.child('stabilizationWindowSeconds'), window, 'must be greater than or equal to zero'));
  if (window != null && window > maxStabilizationWindowSeconds) {
    errs.push(fieldErrors.invalid(path.child('stabilizationWindowSeconds'), window, `must be less than or equal to ${maxStabilizationWindowSeconds}`));
  }
  if (rules.selectPolicy != null && !validSelectPolicyTypes.includes(rules.selectPolicy)) {
    errs.push(fieldErrors.notSupported(path.child('selectPolicy'), rules.selectPolicy, validSelectPolicyTypes));
  }
  const policies = rules.policies ?? [];
  if (policies.length === 0) errs.push(fieldErrors.required(path.child('policies'), 'must specify at least one Policy'));
  policies.forEach((p, i) => errs.push(...validateScalingPolicy(p, path.child('policies').index(i))));
  return errs;
}

/** `validateScalingPolicy`. */
function validateScalingPolicy(policy: HPAScalingPolicy, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const type = policy.type ?? '';
  if (type !== 'Pods' && type !== 'Percent') errs.push(fieldErrors.notSupported(path.child('type'), type, validPolicyTypes));
  const value = policy.value ?? 0;
  if (value <= 0) errs.push(fieldErrors.invalid(path.child('value'), value, 'must be greater than zero'));
  const period = policy.periodSeconds ?? 0;
  if (period <= 0) errs.push(fieldErrors.invalid(path.child('periodSeconds'), period, 'must be greater than zero'));
  if (period > maxPeriodSeconds) errs.push(fieldErrors.invalid(path.child('periodSeconds'), period, `must be less than or equal to ${maxPeriodSeconds}`));
  return errs;
}

type SourceField = 'object' | 'external' | 'pods' | 'resource' | 'containerResource';

const sourceFieldOfType: Readonly<Record<string, SourceField>> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  External: 'external',
  ContainerResource: 'containerResource',
};

/**
 * `validateMetricSpec`: the type names one source, which must be the only one set. Only the first source
 * present is validated, as upstream does; an unknown type is reported twice (upstream's set check and its
 * switch default both add it).
 */
function validateMetricSpec(spec: MetricSpec, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const type = spec.type ?? '';
  if (type === '') errs.push(fieldErrors.required(path.child('type'), 'must specify a metric source type'));
  if (!validMetricSourceTypes.includes(type)) errs.push(fieldErrors.notSupported(path.child('type'), type, validMetricSourceTypes));
  const present: SourceField[] = [];
  const validators: [SourceField, () => FieldError[]][] = [
    ['object', () => validateObjectSource(spec.object as ObjectMetricSource, path.child('object'))],
    ['external', () => validateExternalSource(spec.external as ExternalMetricSource, path.child('external'))],
    ['pods', () => validatePodsSource(spec.pods as PodsMetricSource, path.child('pods'))],
    ['resource', () => validateResourceSource(spec.resource as ResourceMetricSource, path.child('resource'))],
    ['containerResource', () => validateContainerResourceSource(spec.containerResource as ContainerResourceMetricSource, path.child('containerResource'))],
  ];
  for (const [field, validate] of validators) {
    if (spec[field] == null) continue;
    present.push(field);
    if (present.length === 1) errs.push(...validate());
  }
  const expected = sourceFieldOfType[type];
  if (expected === undefined) {
    errs.push(fieldErrors.notSupported(path.child('type'), type, validMetricSourceTypes));
  } else if (!present.includes(expected)) {
    errs.push(fieldErrors.required(path.child(expected), 'must populate information for the given metric source'));
  }
  if (present.length !== 1) {
    // Upstream walks a set (random order); sorted here so the list is stable.
    for (const f of present.filter((p) => p !== expected).sort()) errs.push(fieldErrors.forbidden(path.child(f), 'must populate the given metric source only'));
  }
  return errs;
}

/** `validateObjectSource`. */
function validateObjectSource(src: ObjectMetricSource, path: Path): FieldError[] {
  const errs = validateCrossVersionObjectReference(src.describedObject, path.child('describedObject'));
  errs.push(...validateMetricIdentifier(src.metric, path.child('metric')));
  errs.push(...validateMetricTarget(src.target, path.child('target')));
  if (src.target?.value == null && src.target?.averageValue == null) {
    errs.push(fieldErrors.required(path.child('target', 'averageValue'), 'must set either a target value or averageValue'));
  }
  return errs;
}

/** `validateExternalSource`. */
function validateExternalSource(src: ExternalMetricSource, path: Path): FieldError[] {
  const errs = validateMetricIdentifier(src.metric, path.child('metric'));
  errs.push(...validateMetricTarget(src.target, path.child('target')));
  const hasValue = src.target?.value != null;
  const hasAverage = src.target?.averageValue != null;
  if (!hasValue && !hasAverage) errs.push(fieldErrors.required(path.child('target', 'averageValue'), 'must set either a target value for metric or a per-pod target'));
  if (hasValue && hasAverage) errs.push(fieldErrors.forbidden(path.child('target', 'value'), 'may not set both a target value for metric and a per-pod target'));
  return errs;
}

/** `validatePodsSource`. */
function validatePodsSource(src: PodsMetricSource, path: Path): FieldError[] {
  const errs = validateMetricIdentifier(src.metric, path.child('metric'));
  errs.push(...validateMetricTarget(src.target, path.child('target')));
  if (src.target?.averageValue == null) errs.push(fieldErrors.required(path.child('target', 'averageValue'), 'must specify a positive target averageValue'));
  return errs;
}

/** The utilization/raw-value choice `validateResourceSource` and `validateContainerResourceSource` share. */
function validateUtilizationOrValue(target: MetricTarget | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const hasUtilization = target?.averageUtilization != null;
  const hasValue = target?.averageValue != null;
  if (!hasUtilization && !hasValue) errs.push(fieldErrors.required(path.child('averageUtilization'), 'must set either a target raw value or a target utilization'));
  if (hasUtilization && hasValue) errs.push(fieldErrors.forbidden(path.child('averageValue'), 'may not set both a target raw value and a target utilization'));
  return errs;
}

/** `validateContainerResourceSource`. */
function validateContainerResourceSource(src: ContainerResourceMetricSource, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const name = src.name ?? '';
  if (name === '') errs.push(fieldErrors.required(path.child('name'), 'must specify a resource name'));
  else errs.push(...validateContainerResourceName(name, path.child('name')));
  const container = src.container ?? '';
  if (container === '') errs.push(fieldErrors.required(path.child('container'), 'must specify a container'));
  else for (const m of isDNS1123Label(container)) errs.push(fieldErrors.invalid(path.child('container'), container, m));
  errs.push(...validateMetricTarget(src.target, path.child('target')));
  errs.push(...validateUtilizationOrValue(src.target, path.child('target')));
  return errs;
}

/** `validateResourceSource`. */
function validateResourceSource(src: ResourceMetricSource, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if ((src.name ?? '') === '') errs.push(fieldErrors.required(path.child('name'), 'must specify a resource name'));
  errs.push(...validateMetricTarget(src.target, path.child('target')));
  errs.push(...validateUtilizationOrValue(src.target, path.child('target')));
  return errs;
}

/** `validateMetricTarget`: a known type; values positive; utilization at least 1. */
function validateMetricTarget(target: MetricTarget | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const type = target?.type ?? '';
  if (type === '') errs.push(fieldErrors.required(path.child('type'), 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue') {
    errs.push(fieldErrors.invalid(path.child('type'), type, 'must be either Utilization, Value, or AverageValue'));
  }
  for (const f of ['value', 'averageValue'] as const) {
    const v = target?.[f];
    if (v == null) continue;
    const q = goQuantity(v);
    if (q !== undefined && q.sign !== 1) errs.push(fieldErrors.invalid(path.child(f), q.value, 'must be positive'));
  }
  const utilization = target?.averageUtilization;
  if (utilization != null && utilization < 1) errs.push(fieldErrors.invalid(path.child('averageUtilization'), utilization, 'must be greater than 0'));
  return errs;
}

/** `validateMetricIdentifier`: the metric name is a required path segment name. */
function validateMetricIdentifier(id: MetricIdentifier | undefined, path: Path): FieldError[] {
  const name = id?.name ?? '';
  if (name === '') return [fieldErrors.required(path.child('name'), 'must specify a metric name')];
  return validatePathSegmentName(name, false).map((m) => fieldErrors.invalid(path.child('name'), name, m));
}
