/**
 * batch/v1 Jobs and CronJobs as `pkg/apis/batch/validation` (v1.32) checks them, including the Job
 * strategy's selector generation (upstream runs `generateSelector` inside the strategy's Validate, after
 * the UID has been assigned).
 */
import type { CronJob, Job, JobSpec } from 'kubernetes-types/batch/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { type FieldError, fieldErrors, goStringMap, Path } from '../../api/field-errors.js';
import { labelSelectorAsSelector, SelectorParseError, type Selector } from '../../api/labels.js';
import { maxLenError, nameIsDNSSubdomain } from './_names.js';
import { goLabelSelector } from './_go.js';
import { validateImmutableField, validateLabelSelector, validateNonnegativeField, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
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

function validateJobSpec(spec: JobSpec | undefined, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished'] as const) {
    const v = spec?.[f];
    if (v !== undefined) errs.push(...validateNonnegativeField(v, path.child(f)));
  }
  if (spec?.selector === undefined) errs.push(fieldErrors.required(path.child('selector'), ''));
  else errs.push(...validateLabelSelector(spec.selector, path.child('selector')));
  const selector = selectorOf(spec);
  const tplLabels = spec?.template.metadata?.labels;
  if (selector !== undefined && !selector.matches(tplLabels)) {
    errs.push(fieldErrors.invalid(path.child('template', 'metadata', 'labels'), goStringMap(tplLabels), '`selector` does not match template `labels`'));
  }
  const mode = spec?.completionMode ?? 'NonIndexed';
  if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fieldErrors.notSupported(path.child('completionMode'), mode, ['NonIndexed', 'Indexed']));
  if (mode === 'Indexed' && spec?.completions === undefined) errs.push(fieldErrors.required(path.child('completions'), 'when completion mode is Indexed'));
  errs.push(...validatePodTemplateSpec(spec?.template, path.child('template')));
  const rp = spec?.template.spec?.restartPolicy ?? '';
  if (rp !== 'OnFailure' && rp !== 'Never') errs.push(fieldErrors.notSupported(path.child('template', 'spec', 'restartPolicy'), rp, ['OnFailure', 'Never']));
  return errs;
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
  return errs;
}

/** `ValidateJobUpdate`: selector, template (unless suspended), completions and completionMode are immutable. */
export function validateJobUpdate(job: Job, old: Job): FieldError[] {
  const errs = validateObjectMetaUpdate(job.metadata, old.metadata);
  errs.push(...validateJobSpec(job.spec, Path.root('spec')));
  const sp = Path.root('spec');
  errs.push(...validateImmutableField(job.spec?.selector, old.spec?.selector, sp.child('selector'), goLabelSelector(job.spec?.selector, true)));
  if (job.spec?.suspend !== true || old.spec?.suspend !== true) {
    errs.push(...validateImmutableField(job.spec?.template, old.spec?.template, sp.child('template'), '...'));
  }
  errs.push(...validateImmutableField(job.spec?.completionMode, old.spec?.completionMode, sp.child('completionMode'), job.spec?.completionMode ?? ''));
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
