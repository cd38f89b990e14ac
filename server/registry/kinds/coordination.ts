/** coordination.k8s.io resources: Leases (v1), and LeaseCandidates of coordinated leader election (v1beta1, v1alpha2). */
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { leaseCandidatePrinter, leasePrinter } from '../../table/printers';
import { validateLease, validateLeaseCandidate, validateLeaseCandidateUpdate } from '../../validation/coordination';
import { dropDisabledFieldsOf, gatedField } from './gated-fields';

/**
 * A Lease's coordinated leader election fields: each is kept on update while the stored lease
 * has it, as the reference's lease strategy checks them one by one.
 */
const dropDisabledLeaseFields = dropDisabledFieldsOf([
  gatedField('CoordinatedLeaderElection', 'spec.strategy'),
  gatedField('CoordinatedLeaderElection', 'spec.preferredHolder'),
]);

export const coordinationKinds: readonly ResourceType[] = [
  defineKind({
    group: 'coordination.k8s.io',
    resource: 'leases',
    requiresResourceVersionOnUpdate: true,
    printer: leasePrinter,
    kind: 'Lease',
    namespaced: true,
    allowCreateOnUpdate: true,
    behaviour: { dropDisabledFields: dropDisabledLeaseFields, validate: validateLease },
  }),
  defineKind({
    group: 'coordination.k8s.io',
    resource: 'leasecandidates',
    requiresResourceVersionOnUpdate: true,
    printer: leaseCandidatePrinter,
    kind: 'LeaseCandidate',
    namespaced: true,
    // Field-identical versions; stored as v1beta1.
    versions: ['v1beta1', 'v1alpha2'],
    nameRule: 'config-map-key',
    behaviour: { validate: validateLeaseCandidate, validateUpdate: validateLeaseCandidateUpdate },
  }),
];
