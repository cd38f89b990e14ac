/** batch/v1 resources. */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../../api/objects';
import * as batch from '../../validation/batch';
import { cronJobWarnings, jobWarnings } from '../../validation/workload-warnings';
import * as defaults from '../defaults/batch';
import type { ResourceType, WriteContext } from '../types';
import { defineKind, fieldAt, fieldLabels } from './define';
import { goQuote } from '../../../api/go-quote';
import { generatedJobLabels, CONTROLLER_UID_LABEL } from '../../validation/batch';
import { dropDisabledPodTemplateFields } from './pod-gated-fields';
import { cronJobPrinter, jobPrinter } from '../../table/printers';

/**
 * A Job without manualSelector selects its pods by its own uid, so the uid is fixed here
 * (handlers keep a uid already set), the template gets the generated labels and the selector
 * the uid's. What the client set itself is kept, as the reference's generateSelector keeps
 * it: validation then refuses a label or a selector that is not the generated one.
 */
function generateJobSelector(job: KubeObject): void {
  const spec = (job.spec ?? (job.spec = {})) as {
    manualSelector?: boolean;
    selector?: { matchLabels?: Record<string, string> };
    template?: { metadata?: { labels?: Record<string, string> } };
  };
  if (spec.manualSelector === true) return;
  const uid = (job.metadata.uid ??= randomUUID());
  const template = (spec.template ??= {});
  const metadata = (template.metadata ??= {});
  // In place: a Job whose labels defaulted to its template's shares them (defaults/batch.ts).
  const labels = (metadata.labels ??= {});
  for (const [key, value] of Object.entries(generatedJobLabels(job.metadata.name ?? '', uid)))
    if (!Object.hasOwn(labels, key)) labels[key] = value;
  const matchLabels = ((spec.selector ??= {}).matchLabels ??= {});
  if (!Object.hasOwn(matchLabels, CONTROLLER_UID_LABEL)) matchLabels[CONTROLLER_UID_LABEL] = uid;
}

/**
 * A new Job loses `managedBy` while JobManagedBy is off. Only on create, as the reference's
 * strategy does: the field is immutable, so an update that adds it is refused, not cleared.
 */
function prepareJobForCreate(job: KubeObject, context: WriteContext): void {
  generateJobSelector(job);
  if (!context.featureEnabled('JobManagedBy')) delete (job.spec as { managedBy?: unknown } | undefined)?.managedBy;
}

export const batchKinds: readonly ResourceType[] = [
  defineKind({
    group: 'batch',
    resource: 'jobs',
    printer: jobPrinter,
    kind: 'Job',
    namespaced: true,
    categories: ['all'],
    // batch/v1 keeps a deleted Job's pods unless told otherwise, as it always has.
    garbageCollectionPolicy: 'OrphanDependents',
    unsetPropagationWarning:
      'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning',
    subresources: { status: true },
    selectableFields: { 'status.successful': (job) => fieldAt('status.succeeded')(job) ?? '0' },
    fieldLabels: fieldLabels(
      ['metadata.name', 'metadata.namespace', 'status.successful'],
      (label) => `field label ${goQuote(label)} not supported for Job`,
    ),
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      defaults: defaults.defaultJob,
      initialStatus: () => ({}),
      tracksGeneration: true,
      prepareForCreate: prepareJobForCreate,
      dropDisabledFields: dropDisabledPodTemplateFields('spec.template'),
      validate: batch.validateJob,
      validateOnUpdate: batch.validateJobOnUpdate,
      validateUpdate: batch.validateJobUpdate,
      warnings: jobWarnings,
    },
  }),
  defineKind({
    group: 'batch',
    resource: 'cronjobs',
    printer: cronJobPrinter,
    kind: 'CronJob',
    namespaced: true,
    shortNames: ['cj'],
    categories: ['all'],
    subresources: { status: true },
    behaviour: {
      statusUpdatePasses: [],
      defaults: defaults.defaultCronJob,
      initialStatus: () => ({}),
      tracksGeneration: true,
      dropDisabledFields: dropDisabledPodTemplateFields('spec.jobTemplate.spec.template'),
      validate: batch.validateCronJob,
      validateUpdate: batch.validateCronJobUpdate,
      warnings: cronJobWarnings,
    },
  }),
];
