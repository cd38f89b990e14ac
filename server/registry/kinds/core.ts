/** The core group (`/api/v1`) resources served by default. */
import { validateReplicaSetStatusUpdate } from '../../validation/apps-status';
import type { KubeObject } from '../../../api/objects';
import * as core from '../../validation/core';
import * as persistentVolume from '../../validation/persistent-volume';
import {
  validatePersistentVolumeClaimOnUpdate,
  validatePersistentVolumeClaimUpdate,
} from '../../validation/claim-update';
import { podQOSClass } from '../defaults/pod';
import * as defaults from '../defaults/core';
import type { ResourceType } from '../types';
import { defineKind, fieldAt, fieldLabels, selectable, VERBS_WITHOUT_DELETECOLLECTION } from './define';
import { convertEvent } from '../conversion/events';
import { validateEventCreate, validateEventUpdate } from '../../validation/events';
import { validateEndpoints } from '../../validation/endpoints';
import { persistentVolumeClaimWarnings, persistentVolumeWarnings } from '../../validation/storage-warnings';
import { podTemplateWarnings, podWarnings } from '../../validation/pod-warnings';
import { replicationControllerWarnings } from '../../validation/workload-warnings';
import {
  endpointsWarnings,
  loadBalancerStatusWarnings,
  nodeWarnings,
  podStatusWarnings,
  serviceWarnings,
} from '../../validation/write-warnings';
import { validateLimitRange } from '../../validation/limit-range';
import { validatePersistentVolumeClaimStatus } from '../../validation/claim-status';
import {
  validateResourceQuota,
  validateResourceQuotaStatusUpdate,
  validateResourceQuotaUpdate,
} from '../../validation/quota';
import { randomUUID } from 'node:crypto';
import { stampCreatedPhase, stampPhaseChange } from './volume-phase-times';
import { prepareClaimDataSources } from './claim-data-sources';
import { dropDisabledPodFields, dropDisabledPodTemplateFields } from './pod-gated-fields';
import { mergeMatchLabelKeys } from './pod-match-label-keys';
import { copyAppArmorAnnotations } from './pod-apparmor-annotations';
import { nameIsDNS1035Label, nameIsDNSLabel } from '../../validation/names';
import { dropRemovedNodeConfig } from '../../validation/node-config-source';

import type { SelectableFields } from '../../selectors/field-selector';
import {
  persistentVolumePrinter,
  podTemplatePrinter,
  replicationControllerPrinter,
  resourceQuotaPrinter,
} from '../../table/admin-printers';
import {
  configMapPrinter,
  endpointsPrinter,
  eventPrinter,
  namespacePrinter,
  nodePrinter,
  podPrinter,
  pvcPrinter,
  secretPrinter,
  serviceAccountPrinter,
  servicePrinter,
} from '../../table/printers';
/** A field read with the value the reference prints when the field is absent (`false`, `0`). */
function fieldOr(path: string, absent: string): (object: KubeObject) => string {
  const read = fieldAt(path);
  return (object) => read(object) ?? absent;
}

const POD_FIELDS: SelectableFields = {
  ...selectable(
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ),
  'spec.hostNetwork': fieldOr('spec.hostNetwork', 'false'),
  // Old clients select on `spec.host`; the reference maps it to spec.nodeName.
  'spec.host': fieldAt('spec.nodeName'),
  'status.podIPs': (pod) =>
    ((pod.status as { podIPs?: { ip: string }[] } | undefined)?.podIPs ?? []).map((p) => p.ip).join(',') || undefined,
};

/**
 * A Pod's grace period (the reference's pod CheckGracefulDelete): the one asked for, else its
 * spec's terminationGracePeriodSeconds (defaulted to 30), but 0 for a Pod no node runs (nothing
 * would confirm its end) or one that already finished.
 */
function podDeletionGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  return requested ?? spec.terminationGracePeriodSeconds ?? 0;
}

/**
 * The QoS class is set at creation and may not change; old kubelets dropped it from the status
 * of a pod they rejected, so a status write without one keeps the stored one.
 */
function backfillQOSClass(pod: KubeObject, old: KubeObject): void {
  const stored = (old.status as Record<string, unknown> | undefined)?.qosClass;
  if (stored === undefined || stored === '') return;
  const status = (pod.status ??= {}) as Record<string, unknown>;
  if ((status.qosClass ?? '') === '') status.qosClass = stored;
}

export const EVENT_FIELDS: SelectableFields = {
  ...selectable(
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'type',
  ),
  // The reference falls back to the reporting controller (JSON `reportingComponent`) of events with no source component.
  source: (event) => fieldAt('source.component')(event) || fieldAt('reportingComponent')(event),
};

function nameIfUnnamed(object: KubeObject): void {
  if (!object.metadata.name) object.metadata.name = randomUUID();
}

export const coreKinds: readonly ResourceType[] = [
  defineKind({
    group: '',
    resource: 'namespaces',
    printer: namespacePrinter,
    returnsDeletedObject: true,
    deleteDocumentedAsStatus: true,
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    verbs: VERBS_WITHOUT_DELETECOLLECTION,
    subresources: { status: true, finalize: true },
    nameRule: 'dns-label',
    selectableFields: selectable('status.phase'),
    fieldLabels: fieldLabels(['status.phase', 'metadata.name']),
    behaviour: {
      updatePasses: ['create', 'update'],
      defaults: defaults.defaultNamespace,
      initialStatus: () => ({ phase: 'Active' }),
      // The finalizers sent are kept, and `kubernetes` added when they lack it: the namespace
      // controller's, which the reference requires on create.
      prepareForCreate: (namespace) => {
        const sent = (namespace.spec as { finalizers?: unknown } | undefined)?.finalizers;
        const finalizers = Array.isArray(sent) ? (sent as string[]) : [];
        namespace.spec = {
          finalizers: finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'],
        };
      },
      // spec.finalizers change only through /finalize.
      prepareForUpdate: (namespace, old) => {
        if (old.spec === undefined) delete namespace.spec;
        else namespace.spec = structuredClone(old.spec);
      },
      validate: core.validateNamespace,
      validateStatusUpdate: core.validateNamespaceStatusUpdate,
      validateFinalizeUpdate: core.validateNamespaceFinalize,
    },
  }),
  defineKind({
    group: '',
    resource: 'pods',
    printer: podPrinter,
    returnsDeletedObject: true,
    deletionGracePeriod: podDeletionGracePeriod,
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    subresources: { status: true },
    statusResetFields: [['spec'], ['metadata', 'deletionTimestamp'], ['metadata', 'ownerReferences']],
    selectableFields: POD_FIELDS,
    behaviour: {
      updatePasses: ['update', 'create'],
      defaults: defaults.defaultPod,
      initialStatus: (pod, featureEnabled) => ({
        phase: 'Pending',
        qosClass: podQOSClass((pod.spec as Record<string, unknown> | undefined) ?? {}, featureEnabled),
      }),
      tracksGeneration: true,
      prepareForCreate: (pod, context) => {
        mergeMatchLabelKeys(pod, context);
        copyAppArmorAnnotations(pod, context);
      },
      // The reference keeps pods/status away from owner references (old kubelets corrupted them).
      statusKeepsMetadata: ['ownerReferences'],
      prepareForStatusUpdate: backfillQOSClass,
      dropDisabledFields: dropDisabledPodFields,
      validate: core.validatePod,
      validateUpdate: core.validatePodUpdate,
      validateStatusUpdate: core.validatePodStatusUpdate,
      warnings: podWarnings,
      statusWarnings: podStatusWarnings,
    },
  }),
  defineKind({
    group: '',
    resource: 'services',
    printer: servicePrinter,
    returnsDeletedObject: true,
    allowCreateOnUpdate: true,
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    storagePrefix: 'services/specs',
    subresources: { status: true },
    nameRule: 'dns1035-label',
    selectableFields: selectable('spec.clusterIP', 'spec.type'),
    readDefaults: defaults.serviceAsRead,
    behaviour: {
      // KEP-5311: a Service may be named as any DNS label (a leading digit) while the gate is on.
      nameRuleOf: (_service, context) =>
        context.featureEnabled('RelaxedServiceNameValidation') ? nameIsDNSLabel : nameIsDNS1035Label,
      defaults: defaults.defaultService,
      prepareForCreate: defaults.normalizeServiceClusterIPs,
      prepareForUpdate: defaults.prepareServiceUpdate,
      initialStatus: () => ({ loadBalancer: {} }),
      validate: core.validateService,
      validateUpdate: core.validateServiceUpdate,
      warnings: serviceWarnings,
      statusWarnings: loadBalancerStatusWarnings,
    },
  }),
  defineKind({
    group: '',
    resource: 'configmaps',
    printer: configMapPrinter,
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
    behaviour: {
      updatePasses: ['update', 'updateRules', 'create', 'createRules'],
      validate: core.validateConfigMap,
      validateUpdate: core.validateConfigMapUpdate,
    },
  }),
  defineKind({
    group: '',
    resource: 'secrets',
    printer: secretPrinter,
    kind: 'Secret',
    namespaced: true,
    selectableFields: selectable('type'),
    behaviour: {
      updatePasses: ['update', 'updateRules', 'create', 'createRules'],
      defaults: defaults.defaultSecret,
      validate: core.validateSecret,
      validateUpdate: core.validateSecretUpdate,
    },
  }),
  defineKind({
    group: '',
    resource: 'serviceaccounts',
    printer: serviceAccountPrinter,
    returnsDeletedObject: true,
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
    behaviour: { updatePasses: ['update', 'create'] },
  }),
  defineKind({
    group: '',
    resource: 'nodes',
    printer: nodePrinter,
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    storagePrefix: 'minions',
    subresources: { status: true },
    selectableFields: { 'spec.unschedulable': fieldOr('spec.unschedulable', 'false') },
    fieldLabels: fieldLabels(['metadata.name', 'spec.unschedulable']),
    // Nodes may set their status on create: no initialStatus.
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      defaults: defaults.defaultNode,
      dropDisabledFields: dropRemovedNodeConfig,
      validate: core.validateNode,
      validateUpdate: core.validateNodeUpdate,
      warnings: nodeWarnings,
    },
  }),
  defineKind({
    group: '',
    resource: 'events',
    printer: eventPrinter,
    allowCreateOnUpdate: true,
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    selectableFields: EVENT_FIELDS,
    convert: convertEvent,
    garbageCollectionPolicy: 'Unsupported',
    behaviour: {
      updatePasses: [],
      validate: validateEventCreate('core'),
      validateUpdate: validateEventUpdate('core'),
    },
  }),
  defineKind({
    group: '',
    resource: 'endpoints',
    printer: endpointsPrinter,
    allowCreateOnUpdate: true,
    kind: 'Endpoints',
    namespaced: true,
    shortNames: ['ep'],
    storagePrefix: 'services/endpoints',
    deprecatedVersions: { v1: 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice' },
    behaviour: {
      updatePasses: ['update', 'create'],
      defaults: defaults.defaultEndpoints,
      validate: validateEndpoints,
      warnings: endpointsWarnings,
    },
  }),
  defineKind({
    group: '',
    resource: 'persistentvolumes',
    printer: persistentVolumePrinter,
    returnsDeletedObject: true,
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    subresources: { status: true },
    behaviour: {
      // The strategy's checks of the new volume, then ValidatePersistentVolumeUpdate's (metadata, spec, what is fixed).
      updatePasses: ['create', 'createRules', 'create', 'updateRules'],
      defaults: defaults.defaultPersistentVolume,
      initialStatus: () => ({ phase: 'Pending' }),
      prepareForCreate: stampCreatedPhase,
      prepareForStatusUpdate: stampPhaseChange,
      validate: persistentVolume.validatePersistentVolume,
      validateOnUpdate: persistentVolume.validatePersistentVolumeOnUpdate,
      validateUpdate: persistentVolume.validatePersistentVolumeUpdate,
      validateStatusUpdate: persistentVolume.validatePersistentVolumeStatusUpdate,
      warnings: persistentVolumeWarnings,
    },
  }),
  defineKind({
    group: '',
    resource: 'persistentvolumeclaims',
    printer: pvcPrinter,
    returnsDeletedObject: true,
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    subresources: { status: true },
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'create', 'createRules', 'updateRules'],
      defaults: defaults.defaultPersistentVolumeClaim,
      initialStatus: () => ({ phase: 'Pending' }),
      prepareForCreate: (claim, context) => prepareClaimDataSources(claim, undefined, context),
      prepareForUpdate: prepareClaimDataSources,
      validate: core.validatePersistentVolumeClaim,
      validateOnUpdate: validatePersistentVolumeClaimOnUpdate,
      validateUpdate: validatePersistentVolumeClaimUpdate,
      validateStatusUpdate: validatePersistentVolumeClaimStatus,
      warnings: persistentVolumeClaimWarnings,
    },
  }),
  defineKind({
    group: '',
    resource: 'limitranges',
    allowCreateOnUpdate: true,
    kind: 'LimitRange',
    namespaced: true,
    shortNames: ['limits'],
    // The reference names a LimitRange created without a name itself.
    behaviour: {
      updatePasses: ['create'],
      defaults: defaults.defaultLimitRange,
      prepareForCreate: nameIfUnnamed,
      validate: validateLimitRange,
    },
  }),
  defineKind({
    group: '',
    resource: 'resourcequotas',
    returnsDeletedObject: true,
    printer: resourceQuotaPrinter,
    kind: 'ResourceQuota',
    namespaced: true,
    shortNames: ['quota'],
    subresources: { status: true },
    behaviour: {
      initialStatus: () => ({}),
      validate: validateResourceQuota,
      validateUpdate: validateResourceQuotaUpdate,
      validateStatusUpdate: validateResourceQuotaStatusUpdate,
    },
  }),
  defineKind({
    group: '',
    resource: 'podtemplates',
    returnsDeletedObject: true,
    printer: podTemplatePrinter,
    kind: 'PodTemplate',
    namespaced: true,
    behaviour: {
      defaults: defaults.defaultPodTemplate,
      // The reference counts a change of the template, the kind's only field beside metadata.
      tracksGeneration: true,
      dropDisabledFields: dropDisabledPodTemplateFields('template'),
      validate: core.validatePodTemplate,
      validateUpdate: core.validatePodTemplateUpdate,
      warnings: podTemplateWarnings('template'),
    },
  }),
  defineKind({
    group: '',
    resource: 'replicationcontrollers',
    printer: replicationControllerPrinter,
    allowCreateOnUpdate: true,
    kind: 'ReplicationController',
    namespaced: true,
    shortNames: ['rc'],
    categories: ['all'],
    storagePrefix: 'controllers',
    // v1 keeps a deleted controller's pods unless told otherwise, as it always has.
    garbageCollectionPolicy: 'OrphanDependents',
    subresources: {
      status: true,
      scale: {
        specReplicasPath: 'spec.replicas',
        statusReplicasPath: 'status.replicas',
        labelSelectorPath: 'spec.selector',
        labelSelectorIsSet: true,
        checksMetadata: true,
      },
    },
    selectableFields: { 'status.replicas': fieldOr('status.replicas', '0') },
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      defaults: defaults.defaultReplicationController,
      initialStatus: () => ({ replicas: 0 }),
      tracksGeneration: true,
      dropDisabledFields: dropDisabledPodTemplateFields('spec.template'),
      validate: core.validateReplicationController,
      validateOnUpdate: core.validateReplicationControllerOnUpdate,
      validateUpdate: core.validateReplicationControllerUpdate,
      // The counts of its status follow the rules of a ReplicaSet's, the same fields.
      validateStatusUpdate: validateReplicaSetStatusUpdate,
      warnings: replicationControllerWarnings,
    },
  }),
];
