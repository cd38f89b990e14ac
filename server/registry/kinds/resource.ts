/**
 * resource.k8s.io resources (dynamic resource allocation), as a 1.34 server serves them:
 * stored, defaulted and served, so that the reference's scheduler and controller manager find
 * them. Allocation itself is the scheduler's work, not the API server's.
 *
 * v1 is served by default and kept in memory; v1beta2 and v1beta1 are beta versions, off
 * unless `--runtime-config` switches them on (resource.k8s.io/v1beta2=true, api/beta=true ...).
 * Every version is converted through v1 (conversion/resource-versions.ts); defaults and
 * validation run on v1 only, as the reference's run on its internal version of v1's shape.
 */
import {
  validateDeviceClass,
  validateDeviceTaintRule,
  validateResourceClaim,
  validateResourceClaimUpdate,
  validateResourceClaimTemplate,
  validateResourceClaimTemplateUpdate,
  validateResourceSlice,
  validateResourceSliceUpdate,
} from '../../validation/resource';
import { child, fill, fillWhenEmpty, items, type Json } from '../defaults/fill';
import type { ResourceType } from '../types';
import { metaTime } from '../../../api/objects';
import { defineKind, fieldLabels, selectable } from './define';
import {
  dropDisabledDeviceClassFields,
  dropDisabledResourceClaimFields,
  dropDisabledResourceClaimTemplateFields,
  dropDisabledResourceSliceFields,
} from './resource-gated-fields';
import {
  convertDeviceClass,
  convertResourceClaim,
  convertResourceClaimTemplate,
  convertResourceSlice,
} from '../conversion/resource-versions';
import {
  deviceTaintRulePrinter,
  nameAndAgePrinter,
  resourceClaimPrinter,
  resourceSlicePrinter,
} from '../../table/device-printers';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';

/** A request for one kind of device (exactly, or one of the alternatives) defaults to one device; a count of 0 too. */
function defaultDeviceCount(request: Json): void {
  fillWhenEmpty(request, 'allocationMode', 'ExactCount');
  if (request.allocationMode === 'ExactCount') fillWhenEmpty(request, 'count', 1);
}

/** A toleration of device taints (in a request or an allocation's result) matches by value unless it says otherwise. */
function defaultDeviceTolerations(holder: Json | undefined): void {
  for (const toleration of items(holder, 'tolerations')) fillWhenEmpty(toleration, 'operator', 'Equal');
}

/**
 * A v1beta1 request is its own exact request, its count defaulted only when it names a class (one
 * made of alternatives names none); later versions default the request in `exactly`.
 */
function defaultClaimSpec(spec: Json | undefined, version: string): void {
  const devices = spec?.devices as Json | undefined;
  for (const request of items(devices, 'requests')) {
    const exactly = (version === 'v1beta1' ? request : request.exactly) as Json | null | undefined;
    if (exactly && (version !== 'v1beta1' || exactly.deviceClassName)) defaultDeviceCount(exactly);
    defaultDeviceTolerations(exactly ?? undefined);
    for (const alternative of items(request, 'firstAvailable')) {
      defaultDeviceCount(alternative);
      defaultDeviceTolerations(alternative);
    }
  }
}

function defaultClaim(claim: Json, version: string): void {
  defaultClaimSpec(claim.spec as Json | undefined, version);
  const allocation = (claim.status as Json | undefined)?.allocation as Json | undefined;
  for (const result of items(allocation?.devices as Json | undefined, 'results')) defaultDeviceTolerations(result);
}

/**
 * A device taint records when it was added, to the second, as the reference's defaulting stamps
 * it with its clock; v1beta1 keeps a device's taints under `basic`.
 */
function defaultDeviceTaints(spec: Json | undefined, version: string): void {
  for (const device of items(spec, 'devices')) {
    const properties = version === 'v1beta1' ? (device.basic as Json | undefined) : device;
    for (const taint of items(properties, 'taints')) fill(taint, 'timeAdded', metaTime(new Date()));
  }
}

/**
 * Preferred first; the beta versions (`v1beta2`, `v1beta1`) are the ones `--runtime-config`
 * must switch on.
 */
const RESOURCE_VERSIONS = ['v1', 'v1beta2', 'v1beta1'];
/** What the reference 1.34 writes to etcd, served or not, so that a 1.33 server reads it back. */
const ENCODED_VERSION = 'v1beta2';

export const resourceKinds: readonly ResourceType[] = [
  defineKind({
    group: 'resource.k8s.io',
    resource: 'deviceclasses',
    returnsDeletedObject: true,
    printer: nameAndAgePrinter,
    kind: 'DeviceClass',
    versions: RESOURCE_VERSIONS,
    encodedVersion: ENCODED_VERSION,
    convert: convertDeviceClass,
    namespaced: false,
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      tracksGeneration: true,
      dropDisabledFields: dropDisabledDeviceClassFields,
      validate: (deviceClass, context) => validateDeviceClass(deviceClass, context.featureEnabled),
      validateUpdate: (deviceClass, old, context) => validateDeviceClass(deviceClass, context.featureEnabled, old),
    },
  }),
  defineKind({
    group: 'resource.k8s.io',
    resource: 'resourceclaims',
    returnsDeletedObject: true,
    printer: resourceClaimPrinter,
    kind: 'ResourceClaim',
    versions: RESOURCE_VERSIONS,
    encodedVersion: ENCODED_VERSION,
    convert: convertResourceClaim,
    namespaced: true,
    subresources: { status: true },
    behaviour: {
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      initialStatus: () => ({}),
      defaults: (claim, version) => defaultClaim(claim as Json, version),
      dropDisabledFields: dropDisabledResourceClaimFields,
      validate: validateResourceClaim,
      validateUpdate: validateResourceClaimUpdate,
    },
  }),
  defineKind({
    group: 'resource.k8s.io',
    resource: 'resourceclaimtemplates',
    returnsDeletedObject: true,
    printer: nameAndAgePrinter,
    kind: 'ResourceClaimTemplate',
    versions: RESOURCE_VERSIONS,
    encodedVersion: ENCODED_VERSION,
    convert: convertResourceClaimTemplate,
    namespaced: true,
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      defaults: (template, version) => {
        const spec = child(template as Json, 'spec');
        fill(spec, 'metadata', {});
        defaultClaimSpec(spec.spec as Json | undefined, version);
      },
      dropDisabledFields: dropDisabledResourceClaimTemplateFields,
      validate: validateResourceClaimTemplate,
      validateUpdate: validateResourceClaimTemplateUpdate,
    },
  }),
  defineKind({
    group: 'resource.k8s.io',
    resource: 'resourceslices',
    returnsDeletedObject: true,
    printer: resourceSlicePrinter,
    kind: 'ResourceSlice',
    versions: RESOURCE_VERSIONS,
    encodedVersion: ENCODED_VERSION,
    convert: convertResourceSlice,
    namespaced: false,
    // Kubelets and the scheduler list the slices of one node or driver.
    selectableFields: selectable('spec.nodeName', 'spec.driver'),
    fieldLabels: fieldLabels(
      ['metadata.name', 'spec.nodeName', 'spec.driver'],
      (label, version) => `field label not supported for resource.k8s.io/${version}, Kind=ResourceSlice: ${label}`,
    ),
    behaviour: {
      tracksGeneration: true,
      defaults: (slice, version) => defaultDeviceTaints((slice as Json).spec as Json | undefined, version),
      dropDisabledFields: dropDisabledResourceSliceFields,
      generationCountsDroppedFields: true,
      validate: validateResourceSlice,
      validateUpdate: validateResourceSliceUpdate,
    },
  }),
  // Only in v1alpha3 in 1.34, and stored there.
  defineKind({
    group: 'resource.k8s.io',
    resource: 'devicetaintrules',
    returnsDeletedObject: true,
    printer: deviceTaintRulePrinter,
    kind: 'DeviceTaintRule',
    namespaced: false,
    versions: ['v1alpha3'],
    behaviour: {
      tracksGeneration: true,
      // The reference's defaulting stamps a taint with the time it is decoded without one (to
      // the second), on reads of a stored rule as on writes.
      defaults: (rule) => {
        const taint = child(child(rule as Json, 'spec'), 'taint');
        fill(taint, 'timeAdded', metaTime(new Date()));
      },
      validate: (rule, context) => validateDeviceTaintRule(rule, context.featureEnabled),
      validateUpdate: (rule, old, context) => validateDeviceTaintRule(rule, context.featureEnabled, old),
    },
  }),
];
