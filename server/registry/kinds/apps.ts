/** apps/v1 resources. */
import * as apps from '../../validation/apps';
import * as appsStatus from '../../validation/apps-status';
import { podTemplateWarnings } from '../../validation/pod-warnings';
import { podOwnerWarnings } from '../../validation/workload-warnings';
import * as defaults from '../defaults/apps';
import type { ResourceType } from '../types';
import { defineKind, WORKLOAD_SCALE } from './define';
import { dropDisabledPodTemplateFields } from './pod-gated-fields';
import { gatedField } from './gated-fields';
import {
  advanceTemplateGeneration,
  startTemplateGeneration,
  templateGenerationOf,
} from '../conversion/daemon-set-template-generation';
import { controllerRevisionPrinter } from '../../table/admin-printers';
import { daemonSetPrinter, deploymentPrinter, replicaSetPrinter, statefulSetPrinter } from '../../table/printers';

/** What a Deployment's or ReplicaSet's controller counts of pods being deleted (its status strategy's gate). */
const TERMINATING_REPLICAS = gatedField('DeploymentReplicaSetTerminatingReplicas', 'status.terminatingReplicas');

export const appsKinds: readonly ResourceType[] = [
  defineKind({
    group: 'apps',
    resource: 'deployments',
    printer: deploymentPrinter,
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: { status: true, scale: WORKLOAD_SCALE },
    // Its status strategy keeps the labels as well as the spec.
    statusResetFields: [['spec'], ['metadata', 'labels']],
    behaviour: {
      defaults: defaults.defaultDeployment,
      initialStatus: () => ({}),
      tracksGeneration: true,
      // Annotation changes also start a rollout evaluation in the reference.
      generationAlsoFollows: (deployment) => deployment.metadata.annotations ?? {},
      // The reference's deployment status strategy keeps labels; annotations (the revision) pass.
      statusKeepsMetadata: ['labels'],
      dropDisabledFields: dropDisabledPodTemplateFields('spec.template', [TERMINATING_REPLICAS]),
      validate: apps.validateDeployment,
      validateUpdate: apps.validateDeploymentUpdate,
      validateStatusUpdate: appsStatus.validateDeploymentStatusUpdate,
      warnings: podOwnerWarnings('spec.template'),
    },
  }),
  defineKind({
    group: 'apps',
    resource: 'replicasets',
    printer: replicaSetPrinter,
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    subresources: { status: true, scale: WORKLOAD_SCALE },
    behaviour: {
      defaults: defaults.defaultReplicaSet,
      initialStatus: () => ({ replicas: 0 }),
      tracksGeneration: true,
      dropDisabledFields: dropDisabledPodTemplateFields('spec.template', [TERMINATING_REPLICAS]),
      validate: apps.validateReplicaSet,
      validateUpdate: apps.validateReplicaSetUpdate,
      validateStatusUpdate: appsStatus.validateReplicaSetStatusUpdate,
      warnings: podOwnerWarnings('spec.template'),
    },
  }),
  defineKind({
    group: 'apps',
    resource: 'statefulsets',
    printer: statefulSetPrinter,
    kind: 'StatefulSet',
    // Its pods are named after it, and a pod's hostname takes no dots.
    nameRule: 'dns-label',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    subresources: { status: true, scale: WORKLOAD_SCALE },
    behaviour: {
      defaults: defaults.defaultStatefulSet,
      initialStatus: () => ({ replicas: 0, availableReplicas: 0 }),
      tracksGeneration: true,
      dropDisabledFields: dropDisabledPodTemplateFields('spec.template', [
        gatedField('MaxUnavailableStatefulSet', 'spec.updateStrategy.rollingUpdate.maxUnavailable'),
      ]),
      validate: apps.validateStatefulSet,
      validateUpdate: apps.validateStatefulSetUpdate,
      // The status rules check the metadata's update among their own.
      statusUpdatePasses: ['updateRules'],
      validateStatusUpdate: appsStatus.validateStatefulSetStatusUpdate,
      warnings: podTemplateWarnings('spec.template'),
    },
  }),
  defineKind({
    group: 'apps',
    resource: 'daemonsets',
    printer: daemonSetPrinter,
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    subresources: { status: true },
    behaviour: {
      defaults: defaults.defaultDaemonSet,
      initialStatus: () => ({
        currentNumberScheduled: 0,
        numberMisscheduled: 0,
        desiredNumberScheduled: 0,
        numberReady: 0,
      }),
      tracksGeneration: true,
      prepareForCreate: startTemplateGeneration,
      prepareForUpdate: advanceTemplateGeneration,
      dropDisabledFields: dropDisabledPodTemplateFields('spec.template'),
      validate: apps.validateDaemonSet,
      validateUpdate: apps.validateDaemonSetUpdate,
      validateStatusUpdate: appsStatus.validateDaemonSetStatusUpdate,
      warnings: podTemplateWarnings('spec.template', templateGenerationOf),
    },
  }),
  defineKind({
    group: 'apps',
    resource: 'controllerrevisions',
    printer: controllerRevisionPrinter,
    kind: 'ControllerRevision',
    namespaced: true,
    behaviour: {
      updatePasses: ['update', 'create'],
      validate: apps.validateControllerRevision,
      validateUpdate: apps.validateControllerRevisionUpdate,
    },
  }),
];
