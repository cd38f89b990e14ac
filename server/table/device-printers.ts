/**
 * Printers of the CSI and device-allocation kinds (storage.k8s.io CSI objects, node.k8s.io,
 * resource.k8s.io), with the columns and cell texts of the reference's printers. Kinds it has
 * no printer for (CSIStorageCapacity) keep the default Name / Created At table.
 */
import type { KubeObject } from '../../api/objects';
import { ageOf, ageSince } from './human-duration';
import { AGE_COLUMN, NAME_COLUMN, column, documentedColumn, list, record, text } from './columns';
import type { Printer } from './printer';

const CSI_DRIVER_SPEC = 'io.k8s.api.storage.v1.CSIDriverSpec';

export const csiDriverPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('AttachRequired', 'boolean', { definition: CSI_DRIVER_SPEC, field: 'attachRequired' }),
    documentedColumn('PodInfoOnMount', 'boolean', { definition: CSI_DRIVER_SPEC, field: 'podInfoOnMount' }),
    documentedColumn('StorageCapacity', 'boolean', { definition: CSI_DRIVER_SPEC, field: 'storageCapacity' }),
    documentedColumn('TokenRequests', 'string', { definition: CSI_DRIVER_SPEC, field: 'tokenRequests' }),
    documentedColumn('RequiresRepublish', 'boolean', { definition: CSI_DRIVER_SPEC, field: 'requiresRepublish' }),
    documentedColumn('Modes', 'string', { definition: CSI_DRIVER_SPEC, field: 'volumeLifecycleModes' }),
    AGE_COLUMN,
  ],
  print: (object, now) => {
    const spec = record(object.spec);
    const tokenRequests =
      spec.tokenRequests === undefined || spec.tokenRequests === null
        ? '<unset>'
        : list(spec.tokenRequests)
            .map((request) => text(record(request).audience))
            .join(',');
    return {
      cells: [
        object.metadata.name,
        spec.attachRequired === true,
        spec.podInfoOnMount === true,
        spec.storageCapacity === true,
        tokenRequests,
        spec.requiresRepublish === true,
        list(spec.volumeLifecycleModes).map(text).join(','),
        ageOf(object, now),
      ],
    };
  },
};

export const csiNodePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'),
    AGE_COLUMN,
  ],
  print: (object, now) => ({
    cells: [object.metadata.name, list(record(object.spec).drivers).length, ageOf(object, now)],
  }),
};

export const volumeAttachmentPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn(
      'Attacher',
      'string',
      { definition: 'io.k8s.api.storage.v1.VolumeAttachmentSpec', field: 'attacher' },
      { format: 'name' },
    ),
    documentedColumn('PV', 'string', {
      definition: 'io.k8s.api.storage.v1.VolumeAttachmentSource',
      field: 'persistentVolumeName',
    }),
    documentedColumn('Node', 'string', { definition: 'io.k8s.api.storage.v1.VolumeAttachmentSpec', field: 'nodeName' }),
    documentedColumn('Attached', 'boolean', {
      definition: 'io.k8s.api.storage.v1.VolumeAttachmentStatus',
      field: 'attached',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => {
    const spec = record(object.spec);
    return {
      cells: [
        object.metadata.name,
        text(spec.attacher),
        text(record(spec.source).persistentVolumeName),
        text(spec.nodeName),
        record(object.status).attached === true,
        ageOf(object, now),
      ],
    };
  },
};

export const volumeAttributesClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('DriverName', 'string', {
      definition: 'io.k8s.api.storage.v1.VolumeAttributesClass',
      field: 'driverName',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => ({ cells: [object.metadata.name, text(object.driverName), ageOf(object, now)] }),
};

export const runtimeClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Handler', 'string', {
      definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      field: 'handler',
    }),
    AGE_COLUMN,
  ],
  print: (object, now) => ({ cells: [object.metadata.name, text(object.handler), ageOf(object, now)] }),
};

export const nameAndAgePrinter: Printer = {
  columns: [NAME_COLUMN, AGE_COLUMN],
  print: (object, now) => ({ cells: [object.metadata.name, ageOf(object, now)] }),
};

/** deleted, then allocated or pending, then reserved: the reference's summary of a claim. */
function resourceClaimState(object: KubeObject): string {
  const status = record(object.status);
  const states: string[] = [];
  if (object.metadata.deletionTimestamp) states.push('deleted');
  states.push(status.allocation === undefined || status.allocation === null ? 'pending' : 'allocated');
  if (list(status.reservedFor).length > 0) states.push('reserved');
  return states.join(',');
}

export const resourceClaimPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('State', 'string', 'A summary of the current state (allocated, pending, reserved, etc.).'),
    AGE_COLUMN,
  ],
  print: (object, now) => ({ cells: [object.metadata.name, resourceClaimState(object), ageOf(object, now)] }),
};

export const resourceSlicePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    documentedColumn('Node', 'string', { definition: 'io.k8s.api.resource.v1.ResourceSliceSpec', field: 'nodeName' }),
    documentedColumn('Driver', 'string', { definition: 'io.k8s.api.resource.v1.ResourceSliceSpec', field: 'driver' }),
    documentedColumn('Pool', 'string', { definition: 'io.k8s.api.resource.v1.ResourcePool', field: 'name' }),
    AGE_COLUMN,
  ],
  print: (object, now) => {
    const spec = record(object.spec);
    return {
      cells: [
        object.metadata.name,
        text(spec.nodeName),
        text(spec.driver),
        text(record(spec.pool).name),
        ageOf(object, now),
      ],
    };
  },
};

export const deviceTaintRulePrinter: Printer = {
  // The reference leaves the device selection out (it may be long) and shows the taint.
  columns: [
    NAME_COLUMN,
    documentedColumn('Key', 'string', { definition: 'io.k8s.api.resource.v1.DeviceTaint', field: 'key' }),
    documentedColumn('Value', 'string', { definition: 'io.k8s.api.resource.v1.DeviceTaint', field: 'value' }),
    documentedColumn('Effect', 'string', { definition: 'io.k8s.api.resource.v1.DeviceTaint', field: 'effect' }),
    documentedColumn('TimeAdded', 'string', { definition: 'io.k8s.api.resource.v1.DeviceTaint', field: 'timeAdded' }),
    AGE_COLUMN,
  ],
  print: (object, now) => {
    const taint = record(record(object.spec).taint);
    const added = taint.timeAdded === undefined || taint.timeAdded === null ? '' : ageSince(taint.timeAdded, now);
    return {
      cells: [object.metadata.name, text(taint.key), text(taint.value), text(taint.effect), added, ageOf(object, now)],
    };
  },
};
