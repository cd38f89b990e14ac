/** CRDs the apiextensions tests share. */
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
  JSONSchemaProps,
} from '../../../server/apiextensions/crd-types';

export const WIDGET_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['color'],
      properties: {
        color: { type: 'string', enum: ['red', 'blue'] },
        replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        name: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
        email: { type: 'string', format: 'email' },
        port: { 'x-kubernetes-int-or-string': true },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', maxItems: 3 },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
          },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        note: { type: 'string', nullable: true },
        free: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { fixed: { type: 'object', properties: { a: { type: 'string' } } } },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
  },
};

export function widgetCRD(overrides: Partial<CustomResourceDefinition['spec']> = {}): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: WIDGET_SCHEMA },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.selector',
            },
          },
          additionalPrinterColumns: [
            { name: 'Color', type: 'string', jsonPath: '.spec.color' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          selectableFields: [{ jsonPath: '.spec.color' }],
        },
      ],
      ...overrides,
    },
  };
}

/** A served version whose objects hold `spec.size` of `sizeType`, selectable by it when asked. */
export function sizedVersion(
  name: string,
  sizeType: string,
  storage: boolean,
  selectable = false,
): CustomResourceDefinitionVersion {
  return {
    name,
    served: true,
    storage,
    ...(selectable ? { selectableFields: [{ jsonPath: '.spec.size' }] } : {}),
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { size: { type: sizeType } } } },
      },
    },
  };
}
