/**
 * autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler conversion. kube-apiserver 1.32 converts
 * through the internal type (pkg/apis/autoscaling/v1/conversion.go, pkg/apis/autoscaling/v2/conversion.go);
 * these functions are the net v2 -> internal -> v1 and v1 -> internal -> v2 mappings.
 *
 * v1 can only express one CPU utilization target, so what it cannot express travels in annotations and is
 * read back when a v1 object is written, which lets a client read an HPA as v1 and write it back without
 * losing what a v2 client set (pkg/apis/autoscaling/annotations.go):
 *
 * - `autoscaling.alpha.kubernetes.io/metrics`: every spec metric but the CPU utilization targets, as the
 *   alpha v1 `MetricSpec` (`targetAverageUtilization`, `metricName`, `targetAverageValue`, ...);
 * - `autoscaling.alpha.kubernetes.io/current-metrics`: every status metric, as the alpha v1 `MetricStatus`;
 * - `autoscaling.alpha.kubernetes.io/behavior`: spec.behavior as the *internal* Go type, which has no json
 *   tags, so its keys are Go field names (`ScaleUp`, `StabilizationWindowSeconds`, ...);
 * - `autoscaling.alpha.kubernetes.io/conditions`: status.conditions.
 *
 * The annotations are written with Go's encoding/json (struct field order, omitempty, `<>&` escaped) and
 * read the way Go reads them: keys match case-insensitively, unknown keys are ignored, and a value Go
 * would refuse makes upstream skip that whole annotation (`if err := json.Unmarshal(...); err == nil`).
 * Both directions drop the four annotations from the object they return, and Go's `omitempty` drops an
 * annotations map left empty.
 */
import type {
  HorizontalPodAutoscalerBehavior,
  HorizontalPodAutoscalerCondition,
  HPAScalingPolicy,
  HPAScalingRules,
  MetricSpec,
  MetricStatus,
  MetricTarget,
  MetricValueStatus,
} from 'kubernetes-types/autoscaling/v2.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { canonicalQuantity } from '../../api/quantity.js';
import { given } from '../../util/go-nil.js';
import type { StoredObject } from '../storage/watch-cache.js';

/** `autoscaling.MetricSpecsAnnotation`. */
export const metricSpecsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
/** `autoscaling.MetricStatusesAnnotation`. */
export const metricStatusesAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
/** `autoscaling.HorizontalPodAutoscalerConditionsAnnotation`. */
export const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
/** `autoscaling.BehaviorSpecsAnnotation`. */
export const behaviorSpecsAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';

/** The annotations `DropRoundTripHorizontalPodAutoscalerAnnotations` removes (1.32 has no tolerance ones yet). */
const roundTripAnnotations = [metricSpecsAnnotation, behaviorSpecsAnnotation, metricStatusesAnnotation, conditionsAnnotation];

/** `autoscaling.DefaultCPUUtilization`. */
const defaultCPUUtilization = 80;

type Rec = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------
// Go's encoding/json, for the annotation payloads.

/**
 * The Go type of a JSON value. A zero value is held as Go holds it: `''`, `0`, `'0'` for a Quantity, and
 * `undefined` for a nil pointer, slice or map and for a zero metav1.Time.
 */
type GoType =
  | { readonly kind: 'string' | 'int32' | 'quantity' | 'time' | 'stringMap' }
  | { readonly kind: 'slice'; readonly elem: GoType }
  | { readonly kind: 'struct'; readonly fields: readonly GoField[] };

interface GoField {
  /** The json tag's name (or the Go field name when the type has no tags). */
  readonly name: string;
  readonly type: GoType;
  readonly pointer?: true;
  readonly omitempty?: true;
}

/** A value Go's json.Unmarshal would refuse. */
class GoDecodeError extends Error {}

const goString: GoType = { kind: 'string' };
const goInt32: GoType = { kind: 'int32' };
const goQuantity: GoType = { kind: 'quantity' };
const goTime: GoType = { kind: 'time' };
const goStringMap: GoType = { kind: 'stringMap' };
const sliceOf = (elem: GoType): GoType => ({ kind: 'slice', elem });
const struct = (...fields: GoField[]): GoType => ({ kind: 'struct', fields });
const field = (name: string, type: GoType, ...tags: ('pointer' | 'omitempty')[]): GoField => ({
  name,
  type,
  ...(tags.includes('pointer') ? { pointer: true } : {}),
  ...(tags.includes('omitempty') ? { omitempty: true } : {}),
});

function nilable(f: { type: GoType; pointer?: true }): boolean {
  return f.pointer === true || f.type.kind === 'slice' || f.type.kind === 'stringMap' || f.type.kind === 'time';
}

function zero(t: GoType): unknown {
  switch (t.kind) {
    case 'string':
      return '';
    case 'int32':
      return 0;
    case 'quantity':
      return '0';
    case 'time':
    case 'stringMap':
    case 'slice':
      return undefined;
    case 'struct': {
      const out: Rec = {};
      for (const f of t.fields) out[f.name] = f.pointer === true ? undefined : zero(f.type);
      return out;
    }
  }
}

function isObject(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** metav1.Time's UnmarshalJSON then MarshalJSON: RFC 3339, written back in UTC to the second. */
function goTimeString(s: string): string {
  const m = rfc3339.exec(s);
  const ms = m === null ? NaN : Date.parse(m[1] === undefined ? s : s.replace(m[1], ''));
  if (Number.isNaN(ms)) throw new GoDecodeError(`parsing time ${JSON.stringify(s)}`);
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Go's field lookup: an exact match first, else a case-insensitive one. */
function fieldFor(fields: readonly GoField[], key: string): GoField | undefined {
  return fields.find((f) => f.name === key) ?? fields.find((f) => f.name.toLowerCase() === key.toLowerCase());
}

/** json.Unmarshal of `v` into a fresh value of type `t`; throws `GoDecodeError` where Go returns an error. */
function goDecode(t: GoType, v: unknown, pointer = false): unknown {
  if (v === null) return pointer ? undefined : zero(t);
  switch (t.kind) {
    case 'string':
      if (typeof v === 'string') return v;
      break;
    case 'int32':
      if (typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647) return v;
      break;
    case 'quantity':
      if (typeof v === 'string' || typeof v === 'number') {
        try {
          return canonicalQuantity(v);
        } catch {
          throw new GoDecodeError(`quantity ${JSON.stringify(v)}`);
        }
      }
      break;
    case 'time':
      if (typeof v === 'string') return goTimeString(v);
      break;
    case 'stringMap':
      if (isObject(v)) {
        const out: Record<string, string> = {};
        for (const [k, x] of Object.entries(v)) {
          if (x !== null && typeof x !== 'string') throw new GoDecodeError(`map value for ${k}`);
          out[k] = x ?? '';
        }
        return out;
      }
      break;
    case 'slice':
      if (Array.isArray(v)) return v.map((e) => goDecode(t.elem, e));
      break;
    case 'struct':
      if (isObject(v)) {
        const out = zero(t) as Rec;
        for (const [k, x] of Object.entries(v)) {
          const f = fieldFor(t.fields, k);
          if (f !== undefined) out[f.name] = goDecode(f.type, x, f.pointer === true);
        }
        return out;
      }
      break;
  }
  throw new GoDecodeError(`cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into ${t.kind}`);
}

/** Whether Go's `omitempty` leaves the field out. Structs (a Quantity, a metav1.Time) are never empty. */
function goEmpty(f: GoField, v: unknown): boolean {
  if (f.type.kind === 'time' && f.pointer !== true) return false;
  if (v === undefined || v === null) return nilable(f) || f.type.kind === 'string' || f.type.kind === 'int32';
  if (f.pointer === true) return false;
  switch (f.type.kind) {
    case 'string':
      return v === '';
    case 'int32':
      return v === 0;
    case 'slice':
      return (v as unknown[]).length === 0;
    case 'stringMap':
      return Object.keys(v).length === 0;
    default:
      return false;
  }
}

/** json.Marshal's view of `v` as type `t`: struct fields in declaration order, nil as `null`, map keys sorted. */
function goEncode(t: GoType, v: unknown, pointer = false): unknown {
  if (v === undefined || v === null) return nilable({ type: t, ...(pointer ? { pointer: true as const } : {}) }) ? null : goEncode(t, zero(t));
  switch (t.kind) {
    case 'string':
    case 'int32':
    case 'time':
      return v;
    case 'quantity':
      return canonicalOrAsIs(v);
    case 'stringMap': {
      const m = v as Record<string, string>;
      return Object.fromEntries(Object.keys(m).sort().map((k) => [k, m[k]]));
    }
    case 'slice':
      return (v as unknown[]).map((e) => goEncode(t.elem, e));
    case 'struct': {
      const r = v as Rec;
      const out: Rec = {};
      for (const f of t.fields) {
        const x = r[f.name];
        if (f.omitempty === true && goEmpty(f, x)) continue;
        out[f.name] = goEncode(f.type, x, f.pointer === true);
      }
      return out;
    }
  }
}

function canonicalOrAsIs(v: unknown): unknown {
  if (typeof v !== 'string' && typeof v !== 'number') return v;
  try {
    return canonicalQuantity(v);
  } catch {
    return v;
  }
}

/** json.Marshal's text: compact, with `<`, `>`, `&`, U+2028 and U+2029 escaped as Go escapes them. */
function goMarshal(t: GoType, v: unknown): string {
  return JSON.stringify(goEncode(t, v)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** json.Unmarshal of an annotation into a fresh `T`, or undefined where Go returns an error. */
function goUnmarshal<T>(t: GoType, text: string): { value: T } | undefined {
  try {
    return { value: goDecode(t, JSON.parse(text)) as T };
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof GoDecodeError) return undefined;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The alpha v1 types the annotations hold (staging/src/k8s.io/api/autoscaling/v1/types.go), and the
// internal behavior type (pkg/apis/autoscaling/types.go).

const labelSelectorType = struct(
  field('matchLabels', goStringMap, 'omitempty'),
  field('matchExpressions', sliceOf(struct(field('key', goString), field('operator', goString), field('values', sliceOf(goString), 'omitempty'))), 'omitempty'),
);
const crossVersionObjectReferenceType = struct(field('kind', goString), field('name', goString), field('apiVersion', goString, 'omitempty'));

const metricSpecType = struct(
  field('type', goString),
  field('object', struct(
    field('target', crossVersionObjectReferenceType),
    field('metricName', goString),
    field('targetValue', goQuantity),
    field('selector', labelSelectorType, 'pointer', 'omitempty'),
    field('averageValue', goQuantity, 'pointer', 'omitempty'),
  ), 'pointer', 'omitempty'),
  field('pods', struct(
    field('metricName', goString),
    field('targetAverageValue', goQuantity),
    field('selector', labelSelectorType, 'pointer', 'omitempty'),
  ), 'pointer', 'omitempty'),
  field('resource', struct(
    field('name', goString),
    field('targetAverageUtilization', goInt32, 'pointer', 'omitempty'),
    field('targetAverageValue', goQuantity, 'pointer', 'omitempty'),
  ), 'pointer', 'omitempty'),
  field('containerResource', struct(
    field('name', goString),
    field('targetAverageUtilization', goInt32, 'pointer', 'omitempty'),
    field('targetAverageValue', goQuantity, 'pointer', 'omitempty'),
    field('container', goString),
  ), 'pointer', 'omitempty'),
  field('external', struct(
    field('metricName', goString),
    field('metricSelector', labelSelectorType, 'pointer', 'omitempty'),
    field('targetValue', goQuantity, 'pointer', 'omitempty'),
    field('targetAverageValue', goQuantity, 'pointer', 'omitempty'),
  ), 'pointer', 'omitempty'),
);

const metricStatusType = struct(
  field('type', goString),
  field('object', struct(
    field('target', crossVersionObjectReferenceType),
    field('metricName', goString),
    field('currentValue', goQuantity),
    field('selector', labelSelectorType, 'pointer', 'omitempty'),
    field('averageValue', goQuantity, 'pointer', 'omitempty'),
  ), 'pointer', 'omitempty'),
  field('pods', struct(
    field('metricName', goString),
    field('currentAverageValue', goQuantity),
    field('selector', labelSelectorType, 'pointer', 'omitempty'),
  ), 'pointer', 'omitempty'),
  field('resource', struct(
    field('name', goString),
    field('currentAverageUtilization', goInt32, 'pointer', 'omitempty'),
    field('currentAverageValue', goQuantity),
  ), 'pointer', 'omitempty'),
  field('containerResource', struct(
    field('name', goString),
    field('currentAverageUtilization', goInt32, 'pointer', 'omitempty'),
    field('currentAverageValue', goQuantity),
    field('container', goString),
  ), 'pointer', 'omitempty'),
  field('external', struct(
    field('metricName', goString),
    field('metricSelector', labelSelectorType, 'pointer', 'omitempty'),
    field('currentValue', goQuantity),
    field('currentAverageValue', goQuantity, 'pointer', 'omitempty'),
  ), 'pointer', 'omitempty'),
);

const conditionType = struct(
  field('type', goString),
  field('status', goString),
  field('lastTransitionTime', goTime, 'omitempty'),
  field('reason', goString, 'omitempty'),
  field('message', goString, 'omitempty'),
);

const scalingRulesType = struct(
  field('StabilizationWindowSeconds', goInt32, 'pointer'),
  field('SelectPolicy', goString, 'pointer'),
  field('Policies', sliceOf(struct(field('Type', goString), field('Value', goInt32), field('PeriodSeconds', goInt32)))),
);
const behaviorType = struct(field('ScaleUp', scalingRulesType, 'pointer'), field('ScaleDown', scalingRulesType, 'pointer'));

/** A LabelSelector, as v2 holds it or as decoded from an annotation (nil fields undefined). */
type GoLabelSelector = object;

interface V1CrossVersionObjectReference {
  kind: string;
  name: string;
  apiVersion: string | undefined;
}

interface V1MetricSpec {
  type: string;
  object?: { target: V1CrossVersionObjectReference; metricName: string; targetValue: string; selector: GoLabelSelector | undefined; averageValue: string | undefined } | undefined;
  pods?: { metricName: string; targetAverageValue: string; selector: GoLabelSelector | undefined } | undefined;
  resource?: { name: string; targetAverageUtilization: number | undefined; targetAverageValue: string | undefined } | undefined;
  containerResource?: { name: string; targetAverageUtilization: number | undefined; targetAverageValue: string | undefined; container: string } | undefined;
  external?: { metricName: string; metricSelector: GoLabelSelector | undefined; targetValue: string | undefined; targetAverageValue: string | undefined } | undefined;
}

interface V1MetricStatus {
  type: string;
  object?: { target: V1CrossVersionObjectReference; metricName: string; currentValue: string; selector: GoLabelSelector | undefined; averageValue: string | undefined } | undefined;
  pods?: { metricName: string; currentAverageValue: string; selector: GoLabelSelector | undefined } | undefined;
  resource?: { name: string; currentAverageUtilization: number | undefined; currentAverageValue: string } | undefined;
  containerResource?: { name: string; currentAverageUtilization: number | undefined; currentAverageValue: string; container: string } | undefined;
  external?: { metricName: string; metricSelector: GoLabelSelector | undefined; currentValue: string; currentAverageValue: string | undefined } | undefined;
}

interface V1Condition {
  type: string;
  status: string;
  lastTransitionTime: string | undefined;
  reason: string;
  message: string;
}

interface InternalScalingRules {
  StabilizationWindowSeconds: number | undefined;
  SelectPolicy: string | undefined;
  Policies: { Type: string; Value: number; PeriodSeconds: number }[] | undefined;
}

interface InternalBehavior {
  ScaleUp: InternalScalingRules | undefined;
  ScaleDown: InternalScalingRules | undefined;
}

// ---------------------------------------------------------------------------------------------------------
// v2 -> alpha v1 (Convert_v2_..._To_autoscaling_..., then Convert_autoscaling_..._To_v1_...).

function orUndefined<T>(v: T | null | undefined): T | undefined {
  return given(v) ? v : undefined;
}

function describedObjectToV1(ref: { kind?: string; name?: string; apiVersion?: string } | undefined): V1CrossVersionObjectReference {
  return { kind: ref?.kind ?? '', name: ref?.name ?? '', apiVersion: orUndefined(ref?.apiVersion) };
}

/** `Convert_autoscaling_MetricSpec_To_v1_MetricSpec`. */
function metricSpecToV1(m: MetricSpec): V1MetricSpec {
  const out: V1MetricSpec = { type: m.type ?? '' };
  const { object, pods, resource, containerResource, external } = m;
  if (given(object)) {
    out.object = {
      target: describedObjectToV1(object.describedObject),
      metricName: object.metric?.name ?? '',
      targetValue: object.target?.value ?? '0',
      selector: orUndefined(object.metric?.selector),
      averageValue: orUndefined(object.target?.averageValue),
    };
  }
  if (given(pods)) {
    out.pods = { metricName: pods.metric?.name ?? '', targetAverageValue: pods.target?.averageValue ?? '0', selector: orUndefined(pods.metric?.selector) };
  }
  if (given(resource)) {
    out.resource = { name: resource.name ?? '', targetAverageUtilization: orUndefined(resource.target?.averageUtilization), targetAverageValue: orUndefined(resource.target?.averageValue) };
  }
  if (given(containerResource)) {
    out.containerResource = {
      name: containerResource.name ?? '',
      targetAverageUtilization: orUndefined(containerResource.target?.averageUtilization),
      targetAverageValue: orUndefined(containerResource.target?.averageValue),
      container: containerResource.container ?? '',
    };
  }
  if (given(external)) {
    out.external = {
      metricName: external.metric?.name ?? '',
      metricSelector: orUndefined(external.metric?.selector),
      targetValue: orUndefined(external.target?.value),
      targetAverageValue: orUndefined(external.target?.averageValue),
    };
  }
  return out;
}

/** `Convert_autoscaling_MetricStatus_To_v1_MetricStatus`. */
function metricStatusToV1(m: MetricStatus): V1MetricStatus {
  const out: V1MetricStatus = { type: m.type ?? '' };
  const { object, pods, resource, containerResource, external } = m;
  if (given(object)) {
    out.object = {
      target: describedObjectToV1(object.describedObject),
      metricName: object.metric?.name ?? '',
      currentValue: object.current?.value ?? '0',
      selector: orUndefined(object.metric?.selector),
      averageValue: orUndefined(object.current?.averageValue),
    };
  }
  if (given(pods)) {
    out.pods = { metricName: pods.metric?.name ?? '', currentAverageValue: pods.current?.averageValue ?? '0', selector: orUndefined(pods.metric?.selector) };
  }
  if (given(resource)) {
    out.resource = { name: resource.name ?? '', currentAverageUtilization: orUndefined(resource.current?.averageUtilization), currentAverageValue: resource.current?.averageValue ?? '0' };
  }
  if (given(containerResource)) {
    out.containerResource = {
      name: containerResource.name ?? '',
      currentAverageUtilization: orUndefined(containerResource.current?.averageUtilization),
      currentAverageValue: containerResource.current?.averageValue ?? '0',
      container: containerResource.container ?? '',
    };
  }
  if (given(external)) {
    out.external = {
      metricName: external.metric?.name ?? '',
      metricSelector: orUndefined(external.metric?.selector),
      currentValue: external.current?.value ?? '0',
      currentAverageValue: orUndefined(external.current?.averageValue),
    };
  }
  return out;
}

function conditionToV1(c: HorizontalPodAutoscalerCondition): V1Condition {
  return { type: c.type ?? '', status: c.status ?? '', lastTransitionTime: orUndefined(c.lastTransitionTime), reason: c.reason ?? '', message: c.message ?? '' };
}

function scalingRulesToInternal(r: HPAScalingRules | null | undefined): InternalScalingRules | undefined {
  if (!given(r)) return undefined;
  return {
    StabilizationWindowSeconds: orUndefined(r.stabilizationWindowSeconds),
    SelectPolicy: orUndefined(r.selectPolicy),
    Policies: given(r.policies) ? r.policies.map((p) => ({ Type: p.type ?? '', Value: p.value ?? 0, PeriodSeconds: p.periodSeconds ?? 0 })) : undefined,
  };
}

// ---------------------------------------------------------------------------------------------------------
// alpha v1 -> v2 (Convert_v1_..._To_autoscaling_..., then Convert_autoscaling_..._To_v2_...). Fields come in
// the v2 Go types' order; those Go writes with omitempty are left out when nil or empty, the others are
// always written.

function selectorToV2(s: GoLabelSelector | undefined): { selector?: LabelSelector } {
  return s === undefined ? {} : { selector: goEncode(labelSelectorType, s) as LabelSelector };
}

function describedObjectToV2(ref: V1CrossVersionObjectReference): { kind: string; name: string; apiVersion?: string } {
  return { kind: ref.kind, name: ref.name, ...(given(ref.apiVersion) && ref.apiVersion !== '' ? { apiVersion: ref.apiVersion } : {}) };
}

function target(type: string, t: { value?: string | undefined; averageValue?: string | undefined; averageUtilization?: number | undefined }): MetricTarget {
  return {
    type,
    ...(t.value === undefined ? {} : { value: t.value }),
    ...(t.averageValue === undefined ? {} : { averageValue: t.averageValue }),
    ...(t.averageUtilization === undefined ? {} : { averageUtilization: t.averageUtilization }),
  };
}

function current(c: { value?: string | undefined; averageValue?: string | undefined; averageUtilization?: number | undefined }): MetricValueStatus {
  return {
    ...(c.value === undefined ? {} : { value: c.value }),
    ...(c.averageValue === undefined ? {} : { averageValue: c.averageValue }),
    ...(c.averageUtilization === undefined ? {} : { averageUtilization: c.averageUtilization }),
  };
}

/** `Convert_v1_MetricSpec_To_autoscaling_MetricSpec` and the custom source conversions it calls. */
function metricSpecFromV1(m: V1MetricSpec): MetricSpec {
  const out: MetricSpec = { type: m.type };
  const { object, pods, resource, containerResource, external } = m;
  if (object !== undefined) {
    out.object = {
      describedObject: describedObjectToV2(object.target),
      target: target(object.averageValue === undefined ? 'Value' : 'AverageValue', { value: object.targetValue, averageValue: object.averageValue }),
      metric: { name: object.metricName, ...selectorToV2(object.selector) },
    };
  }
  if (pods !== undefined) {
    out.pods = { metric: { name: pods.metricName, ...selectorToV2(pods.selector) }, target: target('AverageValue', { averageValue: pods.targetAverageValue }) };
  }
  if (resource !== undefined) {
    const u = resource.targetAverageUtilization;
    out.resource = { name: resource.name, target: target(u === undefined ? 'AverageValue' : 'Utilization', { averageValue: resource.targetAverageValue, averageUtilization: u }) };
  }
  if (containerResource !== undefined) {
    const u = containerResource.targetAverageUtilization;
    out.containerResource = {
      name: containerResource.name,
      target: target(u === undefined ? 'AverageValue' : 'Utilization', { averageValue: containerResource.targetAverageValue, averageUtilization: u }),
      container: containerResource.container,
    };
  }
  if (external !== undefined) {
    out.external = {
      metric: { name: external.metricName, ...selectorToV2(external.metricSelector) },
      target: target(external.targetValue === undefined ? 'AverageValue' : 'Value', { value: external.targetValue, averageValue: external.targetAverageValue }),
    };
  }
  return out;
}

/** `Convert_v1_MetricStatus_To_autoscaling_MetricStatus` and the custom status conversions it calls. */
function metricStatusFromV1(m: V1MetricStatus): MetricStatus {
  const out: MetricStatus = { type: m.type };
  const { object, pods, resource, containerResource, external } = m;
  if (object !== undefined) {
    out.object = {
      metric: { name: object.metricName, ...selectorToV2(object.selector) },
      current: current({ value: object.currentValue, averageValue: object.averageValue }),
      describedObject: describedObjectToV2(object.target),
    };
  }
  if (pods !== undefined) {
    out.pods = { metric: { name: pods.metricName, ...selectorToV2(pods.selector) }, current: current({ averageValue: pods.currentAverageValue }) };
  }
  if (resource !== undefined) {
    out.resource = { name: resource.name, current: current({ averageValue: resource.currentAverageValue, averageUtilization: resource.currentAverageUtilization }) };
  }
  if (containerResource !== undefined) {
    out.containerResource = {
      name: containerResource.name,
      current: current({ averageValue: containerResource.currentAverageValue, averageUtilization: containerResource.currentAverageUtilization }),
      container: containerResource.container,
    };
  }
  if (external !== undefined) {
    out.external = {
      metric: { name: external.metricName, ...selectorToV2(external.metricSelector) },
      current: current({ value: external.currentValue, averageValue: external.currentAverageValue }),
    };
  }
  return out;
}

function conditionFromV1(c: V1Condition): HorizontalPodAutoscalerCondition {
  return {
    type: c.type,
    status: c.status,
    ...(c.lastTransitionTime === undefined ? {} : { lastTransitionTime: c.lastTransitionTime }),
    ...(c.reason === '' ? {} : { reason: c.reason }),
    ...(c.message === '' ? {} : { message: c.message }),
  };
}

function scalingRulesFromInternal(r: InternalScalingRules | undefined): HPAScalingRules | undefined {
  if (r === undefined) return undefined;
  const policies: HPAScalingPolicy[] = (r.Policies ?? []).map((p) => ({ type: p.Type, value: p.Value, periodSeconds: p.PeriodSeconds }));
  return {
    ...(r.StabilizationWindowSeconds === undefined ? {} : { stabilizationWindowSeconds: r.StabilizationWindowSeconds }),
    ...(r.SelectPolicy === undefined ? {} : { selectPolicy: r.SelectPolicy }),
    ...(policies.length === 0 ? {} : { policies }),
  };
}

function behaviorFromInternal(b: InternalBehavior): HorizontalPodAutoscalerBehavior {
  const up = scalingRulesFromInternal(b.ScaleUp);
  const down = scalingRulesFromInternal(b.ScaleDown);
  return { ...(up === undefined ? {} : { scaleUp: up }), ...(down === undefined ? {} : { scaleDown: down }) };
}

// ---------------------------------------------------------------------------------------------------------
// The HorizontalPodAutoscaler.

function isCPUUtilizationMetric(m: MetricSpec): boolean {
  return m.type === 'Resource' && given(m.resource) && m.resource.name === 'cpu' && given(m.resource.target?.averageUtilization);
}

/** `DropRoundTripHorizontalPodAutoscalerAnnotations` on a copy; the caller adds its own. */
function withoutRoundTripAnnotations(obj: StoredObject): Record<string, string> {
  const out = { ...(obj.metadata?.annotations ?? {}) };
  for (const a of roundTripAnnotations) delete out[a];
  return out;
}

/**
 * `DropRoundTripHorizontalPodAutoscalerAnnotations` in place, as autoscaling/v2's conversions call it both
 * ways (pkg/apis/autoscaling/v2/conversion.go): a v2 client can neither store nor read these annotations.
 * A map left empty goes, as Go's `omitempty` would drop it.
 */
export function dropRoundTripHorizontalPodAutoscalerAnnotations(obj: StoredObject): void {
  const md = obj.metadata;
  const annotations = md?.annotations;
  if (md === undefined || annotations === undefined || annotations === null) return;
  if (!roundTripAnnotations.some((a) => Object.hasOwn(annotations, a))) return;
  md.annotations = withoutRoundTripAnnotations(obj);
  if (Object.keys(md.annotations).length === 0) delete md.annotations;
}

/** The object's metadata with these annotations; an empty map is left out, as Go's `omitempty` does. */
function metadataWith(obj: StoredObject, annotations: Record<string, string>): NonNullable<StoredObject['metadata']> {
  const md = { ...(obj.metadata ?? {}) };
  if (Object.keys(annotations).length > 0) md.annotations = annotations;
  else delete md.annotations;
  return md;
}

/**
 * autoscaling/v1 -> v2 (`Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`, then
 * `Convert_autoscaling_HorizontalPodAutoscaler_To_v2_HorizontalPodAutoscaler`). The CPU utilization target
 * becomes a Resource metric, after the metrics from the annotation; with no metric at all the conversion
 * fills in the 80% CPU target (v1's former controller default). Annotations Go cannot read are ignored.
 */
export function hpaV1ToV2(obj: StoredObject): StoredObject {
  const annotations = obj.metadata?.annotations ?? {};
  const spec = { ...((obj['spec'] ?? {}) as Rec) };
  const targetCPU = spec['targetCPUUtilizationPercentage'];
  delete spec['targetCPUUtilizationPercentage'];
  delete spec['metrics'];
  delete spec['behavior'];
  let metrics: MetricSpec[] = [];
  if (typeof targetCPU === 'number') {
    metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: targetCPU } } }];
  }
  const out: StoredObject = { ...obj, apiVersion: 'autoscaling/v2' };
  const rawStatus = obj['status'];
  let status: Rec | undefined = given(rawStatus) ? { ...(rawStatus as Rec) } : undefined;
  if (status !== undefined) {
    const currentCPU = status['currentCPUUtilizationPercentage'];
    delete status['currentCPUUtilizationPercentage'];
    delete status['currentMetrics'];
    delete status['conditions'];
    if (typeof currentCPU === 'number') status['currentMetrics'] = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: currentCPU } } }];
  }
  /** Sets a status list read from an annotation; an empty one is left out, as `omitempty` does. */
  const setStatusList = (key: string, list: unknown[]): void => {
    if (list.length > 0) (status ??= {})[key] = list;
    else if (status !== undefined) delete status[key];
  };

  // Each annotation Go cannot read is skipped; `null` reads as an empty list.
  const otherMetricsText = annotations[metricSpecsAnnotation];
  const other = otherMetricsText === undefined ? undefined : goUnmarshal<V1MetricSpec[] | undefined>(sliceOf(metricSpecType), otherMetricsText);
  // The spec conversion's CPU metric, if any, goes after the others.
  if (other !== undefined) metrics = [...(other.value ?? []).map(metricSpecFromV1), ...metrics];
  const behaviorText = annotations[behaviorSpecsAnnotation];
  const behavior = behaviorText === undefined ? undefined : goUnmarshal<InternalBehavior>(behaviorType, behaviorText);
  // A behavior equal to the zero value (`{}`, `null`, both directions nil) is not set.
  const hasBehavior = behavior !== undefined && (behavior.value.ScaleUp !== undefined || behavior.value.ScaleDown !== undefined);
  const currentMetricsText = annotations[metricStatusesAnnotation];
  const currentMetrics = currentMetricsText === undefined ? undefined : goUnmarshal<V1MetricStatus[] | undefined>(sliceOf(metricStatusType), currentMetricsText);
  // Replaces the CPU status from currentCPUUtilizationPercentage: the annotation has more information.
  if (currentMetrics !== undefined) setStatusList('currentMetrics', (currentMetrics.value ?? []).map(metricStatusFromV1));
  if (metrics.length === 0) {
    metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCPUUtilization } } }];
  }
  spec['metrics'] = metrics;
  if (hasBehavior) spec['behavior'] = behaviorFromInternal(behavior.value);
  const conditionsText = annotations[conditionsAnnotation];
  const conditions = conditionsText === undefined ? undefined : goUnmarshal<V1Condition[] | undefined>(sliceOf(conditionType), conditionsText);
  if (conditions !== undefined) setStatusList('conditions', (conditions.value ?? []).map(conditionFromV1));
  out.metadata = metadataWith(obj, withoutRoundTripAnnotations(obj));
  out['spec'] = spec;
  if (status !== undefined) out['status'] = status;
  return out;
}

/**
 * autoscaling/v2 -> v1 (`Convert_v2_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`, then
 * `Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler`). The first Resource `cpu`
 * metric with an averageUtilization becomes targetCPUUtilizationPercentage; every metric that is not a
 * CPU utilization target goes to the metrics annotation; the last CPU status with an averageUtilization
 * becomes currentCPUUtilizationPercentage, and all status metrics, the conditions and the behavior go to
 * their annotations. Round-trip annotations already on the object are replaced.
 */
export function hpaV2ToV1(obj: StoredObject): StoredObject {
  const spec = { ...((obj['spec'] ?? {}) as Rec) };
  const metrics = (spec['metrics'] ?? []) as MetricSpec[];
  const behavior = spec['behavior'] as HorizontalPodAutoscalerBehavior | null | undefined;
  delete spec['metrics'];
  delete spec['behavior'];
  delete spec['targetCPUUtilizationPercentage'];
  const cpu = metrics.find(isCPUUtilizationMetric);
  if (cpu !== undefined) spec['targetCPUUtilizationPercentage'] = cpu.resource?.target?.averageUtilization;
  const annotations = withoutRoundTripAnnotations(obj);
  const otherMetrics = metrics.filter((m) => !isCPUUtilizationMetric(m)).map(metricSpecToV1);
  if (otherMetrics.length > 0) annotations[metricSpecsAnnotation] = goMarshal(sliceOf(metricSpecType), otherMetrics);

  const out: StoredObject = { ...obj, apiVersion: 'autoscaling/v1' };
  const rawStatus = obj['status'];
  if (given(rawStatus)) {
    const status = { ...(rawStatus as Rec) };
    const currentMetrics = (status['currentMetrics'] ?? []) as MetricStatus[];
    const conditions = (status['conditions'] ?? []) as HorizontalPodAutoscalerCondition[];
    delete status['currentMetrics'];
    delete status['conditions'];
    delete status['currentCPUUtilizationPercentage'];
    for (const m of currentMetrics) {
      const utilization = m.type === 'Resource' && given(m.resource) && m.resource.name === 'cpu' ? m.resource.current?.averageUtilization : undefined;
      if (given(utilization)) status['currentCPUUtilizationPercentage'] = utilization;
    }
    // Saved even when it maps to currentCPUUtilizationPercentage, to keep the raw value as well.
    if (currentMetrics.length > 0) annotations[metricStatusesAnnotation] = goMarshal(sliceOf(metricStatusType), currentMetrics.map(metricStatusToV1));
    if (conditions.length > 0) annotations[conditionsAnnotation] = goMarshal(sliceOf(conditionType), conditions.map(conditionToV1));
    out['status'] = status;
  }
  if (given(behavior)) {
    annotations[behaviorSpecsAnnotation] = goMarshal(behaviorType, { ScaleUp: scalingRulesToInternal(behavior.scaleUp), ScaleDown: scalingRulesToInternal(behavior.scaleDown) });
  }
  out.metadata = metadataWith(obj, annotations);
  out['spec'] = spec;
  return out;
}
