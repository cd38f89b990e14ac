/**
 * certificates.k8s.io resources: CertificateSigningRequests (v1), ClusterTrustBundles (v1beta1,
 * v1alpha1) and PodCertificateRequests (v1alpha1), the last two only while their feature gates are on.
 */
import { metaTime, type KubeObject } from '../../../api/objects';
import { copyJson } from '../../json/value';
import {
  validateCertificateSigningRequest,
  validateCertificateSigningRequestUpdate,
} from '../../validation/certificates';
import {
  clusterTrustBundleNameRule,
  validateClusterTrustBundle,
  validateClusterTrustBundleUpdate,
} from '../../validation/cluster-trust-bundle';
import {
  DEFAULT_MAX_EXPIRATION_SECONDS,
  validatePodCertificateRequestCreate,
  validatePodCertificateRequestUpdate,
} from '../../validation/pod-certificate-request';
import type { ResourceType, WriteContext } from '../types';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';
import { child, fill, type Json } from '../defaults/fill';
import { defineKind, fieldLabels, selectable } from './define';
import { fillConditionTimes, keepStoredDecisions, requestConditions } from './certificate-decisions';
import {
  certificateSigningRequestPrinter,
  clusterTrustBundlePrinter,
  podCertificateRequestPrinter,
} from '../../table/admin-printers';

/**
 * A CSR says who asked for it: the server fills spec.username, uid, groups and extra from the
 * requesting user, whatever the body said, as the reference does (signers and approvers trust them).
 */
function recordRequester(csr: KubeObject, { user }: WriteContext): void {
  const spec = { ...((csr.spec as Record<string, unknown> | undefined) ?? {}) };
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  if (user !== undefined) {
    if (user.name !== '') spec.username = user.name;
    if (user.uid) spec.uid = user.uid;
    if (user.groups.length > 0) spec.groups = [...user.groups];
    if (user.extra !== undefined && Object.keys(user.extra).length > 0)
      spec.extra = Object.fromEntries(Object.entries(user.extra).map(([key, values]) => [key, [...values]]));
  }
  csr.spec = spec;
}

/**
 * A write of the request itself changes nothing of what was asked or decided: the reference's
 * strategy puts the stored spec back (the status is kept as for every kind with a status).
 * Otherwise a user who may update requests could change one after its approval, before a
 * signer reads it.
 */
function keepRequest(csr: KubeObject, old: KubeObject): void {
  if (old.spec === undefined) delete csr.spec;
  else csr.spec = copyJson(old.spec);
}

const wallClock = () => new Date();

/** A status write's conditions: the stored decisions kept, missing times filled. */
function prepareRequestStatus(csr: KubeObject, old: KubeObject, context: WriteContext): void {
  keepStoredDecisions(csr, old);
  fillConditionTimes(requestConditions(csr), requestConditions(old), metaTime((context.now ?? wallClock)()));
}

export const certificatesKinds: readonly ResourceType[] = [
  defineKind({
    group: 'certificates.k8s.io',
    resource: 'certificatesigningrequests',
    printer: certificateSigningRequestPrinter,
    kind: 'CertificateSigningRequest',
    namespaced: false,
    shortNames: ['csr'],
    subresources: { status: true },
    // Its conditions are the approval's to write.
    statusResetFields: [['spec'], ['status', 'conditions']],
    // Its store resets spec and status: its creator, who writes the spec, owns none of it.
    mainResetFields: [['spec'], ['status']],
    selectableFields: selectable('spec.signerName'),
    fieldLabels: fieldLabels(['metadata.name', 'spec.signerName']),
    behaviour: {
      // The reference's update validation checks the metadata's update after all else.
      updatePasses: ['create', 'updateRules', 'update'],
      statusUpdatePasses: ['create', 'updateRules', 'update'],
      initialStatus: () => ({}),
      prepareForCreate: recordRequester,
      prepareForUpdate: keepRequest,
      prepareForStatusUpdate: prepareRequestStatus,
      validate: validateCertificateSigningRequest,
      validateUpdate: validateCertificateSigningRequestUpdate,
    },
  }),
  defineKind({
    group: 'certificates.k8s.io',
    resource: 'clustertrustbundles',
    requiresResourceVersionOnUpdate: true,
    printer: clusterTrustBundlePrinter,
    kind: 'ClusterTrustBundle',
    namespaced: false,
    // Field-identical versions; stored as v1beta1.
    versions: ['v1beta1', 'v1alpha1'],
    featureGate: 'ClusterTrustBundle',
    selectableFields: selectable('spec.signerName'),
    fieldLabels: fieldLabels(['metadata.name', 'spec.signerName']),
    behaviour: {
      nameRuleOf: clusterTrustBundleNameRule,
      updatePasses: ['create', 'update'],
      validate: validateClusterTrustBundle,
      validateUpdate: validateClusterTrustBundleUpdate,
    },
  }),
  defineKind({
    group: 'certificates.k8s.io',
    resource: 'podcertificaterequests',
    requiresResourceVersionOnUpdate: true,
    printer: podCertificateRequestPrinter,
    kind: 'PodCertificateRequest',
    namespaced: true,
    versions: ['v1alpha1'],
    featureGate: 'PodCertificateRequest',
    subresources: { status: true },
    // Its main strategy names no reset fields: a main write owns the status it sends, which
    // its update then drops.
    mainResetFields: [],
    selectableFields: selectable('spec.signerName', 'spec.podName', 'spec.nodeName'),
    fieldLabels: fieldLabels(['metadata.name', 'spec.signerName', 'spec.podName', 'spec.nodeName']),
    behaviour: {
      initialStatus: () => ({}),
      defaults: (request) => {
        fill(child(request as Json, 'spec'), 'maxExpirationSeconds', DEFAULT_MAX_EXPIRATION_SECONDS);
      },
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      validate: validatePodCertificateRequestCreate,
      validateUpdate: validatePodCertificateRequestUpdate,
    },
  }),
];
