/**
 * The resource.k8s.io fields behind feature gates in 1.34, dropped as the reference's DRA
 * strategies drop them (pkg/registry/resource/*\/strategy.go). They work on the v1 shape, the
 * one objects are kept in.
 */
import type { KubeObject } from '../../../api/objects';
import type { Json } from '../defaults/fill';
import { isObject } from '../../json/value';
import { dropDisabledFieldsOf, hasItems, isSet, listAt, objectAt, type GatedFields } from './gated-fields';

/** Where a kind keeps its claim spec: a ResourceClaim at `spec`, a template at `spec.spec`. */
type ClaimSpecAt = 'spec' | 'spec.spec';

function requests(object: KubeObject, at: ClaimSpecAt): Json[] {
  return listAt(object, `${at}.devices.requests`);
}

/** The `exactly` of each request that has one. */
function exactRequests(object: KubeObject, at: ClaimSpecAt): Json[] {
  return requests(object, at).flatMap((request): Json[] => {
    const exactly = objectAt(request, 'exactly');
    return exactly === undefined ? [] : [exactly];
  });
}

function allocationResults(claim: KubeObject): Json[] {
  return listAt(claim, 'status.allocation.devices.results');
}

/** Admin access to devices: a request's `adminAccess`, and (claims) the allocation's record of it. */
function adminAccess(at: ClaimSpecAt): GatedFields {
  return {
    gates: ['DRAAdminAccess'],
    inUse: (object) =>
      exactRequests(object, at).some((exactly) => isSet(exactly.adminAccess)) ||
      (at === 'spec' && allocationResults(object).some((result) => isSet(result.adminAccess))),
    drop: (object) => {
      for (const exactly of exactRequests(object, at)) delete exactly.adminAccess;
      if (at === 'spec') for (const result of allocationResults(object)) delete result.adminAccess;
    },
  };
}

/** Prioritized lists of alternatives: a request's `firstAvailable`. */
function prioritizedList(at: ClaimSpecAt): GatedFields {
  return {
    gates: ['DRAPrioritizedList'],
    inUse: (object) => requests(object, at).some((request) => hasItems(request.firstAvailable)),
    drop: (object) => {
      for (const request of requests(object, at)) delete request.firstAvailable;
    },
  };
}

/** Every request of a claim spec: each `exactly` and each alternative of `firstAvailable`. */
function deviceRequests(object: KubeObject, at: ClaimSpecAt): Json[] {
  return [
    ...exactRequests(object, at),
    ...requests(object, at).flatMap((request) => listAt(request, 'firstAvailable')),
  ];
}

/**
 * Consumable capacity: what requests ask of a device's capacity and what allocations consumed.
 * A constraint's `distinctAttribute` counts as a use but stays: the reference clears it on a
 * copy of each constraint (a Go range variable), so its stored object keeps it.
 */
function consumableCapacity(at: ClaimSpecAt): GatedFields {
  const results = (object: KubeObject) => (at === 'spec' ? allocationResults(object) : []);
  const statusDevices = (object: KubeObject) => (at === 'spec' ? listAt(object, 'status.devices') : []);
  return {
    gates: ['DRAConsumableCapacity'],
    inUse: (object) =>
      listAt(object, `${at}.devices.constraints`).some((constraint) => isSet(constraint.distinctAttribute)) ||
      deviceRequests(object, at).some((request) => isSet(request.capacity)) ||
      results(object).some((result) => isSet(result.shareID) || isSet(result.consumedCapacity)) ||
      statusDevices(object).some((device) => isSet(device.shareID)),
    drop: (object) => {
      for (const request of deviceRequests(object, at)) delete request.capacity;
      for (const result of results(object)) {
        delete result.shareID;
        delete result.consumedCapacity;
      }
      for (const device of statusDevices(object)) delete device.shareID;
    },
  };
}

/** Drivers' reports on allocated devices: a claim's `status.devices`. */
const deviceStatus: GatedFields = {
  gates: ['DRAResourceClaimDeviceStatus'],
  inUse: (claim) => hasItems(objectAt(claim, 'status')?.devices),
  drop: (claim) => {
    delete objectAt(claim, 'status')?.devices;
  },
};

/** Binding conditions, which need device status to be reported: what an allocation waits for. */
const claimBindingConditions: GatedFields = {
  gates: ['DRADeviceBindingConditions', 'DRAResourceClaimDeviceStatus'],
  inUse: (claim) =>
    isSet(objectAt(claim, 'status.allocation')?.allocationTimestamp) ||
    allocationResults(claim).some(
      (result) => hasItems(result.bindingConditions) || hasItems(result.bindingFailureConditions),
    ),
  drop: (claim) => {
    delete objectAt(claim, 'status.allocation')?.allocationTimestamp;
    for (const result of allocationResults(claim)) {
      delete result.bindingConditions;
      delete result.bindingFailureConditions;
    }
  },
};

export const dropDisabledResourceClaimFields = dropDisabledFieldsOf([
  prioritizedList('spec'),
  adminAccess('spec'),
  deviceStatus,
  claimBindingConditions,
  consumableCapacity('spec'),
]);

export const dropDisabledResourceClaimTemplateFields = dropDisabledFieldsOf([
  prioritizedList('spec.spec'),
  adminAccess('spec.spec'),
  consumableCapacity('spec.spec'),
]);

function sliceDevices(slice: KubeObject): Json[] {
  return listAt(slice, 'spec.devices');
}

/** The fields a family owns on each device of a slice: in use when any is set (a list: with items). */
function deviceFields(gates: readonly string[], fields: readonly string[]): GatedFields {
  return {
    gates,
    inUse: (slice) =>
      sliceDevices(slice).some((device) =>
        fields.some((field) => (Array.isArray(device[field]) ? hasItems(device[field]) : isSet(device[field]))),
      ),
    drop: (slice) => {
      for (const device of sliceDevices(slice)) for (const field of fields) delete device[field];
    },
  };
}

/** Partitionable devices: counters shared between devices, and where each device is reachable. */
const partitionableDevices: GatedFields = {
  gates: ['DRAPartitionableDevices'],
  inUse: (slice) => {
    const spec = objectAt(slice, 'spec');
    return (
      hasItems(spec?.sharedCounters) ||
      isSet(spec?.perDeviceNodeSelection) ||
      sliceDevices(slice).some(
        (device) =>
          hasItems(device.consumesCounters) ||
          isSet(device.nodeName) ||
          isSet(device.nodeSelector) ||
          isSet(device.allNodes),
      )
    );
  },
  drop: (slice) => {
    const spec = objectAt(slice, 'spec');
    delete spec?.sharedCounters;
    delete spec?.perDeviceNodeSelection;
    for (const device of sliceDevices(slice)) {
      delete device.consumesCounters;
      delete device.nodeName;
      delete device.nodeSelector;
      delete device.allNodes;
    }
  },
};

/** Consumable capacity on a slice: devices shared between allocations, and each capacity's request policy. */
const sliceConsumableCapacity: GatedFields = {
  gates: ['DRAConsumableCapacity'],
  inUse: (slice) =>
    sliceDevices(slice).some(
      (device) =>
        isSet(device.allowMultipleAllocations) ||
        Object.values(objectAt(device, 'capacity') ?? {}).some((capacity) =>
          isSet(objectAt(capacity, 'requestPolicy')),
        ),
    ),
  drop: (slice) => {
    for (const device of sliceDevices(slice)) {
      delete device.allowMultipleAllocations;
      for (const capacity of Object.values(objectAt(device, 'capacity') ?? {})) {
        if (isObject(capacity)) delete capacity.requestPolicy;
      }
    }
  },
};

export const dropDisabledResourceSliceFields = dropDisabledFieldsOf([
  deviceFields(['DRADeviceTaints'], ['taints']),
  partitionableDevices,
  deviceFields(
    ['DRADeviceBindingConditions', 'DRAResourceClaimDeviceStatus'],
    ['bindingConditions', 'bindingFailureConditions', 'bindsToNode'],
  ),
  sliceConsumableCapacity,
]);

/** Extended resources backed by devices: the resource name a class answers for. */
export const dropDisabledDeviceClassFields = dropDisabledFieldsOf([
  {
    gates: ['DRAExtendedResource'],
    inUse: (deviceClass) => isSet(objectAt(deviceClass, 'spec')?.extendedResourceName),
    drop: (deviceClass) => {
      delete objectAt(deviceClass, 'spec')?.extendedResourceName;
    },
  },
]);
