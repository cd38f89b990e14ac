/**
 * A Job's status as the reference's status strategy judges it (pkg/registry/batch/job
 * getStatusValidationOptions, pkg/apis/batch/validation validateJobStatus and
 * ValidateJobStatusUpdate). A few rules always hold: counts are not negative, an uncounted pod
 * is named once, SuccessCriteriaMet goes with neither Failed nor FailureTarget and is never
 * taken back. With JobManagedBy on (the 1.34 default), a Job may be driven by a controller
 * other than the built-in one, so the transitions are checked too: a finished Job stays
 * finished, counters only grow, times and indexes are consistent. Each of those rules is
 * asked only when a field it reads changes, so that a Job already breaking it (written before,
 * or just scaled down by its user) can still have its other fields written.
 */
import { metaTime, type KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { deepEqual, duplicate, FieldPath, invalid, invalidWithoutValue, required } from '../status/field-errors';
import type { FeatureEnabled } from '../registry/types';
import { validateNonnegative } from './object-meta';
import { firstOverlap, parseIndexList } from './job-indexes';

interface JobCondition {
  type?: string;
  status?: string;
}

interface UncountedTerminatedPods {
  succeeded?: string[] | null;
  failed?: string[] | null;
}

interface JobStatus {
  active?: number;
  succeeded?: number;
  failed?: number;
  ready?: number | null;
  terminating?: number | null;
  startTime?: string | null;
  completionTime?: string | null;
  completedIndexes?: string;
  failedIndexes?: string | null;
  uncountedTerminatedPods?: UncountedTerminatedPods | null;
  conditions?: JobCondition[] | null;
}

interface JobSpecShape {
  completionMode?: string;
  completions?: number | null;
  parallelism?: number | null;
  backoffLimitPerIndex?: number | null;
  successPolicy?: unknown;
  suspend?: boolean;
}

/** The rules a status write is held to; the names are the reference's JobStatusValidationOptions. */
interface JobStatusRules {
  rejectDecreasingSucceededCounter: boolean;
  rejectDecreasingFailedCounter: boolean;
  rejectDisablingTerminalCondition: boolean;
  rejectInvalidCompletedIndexes: boolean;
  rejectInvalidFailedIndexes: boolean;
  rejectFailedIndexesOverlappingCompleted: boolean;
  rejectCompletedIndexesForNonIndexedJob: boolean;
  rejectFailedIndexesForNoBackoffLimitPerIndex: boolean;
  rejectFailedJobWithoutFailureTarget: boolean;
  rejectCompleteJobWithoutSuccessCriteriaMet: boolean;
  rejectFinishedJobWithActivePods: boolean;
  rejectFinishedJobWithoutStartTime: boolean;
  rejectFinishedJobWithUncountedTerminatedPods: boolean;
  rejectStartTimeUpdateForUnsuspendedJob: boolean;
  rejectCompletionTimeBeforeStartTime: boolean;
  rejectMutatingCompletionTime: boolean;
  rejectCompleteJobWithoutCompletionTime: boolean;
  rejectNotCompleteJobWithCompletionTime: boolean;
  rejectCompleteJobWithFailedCondition: boolean;
  rejectCompleteJobWithFailureTargetCondition: boolean;
  rejectMoreReadyThanActivePods: boolean;
  rejectFinishedJobWithTerminatingPods: boolean;
}

const NO_TRANSITION_RULES: JobStatusRules = {
  rejectDecreasingSucceededCounter: false,
  rejectDecreasingFailedCounter: false,
  rejectDisablingTerminalCondition: false,
  rejectInvalidCompletedIndexes: false,
  rejectInvalidFailedIndexes: false,
  rejectFailedIndexesOverlappingCompleted: false,
  rejectCompletedIndexesForNonIndexedJob: false,
  rejectFailedIndexesForNoBackoffLimitPerIndex: false,
  rejectFailedJobWithoutFailureTarget: false,
  rejectCompleteJobWithoutSuccessCriteriaMet: false,
  rejectFinishedJobWithActivePods: false,
  rejectFinishedJobWithoutStartTime: false,
  rejectFinishedJobWithUncountedTerminatedPods: false,
  rejectStartTimeUpdateForUnsuspendedJob: false,
  rejectCompletionTimeBeforeStartTime: false,
  rejectMutatingCompletionTime: false,
  rejectCompleteJobWithoutCompletionTime: false,
  rejectNotCompleteJobWithCompletionTime: false,
  rejectCompleteJobWithFailedCondition: false,
  rejectCompleteJobWithFailureTargetCondition: false,
  rejectMoreReadyThanActivePods: false,
  rejectFinishedJobWithTerminatingPods: false,
};

/** A Job's status and spec as the rules read them, Go's zero values filled in. */
class JobView {
  readonly status: JobStatus;
  readonly spec: JobSpecShape;

  constructor(job: KubeObject) {
    this.status = (job.status as JobStatus | undefined) ?? {};
    this.spec = (job.spec as JobSpecShape | undefined) ?? {};
  }

  hasCondition(type: string, status = 'True'): boolean {
    return (this.status.conditions ?? []).some((c) => c.type === type && c.status === status);
  }
  get complete(): boolean {
    return this.hasCondition('Complete');
  }
  get failed(): boolean {
    return this.hasCondition('Failed');
  }
  get failureTarget(): boolean {
    return this.hasCondition('FailureTarget');
  }
  get successCriteriaMet(): boolean {
    return this.hasCondition('SuccessCriteriaMet');
  }
  get finished(): boolean {
    return this.complete || this.failed;
  }
  get indexed(): boolean {
    return this.spec.completionMode === 'Indexed';
  }
  get active(): number {
    return this.status.active ?? 0;
  }
  get succeededCount(): number {
    return this.status.succeeded ?? 0;
  }
  get failedCount(): number {
    return this.status.failed ?? 0;
  }
  get completedIndexes(): string {
    return this.status.completedIndexes ?? '';
  }
  uncounted(list: 'succeeded' | 'failed'): readonly string[] {
    return this.status.uncountedTerminatedPods?.[list] ?? [];
  }
}

/** Whether a Job's status is checked strictly, and which rules its change from `old` brings in. */
function statusRules(job: JobView, old: JobView, featureEnabled: FeatureEnabled): JobStatusRules {
  if (!featureEnabled('JobManagedBy')) return NO_TRANSITION_RULES;
  const changed = (read: (view: JobView) => unknown) => !deepEqual(read(job) ?? null, read(old) ?? null);
  const finishedChanged = changed((v) => v.finished);
  const completeChanged = changed((v) => v.complete);
  const failedChanged = changed((v) => v.failed);
  const failureTargetChanged = changed((v) => v.failureTarget);
  const successCriteriaMetChanged = changed((v) => v.successCriteriaMet);
  const completedIndexesChanged = changed((v) => v.completedIndexes);
  const failedIndexesChanged = changed((v) => v.status.failedIndexes);
  const activeChanged = changed((v) => v.active);
  const startTimeChanged = changed((v) => instant(v.status.startTime));
  const completionTimeChanged = changed((v) => instant(v.status.completionTime));
  const uncountedChanged = changed((v) => uncountedCompared(v));
  const readyChanged = changed((v) => v.status.ready);
  const terminatingChanged = changed((v) => v.status.terminating);
  const suspendedWithZeroCompletions = job.spec.suspend === true && job.spec.completions === 0;
  // The controller resuming a Job a user unsuspended sets a new start time (kubernetes#134521).
  const resuming = old.hasCondition('Suspended') && job.hasCondition('Suspended', 'False');
  return {
    // An Indexed Job with as many completions as parallelism may be scaled down.
    rejectDecreasingSucceededCounter: !job.indexed || (job.spec.completions ?? null) !== (job.spec.parallelism ?? null),
    rejectDecreasingFailedCounter: true,
    rejectDisablingTerminalCondition: true,
    rejectInvalidCompletedIndexes: completedIndexesChanged,
    rejectInvalidFailedIndexes: failedIndexesChanged,
    rejectCompletedIndexesForNonIndexedJob: completedIndexesChanged,
    rejectFailedIndexesForNoBackoffLimitPerIndex: failedIndexesChanged,
    rejectFailedIndexesOverlappingCompleted: failedIndexesChanged || completedIndexesChanged,
    rejectFailedJobWithoutFailureTarget: failedChanged || failedIndexesChanged,
    rejectCompleteJobWithoutSuccessCriteriaMet: completeChanged || successCriteriaMetChanged,
    rejectFinishedJobWithActivePods: finishedChanged || activeChanged,
    rejectFinishedJobWithoutStartTime: (finishedChanged || startTimeChanged) && !suspendedWithZeroCompletions,
    rejectFinishedJobWithUncountedTerminatedPods: finishedChanged || uncountedChanged,
    rejectStartTimeUpdateForUnsuspendedJob: startTimeChanged && !resuming,
    rejectCompletionTimeBeforeStartTime: startTimeChanged || completionTimeChanged,
    rejectMutatingCompletionTime: true,
    rejectNotCompleteJobWithCompletionTime: completeChanged || completionTimeChanged,
    rejectCompleteJobWithoutCompletionTime: completeChanged || completionTimeChanged,
    rejectCompleteJobWithFailedCondition: completeChanged || failedChanged,
    rejectCompleteJobWithFailureTargetCondition: completeChanged || failureTargetChanged,
    rejectMoreReadyThanActivePods: readyChanged || activeChanged,
    rejectFinishedJobWithTerminatingPods: finishedChanged || terminatingChanged,
  };
}

/** A metav1.Time's instant in milliseconds; absent: undefined. */
function instant(time: string | null | undefined): number | undefined {
  return time == null ? undefined : Date.parse(time);
}

/** A metav1.Time as the reference prints it in an error: its JSON form, in UTC to the second. */
function timeText(time: string): string {
  return metaTime(new Date(time));
}

/** uncountedTerminatedPods as the reference prints it in an error: its internal Go struct. */
function uncountedOf(view: JobView): { Succeeded: string[] | null; Failed: string[] | null } | null {
  const uncounted = view.status.uncountedTerminatedPods;
  if (uncounted == null) return null;
  return { Succeeded: uncounted.succeeded ?? null, Failed: uncounted.failed ?? null };
}

/** uncountedTerminatedPods as the reference's semantic equality sees it: an empty list is no list. */
function uncountedCompared(
  view: JobView,
): { succeeded: readonly string[] | null; failed: readonly string[] | null } | null {
  if (view.status.uncountedTerminatedPods == null) return null;
  const listOf = (list: 'succeeded' | 'failed') => (view.uncounted(list).length === 0 ? null : view.uncounted(list));
  return { succeeded: listOf('succeeded'), failed: listOf('failed') };
}

function uncountedPodErrors(job: JobView, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const list of ['succeeded', 'failed'] as const) {
    job.uncounted(list).forEach((uid, i) => {
      const at = path.child(list).index(i);
      if (uid === '') errors.push(invalid(at, uid, 'must not be empty'));
      else if (seen.has(uid)) errors.push(duplicate(at, uid));
      else seen.add(uid);
    });
  }
  return errors;
}

/** The reference's validateJobStatus: the status on its own, under `rules`. */
function jobStatusErrors(job: JobView, rules: JobStatusRules): FieldError[] {
  const path = FieldPath.root('status');
  const { status, spec } = job;
  const conditions = path.child('conditions');
  const errors: FieldError[] = [
    ...validateNonnegative(job.active, path.child('active')),
    ...validateNonnegative(job.succeededCount, path.child('succeeded')),
    ...validateNonnegative(job.failedCount, path.child('failed')),
    ...validateNonnegative(status.ready ?? undefined, path.child('ready')),
    ...validateNonnegative(status.terminating ?? undefined, path.child('terminating')),
  ];
  if (status.uncountedTerminatedPods != null)
    errors.push(...uncountedPodErrors(job, path.child('uncountedTerminatedPods')));
  if (rules.rejectCompleteJobWithFailedCondition && job.complete && job.failed)
    errors.push(invalidWithoutValue(conditions, 'cannot set Complete=True and Failed=true conditions'));
  if (rules.rejectCompleteJobWithFailureTargetCondition && job.complete && job.failureTarget)
    errors.push(invalidWithoutValue(conditions, 'cannot set Complete=True and FailureTarget=true conditions'));
  const { startTime, completionTime } = status;
  if (rules.rejectNotCompleteJobWithCompletionTime && completionTime != null && !job.complete)
    errors.push(
      invalid(
        path.child('completionTime'),
        timeText(completionTime),
        'cannot set completionTime when there is no Complete=True condition',
      ),
    );
  if (rules.rejectCompleteJobWithoutCompletionTime && completionTime == null && job.complete)
    errors.push(required(path.child('completionTime'), 'completionTime is required for Complete jobs'));
  if (
    rules.rejectCompletionTimeBeforeStartTime &&
    startTime != null &&
    completionTime != null &&
    instant(completionTime)! < instant(startTime)!
  )
    errors.push(
      invalid(path.child('completionTime'), timeText(completionTime), 'must be equal to or after `startTime`'),
    );
  if (rules.rejectFailedJobWithoutFailureTarget && job.failed && !job.failureTarget)
    errors.push(
      invalidWithoutValue(conditions, 'cannot set Failed=True condition without the FailureTarget=true condition'),
    );
  if (rules.rejectCompleteJobWithoutSuccessCriteriaMet && job.complete && !job.successCriteriaMet)
    errors.push(
      invalidWithoutValue(
        conditions,
        'cannot set Complete=True condition without the SuccessCriteriaMet=true condition',
      ),
    );
  if (rules.rejectFinishedJobWithActivePods && job.active > 0 && job.finished)
    errors.push(invalid(path.child('active'), job.active, 'active>0 is invalid for finished job'));
  if (rules.rejectFinishedJobWithoutStartTime && startTime == null && job.finished)
    errors.push(required(path.child('startTime'), 'startTime is required for finished job'));
  if (
    rules.rejectFinishedJobWithUncountedTerminatedPods &&
    job.finished &&
    job.uncounted('succeeded').length + job.uncounted('failed').length > 0
  )
    errors.push(invalid(path.child('uncountedTerminatedPods'), uncountedOf(job), 'must be empty for finished job'));
  errors.push(...indexErrors(job, rules, path));
  if (rules.rejectFinishedJobWithTerminatingPods && (status.terminating ?? 0) > 0 && job.finished)
    errors.push(invalid(path.child('terminating'), status.terminating, 'terminating>0 is invalid for finished job'));
  if (rules.rejectMoreReadyThanActivePods && status.ready != null && status.ready > job.active)
    errors.push(invalid(path.child('ready'), status.ready, 'cannot set more ready pods than active'));
  // JobPodReplacementPolicy is locked on in 1.34, so SuccessCriteriaMet is allowed on any Job
  // (the reference's AllowForSuccessCriteriaMetInExtendedScope), whatever JobManagedBy says.
  if (job.successCriteriaMet && job.failed)
    errors.push(invalidWithoutValue(conditions, 'cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (job.successCriteriaMet && job.failureTarget)
    errors.push(
      invalidWithoutValue(conditions, 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'),
    );
  if (spec.successPolicy != null && !job.successCriteriaMet && job.complete)
    errors.push(
      invalidWithoutValue(
        conditions,
        'cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True',
      ),
    );
  return errors;
}

/** completedIndexes and failedIndexes: their format, the Job's mode and their overlap. */
function indexErrors(job: JobView, rules: JobStatusRules, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const { status, spec } = job;
  const completions = spec.completions ?? undefined;
  const failedIndexes = status.failedIndexes ?? undefined;
  if (rules.rejectInvalidCompletedIndexes && completions !== undefined) {
    const parsed = parseIndexList(job.completedIndexes, completions);
    if ('problem' in parsed)
      errors.push(
        invalid(
          path.child('completedIndexes'),
          job.completedIndexes,
          `error parsing completedIndexes: ${parsed.problem}`,
        ),
      );
  }
  if (
    rules.rejectInvalidFailedIndexes &&
    completions !== undefined &&
    spec.backoffLimitPerIndex != null &&
    failedIndexes !== undefined
  ) {
    const parsed = parseIndexList(failedIndexes, completions);
    if ('problem' in parsed)
      errors.push(
        invalid(path.child('failedIndexes'), failedIndexes, `error parsing failedIndexes: ${parsed.problem}`),
      );
  }
  if (rules.rejectCompletedIndexesForNonIndexedJob && job.completedIndexes !== '' && !job.indexed)
    errors.push(
      invalid(
        path.child('completedIndexes'),
        job.completedIndexes,
        'cannot set non-empty completedIndexes when non-indexed completion mode',
      ),
    );
  // A non-indexed Job has no backoffLimitPerIndex either, so this also keeps failedIndexes off it.
  if (
    rules.rejectFailedIndexesForNoBackoffLimitPerIndex &&
    spec.backoffLimitPerIndex == null &&
    failedIndexes !== undefined
  )
    errors.push(
      invalid(
        path.child('failedIndexes'),
        failedIndexes,
        'cannot set non-null failedIndexes when backoffLimitPerIndex is null',
      ),
    );
  if (rules.rejectFailedIndexesOverlappingCompleted && completions !== undefined && failedIndexes !== undefined) {
    const overlap = firstOverlap(job.completedIndexes, failedIndexes, completions);
    if (overlap !== undefined)
      errors.push(
        invalid(
          path.child('failedIndexes'),
          failedIndexes,
          `failedIndexes and completedIndexes overlap at index: ${overlap}`,
        ),
      );
  }
  return errors;
}

const TERMINAL_CONDITIONS = ['Failed', 'Complete', 'FailureTarget'];

/** The reference's ValidateJobStatusUpdate: the new status alone, then its change from the stored one. */
export function validateJobStatusUpdate(
  job: KubeObject,
  old: KubeObject,
  featureEnabled: FeatureEnabled,
): FieldError[] {
  const next = new JobView(job);
  const previous = new JobView(old);
  const rules = statusRules(next, previous, featureEnabled);
  const path = FieldPath.root('status');
  const conditions = path.child('conditions');
  const errors = jobStatusErrors(next, rules);
  if (rules.rejectDisablingTerminalCondition)
    for (const type of TERMINAL_CONDITIONS)
      if (previous.hasCondition(type) && !next.hasCondition(type))
        errors.push(invalidWithoutValue(conditions, `cannot disable the terminal ${type}=True condition`));
  if (rules.rejectDecreasingFailedCounter && next.failedCount < previous.failedCount)
    errors.push(invalid(path.child('failed'), next.failedCount, 'cannot decrease the failed counter'));
  if (rules.rejectDecreasingSucceededCounter && next.succeededCount < previous.succeededCount)
    errors.push(invalid(path.child('succeeded'), next.succeededCount, 'cannot decrease the succeeded counter'));
  const { completionTime, startTime } = next.status;
  const oldCompletionTime = previous.status.completionTime;
  // Only a change between two times: clearing it is judged by the Complete rules above.
  if (
    rules.rejectMutatingCompletionTime &&
    completionTime != null &&
    oldCompletionTime != null &&
    instant(completionTime) !== instant(oldCompletionTime)
  )
    errors.push(invalid(path.child('completionTime'), timeText(completionTime), 'field is immutable'));
  const oldStartTime = previous.status.startTime;
  if (
    rules.rejectStartTimeUpdateForUnsuspendedJob &&
    oldStartTime != null &&
    instant(oldStartTime) !== instant(startTime) &&
    next.spec.suspend !== true
  )
    errors.push(required(path.child('startTime'), 'startTime cannot be removed for unsuspended job'));
  if (previous.successCriteriaMet && !next.successCriteriaMet)
    errors.push(invalidWithoutValue(conditions, 'cannot disable the SuccessCriteriaMet=True condition'));
  if (previous.complete && !previous.successCriteriaMet && next.successCriteriaMet)
    errors.push(
      invalidWithoutValue(
        conditions,
        'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions',
      ),
    );
  return errors;
}
