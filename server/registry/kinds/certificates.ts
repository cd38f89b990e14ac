/** certificates.k8s.io/v1 resources. */
import { requireFields } from '../../validation/required';
import type { ResourceType } from '../types';
import { defineKind, selectable } from './define';

export const certificatesKinds: readonly ResourceType[] = [
  defineKind({
    group: 'certificates.k8s.io',
    resource: 'certificatesigningrequests',
    kind: 'CertificateSigningRequest',
    namespaced: false,
    shortNames: ['csr'],
    subresources: { status: true },
    selectableFields: selectable('spec.signerName'),
    behaviour: { initialStatus: () => ({}), validate: requireFields('spec.request', 'spec.signerName', 'spec.usages') },
  }),
];
