/**
 * resource.k8s.io/v1 resources (dynamic resource allocation), as a 1.34 server serves them by
 * default: stored, defaulted and served, so that the reference's scheduler and controller
 * manager find them. Allocation itself is the scheduler's work, not the API server's.
 */
import {
  validateDeviceClass,
  validateResourceClaim,
  validateResourceClaimUpdate,
  validateResourceClaimTemplate,
  validateResourceClaimTemplateUpdate,
  validateResourceSlice,
  validateResourceSliceUpdate,
} from '../../validation/resource';
import { child, fill, items, type Json } from '../defaults/fill';
import type { ResourceType } from '../types';
import { defineKind, selectable } from './define';
import {
  deviceTaintRulePrinter,
  nameAndAgePrinter,
  resourceClaimPrinter,
  resourceSlicePrinter,
} from '../../table/device-printers';

/** A request for one kind of device (exactly, or one of the alternatives) defaults to one device. */
function defaultDeviceCount(request: Json): void {
  fill(request, 'allocationMode', 'ExactCount');
  if (request.allocationMode === 'ExactCount') fill(request, 'count', 1);
}

function defaultClaimSpec(spec: Json | undefined): void {
  const devices = spec?.devices as Json | undefined;
  for (const request of items(devices, 'requests')) {
    const exactly = request.exactly as Json | undefined;
    if (exactly !== undefined && exactly !== null) defaultDeviceCount(exactly);
    for (const alternative of items(request, 'firstAvailable')) defaultDeviceCount(alternative);
  }
}

export const resourceKinds: readonly ResourceType[] = [
  defineKind({
    group: 'resource.k8s.io',
    resource: 'deviceclasses',
    printer: nameAndAgePrinter,
    kind: 'DeviceClass',
    namespaced: false,
    behaviour: { tracksGeneration: true, validate: validateDeviceClass },
  }),
  defineKind({
    group: 'resource.k8s.io',
    resource: 'resourceclaims',
    printer: resourceClaimPrinter,
    kind: 'ResourceClaim',
    namespaced: true,
    subresources: { status: true },
    behaviour: {
      initialStatus: () => ({}),
      defaults: (claim) => defaultClaimSpec((claim as Json).spec as Json | undefined),
      validate: validateResourceClaim,
      validateUpdate: validateResourceClaimUpdate,
    },
  }),
  defineKind({
    group: 'resource.k8s.io',
    resource: 'resourceclaimtemplates',
    printer: nameAndAgePrinter,
    kind: 'ResourceClaimTemplate',
    namespaced: true,
    behaviour: {
      defaults: (template) => {
        const spec = child(template as Json, 'spec');
        fill(spec, 'metadata', {});
        defaultClaimSpec(spec.spec as Json | undefined);
      },
      validate: validateResourceClaimTemplate,
      validateUpdate: validateResourceClaimTemplateUpdate,
    },
  }),
  defineKind({
    group: 'resource.k8s.io',
    resource: 'resourceslices',
    printer: resourceSlicePrinter,
    kind: 'ResourceSlice',
    namespaced: false,
    // Kubelets and the scheduler list the slices of one node or driver.
    selectableFields: selectable('spec.nodeName', 'spec.driver'),
    behaviour: { tracksGeneration: true, validate: validateResourceSlice, validateUpdate: validateResourceSliceUpdate },
  }),
  // Only in v1alpha3 in 1.34, and stored there.
  defineKind({
    group: 'resource.k8s.io',
    resource: 'devicetaintrules',
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
        fill(taint, 'timeAdded', new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
      },
    },
  }),
];
