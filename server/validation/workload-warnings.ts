/**
 * The warnings of the kinds that make pods (Deployments, ReplicaSets, ReplicationControllers,
 * Jobs, CronJobs) beyond their pod template's: a name the pods' hostnames carry that is no DNS
 * label, an Indexed Job too large to track, and a CronJob schedule with a time zone in it. Each
 * text and the moment it is sent (create only, or an update that changed the spec) are a 1.34
 * kube-apiserver's.
 */
import type { KubeObject } from '../../api/objects';
import type { WriteContext } from '../registry/types';
import { hostnameNameWarning, podTemplateWarnings, templateWarnings } from './pod-warnings';

type Warnings = (object: KubeObject, old: KubeObject | undefined, context: WriteContext) => string[];

const POD_NAMES = 'Pod names and hostnames';

/** A Deployment's or ReplicaSet's: its name on create, then its template's. */
export function podOwnerWarnings(templatePath: string): Warnings {
  const template = podTemplateWarnings(templatePath);
  return (object, old, context) => [
    ...(old === undefined ? hostnameNameWarning(object, POD_NAMES) : []),
    ...template(object, old, context),
  ];
}

/**
 * A ReplicationController's. On an update that changed the spec the reference warns of the
 * template it replaces, not the new one (its strategy passes the two templates swapped).
 */
export const replicationControllerWarnings: Warnings = (object, old, context) => {
  if (old === undefined)
    return [...hostnameNameWarning(object, POD_NAMES), ...templateWarnings(object, 'spec.template', context)];
  return object.metadata.generation === old.metadata.generation ? [] : templateWarnings(old, 'spec.template', context);
};

/** Indexed Jobs past these counts may lose track of failed indexes. */
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_SOFT_LIMIT = 10_000;

/** The job spec at `path` (`spec`, a CronJob's `spec.jobTemplate.spec`): its size, then its template's. */
function jobSpecWarnings(object: KubeObject, path: string, context: WriteContext): string[] {
  const spec = path
    .split('.')
    .reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], object) as
    { completionMode?: string; completions?: number; parallelism?: number } | undefined;
  const warnings: string[] = [];
  if (
    spec?.completionMode === 'Indexed' &&
    (spec.completions ?? 0) > COMPLETIONS_SOFT_LIMIT &&
    (spec.parallelism ?? 0) > PARALLELISM_SOFT_LIMIT
  )
    warnings.push(
      `${path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail`,
    );
  return [...warnings, ...templateWarnings(object, `${path}.template`, context)];
}

export const jobWarnings: Warnings = (job, old, context) => {
  if (old === undefined) return [...hostnameNameWarning(job, POD_NAMES), ...jobSpecWarnings(job, 'spec', context)];
  return job.metadata.generation === old.metadata.generation ? [] : jobSpecWarnings(job, 'spec', context);
};

/**
 * A CronJob's. Only its update warns of a time zone in the schedule, and names the field
 * `spec.spec.schedule`, as the reference does.
 */
export const cronJobWarnings: Warnings = (cronJob, old, context) => {
  const jobSpecPath = 'spec.jobTemplate.spec';
  if (old === undefined)
    return [...hostnameNameWarning(cronJob, POD_NAMES), ...jobSpecWarnings(cronJob, jobSpecPath, context)];
  const schedule = (cronJob.spec as { schedule?: string } | undefined)?.schedule ?? '';
  return [
    ...(cronJob.metadata.generation === old.metadata.generation ? [] : jobSpecWarnings(cronJob, jobSpecPath, context)),
    ...(schedule.includes('TZ')
      ? [
          'cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details',
        ]
      : []),
  ];
};
