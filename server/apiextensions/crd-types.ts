/**
 * The shape of apiextensions.k8s.io/v1 CustomResourceDefinition objects as JSON, for the code
 * that reads them (validation, the controller, the making of resource types). Objects arrive
 * as plain JSON already typed against the generated definitions, so these interfaces only
 * name what is there; every field a client may omit is optional.
 */
import type { KubeObject } from '../../api/objects';

export const APIEXTENSIONS_GROUP = 'apiextensions.k8s.io';

/** One node of an OpenAPI v3 schema as a CRD writes it (JSONSchemaProps). */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  pattern?: string;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  properties?: Record<string, JSONSchemaProps>;
  /** A schema for every other member, or `true`/`false`. */
  additionalProperties?: JSONSchemaProps | boolean;
  /** One schema; an array of schemas is not structural. */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  $ref?: string;
  $schema?: string;
  id?: string;
  definitions?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, unknown>;
  patternProperties?: Record<string, JSONSchemaProps>;
  additionalItems?: unknown;
  example?: unknown;
  externalDocs?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CustomResourceSubresources {
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

export interface SelectableField {
  jsonPath: string;
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: SelectableField[];
}

export interface CustomResourceDefinitionNames {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** PEM bundle, base64 in JSON. */
  caBundle?: string;
}

export interface CustomResourceConversion {
  strategy: string;
  webhook?: { clientConfig?: WebhookClientConfig; conversionReviewVersions: string[] };
}

export interface CustomResourceDefinitionCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: string;
  versions: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinitionStatus {
  /** Written `null` until the first condition: Go's field has no omitempty. */
  conditions?: CustomResourceDefinitionCondition[] | null;
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}

/** Reads a stored or decoded object as a CRD; the schema decoder has already typed it. */
export function asCRD(object: KubeObject): CustomResourceDefinition {
  return object as CustomResourceDefinition;
}

/** The version objects are stored in (validation makes sure there is exactly one). */
export function storageVersionOf(crd: CustomResourceDefinition): CustomResourceDefinitionVersion | undefined {
  return (crd.spec.versions ?? []).find((version) => version.storage);
}

export function conditionOf(
  crd: CustomResourceDefinition,
  type: string,
): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((condition) => condition.type === type);
}

export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return conditionOf(crd, type)?.status === 'True';
}
