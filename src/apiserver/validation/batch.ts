/**
 * batch/v1 Jobs and CronJobs as `pkg/apis/batch/validation` (v1.32) checks them, including the Job
 * strategy's selector generation (upstream runs `generateSelector` inside the strategy's Validate, after
 * the UID has been assigned).
 */
import type { CronJob, Job, JobSpec, PodFailurePolicy, PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyOnPodConditionsPattern, PodFailurePolicyRule, SuccessPolicy, SuccessPolicyRule } from 'kubernetes-types/batch/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { type FieldError, fieldErrors, goQuote, goStringMap, GoValue, omitValue, Path } from '../../api/field-errors.js';
import { labelSelectorAsSelector, SelectorParseError, type Selector } from '../../api/labels.js';
import { isDNS1123Label, maxLenError, nameIsDNSSubdomain } from './_names.js';
import { isDomainPrefixedPath } from './networking.js';
import { goLabelSelector } from './_go.js';
import { validateImmutableField, validateLabelSelector, validateNonnegativeField, validateObjectMeta, validateObjectMetaUpdate, validateQualifiedName } from './objectmeta.js';
import { validatePodTemplateSpec } from './pod.js';

export const jobLabels = {
  legacyControllerUid: 'controller-uid',
  controllerUid: 'batch.kubernetes.io/controller-uid',
  legacyJobName: 'job-name',
  jobName: 'batch.kubernetes.io/job-name',
} as const;

/**
 * The Job strategy's `generateSelector`: unless `spec.manualSelector` is true, label the template with
 * the job name and UID and select on `batch.kubernetes.io/controller-uid`. Mutates the Job; call it on
 * create after the UID is set, before `validateJob` (the `validate` entry does this for you).
 */
export function generateJobSelector(job: Job): void {
  if (job.spec === undefined || job.spec.manualSelector === true) return;
  const name = job.metadata?.name ?? '';
  const uid = job.metadata?.uid ?? '';
  const tpl: PodTemplateSpec = job.spec.template;
  tpl.metadata ??= {};
  const labels = (tpl.metadata.labels ??= {});
  for (const k of [jobLabels.legacyJobName, jobLabels.jobName]) if (!(k in labels)) labels[k] = name;
  for (const k of [jobLabels.legacyControllerUid, jobLabels.controllerUid]) if (!(k in labels)) labels[k] = uid;
  job.spec.selector ??= {};
  const ml = (job.spec.selector.matchLabels ??= {});
  if (!(jobLabels.controllerUid in ml)) ml[jobLabels.controllerUid] = uid;
}

function selectorOf(job: JobSpec | undefined): Selector | undefined {
  if (job?.selector === undefined) return undefined;
  try {
    return labelSelectorAsSelector(job.selector);
  } catch (e) {
    if (e instanceof SelectorParseError) return undefined;
    throw e;
  }
}

/** Limits of `pkg/apis/batch/validation` (v1.32). */
const maxParallelismForIndexedJob = 100_000;
const maxFailedIndexesForIndexedJob = 100_000;
const completionsSoftLimit = 100_000;
const parallelismLimitForHighCompletions = 10_000;
const maxFailedIndexesLimitForHighCompletions = 10_000;
const maxPodFailurePolicyRules = 20;
const maxPodFailurePolicyOnExitCodesValues = 255;
const maxPodFailurePolicyOnPodConditionsPatterns = 20;
const maxManagedByLength = 63;
const maxJobSuccessPolicySucceededIndexesLimit = 64 * 1024;
const maxSuccessPolicyRule = 20;
const supportedPodFailurePolicyActions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const supportedOnExitCodesOperators = ['In', 'NotIn'];
const supportedOnPodConditionsStatuses = ['False', 'True', 'Unknown'];
const supportedPodReplacementPolicies = ['Failed', 'TerminatingOrFailed'];

/** Go's `%q` of a `[]string`: `["a" "b"]`. */
function goQuotedList(xs: readonly string[]): string {
  return `[${xs.map(goQuote).join(' ')}]`;
}

/** Go's `%#v` of a `[]int32`. */
function goInt32Slice(xs: readonly number[] | undefined): GoValue {
  return new GoValue(xs === undefined ? '[]int32(nil)' : `[]int32{${xs.join(', ')}}`);
}

/** A set pointer as its value (Go prints an address we cannot reproduce), unset as `(*T)(nil)`. */
function goPtr(type: string, v: string | number | undefined | null): string {
  if (v === undefined || v === null) return `(*${type})(nil)`;
  return `(*${type})(${typeof v === 'string' ? goQuote(v) : v})`;
}

function goSuccessPolicy(sp: SuccessPolicy): GoValue {
  const rules = sp.rules === undefined ? '[]batch.SuccessPolicyRule(nil)' : `[]batch.SuccessPolicyRule{${sp.rules.map((r: SuccessPolicyRule) => `batch.SuccessPolicyRule{SucceededIndexes:${goPtr('string', r.succeededIndexes)}, SucceededCount:${goPtr('int32', r.succeededCount)}}`).join(', ')}}`;
  return new GoValue(`batch.SuccessPolicy{Rules:${rules}}`);
}

function goPodFailurePolicy(pfp: PodFailurePolicy): GoValue {
  const rule = (r: PodFailurePolicyRule): string => {
    const oec = r.onExitCodes == null ? '(*batch.PodFailurePolicyOnExitCodesRequirement)(nil)' : `(*batch.PodFailurePolicyOnExitCodesRequirement){ContainerName:${goPtr('string', r.onExitCodes.containerName)}, Operator:${goQuote(r.onExitCodes.operator)}, Values:${goInt32Slice(r.onExitCodes.values).repr}}`;
    const opc = r.onPodConditions == null ? '[]batch.PodFailurePolicyOnPodConditionsPattern(nil)' : `[]batch.PodFailurePolicyOnPodConditionsPattern{${r.onPodConditions.map((c) => `batch.PodFailurePolicyOnPodConditionsPattern{Type:${goQuote(c.type)}, Status:${goQuote(c.status ?? '')}}`).join(', ')}}`;
    return `batch.PodFailurePolicyRule{Action:${goQuote(r.action)}, OnExitCodes:${oec}, OnPodConditions:${opc}}`;
  };
  return new GoValue(`batch.PodFailurePolicy{Rules:[]batch.PodFailurePolicyRule{${(pfp.rules ?? []).map(rule).join(', ')}}}`);
}

/** A pointer field as `field.Error` prints it: the value, or "null" when unset. */
function shownPtr(v: unknown): unknown {
  return v === undefined || v === null ? new GoValue('"null"') : v;
}

function validateJobSpec(spec: JobSpec | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex'] as const) {
    const v = spec?.[f];
    if (v != null) errs.push(...validateNonnegativeField(v, path.child(f)));
  }
  if (spec?.maxFailedIndexes != null) {
    errs.push(...validateNonnegativeField(spec.maxFailedIndexes, path.child('maxFailedIndexes')));
    if (spec.backoffLimitPerIndex == null) errs.push(fieldErrors.required(path.child('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  if (spec?.managedBy != null) {
    errs.push(...isDomainPrefixedPath(path.child('managedBy'), spec.managedBy));
    if (spec.managedBy.length > maxManagedByLength) errs.push(fieldErrors.tooLong(path.child('managedBy'), spec.managedBy, maxManagedByLength));
  }
  if (spec?.selector === undefined) errs.push(fieldErrors.required(path.child('selector'), ''));
  else errs.push(...validateLabelSelector(spec.selector, path.child('selector')));
  const selector = selectorOf(spec);
  const tplLabels = spec?.template.metadata?.labels;
  if (selector !== undefined && !selector.matches(tplLabels)) {
    errs.push(fieldErrors.invalid(path.child('template', 'metadata', 'labels'), goStringMap(tplLabels), '`selector` does not match template `labels`'));
  }
  errs.push(...validateJobSpecPolicies(spec, path));
  errs.push(...validatePodTemplateSpec(spec?.template, path.child('template')));
  errs.push(...validateJobRestartPolicy(spec, path));
  return errs;
}

/** The Job restart policy: OnFailure or Never, and only Never with a podFailurePolicy. */
function validateJobRestartPolicy(spec: JobSpec | undefined, path: Path): FieldError[] {
  const rp = spec?.template.spec?.restartPolicy ?? '';
  const rpPath = path.child('template', 'spec', 'restartPolicy');
  if (rp === 'Always' || rp === '') return [fieldErrors.required(rpPath, `valid values: ${goQuote('OnFailure')}, ${goQuote('Never')}`)];
  if (rp !== 'OnFailure' && rp !== 'Never') return [fieldErrors.notSupported(rpPath, rp, ['OnFailure', 'Never'])];
  if (spec?.podFailurePolicy != null && rp !== 'Never') return [fieldErrors.invalid(rpPath, rp, `only ${goQuote('Never')} is supported when podFailurePolicy is specified`)];
  return [];
}

/** completionMode and what depends on it, podFailurePolicy, successPolicy, podReplacementPolicy. */
function validateJobSpecPolicies(spec: JobSpec | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const mode = spec?.completionMode;
  if (mode != null) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fieldErrors.notSupported(path.child('completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (spec?.completions == null) errs.push(fieldErrors.required(path.child('completions'), 'when completion mode is Indexed'));
      if (spec?.parallelism != null && spec.parallelism > maxParallelismForIndexedJob) {
        errs.push(fieldErrors.invalid(path.child('parallelism'), spec.parallelism, `must be less than or equal to ${maxParallelismForIndexedJob} when completion mode is Indexed`));
      }
      if (spec?.completions != null && spec.maxFailedIndexes != null && spec.maxFailedIndexes > spec.completions) {
        errs.push(fieldErrors.invalid(path.child('maxFailedIndexes'), spec.maxFailedIndexes, 'must be less than or equal to completions'));
      }
      if (spec?.maxFailedIndexes != null && spec.maxFailedIndexes > maxFailedIndexesForIndexedJob) {
        errs.push(fieldErrors.invalid(path.child('maxFailedIndexes'), spec.maxFailedIndexes, `must be less than or equal to ${maxFailedIndexesForIndexedJob}`));
      }
      if (spec?.completions != null && spec.completions > completionsSoftLimit && spec.backoffLimitPerIndex != null) {
        if (spec.maxFailedIndexes == null) errs.push(fieldErrors.required(path.child('maxFailedIndexes'), `must be specified when completions is above ${completionsSoftLimit}`));
        if (spec.parallelism != null && spec.parallelism > parallelismLimitForHighCompletions) {
          errs.push(fieldErrors.invalid(path.child('parallelism'), spec.parallelism, `must be less than or equal to ${parallelismLimitForHighCompletions} when completions are above ${completionsSoftLimit} and used with backoff limit per index`));
        }
        if (spec.maxFailedIndexes != null && spec.maxFailedIndexes > maxFailedIndexesLimitForHighCompletions) {
          errs.push(fieldErrors.invalid(path.child('maxFailedIndexes'), spec.maxFailedIndexes, `must be less than or equal to ${maxFailedIndexesLimitForHighCompletions} when completions are above ${completionsSoftLimit} and used with backoff limit per index`));
        }
      }
    }
  }
  if (mode == null || mode === 'NonIndexed') {
    if (spec?.backoffLimitPerIndex != null) errs.push(fieldErrors.invalid(path.child('backoffLimitPerIndex'), spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (spec?.maxFailedIndexes != null) errs.push(fieldErrors.invalid(path.child('maxFailedIndexes'), spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (spec?.podFailurePolicy != null) errs.push(...validatePodFailurePolicy(spec, path.child('podFailurePolicy')));
  if (spec?.successPolicy != null) {
    if ((mode ?? 'NonIndexed') !== 'Indexed') errs.push(fieldErrors.invalid(path.child('successPolicy'), goSuccessPolicy(spec.successPolicy), 'requires indexed completion mode'));
    else errs.push(...validateSuccessPolicy(spec, path.child('successPolicy')));
  }
  const prp = spec?.podReplacementPolicy;
  if (prp != null) {
    if (spec?.podFailurePolicy != null) {
      if (prp !== 'Failed') errs.push(fieldErrors.notSupported(path.child('podReplacementPolicy'), prp, ['Failed']));
    } else if (!supportedPodReplacementPolicies.includes(prp)) errs.push(fieldErrors.notSupported(path.child('podReplacementPolicy'), prp, supportedPodReplacementPolicies));
  }
  return errs;
}

function validatePodFailurePolicy(spec: JobSpec, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const rules = spec.podFailurePolicy?.rules ?? [];
  const rulesPath = path.child('rules');
  if (rules.length > maxPodFailurePolicyRules) errs.push(fieldErrors.tooMany(rulesPath, rules.length, maxPodFailurePolicyRules));
  const containerNames = new Set([...(spec.template.spec?.containers ?? []), ...(spec.template.spec?.initContainers ?? [])].map((c) => c.name));
  rules.forEach((rule, i) => errs.push(...validatePodFailurePolicyRule(spec, rule, rulesPath.index(i), containerNames)));
  return errs;
}

function validatePodFailurePolicyRule(spec: JobSpec, rule: PodFailurePolicyRule, path: Path, containerNames: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  const actionPath = path.child('action');
  const action = rule.action ?? '';
  if (action === '') errs.push(fieldErrors.required(actionPath, `valid values: ${goQuotedList(supportedPodFailurePolicyActions)}`));
  else if (action === 'FailIndex') {
    if (spec.backoffLimitPerIndex == null) errs.push(fieldErrors.invalid(actionPath, action, 'requires the backoffLimitPerIndex to be set'));
  } else if (!supportedPodFailurePolicyActions.includes(action)) errs.push(fieldErrors.notSupported(actionPath, action, supportedPodFailurePolicyActions));
  const hasConditions = (rule.onPodConditions ?? []).length > 0;
  if (rule.onExitCodes != null) errs.push(...validateOnExitCodes(rule.onExitCodes, path.child('onExitCodes'), containerNames));
  if (hasConditions) errs.push(...validateOnPodConditions(rule.onPodConditions ?? [], path.child('onPodConditions')));
  if (rule.onExitCodes != null && hasConditions) errs.push(fieldErrors.invalid(path, omitValue, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (rule.onExitCodes == null && !hasConditions) errs.push(fieldErrors.invalid(path, omitValue, 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errs;
}

function validateOnPodConditions(patterns: readonly PodFailurePolicyOnPodConditionsPattern[], path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (patterns.length > maxPodFailurePolicyOnPodConditionsPatterns) errs.push(fieldErrors.tooMany(path, patterns.length, maxPodFailurePolicyOnPodConditionsPatterns));
  patterns.forEach((p, j) => {
    const pp = path.index(j);
    errs.push(...validateQualifiedName(p.type ?? '', pp.child('type')));
    const st = p.status ?? '';
    if (st === '') errs.push(fieldErrors.required(pp.child('status'), `valid values: ${goQuotedList(supportedOnPodConditionsStatuses)}`));
    else if (!supportedOnPodConditionsStatuses.includes(st)) errs.push(fieldErrors.notSupported(pp.child('status'), st, supportedOnPodConditionsStatuses));
  });
  return errs;
}

function validateOnExitCodes(req: PodFailurePolicyOnExitCodesRequirement, path: Path, containerNames: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  const op = req.operator ?? '';
  if (op === '') errs.push(fieldErrors.required(path.child('operator'), `valid values: ${goQuotedList(supportedOnExitCodesOperators)}`));
  else if (!supportedOnExitCodesOperators.includes(op)) errs.push(fieldErrors.notSupported(path.child('operator'), op, supportedOnExitCodesOperators));
  if (req.containerName != null && !containerNames.has(req.containerName)) {
    errs.push(fieldErrors.invalid(path.child('containerName'), req.containerName, 'must be one of the container or initContainer names in the pod template'));
  }
  const valuesPath = path.child('values');
  const values = req.values ?? [];
  if (values.length === 0) errs.push(fieldErrors.invalid(valuesPath, goInt32Slice(req.values), 'at least one value is required'));
  else if (values.length > maxPodFailurePolicyOnExitCodesValues) errs.push(fieldErrors.tooMany(valuesPath, values.length, maxPodFailurePolicyOnExitCodesValues));
  let ordered = true;
  const seen = new Set<number>();
  values.forEach((v, j) => {
    if (op === 'In' && v === 0) errs.push(fieldErrors.invalid(valuesPath.index(j), v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(fieldErrors.duplicate(valuesPath.index(j), v));
    else seen.add(v);
    if (j > 0 && (values[j - 1] ?? 0) > v) ordered = false;
  });
  if (!ordered) errs.push(fieldErrors.invalid(valuesPath, goInt32Slice(values), 'must be ordered'));
  return errs;
}

function validateSuccessPolicy(spec: JobSpec, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const rules = spec.successPolicy?.rules ?? [];
  const rulesPath = path.child('rules');
  if (rules.length === 0) errs.push(fieldErrors.required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > maxSuccessPolicyRule) errs.push(fieldErrors.tooMany(rulesPath, rules.length, maxSuccessPolicyRule));
  rules.forEach((rule, i) => errs.push(...validateSuccessPolicyRule(spec, rule, rulesPath.index(i))));
  return errs;
}

function validateSuccessPolicyRule(spec: JobSpec, rule: SuccessPolicyRule, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const completions = spec.completions ?? 0;
  if (rule.succeededCount == null && rule.succeededIndexes == null) errs.push(fieldErrors.required(path, 'at least one of succeededCount or succeededIndexes must be specified'));
  let totalIndexes = 0;
  if (rule.succeededIndexes != null) {
    const p = path.child('succeededIndexes');
    if (rule.succeededIndexes.length > maxJobSuccessPolicySucceededIndexesLimit) errs.push(fieldErrors.tooLong(p, rule.succeededIndexes, maxJobSuccessPolicySucceededIndexesLimit));
    const r = validateIndexesFormat(rule.succeededIndexes, completions);
    if (typeof r === 'string') errs.push(fieldErrors.invalid(p, rule.succeededIndexes, `error parsing succeededIndexes: ${r}`));
    else totalIndexes = r;
  }
  if (rule.succeededCount != null) {
    const p = path.child('succeededCount');
    errs.push(...validateNonnegativeField(rule.succeededCount, p));
    if (rule.succeededCount > completions) errs.push(fieldErrors.invalid(p, rule.succeededCount, `must be less than or equal to ${completions} (the number of specified completions)`));
    if (rule.succeededIndexes != null && rule.succeededCount > totalIndexes) {
      errs.push(fieldErrors.invalid(p, rule.succeededCount, `must be less than or equal to ${totalIndexes} (the number of indexes in the specified succeededIndexes field)`));
    }
  }
  return errs;
}

/** `validateIndexesFormat`: the number of indexes, or the parse error message. */
export function validateIndexesFormat(s: string, completions: number): number | string {
  if (s === '') return 0;
  let last: number | undefined;
  let total = 0;
  for (const part of s.split(',')) {
    const r = parseIndexInterval(part, completions);
    if (typeof r === 'string') return r;
    const [x, y] = r;
    if (last !== undefined && last >= x) return `non-increasing order, previous: ${last}, current: ${x}`;
    total += y - x + 1;
    last = y;
  }
  return total;
}

function goAtoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number.parseInt(s, 10) : undefined;
}

function parseIndexInterval(s: string, completions: number): [number, number] | string {
  const limits = s.split('-');
  if (limits.length > 2) return `the fragment ${goQuote(s)} violates the requirement that an index interval can have at most two parts separated by '-'`;
  const a = limits[0] ?? '';
  const x = goAtoi(a);
  if (x === undefined) return `cannot convert string to integer for index: ${goQuote(a)}`;
  if (x >= completions) return `too large index: ${goQuote(a)}`;
  if (limits.length > 1) {
    const b = limits[1] ?? '';
    const y = goAtoi(b);
    if (y === undefined) return `cannot convert string to integer for index: ${goQuote(b)}`;
    if (y >= completions) return `too large index: ${goQuote(b)}`;
    if (x >= y) return `non-increasing order, previous: ${x}, current: ${y}`;
    return [x, y];
  }
  return [x, x];
}

function validateGeneratedSelector(job: Job): FieldError[] {
  if (job.spec?.manualSelector === true) return [];
  const uid = job.metadata?.uid ?? '';
  if (uid === '') return [fieldErrors.required(Path.root('metadata').child('uid'), '')];
  const labels = job.spec?.template.metadata?.labels ?? {};
  const ml = job.spec?.selector?.matchLabels ?? {};
  const errs: FieldError[] = [];
  if (labels[jobLabels.controllerUid] !== uid || ml[jobLabels.controllerUid] !== uid) {
    errs.push(fieldErrors.invalid(Path.root('spec').child('selector'), goLabelSelector(job.spec?.selector, true), '`selector` not auto-generated'));
  }
  return errs;
}

/** `ValidateJob` (create). Generates the selector first, as the Job strategy does. */
export function validateJob(job: Job): FieldError[] {
  generateJobSelector(job);
  const errs = validateObjectMeta(job.metadata, { namespaced: true, nameFn: nameIsDNSSubdomain });
  errs.push(...validateGeneratedSelector(job));
  errs.push(...validateJobSpec(job.spec, Path.root('spec')));
  const completions = job.spec?.completions;
  if (job.spec?.completionMode === 'Indexed' && completions != null && completions > 0) {
    // The controller names pod hostnames `<job>-<index>`; the last one must be a valid DNS label.
    const host = `${job.metadata?.name ?? ''}-${completions - 1}`;
    if (isDNS1123Label(host).length > 0) {
      errs.push(fieldErrors.invalid(Path.root('metadata').child('name'), job.metadata?.name ?? '', `will not able to create pod with invalid DNS label: ${host}`));
    }
  }
  return errs;
}

/**
 * `validateCompletions` (ElasticIndexedJob, GA): completions is immutable for NonIndexed Jobs; an Indexed
 * Job may change it together with parallelism (to the same value).
 */
function validateCompletions(spec: JobSpec | undefined, old: JobSpec | undefined, path: Path): FieldError[] {
  if (spec?.completionMode !== 'Indexed') return validateImmutableField(spec?.completions ?? undefined, old?.completions ?? undefined, path, shownPtr(spec?.completions));
  if ((spec.completions ?? undefined) === (old?.completions ?? undefined) || spec.completions == null) return [];
  if (spec.completions !== spec.parallelism) return [fieldErrors.invalid(path, spec.completions, 'can only be modified in tandem with spec.parallelism')];
  return [];
}

/**
 * `ValidateJobUpdate`: completions (see above), selector, template (unless suspended), completionMode, podFailurePolicy,
 * backoffLimitPerIndex, managedBy and successPolicy are immutable.
 */
export function validateJobUpdate(job: Job, old: Job): FieldError[] {
  const errs = validateObjectMetaUpdate(job.metadata, old.metadata);
  errs.push(...validateJobSpec(job.spec, Path.root('spec')));
  const sp = Path.root('spec');
  errs.push(...validateCompletions(job.spec, old.spec, sp.child('completions')));
  errs.push(...validateImmutableField(job.spec?.selector, old.spec?.selector, sp.child('selector'), goLabelSelector(job.spec?.selector, true)));
  if (job.spec?.suspend !== true || old.spec?.suspend !== true) {
    errs.push(...validateImmutableField(job.spec?.template, old.spec?.template, sp.child('template'), '...'));
  }
  errs.push(...validateImmutableField(job.spec?.completionMode, old.spec?.completionMode, sp.child('completionMode'), job.spec?.completionMode ?? ''));
  const pfp = job.spec?.podFailurePolicy;
  errs.push(...validateImmutableField(pfp ?? undefined, old.spec?.podFailurePolicy ?? undefined, sp.child('podFailurePolicy'), pfp == null ? shownPtr(pfp) : goPodFailurePolicy(pfp)));
  errs.push(...validateImmutableField(job.spec?.backoffLimitPerIndex ?? undefined, old.spec?.backoffLimitPerIndex ?? undefined, sp.child('backoffLimitPerIndex'), shownPtr(job.spec?.backoffLimitPerIndex)));
  errs.push(...validateImmutableField(job.spec?.managedBy ?? undefined, old.spec?.managedBy ?? undefined, sp.child('managedBy'), shownPtr(job.spec?.managedBy)));
  const spol = job.spec?.successPolicy;
  errs.push(...validateImmutableField(spol ?? undefined, old.spec?.successPolicy ?? undefined, sp.child('successPolicy'), spol == null ? shownPtr(spol) : goSuccessPolicy(spol)));
  return errs;
}

const cronJobNameMaxLength = 52;

/** `ValidateCronJobCreate`. */
export function validateCronJob(cj: CronJob): FieldError[] {
  const errs = validateObjectMeta(cj.metadata, { namespaced: true, nameFn: nameIsDNSSubdomain });
  const name = cj.metadata?.name ?? '';
  if (name.length > cronJobNameMaxLength) errs.push(fieldErrors.invalid(Path.root('metadata').child('name'), name, maxLenError(cronJobNameMaxLength)));
  errs.push(...validateCronJobSpec(cj));
  return errs;
}

function validateCronJobSpec(cj: CronJob): FieldError[] {
  const spec = cj.spec;
  const sp = Path.root('spec');
  const errs: FieldError[] = [];
  const schedule = spec?.schedule ?? '';
  if (schedule === '') errs.push(fieldErrors.required(sp.child('schedule'), ''));
  else if (!isCronSchedule(schedule)) errs.push(fieldErrors.invalid(sp.child('schedule'), schedule, `unparseable schedule`));
  const cp = spec?.concurrencyPolicy ?? '';
  if (cp === '') errs.push(fieldErrors.required(sp.child('concurrencyPolicy'), ''));
  else if (!['Allow', 'Forbid', 'Replace'].includes(cp)) errs.push(fieldErrors.notSupported(sp.child('concurrencyPolicy'), cp, ['Allow', 'Forbid', 'Replace']));
  for (const f of ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'] as const) {
    const v = spec?.[f];
    if (v !== undefined) errs.push(...validateNonnegativeField(v, sp.child(f)));
  }
  const jt = spec?.jobTemplate;
  const jtp = sp.child('jobTemplate').child('spec');
  const jobSpec = jt?.spec;
  if (jobSpec?.selector !== undefined || jobSpec?.manualSelector === true) {
    // A CronJob's template may carry a manual selector; validate it as a Job spec would.
    errs.push(...validateJobSpec(jobSpec, jtp));
  } else if (jobSpec !== undefined) {
    errs.push(...validatePodTemplateSpec(jobSpec.template, jtp.child('template')));
    const rp = jobSpec.template.spec?.restartPolicy ?? '';
    if (rp !== 'OnFailure' && rp !== 'Never') errs.push(fieldErrors.notSupported(jtp.child('template', 'spec', 'restartPolicy'), rp, ['OnFailure', 'Never']));
  }
  return errs;
}

/** `ValidateCronJobUpdate`. */
export function validateCronJobUpdate(cj: CronJob, old: CronJob): FieldError[] {
  const errs = validateObjectMetaUpdate(cj.metadata, old.metadata);
  errs.push(...validateCronJobSpec(cj));
  return errs;
}

/** A five-field cron expression or a `@hourly`-style macro (robfig/cron's standard parser). */
export function isCronSchedule(s: string): boolean {
  const t = s.trim().replace(/^(CRON_)?TZ=\S+\s+/, '');
  if (/^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/.test(t)) return true;
  if (/^@every\s+\S+$/.test(t)) return true;
  const fields = t.split(/\s+/);
  if (fields.length !== 5) return false;
  return fields.every((f) => /^[\d*?/,\-A-Za-z]+$/.test(f));
}
