/**
 * apps/v1 workloads as `pkg/apis/apps/validation` (v1.32) checks them, plus the apps/v1 strategies'
 * selector immutability on update.
 */
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { type FieldError, fieldErrors, goStringMap, Path } from '../../api/field-errors.js';
import { labelSelectorAsSelector, SelectorParseError, type Selector } from '../../api/labels.js';
import { isValidPercent, nameIsDNSSubdomain } from './_names.js';
import { goIntOrString, goLabelSelector } from './_go.js';
import { semanticDeepEqual, validateImmutableField, validateLabelSelector, validateLabels, validateAnnotations, validateNonnegativeField, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { validatePodTemplateSpec } from './pod.js';

const metaOpts = { namespaced: true, nameFn: nameIsDNSSubdomain };

function selectorOf(sel: LabelSelector | undefined): Selector | undefined {
  try {
    return labelSelectorAsSelector(sel);
  } catch (e) {
    if (e instanceof SelectorParseError) return undefined;
    throw e;
  }
}

function selectorEmpty(sel: LabelSelector): boolean {
  return Object.keys(sel.matchLabels ?? {}).length + (sel.matchExpressions ?? []).length === 0;
}

/** `ValidatePositiveIntOrPercent`. */
export function validatePositiveIntOrPercent(v: number | string | undefined, path: Path): FieldError[] {
  if (typeof v === 'string') return isValidPercent(v).map((m) => fieldErrors.invalid(path, goIntOrString(v), m));
  if (typeof v === 'number') return validateNonnegativeField(v, path);
  return [];
}

function intOrPercentValue(v: number | string | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^[0-9]+%$/.test(v)) return Number(v.slice(0, -1));
  return -1;
}

/** `IsNotMoreThan100Percent`. */
export function isNotMoreThan100Percent(v: number | string | undefined, path: Path): FieldError[] {
  if (typeof v !== 'string' || !/^[0-9]+%$/.test(v)) return [];
  return intOrPercentValue(v) > 100 ? [fieldErrors.invalid(path, goIntOrString(v), 'must not be greater than 100%')] : [];
}

/** `ValidatePodTemplateSpecForReplicaSet` (Deployments and ReplicaSets). */
/**
 * `ValidatePodTemplateSpecForReplicaSet` (and core's `ValidatePodTemplateSpecForRC`, which reports an
 * activeDeadlineSeconds as forbidden rather than invalid).
 */
export function validatePodTemplateSpecForReplicaSet(tpl: PodTemplateSpec | undefined, selector: Selector, path: Path, kindLabel: string, deadline: 'invalid' | 'forbidden' = 'invalid'): FieldError[] {
  const errs: FieldError[] = [];
  if (tpl === undefined) return [fieldErrors.required(path, '')];
  if (!selector.isEmpty() && !selector.matches(tpl.metadata?.labels)) {
    errs.push(fieldErrors.invalid(path.child('metadata', 'labels'), goStringMap(tpl.metadata?.labels), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplateSpec(tpl, path));
  const rp = tpl.spec?.restartPolicy ?? '';
  if (rp !== 'Always') errs.push(fieldErrors.notSupported(path.child('spec', 'restartPolicy'), rp, ['Always']));
  if (tpl.spec?.activeDeadlineSeconds !== undefined) {
    const field = path.child('spec', 'activeDeadlineSeconds');
    const detail = `activeDeadlineSeconds in ${kindLabel} is not Supported`;
    errs.push(deadline === 'invalid' ? fieldErrors.invalid(field, tpl.spec.activeDeadlineSeconds, detail) : fieldErrors.forbidden(field, detail));
  }
  return errs;
}

function validateStrictSelector(sel: LabelSelector | undefined, path: Path, kindWord: string): FieldError[] {
  if (sel === undefined) return [fieldErrors.required(path, '')];
  const errs = validateLabelSelector(sel, path);
  if (selectorEmpty(sel)) errs.push(fieldErrors.invalid(path, goLabelSelector(sel, true), `empty selector is invalid for ${kindWord}`));
  return errs;
}

/** `ValidateDeployment` (create). */
export function validateDeployment(d: Deployment): FieldError[] {
  const errs = validateObjectMeta(d.metadata, metaOpts);
  errs.push(...validateDeploymentSpec(d, Path.root('spec')));
  return errs;
}

function validateDeploymentSpec(d: Deployment, path: Path): FieldError[] {
  const spec = d.spec;
  const errs: FieldError[] = [];
  errs.push(...validateNonnegativeField(spec?.replicas ?? 0, path.child('replicas')));
  errs.push(...validateStrictSelector(spec?.selector, path.child('selector'), 'deployment'));
  const selector = selectorOf(spec?.selector);
  if (selector === undefined) errs.push(fieldErrors.invalid(path.child('selector'), goLabelSelector(spec?.selector, true), 'invalid label selector'));
  else errs.push(...validatePodTemplateSpecForReplicaSet(spec?.template, selector, path.child('template'), 'ReplicaSet'));
  const strategy = spec?.strategy ?? {};
  const sp = path.child('strategy');
  switch (strategy.type ?? '') {
    case 'Recreate':
      if (strategy.rollingUpdate !== undefined) errs.push(fieldErrors.forbidden(sp.child('rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'"));
      break;
    case 'RollingUpdate': {
      const ru = strategy.rollingUpdate;
      if (ru === undefined) {
        errs.push(fieldErrors.required(sp.child('rollingUpdate'), 'this should be defaulted and never be nil'));
        break;
      }
      const rp = sp.child('rollingUpdate');
      errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, rp.child('maxUnavailable')));
      errs.push(...validatePositiveIntOrPercent(ru.maxSurge, rp.child('maxSurge')));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(fieldErrors.invalid(rp.child('maxUnavailable'), goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
      }
      errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, rp.child('maxUnavailable')));
      break;
    }
    default:
      errs.push(fieldErrors.notSupported(sp.child('type'), strategy.type ?? '', ['Recreate', 'RollingUpdate']));
  }
  errs.push(...validateNonnegativeField(spec?.minReadySeconds ?? 0, path.child('minReadySeconds')));
  if (spec?.revisionHistoryLimit !== undefined) errs.push(...validateNonnegativeField(spec.revisionHistoryLimit, path.child('revisionHistoryLimit')));
  if (spec?.progressDeadlineSeconds !== undefined) {
    errs.push(...validateNonnegativeField(spec.progressDeadlineSeconds, path.child('progressDeadlineSeconds')));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
      errs.push(fieldErrors.invalid(path.child('progressDeadlineSeconds'), spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

/** `ValidateDeploymentUpdate` plus the apps/v1 selector immutability. */
export function validateDeploymentUpdate(d: Deployment, old: Deployment): FieldError[] {
  const errs = validateObjectMetaUpdate(d.metadata, old.metadata);
  errs.push(...validateDeploymentSpec(d, Path.root('spec')));
  errs.push(...validateImmutableField(d.spec?.selector, old.spec?.selector, Path.root('spec').child('selector'), goLabelSelector(d.spec?.selector)));
  return errs;
}

/** `ValidateDeploymentStatusUpdate` (basic counts). */
export function validateDeploymentStatusUpdate(d: Deployment, old: Deployment): FieldError[] {
  const errs = validateObjectMetaUpdate(d.metadata, old.metadata);
  const sp = Path.root('status');
  const s = d.status ?? {};
  for (const f of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'] as const) {
    const v = s[f];
    if (v !== undefined) errs.push(...validateNonnegativeField(v, sp.child(f)));
  }
  if (s.collisionCount !== undefined) errs.push(...validateNonnegativeField(s.collisionCount, sp.child('collisionCount')));
  return errs;
}

function validateReplicaSetSpec(rs: ReplicaSet, path: Path): FieldError[] {
  const spec = rs.spec;
  const errs: FieldError[] = [];
  errs.push(...validateNonnegativeField(spec?.replicas ?? 0, path.child('replicas')));
  errs.push(...validateNonnegativeField(spec?.minReadySeconds ?? 0, path.child('minReadySeconds')));
  errs.push(...validateStrictSelector(spec?.selector, path.child('selector'), 'deployment'));
  const selector = selectorOf(spec?.selector);
  if (selector === undefined) errs.push(fieldErrors.invalid(path.child('selector'), goLabelSelector(spec?.selector, true), 'invalid label selector'));
  else errs.push(...validatePodTemplateSpecForReplicaSet(spec?.template, selector, path.child('template'), 'ReplicaSet'));
  return errs;
}

/** `ValidateReplicaSet` (create). */
export function validateReplicaSet(rs: ReplicaSet): FieldError[] {
  const errs = validateObjectMeta(rs.metadata, metaOpts);
  errs.push(...validateReplicaSetSpec(rs, Path.root('spec')));
  return errs;
}

/** `ValidateReplicaSetUpdate` plus the apps/v1 selector immutability. */
export function validateReplicaSetUpdate(rs: ReplicaSet, old: ReplicaSet): FieldError[] {
  const errs = validateObjectMetaUpdate(rs.metadata, old.metadata);
  errs.push(...validateReplicaSetSpec(rs, Path.root('spec')));
  errs.push(...validateImmutableField(rs.spec?.selector, old.spec?.selector, Path.root('spec').child('selector'), goLabelSelector(rs.spec?.selector)));
  return errs;
}

function validateDaemonSetSpec(ds: DaemonSet, path: Path): FieldError[] {
  const spec = ds.spec;
  const errs = validateLabelSelector(spec?.selector, path.child('selector'));
  const selector = selectorOf(spec?.selector);
  const tplLabels = spec?.template.metadata?.labels;
  if (selector !== undefined && !selector.matches(tplLabels)) {
    errs.push(fieldErrors.invalid(path.child('template', 'metadata', 'labels'), goStringMap(tplLabels), '`selector` does not match template `labels`'));
  }
  if (spec?.selector !== undefined && selectorEmpty(spec.selector)) {
    errs.push(fieldErrors.invalid(path.child('selector'), goLabelSelector(spec.selector, true), 'empty selector is invalid for daemonset'));
  }
  errs.push(...validatePodTemplateSpec(spec?.template, path.child('template')));
  const rp = spec?.template.spec?.restartPolicy ?? '';
  if (rp !== 'Always') errs.push(fieldErrors.notSupported(path.child('template', 'spec', 'restartPolicy'), rp, ['Always']));
  if (spec?.template.spec?.activeDeadlineSeconds !== undefined) {
    errs.push(fieldErrors.invalid(path.child('template', 'spec', 'activeDeadlineSeconds'), spec.template.spec.activeDeadlineSeconds, 'activeDeadlineSeconds in DaemonSet is not Supported'));
  }
  errs.push(...validateNonnegativeField(spec?.minReadySeconds ?? 0, path.child('minReadySeconds')));
  const us = spec?.updateStrategy ?? {};
  const up = path.child('updateStrategy');
  switch (us.type ?? '') {
    case 'OnDelete':
      break;
    case 'RollingUpdate': {
      const ru = us.rollingUpdate;
      if (ru === undefined) {
        errs.push(fieldErrors.required(up.child('rollingUpdate'), ''));
        break;
      }
      const rp2 = up.child('rollingUpdate');
      let hasUnavailable = false;
      let hasSurge = false;
      if (ru.maxUnavailable !== undefined && intOrPercentValue(ru.maxUnavailable) !== 0) {
        hasUnavailable = true;
        errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, rp2.child('maxUnavailable')));
        errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, rp2.child('maxUnavailable')));
      }
      if (ru.maxSurge !== undefined && intOrPercentValue(ru.maxSurge) !== 0) {
        hasSurge = true;
        errs.push(...validatePositiveIntOrPercent(ru.maxSurge, rp2.child('maxSurge')));
        errs.push(...isNotMoreThan100Percent(ru.maxSurge, rp2.child('maxSurge')));
      }
      if (hasUnavailable && hasSurge) errs.push(fieldErrors.invalid(rp2.child('maxSurge'), goIntOrString(ru.maxSurge), 'may not be set when maxUnavailable is non-zero'));
      else if (!hasUnavailable && !hasSurge) errs.push(fieldErrors.required(rp2.child('maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
      break;
    }
    default:
      errs.push(fieldErrors.notSupported(up, us.type ?? '', ['RollingUpdate', 'OnDelete']));
  }
  if (spec?.revisionHistoryLimit !== undefined) errs.push(...validateNonnegativeField(spec.revisionHistoryLimit, path.child('revisionHistoryLimit')));
  return errs;
}

/** `ValidateDaemonSet` (create). */
export function validateDaemonSet(ds: DaemonSet): FieldError[] {
  const errs = validateObjectMeta(ds.metadata, metaOpts);
  errs.push(...validateDaemonSetSpec(ds, Path.root('spec')));
  return errs;
}

/** `ValidateDaemonSetUpdate` plus the apps/v1 selector immutability. */
export function validateDaemonSetUpdate(ds: DaemonSet, old: DaemonSet): FieldError[] {
  const errs = validateObjectMetaUpdate(ds.metadata, old.metadata);
  errs.push(...validateDaemonSetSpec(ds, Path.root('spec')));
  errs.push(...validateImmutableField(ds.spec?.selector, old.spec?.selector, Path.root('spec').child('selector'), goLabelSelector(ds.spec?.selector)));
  return errs;
}

function validateStatefulSetSpec(sts: StatefulSet, path: Path): FieldError[] {
  const spec = sts.spec;
  const errs: FieldError[] = [];
  switch (spec?.podManagementPolicy ?? '') {
    case '':
      errs.push(fieldErrors.required(path.child('podManagementPolicy'), ''));
      break;
    case 'OrderedReady':
    case 'Parallel':
      break;
    default:
      errs.push(fieldErrors.invalid(path.child('podManagementPolicy'), spec?.podManagementPolicy, "must be 'OrderedReady' or 'Parallel'"));
  }
  const us = spec?.updateStrategy ?? {};
  switch (us.type ?? '') {
    case '':
      errs.push(fieldErrors.required(path.child('updateStrategy'), ''));
      break;
    case 'OnDelete':
      if (us.rollingUpdate !== undefined) {
        errs.push(fieldErrors.invalid(path.child('updateStrategy').child('rollingUpdate'), JSON.stringify(us.rollingUpdate), "only allowed for updateStrategy 'RollingUpdate'"));
      }
      break;
    case 'RollingUpdate':
      if (us.rollingUpdate?.partition !== undefined) {
        errs.push(...validateNonnegativeField(us.rollingUpdate.partition, path.child('updateStrategy').child('rollingUpdate').child('partition')));
      }
      break;
    default:
      errs.push(fieldErrors.invalid(path.child('updateStrategy'), JSON.stringify(us), "must be 'RollingUpdate' or 'OnDelete'"));
  }
  if (spec?.ordinals?.start !== undefined) errs.push(...validateNonnegativeField(spec.ordinals.start, path.child('ordinals.start')));
  errs.push(...validateNonnegativeField(spec?.replicas ?? 0, path.child('replicas')));
  errs.push(...validateNonnegativeField(spec?.minReadySeconds ?? 0, path.child('minReadySeconds')));
  errs.push(...validateStrictSelector(spec?.selector, path.child('selector'), 'statefulset'));
  const selector = selectorOf(spec?.selector);
  const tp = path.child('template');
  if (selector === undefined) {
    errs.push(fieldErrors.invalid(path.child('selector'), goLabelSelector(spec?.selector, true), ''));
  } else {
    const tpl = spec?.template;
    if (!selector.isEmpty() && !selector.matches(tpl?.metadata?.labels)) {
      errs.push(fieldErrors.invalid(tp.child('metadata', 'labels'), goStringMap(tpl?.metadata?.labels), '`selector` does not match template `labels`'));
    }
    errs.push(...validateLabels(tpl?.metadata?.labels, tp.child('labels')));
    errs.push(...validateAnnotations(tpl?.metadata?.annotations, tp.child('annotations')));
    const claimNames = (spec?.volumeClaimTemplates ?? []).map((c) => c.metadata?.name ?? '');
    if (tpl !== undefined) {
      errs.push(...validatePodTemplateSpec({ ...tpl, metadata: {} }, tp, { extraVolumes: claimNames }).filter((e) => !e.field.startsWith(`${String(tp)}.labels`)));
    }
  }
  const rp = spec?.template.spec?.restartPolicy ?? '';
  if (rp !== 'Always') errs.push(fieldErrors.notSupported(tp.child('spec', 'restartPolicy'), rp, ['Always']));
  if (spec?.template.spec?.activeDeadlineSeconds !== undefined) {
    errs.push(fieldErrors.forbidden(tp.child('spec', 'activeDeadlineSeconds'), 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  return errs;
}

/** `ValidateStatefulSet` (create). */
export function validateStatefulSet(sts: StatefulSet): FieldError[] {
  const errs = validateObjectMeta(sts.metadata, metaOpts);
  errs.push(...validateStatefulSetSpec(sts, Path.root('spec')));
  return errs;
}

/** `ValidateStatefulSetUpdate`: only replicas, ordinals, template, updateStrategy, PVC retention and minReadySeconds. */
export function validateStatefulSetUpdate(sts: StatefulSet, old: StatefulSet): FieldError[] {
  const errs = validateObjectMetaUpdate(sts.metadata, old.metadata);
  errs.push(...validateStatefulSetSpec(sts, Path.root('spec')));
  const strip = (s: StatefulSet['spec']): Record<string, unknown> => {
    const { replicas: _r, ordinals: _o, template: _t, updateStrategy: _u, persistentVolumeClaimRetentionPolicy: _p, minReadySeconds: _m, ...rest } = s ?? ({} as NonNullable<StatefulSet['spec']>);
    return rest;
  };
  if (!semanticDeepEqual(strip(sts.spec), strip(old.spec))) {
    errs.push(
      fieldErrors.forbidden(
        Path.root('spec'),
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return errs;
}
