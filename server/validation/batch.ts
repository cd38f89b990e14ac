/**
 * batch/v1 rules: a Job's template runs to completion (restartPolicy OnFailure or Never), its
 * selector and template are fixed once created; a CronJob's schedule is one robfig/cron's
 * standard parser takes (cron-schedule.ts), in a time zone the server knows.
 */
import { cronScheduleProblem } from './cron-schedule';
import { domainPrefixedPathErrors } from './domain-prefixed-path';
import { goJSONQuote } from '../../api/go-quote';
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import {
  FieldPath,
  GoValue,
  jsonLabelSelector,
  jsonStringMap,
  invalid,
  notSupported,
  required,
  tooLong,
} from '../status/field-errors';
import { goLen, isDNS1123Label, maxLenError } from './names';
import {
  selectorMatches,
  validateEnum,
  hasInvalidLabelValue,
  labelSelectorParses,
  validateLabelSelector,
  validateNonnegative,
  type LabelSelectorOptions,
  type LabelSelectorShape,
} from './object-meta';
import { podValidationOptions, validatePodTemplateSpec, type PodTemplateShape, type PodValidationOptions } from './pod';
import type { WriteContext } from '../registry/types';
import { validateJobStatusUpdate } from './job-status';
import { immutableAs, memberType } from './semantic-equality';
import { jobTemplateUpdateErrors } from './job-template-update';
import { goPodFailurePolicy, validatePodFailurePolicy, type PodFailurePolicy } from './job-pod-failure-policy';
import { goSuccessPolicy, validateSuccessPolicy, type SuccessPolicy } from './job-success-policy';

interface JobSpec {
  parallelism?: number;
  completions?: number;
  activeDeadlineSeconds?: number;
  backoffLimit?: number;
  ttlSecondsAfterFinished?: number;
  backoffLimitPerIndex?: number;
  maxFailedIndexes?: number;
  managedBy?: string;
  successPolicy?: SuccessPolicy | null;
  podFailurePolicy?: PodFailurePolicy | null;
  completionMode?: string;
  manualSelector?: boolean;
  selector?: LabelSelectorShape;
  template?: PodTemplateShape;
  [member: string]: unknown;
}

/** The internal struct the reference compares a Job's set-once fields in. */
const JOB_SPEC = 'batch.JobSpec';

export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
const LEGACY_JOB_NAME_LABEL = 'job-name';

/**
 * The labels a generated selector gives a Job's pods, in the order the reference checks them:
 * the legacy ones, then (`prefixed`) those under batch.kubernetes.io/.
 */
export function generatedJobLabels(
  name: string,
  uid: string,
  { prefixed }: { readonly prefixed: boolean } = { prefixed: true },
): Record<string, string> {
  return {
    [LEGACY_CONTROLLER_UID_LABEL]: uid,
    [LEGACY_JOB_NAME_LABEL]: name,
    ...(prefixed ? { [CONTROLLER_UID_LABEL]: uid, [JOB_NAME_LABEL]: name } : {}),
  };
}

/**
 * A selector the server generated (manualSelector unset or false): the template must carry the
 * labels it was generated from, and the selector must select them, so that a client cannot
 * point a Job at pods not its own without saying so. The prefixed labels are required unless
 * the stored Job's template lacked them (Jobs written before 1.27).
 */
function validateGeneratedSelector(job: KubeObject, spec: JobSpec, old: KubeObject | undefined): FieldError[] {
  if (spec.manualSelector === true || spec.selector == null) return [];
  const uid = job.metadata.uid ?? '';
  const errors: FieldError[] = uid === '' ? [required(FieldPath.root('metadata', 'uid'))] : [];
  const oldLabels = (old?.spec as JobSpec | undefined)?.template?.metadata?.labels;
  const prefixed =
    old === undefined || (oldLabels?.[JOB_NAME_LABEL] !== undefined && oldLabels[CONTROLLER_UID_LABEL] !== undefined);
  const expected = generatedJobLabels(job.metadata.name ?? '', uid, { prefixed });
  const labels = spec.template?.metadata?.labels;
  const labelsPath = FieldPath.root('spec', 'template', 'metadata', 'labels');
  for (const [key, value] of Object.entries(expected)) {
    if (labels?.[key] === undefined) errors.push(required(labelsPath.key(key), `must be '${value}'`));
    else if (labels[key] !== value)
      errors.push(invalid(labelsPath.key(key), jsonStringMap(labels), `must be '${value}'`));
  }
  if (labelSelectorParses(spec.selector) && !selectorMatches(spec.selector, expected))
    errors.push(
      invalid(FieldPath.root('spec', 'selector'), jsonLabelSelector(spec.selector), '`selector` not auto-generated'),
    );
  return errors;
}

/** In Go's order of fields (the reference's validateJobSpec), so that several causes list as its do. */
function validateJobSpec(spec: JobSpec, path: FieldPath, options: PodValidationOptions): FieldError[] {
  const errors: FieldError[] = [
    ...validateNonnegative(spec.parallelism, path.child('parallelism')),
    ...validateNonnegative(spec.completions, path.child('completions')),
    ...validateNonnegative(spec.activeDeadlineSeconds, path.child('activeDeadlineSeconds')),
    ...validateNonnegative(spec.backoffLimit, path.child('backoffLimit')),
    ...validateNonnegative(spec.ttlSecondsAfterFinished, path.child('ttlSecondsAfterFinished')),
    ...validateNonnegative(spec.backoffLimitPerIndex, path.child('backoffLimitPerIndex')),
  ];
  if (spec.maxFailedIndexes != null) {
    errors.push(...validateNonnegative(spec.maxFailedIndexes, path.child('maxFailedIndexes')));
    if (spec.backoffLimitPerIndex == null)
      errors.push(required(path.child('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  if (spec.managedBy != null) errors.push(...managedByErrors(spec.managedBy, path.child('managedBy')));
  // A pointer in Go: only a mode left out is defaulted, so `""` sent is refused, in Go's order of values.
  if (spec.completionMode != null && !['NonIndexed', 'Indexed'].includes(spec.completionMode))
    errors.push(notSupported(path.child('completionMode'), spec.completionMode, ['NonIndexed', 'Indexed']));
  if (spec.completionMode === 'Indexed') errors.push(...indexedLimitErrors(spec, path));
  if ((spec.completionMode ?? 'NonIndexed') === 'NonIndexed') {
    for (const name of ['backoffLimitPerIndex', 'maxFailedIndexes'] as const)
      if (spec[name] != null) errors.push(invalid(path.child(name), spec[name], 'requires indexed completion mode'));
  }
  if (spec.podFailurePolicy != null)
    errors.push(
      ...validatePodFailurePolicy(
        spec.podFailurePolicy,
        { backoffLimitPerIndex: spec.backoffLimitPerIndex, containerNames: templateContainerNames(spec.template) },
        path.child('podFailurePolicy'),
      ),
    );
  if (spec.successPolicy != null) {
    if (spec.completionMode !== 'Indexed')
      errors.push(
        invalid(path.child('successPolicy'), goSuccessPolicy(spec.successPolicy), 'requires indexed completion mode'),
      );
    else
      errors.push(
        ...validateSuccessPolicy(spec.successPolicy, spec.completions ?? undefined, path.child('successPolicy')),
      );
  }
  errors.push(...podReplacementPolicyErrors(spec, path.child('podReplacementPolicy')));
  errors.push(...validatePodTemplateSpec(spec.template, path.child('template'), options));
  if (spec.template !== undefined)
    errors.push(...restartPolicyErrors(spec, path.child('template', 'spec', 'restartPolicy')));
  return errors;
}

/** The controller a Job is left to: a name as long as a label value, under a domain of its owner's. */
const MAX_MANAGED_BY_LENGTH = 63;

function managedByErrors(managedBy: string, path: FieldPath): FieldError[] {
  const errors = domainPrefixedPathErrors(managedBy, path);
  if (managedBy.length > MAX_MANAGED_BY_LENGTH) errors.push(tooLong(path, MAX_MANAGED_BY_LENGTH));
  return errors;
}

/** An Indexed Job's status lists its indexes: these bounds keep those lists of a size etcd takes. */
const MAX_INDEXED_PARALLELISM = 100_000;
const MAX_FAILED_INDEXES = 100_000;
/** Above this many completions, per-index backoff must bound the failed indexes, and more tightly. */
const COMPLETIONS_SOFT_LIMIT = 100_000;
const MAX_PARALLELISM_FOR_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS = 10_000;

/** An Indexed Job's counts, in the reference's order. */
function indexedLimitErrors(spec: JobSpec, path: FieldPath): FieldError[] {
  const { completions, parallelism, maxFailedIndexes, backoffLimitPerIndex } = spec;
  const errors: FieldError[] = [];
  if (completions == null) errors.push(required(path.child('completions'), 'when completion mode is Indexed'));
  if (parallelism != null && parallelism > MAX_INDEXED_PARALLELISM)
    errors.push(
      invalid(
        path.child('parallelism'),
        parallelism,
        `must be less than or equal to ${MAX_INDEXED_PARALLELISM} when completion mode is Indexed`,
      ),
    );
  if (completions != null && maxFailedIndexes != null && maxFailedIndexes > completions)
    errors.push(invalid(path.child('maxFailedIndexes'), maxFailedIndexes, 'must be less than or equal to completions'));
  if (maxFailedIndexes != null && maxFailedIndexes > MAX_FAILED_INDEXES)
    errors.push(
      invalid(path.child('maxFailedIndexes'), maxFailedIndexes, `must be less than or equal to ${MAX_FAILED_INDEXES}`),
    );
  if (completions != null && completions > COMPLETIONS_SOFT_LIMIT && backoffLimitPerIndex != null) {
    const highCompletions = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
    if (maxFailedIndexes == null)
      errors.push(
        required(
          path.child('maxFailedIndexes'),
          `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`,
        ),
      );
    if (parallelism != null && parallelism > MAX_PARALLELISM_FOR_HIGH_COMPLETIONS)
      errors.push(
        invalid(
          path.child('parallelism'),
          parallelism,
          `must be less than or equal to ${MAX_PARALLELISM_FOR_HIGH_COMPLETIONS} ${highCompletions}`,
        ),
      );
    if (maxFailedIndexes != null && maxFailedIndexes > MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS)
      errors.push(
        invalid(
          path.child('maxFailedIndexes'),
          maxFailedIndexes,
          `must be less than or equal to ${MAX_FAILED_INDEXES_FOR_HIGH_COMPLETIONS} ${highCompletions}`,
        ),
      );
  }
  return errors;
}

/** The names a pod failure policy's exit-code rule may give: the template's containers and init containers. */
function templateContainerNames(template: PodTemplateShape | undefined): Set<string> {
  const { containers = [], initContainers = [] } = template?.spec ?? {};
  return new Set([...containers, ...initContainers].map((container) => container.name ?? ''));
}

const POD_REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];

/** With a pod failure policy, pods are replaced only once they have failed. */
function podReplacementPolicyErrors(spec: JobSpec, path: FieldPath): FieldError[] {
  const policy = spec.podReplacementPolicy;
  if (policy == null) return [];
  const allowed = spec.podFailurePolicy != null ? ['Failed'] : POD_REPLACEMENT_POLICIES;
  return allowed.includes(policy as string) ? [] : [notSupported(path, policy, allowed)];
}

/**
 * A Job's pods run to completion: `Always` (what a pod defaults to) is a missing choice, another
 * value unsupported, and a pod failure policy needs `Never` to see each failure.
 */
function restartPolicyErrors(spec: JobSpec, path: FieldPath): FieldError[] {
  const restartPolicy = spec.template?.spec?.restartPolicy ?? '';
  if (restartPolicy === 'Always' || restartPolicy === '') return [required(path, 'valid values: "OnFailure", "Never"')];
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never')
    return [notSupported(path, restartPolicy, ['OnFailure', 'Never'])];
  if (spec.podFailurePolicy != null && restartPolicy !== 'Never')
    return [invalid(path, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified')];
  return [];
}

/** `old`: the stored Job, on update. */
export function validateJob(job: KubeObject, context: WriteContext, old?: KubeObject): FieldError[] {
  const spec = (job.spec as JobSpec | undefined) ?? {};
  return [
    ...validateGeneratedSelector(job, spec, old),
    ...validateWholeJobSpec(spec, context, old),
    ...indexedHostnameErrors(job, spec),
  ];
}

/**
 * An Indexed Job's pods are named for their index after the Job (`<name>-<index>`), which must
 * make a DNS label up to the last index, or the controller could not create those pods.
 */
function indexedHostnameErrors(job: KubeObject, spec: JobSpec): FieldError[] {
  if (spec.completionMode !== 'Indexed' || spec.completions == null || spec.completions <= 0) return [];
  const name = job.metadata.name ?? '';
  const lastHostname = `${name}-${spec.completions - 1}`;
  if (isDNS1123Label(lastHostname).length === 0) return [];
  return [
    invalid(
      FieldPath.root('metadata', 'name'),
      name,
      `will not able to create pod with invalid DNS label: ${lastHostname}`,
    ),
  ];
}

/** The spec with its selector (the reference's ValidateJobSpec). */
function validateWholeJobSpec(spec: JobSpec, context: WriteContext, old: KubeObject | undefined): FieldError[] {
  const oldSpec = old?.spec as JobSpec | undefined;
  const path = FieldPath.root('spec');
  return [
    ...validateJobSpec(spec, path, podValidationOptions(context.featureEnabled, oldSpec?.template)),
    // Values are checked unless the stored selector has invalid ones (the reference's Job strategy).
    ...validateJobSelector(spec, path, { allowInvalidLabelValues: hasInvalidLabelValue(oldSpec?.selector) }),
  ];
}

/**
 * A Job's selector, after the rest of its spec as the reference checks it: required (generated
 * at creation unless manualSelector is set), and matching the template's labels when
 * LabelSelectorAsSelector takes it; none at all matches nothing.
 */
function validateJobSelector(spec: JobSpec, path: FieldPath, selectorOptions: LabelSelectorOptions): FieldError[] {
  const selector = spec.selector;
  const errors =
    selector === undefined
      ? [required(path.child('selector'))]
      : validateLabelSelector(selector, path.child('selector'), selectorOptions);
  const labels = spec.template?.metadata?.labels;
  if (labelSelectorParses(selector) && (selector === undefined || !selectorMatches(selector, labels))) {
    errors.push(
      invalid(
        path.child('template', 'metadata', 'labels'),
        jsonStringMap(labels),
        '`selector` does not match template `labels`',
      ),
    );
  }
  return errors;
}

/**
 * What the reference's ValidateUpdate reports before the update's own metadata check: its
 * ValidateJob of the new Job (the generated selector, the spec, the indexed pods' names), with
 * the stored Job's leave.
 */
export function validateJobOnUpdate(job: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  return validateJob(job, context, old);
}

/**
 * An update of the Job or of its status. A main update keeps the stored status, so the status
 * rules that judge a change from the stored one only refuse status writes; the few that judge
 * any status hold for every Job a 1.34 server stored.
 */
export function validateJobUpdate(job: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  const spec = (job.spec as JobSpec | undefined) ?? {};
  const oldSpec = (old.spec as JobSpec | undefined) ?? {};
  const path = FieldPath.root('spec');
  return [
    // After validateJobOnUpdate and the metadata, ValidateJobSpecUpdate checks the spec again.
    ...validateWholeJobSpec(spec, context, old),
    ...completionsUpdateErrors(spec, oldSpec, path.child('completions')),
    ...immutableAs(
      memberType(JOB_SPEC, 'selector'),
      path.child('selector'),
      spec.selector,
      oldSpec.selector,
      jsonLabelSelector(spec.selector),
    ),
    ...jobTemplateUpdateErrors(spec.template, old, path.child('template')),
    // Set once: the controller's bookkeeping (indexes, failure handling, ownership) follows them.
    ...setOnce(spec, oldSpec, 'completionMode', path, (mode) => new GoValue(goJSONQuote(mode))),
    ...setOnce(spec, oldSpec, 'podFailurePolicy', path, goPodFailurePolicy),
    ...setOnce(spec, oldSpec, 'backoffLimitPerIndex', path, (limit) => limit),
    ...setOnce(spec, oldSpec, 'managedBy', path, (managedBy) => new GoValue(goJSONQuote(managedBy))),
    ...setOnce(spec, oldSpec, 'successPolicy', path, goSuccessPolicy),
    ...validateJobStatusUpdate(job, old, context.featureEnabled),
  ];
}

/** A field fixed at creation, its new value printed (`shown`) as the reference prints the Go value. */
function setOnce<
  K extends 'completionMode' | 'podFailurePolicy' | 'backoffLimitPerIndex' | 'managedBy' | 'successPolicy',
>(
  spec: JobSpec,
  oldSpec: JobSpec,
  name: K,
  path: FieldPath,
  shown: (value: NonNullable<JobSpec[K]>) => unknown,
): FieldError[] {
  const value = spec[name];
  return immutableAs(
    memberType(JOB_SPEC, name),
    path.child(name),
    value,
    oldSpec[name],
    value == null ? null : shown(value),
  );
}

/**
 * Completions are fixed for a NonIndexed Job; an Indexed Job may change them only together
 * with parallelism, to the same number (scaling it elastically).
 */
function completionsUpdateErrors(spec: JobSpec, oldSpec: JobSpec, path: FieldPath): FieldError[] {
  if (spec.completionMode !== 'Indexed')
    return immutableAs(
      memberType(JOB_SPEC, 'completions'),
      path,
      spec.completions,
      oldSpec.completions,
      spec.completions ?? null,
    );
  if (spec.completions === oldSpec.completions || spec.completions == null) return [];
  return spec.completions === spec.parallelism
    ? []
    : [invalid(path, spec.completions, 'can only be modified in tandem with spec.parallelism')];
}

interface CronJobSpec {
  schedule?: string;
  timeZone?: string | null;
  concurrencyPolicy?: string;
  startingDeadlineSeconds?: number;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
  jobTemplate?: { metadata?: unknown; spec?: JobSpec };
}

/** A CronJob's name leaves room for the 11-character suffix of the Jobs it creates. */
const CRONJOB_NAME_MAX = 52;

/**
 * A time zone in the schedule (`TZ=`, `CRON_TZ=`) belongs in `timeZone` now: only a CronJob
 * stored with one may keep it, and then without a `timeZone` too.
 */
function scheduleTimeZoneErrors(spec: CronJobSpec, storedHadOne: boolean, path: FieldPath): FieldError[] {
  const schedule = spec.schedule ?? '';
  if (!schedule.includes('TZ')) return [];
  if (!storedHadOne)
    return [invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead')];
  return spec.timeZone === undefined || spec.timeZone === null
    ? []
    : [invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule')];
}

/** One part of an IANA zone name, as the reference's check takes it (digits and `+` for legacy names). */
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/**
 * An IANA time zone the server knows, as the reference's validateTimeZone (its time.LoadLocation
 * here is the runtime's ICU zone data, which knows the same names).
 */
function timeZoneErrors(timeZone: string | null | undefined, path: FieldPath): FieldError[] {
  if (timeZone === undefined || timeZone === null) return [];
  if (timeZone === '') return [invalid(path, timeZone, 'timeZone must be nil or non-empty string')];
  for (const part of timeZone.split('/'))
    if (part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part))
      return [invalid(path, timeZone, `unknown time zone ${timeZone}`)];
  if (timeZone.toLowerCase() === 'local')
    return [
      invalid(path, timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'),
    ];
  const problem = zoneLoadProblem(timeZone);
  return problem === undefined ? [] : [invalid(path, timeZone, problem)];
}

/**
 * Go's time.LoadLocation's refusal of a zone name, from the runtime's ICU zone data, which
 * knows the same names ("" and "UTC" are UTC there, "Local" the server's own).
 */
function zoneLoadProblem(zone: string): string | undefined {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return undefined;
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return `unknown time zone ${zone}`;
  }
  // ICU ignores case, a zone database's file names do not: `utc` names no zone there.
  return canonical !== zone && canonical.toLowerCase() === zone.toLowerCase() ? `unknown time zone ${zone}` : undefined;
}

/** In the reference's order (ValidateCronJobCreate): the spec's fields, then the name's length. */
export function validateCronJob(cronJob: KubeObject, context: WriteContext): FieldError[] {
  const errors = validateCronJobSpec(cronJob, context, undefined);
  const name = cronJob.metadata.name ?? '';
  if (goLen(name) > CRONJOB_NAME_MAX)
    errors.push(invalid(FieldPath.root('metadata', 'name'), name, maxLenError(CRONJOB_NAME_MAX)));
  return errors;
}

/**
 * An update spares what the stored Job template already holds (as pod templates' options do),
 * and skips the name's length limit, so that CronJobs stored with longer names stay editable.
 */
export function validateCronJobUpdate(cronJob: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  return validateCronJobSpec(cronJob, context, old);
}

function validateCronJobSpec(cronJob: KubeObject, context: WriteContext, old: KubeObject | undefined): FieldError[] {
  const spec = (cronJob.spec as CronJobSpec | undefined) ?? {};
  const oldTemplate = (old?.spec as CronJobSpec | undefined)?.jobTemplate?.spec?.template;
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  const oldSpec = old === undefined ? undefined : ((old.spec as CronJobSpec | undefined) ?? {});
  if (!spec.schedule) errors.push(required(path.child('schedule')));
  else {
    const problem = cronScheduleProblem(spec.schedule, zoneLoadProblem);
    if (problem !== undefined) errors.push(invalid(path.child('schedule'), spec.schedule, problem));
    errors.push(...scheduleTimeZoneErrors(spec, (oldSpec?.schedule ?? '').includes('TZ'), path.child('schedule')));
  }
  errors.push(...validateNonnegative(spec.startingDeadlineSeconds, path.child('startingDeadlineSeconds')));
  if (oldSpec === undefined || (oldSpec.timeZone ?? null) !== (spec.timeZone ?? null))
    errors.push(...timeZoneErrors(spec.timeZone, path.child('timeZone')));
  errors.push(
    ...validateEnum(spec.concurrencyPolicy, ['Allow', 'Forbid', 'Replace'], path.child('concurrencyPolicy'), true),
  );
  errors.push(
    ...validateJobTemplateSpec(
      spec.jobTemplate?.spec ?? {},
      path.child('jobTemplate', 'spec'),
      podValidationOptions(context.featureEnabled, oldTemplate),
    ),
  );
  errors.push(...validateNonnegative(spec.successfulJobsHistoryLimit, path.child('successfulJobsHistoryLimit')));
  errors.push(...validateNonnegative(spec.failedJobsHistoryLimit, path.child('failedJobsHistoryLimit')));
  return errors;
}

/** Each Job a CronJob makes gets a selector of its own, generated: the template may not choose one. */
function validateJobTemplateSpec(jobSpec: JobSpec, path: FieldPath, options: PodValidationOptions): FieldError[] {
  const errors = validateJobSpec(jobSpec, path, options);
  if (jobSpec.selector !== undefined)
    errors.push(
      invalid(path.child('selector'), jsonLabelSelector(jobSpec.selector), '`selector` will be auto-generated'),
    );
  if (jobSpec.manualSelector === true) errors.push(notSupported(path.child('manualSelector'), true, ['nil', 'false']));
  return errors;
}
