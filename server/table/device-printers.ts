/**
 * Printers of the CSI and device-allocation kinds (storage.k8s.io CSI objects, node.k8s.io,
 * resource.k8s.io), with the columns and cell texts of the reference's printers. Kinds it has
 * no printer for (CSIStorageCapacity) keep the default Name / Created At table.
 */
import type { KubeObject } from '../../api/objects';
import { ageOf, ageSince } from './human-duration';
import { AGE_COLUMN, NAME_COLUMN, column, list, record, text } from './columns';
import type { Printer } from './printer';

export const csiDriverPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('AttachRequired', 'boolean', 'Whether the driver needs an attach operation before mounting.'),
    column('PodInfoOnMount', 'boolean', 'Whether the driver gets pod information on mount.'),
    column('StorageCapacity', 'boolean', 'Whether scheduling considers the capacity the driver publishes.'),
    column('TokenRequests', 'string', 'Audiences of the service account tokens the driver needs.'),
    column('RequiresRepublish', 'boolean', 'Whether volumes are published again periodically.'),
    column('Modes', 'string', 'The volume lifecycle modes the driver supports.'),
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
  columns: [NAME_COLUMN, column('Drivers', 'integer', 'The number of CSI drivers registered on the node.'), AGE_COLUMN],
  print: (object, now) => ({
    cells: [object.metadata.name, list(record(object.spec).drivers).length, ageOf(object, now)],
  }),
};

export const volumeAttachmentPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Attacher', 'string', 'The volume driver that handles the attachment.', { format: 'name' }),
    column('PV', 'string', 'The persistent volume to attach.'),
    column('Node', 'string', 'The node to attach the volume to.'),
    column('Attached', 'boolean', 'Whether the volume is attached.'),
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
  columns: [NAME_COLUMN, column('DriverName', 'string', 'The CSI driver of the class.'), AGE_COLUMN],
  print: (object, now) => ({ cells: [object.metadata.name, text(object.driverName), ageOf(object, now)] }),
};

export const runtimeClassPrinter: Printer = {
  columns: [NAME_COLUMN, column('Handler', 'string', ''), AGE_COLUMN],
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
    column('Node', 'string', 'The node that provides the resources of this pool.'),
    column('Driver', 'string', 'The driver that provides the resources.'),
    column('Pool', 'string', 'The pool the slice belongs to.'),
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
    column('Key', 'string', 'The taint key.'),
    column('Value', 'string', 'The taint value.'),
    column('Effect', 'string', 'The effect of the taint on claims and pods.'),
    column('TimeAdded', 'string', 'When the taint was added.'),
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
