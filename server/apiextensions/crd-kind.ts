/** apiextensions.k8s.io/v1: CustomResourceDefinitions, whose objects make new resource types (server/apiextensions/). */
import { CRD_BEHAVIOUR } from './crd-strategy';
import type { ResourceType } from '../registry/types';
import { defineKind } from '../registry/kinds/define';
import { METADATA_AND_SPEC } from '../registry/reset-fields';

export const apiextensionsKinds: readonly ResourceType[] = [
  defineKind({
    group: 'apiextensions.k8s.io',
    resource: 'customresourcedefinitions',
    requiresResourceVersionOnUpdate: true,
    kind: 'CustomResourceDefinition',
    namespaced: false,
    // Where the reference's apiextensions server keeps them (its resources carry their group).
    storagePrefix: 'apiextensions.k8s.io/customresourcedefinitions',
    // The reference's apiextensions server stores the more compact v1beta1 form (issue 82292),
    // which its discovery hash and StorageVersion name too.
    encodedVersion: 'v1beta1',
    definitionPrefix: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
    apiextensions: true,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: { status: true },
    statusResetFields: METADATA_AND_SPEC,
    behaviour: CRD_BEHAVIOUR,
  }),
];
