/** batch/v1 defaults (the reference's SetDefaults_Job and SetDefaults_CronJob). */
import type { KubeObject } from '../../../api/objects';
import { child, fill, fillWhenEmpty, items, type Json } from './fill';
import { defaultPodTemplateSpec } from './pod';
import type { FeatureEnabled } from '../types';

/** The backoff limit when a per-index limit is set: the largest int32, as the reference uses. */
const MAX_INT32 = 2147483647;

/** A pod condition pattern of a pod failure policy matches the condition True unless told otherwise. */
function defaultPodFailurePolicy(jobSpec: Json): void {
  for (const rule of items(jobSpec.podFailurePolicy as Json | undefined, 'rules'))
    for (const pattern of items(rule, 'onPodConditions')) fillWhenEmpty(pattern, 'status', 'True');
}

export function defaultJob(job: KubeObject, _version: string, featureEnabled: FeatureEnabled): void {
  const spec = child(job as Json, 'spec');
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  fill(spec, 'parallelism', 1);
  fill(spec, 'backoffLimit', spec.backoffLimitPerIndex !== undefined ? MAX_INT32 : 6);
  fill(spec, 'completionMode', 'NonIndexed');
  fill(spec, 'suspend', false);
  fill(spec, 'podReplacementPolicy', spec.podFailurePolicy !== undefined ? 'Failed' : 'TerminatingOrFailed');
  fill(spec, 'manualSelector', false);
  defaultPodFailurePolicy(spec);
  // A Job without labels of its own takes its template's: the very map in the reference, so
  // the selector labels its registry adds to the template next show on the Job too. Shared
  // here as well (kinds/batch.ts adds them in place).
  const templateLabels = ((spec.template as Json | undefined)?.metadata as Json | undefined)?.labels;
  const labels = job.metadata.labels;
  if (templateLabels && typeof templateLabels === 'object' && (!labels || Object.keys(labels).length === 0))
    job.metadata.labels = templateLabels as Record<string, string>;
  defaultPodTemplateSpec(spec.template as Json | undefined, featureEnabled);
}

export function defaultCronJob(cronJob: KubeObject, _version: string, featureEnabled: FeatureEnabled): void {
  const spec = child(cronJob as Json, 'spec');
  fillWhenEmpty(spec, 'concurrencyPolicy', 'Allow');
  fill(spec, 'suspend', false);
  fill(spec, 'successfulJobsHistoryLimit', 3);
  fill(spec, 'failedJobsHistoryLimit', 1);
  const jobTemplate = child(spec, 'jobTemplate');
  // Printed as `metadata: {}` like the reference's (no `creationTimestamp: null` since 1.34).
  child(jobTemplate, 'metadata');
  const jobSpec = child(jobTemplate, 'spec');
  // The Job's own defaults wait for the Jobs the CronJob makes; its policy's patterns do not.
  defaultPodFailurePolicy(jobSpec);
  defaultPodTemplateSpec(jobSpec.template as Json | undefined, featureEnabled);
}
