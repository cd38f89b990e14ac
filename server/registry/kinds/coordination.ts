/** coordination.k8s.io/v1 resources. */
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { leasePrinter } from '../../table/printers';

export const coordinationKinds: readonly ResourceType[] = [
  defineKind({
    group: 'coordination.k8s.io',
    resource: 'leases',
    printer: leasePrinter,
    kind: 'Lease',
    namespaced: true,
    allowCreateOnUpdate: true,
  }),
];
