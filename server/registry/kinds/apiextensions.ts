/** apiextensions.k8s.io/v1: CustomResourceDefinitions, whose objects make new resource types (server/apiextensions/). */
import { CRD_BEHAVIOUR } from '../../apiextensions/crd-strategy';
import type { ResourceType } from '../types';
import { defineKind } from './define';

export const apiextensionsKinds: readonly ResourceType[] = [
  defineKind({
    group: 'apiextensions.k8s.io',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    definitionPrefix: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
    apiextensions: true,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: { status: true },
    behaviour: CRD_BEHAVIOUR,
  }),
];
