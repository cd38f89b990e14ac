/**
 * A CustomResourceDefinition made into the `ResourceType` the generic handlers serve: its
 * names, scope and served versions (preferred first, as discovery orders them), storage under
 * `/registry/<group>/<plural>`, each version's status and scale subresources and selectable fields, bodies
 * decoded unstructured and pruned by the schema (unknown fields for `fieldValidation`), and a
 * strategy that defaults by the schema, drops status on create when status is a subresource,
 * counts generations and validates by the schema; the schema of each version as OpenAPI
 * definitions (for server-side apply, explain and the OpenAPI documents); each version's Table
 * printer of its columns; no protobuf form; and conversion between versions:
 * apiVersion only (strategy None) or through the CRD's webhook, the result pruned by the target
 * version's schema; reads default stored objects by the schema of the version they are stored
 * in. Writes are prepared in the version they are sent in (registry/store/scope.ts), so each
 * version's strategy validates by that version's schema.
 */
import type { KubeObject } from '../../api/objects';
import type { ServiceResolver } from '../proxy/service-endpoint';
import { compareKubeAwareVersions } from '../discovery/group-priority';
import { buildStrategy, RESET_OBJECT_META_FOR_STATUS } from '../registry/strategy';
import { ALL_VERBS, fieldAt } from '../registry/kinds/define';
import {
  type FieldError,
  type ResourceType,
  type ScaleSubresource,
  type ServedVersion,
  type Strategy,
  type Verb,
} from '../registry/types';
import type { SchemaNode } from '../validation/decode';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps } from './crd-types';
import { convertThroughWebhook } from './conversion-webhook';
import { customResourcePrinter } from './printer-columns';
import { applySchemaDefaults, dropDisallowedNulls, hasSchemaDefaults, withSchemaDefaults } from './schema-defaulting';
import { publishedKindSchema, publishedListSchema } from './published-schema';
import { pruneBySchema } from './schema-pruning';
import { schemaProblems, statusSchemaProblems } from './schema-validation';
import { hasValidationRules, validateByRules } from './validation-rules';
import { RatchetPosition } from './ratcheting';
import { validateCustomScaleSpec, validateCustomScaleStatus } from '../registry/store/custom-scale';

import { groupVersionString, parseGroupVersion, type GroupVersion } from '../../api/identity';
import { copyJson } from '../json/value';
import { customResourceFieldLabels, type SelectableFields } from '../selectors/field-selector';
/** The reference's definition name of a custom kind: the group reversed, then version and kind (`com.example.v1.Widget`). */
export function customDefinitionName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

/** `.spec.replicas` → `spec.replicas`, the form the scale handler reads. */
function dotted(jsonPath: string): string {
  return jsonPath.replace(/^\./, '');
}

function scaleOf(version: CustomResourceDefinitionVersion): ScaleSubresource | undefined {
  const scale = version.subresources?.scale;
  if (scale === undefined) return undefined;
  return {
    specReplicasPath: dotted(scale.specReplicasPath),
    statusReplicasPath: dotted(scale.statusReplicasPath),
    ...(scale.labelSelectorPath ? { labelSelectorPath: dotted(scale.labelSelectorPath) } : {}),
    unstructuredParent: true,
  };
}

function selectableFieldsOf(version: CustomResourceDefinitionVersion): SelectableFields {
  return Object.fromEntries(
    (version.selectableFields ?? []).map(({ jsonPath }) => [dotted(jsonPath), fieldAt(dotted(jsonPath))]),
  );
}

export function schemaOf(crd: CustomResourceDefinition, version: string): JSONSchemaProps | undefined {
  return crd.spec.versions.find((candidate) => candidate.name === version)?.schema?.openAPIV3Schema;
}

/** The served versions, preferred first (the reference's kube-aware version order). */
export function servedVersions(crd: CustomResourceDefinition): CustomResourceDefinitionVersion[] {
  return crd.spec.versions.filter((version) => version.served).sort((a, b) => compareKubeAwareVersions(a.name, b.name));
}

/** `<group>/<version> <Kind> is deprecated`, naming the most preferred newer version still served and not deprecated. */
function defaultDeprecationWarning(crd: CustomResourceDefinition, deprecated: string): string {
  const { group, names } = crd.spec;
  const text = `${group}/${deprecated} ${names.kind} is deprecated`;
  const newer = servedVersions(crd).find(
    (version) => !version.deprecated && compareKubeAwareVersions(version.name, deprecated) < 0,
  );
  return newer === undefined ? text : `${text}; use ${group}/${newer.name} ${names.kind}`;
}

/**
 * Conversion between the CRD's versions: through its webhook, or for strategy None a change of
 * apiVersion alone. Either way the result is pruned by the target version's schema, as the
 * reference's converter prunes whatever it converts: a field only one version's schema declares
 * is not served in another. Absent for a CRD of one version, which never converts.
 */
function versionConvert(
  crd: CustomResourceDefinition,
  prune: NonNullable<ResourceType['prune']>,
  services: ServiceResolver | undefined,
): ResourceType['convert'] {
  const { conversion, versions } = crd.spec;
  if (conversion?.strategy !== 'Webhook') {
    if (versions.length < 2) return undefined;
    // Versions of one schema need no pruning; a copy is made only where it prunes.
    const schemaText = new Map(versions.map((version) => [version.name, JSON.stringify(version.schema ?? null)]));
    return (object: KubeObject, to: GroupVersion) => {
      const apiVersion = groupVersionString(to);
      if (object.apiVersion === apiVersion) return object;
      const from = typeof object.apiVersion === 'string' ? parseGroupVersion(object.apiVersion)?.version : undefined;
      if (from !== undefined && schemaText.get(from) === schemaText.get(to.version)) return { ...object, apiVersion };
      const converted = { ...copyJson(object), apiVersion };
      prune(converted, to.version);
      return converted;
    };
  }
  return async (object: KubeObject, to: GroupVersion) => {
    const apiVersion = groupVersionString(to);
    if (object.apiVersion === apiVersion) return object;
    const [converted] = await convertThroughWebhook(
      conversion,
      [object],
      { apiVersion, kind: crd.spec.names.kind },
      services,
    );
    prune(converted, to.version);
    return converted;
  };
}

/**
 * Rule failures ratcheted away on an update (ratcheting.ts), by the object validated: the
 * reference returns them as warnings of the update, which the strategy's `warnings` reads.
 */
const ratchetedRuleFailures = new WeakMap<KubeObject, string[]>();

/**
 * Schema errors after which the reference runs no CEL rule (the rules could not trust the
 * value's shape), saying so instead.
 */
const RULE_BLOCKING_ERRORS = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

/**
 * The schema's value checks, then its CEL rules (`old`: the stored object, on update, where
 * errors on unchanged values are dropped: ratcheting.ts).
 */
function validateCustomResource(
  object: KubeObject,
  old: KubeObject | undefined,
  options: {
    readonly schema: JSONSchemaProps | undefined;
    readonly scaleErrors: FieldError[];
    /** A status write: its status alone is validated by the schema (statusSchemaProblems). */
    readonly statusOnly?: boolean;
  },
): FieldError[] {
  const { schema, scaleErrors } = options;
  if (schema === undefined) return scaleErrors;
  const ratchet = old === undefined ? undefined : RatchetPosition.of(object, old, schema);
  const update = ratchet && { old, ratchet };
  const problems =
    options.statusOnly && update !== undefined
      ? statusSchemaProblems(object, schema, update)
      : schemaProblems(object, schema, update);
  // The reference's order: the schema's value checks and the scale's paths (its validator's),
  // then embedded resources, then lists (its strategy's).
  const errors = [...problems.values, ...scaleErrors, ...problems.embedded, ...problems.lists];
  if (!hasValidationRules(schema)) return errors;
  if (errors.some((error) => RULE_BLOCKING_ERRORS.has(error.type))) {
    errors.push({
      type: 'FieldValueInvalid',
      field: '<nil>',
      detail:
        'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    });
  } else {
    const warnings: string[] = [];
    errors.push(...validateByRules(object, old, schema, ratchet && { ratchet, warnings }));
    if (warnings.length > 0) ratchetedRuleFailures.set(object, warnings);
  }
  return errors;
}

/** `services`: where a conversion webhook given by Service is reached. */
export function customResourceType(crd: CustomResourceDefinition, services?: ServiceResolver): ResourceType {
  const { group, names, scope } = crd.spec;
  const served = servedVersions(crd);
  const storage = crd.spec.versions.find((version) => version.storage) ?? served[0];
  const namespaced = scope === 'Namespaced';
  const schemaFor = (version: string) => schemaOf(crd, version);
  // The strategy differs by the version's subresources: a write of the main resource keeps the
  // stored status where status is one, and the scale's paths are checked where scale is one.
  const strategyFor = (version: string, hasStatus: boolean, scale: ScaleSubresource | undefined): Strategy =>
    customResourceStrategy({ namespaced, hasStatus, scale, schemaFor, version });
  // Each served version has its own subresources and selectable fields, as the reference serves
  // them; the preferred version's stand for the type where no version is asked for.
  const ownOf = (version: CustomResourceDefinitionVersion) => {
    const hasStatus = version.subresources?.status !== undefined;
    const scale = scaleOf(version);
    const selectableFields = selectableFieldsOf(version);
    return {
      subresources: { ...(hasStatus ? { status: true as const } : {}), ...(scale ? { scale } : {}) },
      selectableFields,
      fieldLabels: customResourceFieldLabels(selectableFields, namespaced),
      strategy: strategyFor(version.name, hasStatus, scale),
    };
  };
  const versions: ServedVersion[] = served.map((version) => ({
    version: version.name,
    definition: customDefinitionName(group, version.name, names.kind),
    printer: customResourcePrinter(version.additionalPrinterColumns),
    own: ownOf(version),
    ...(version.deprecated
      ? {
          deprecated: true,
          deprecationWarning: version.deprecationWarning ?? defaultDeprecationWarning(crd, version.name),
        }
      : {}),
  }));
  // A version the kind lacks has no schema: everything but apiVersion, kind and metadata goes.
  // Then the nulls the schema does not allow, as the reference's decoder drops them.
  const prune = (object: KubeObject, version: string) => {
    const schema = schemaFor(version) ?? {};
    const unknown = pruneBySchema(object, schema);
    dropDisallowedNulls(object, schema);
    return unknown;
  };
  const convert = versionConvert(crd, prune, services);
  // Reads default by the schema of the version an object is stored in, before any conversion: a
  // default that only the served version's schema declares is not filled in, and an object
  // stored before the storage version changed gets its own version's (as kube-apiserver 1.34
  // answers).
  const defaulting = new Map(
    crd.spec.versions.flatMap((version) => {
      const schema = version.schema?.openAPIV3Schema;
      return schema !== undefined && hasSchemaDefaults(schema)
        ? [[groupVersionString({ group, version: version.name }), schema] as const]
        : [];
    }),
  );
  const readDefaults =
    defaulting.size > 0
      ? (object: KubeObject) => {
          const schema = typeof object.apiVersion === 'string' ? defaulting.get(object.apiVersion) : undefined;
          return schema === undefined ? object : withSchemaDefaults(object, schema);
        }
      : undefined;
  return {
    group,
    resource: names.plural,
    singular: names.singular ?? names.kind.toLowerCase(),
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    namespaced,
    versions,
    storageVersion: storage.name,
    storagePrefix: `${group}/${names.plural}`,
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    verbs: ALL_VERBS,
    discoveryVerbs: crd.metadata.deletionTimestamp ? TERMINATING_DISCOVERY_VERBS : DISCOVERY_VERBS,
    ...ownOf(served[0] ?? storage),
    nameRule: 'dns-subdomain',
    requiresResourceVersionOnUpdate: true,
    prune,
    definitions: customResourceDefinitions(crd),
    protobuf: false,
    custom: true,
    storageVersionHashUngated: true,
    ...(convert ? { convert } : {}),
    ...(readDefaults ? { readDefaults } : {}),
    // While its definition is being deleted the type takes no new objects: its cleanup would never end.
    ...(crd.metadata.deletionTimestamp
      ? { createRefusal: 'create not allowed while custom resource definition is terminating' }
      : {}),
  };
}

/** A custom resource's verbs as the reference's discovery lists them, in its order. */
const DISCOVERY_VERBS: readonly Verb[] = [
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'create',
  'update',
  'watch',
];
/** The same while its definition is being deleted: no create, update or patch is listed. */
const TERMINATING_DISCOVERY_VERBS: readonly Verb[] = ['delete', 'deletecollection', 'get', 'list', 'watch'];

/** Finalizers the API server itself knows; any other name should be domain-qualified. */
const STANDARD_FINALIZERS = new Set(['orphan', 'foregroundDeletion', 'kubernetes']);

/**
 * The reference's advice on the finalizers a write adds (sorted, as it lists them): a name
 * without a domain may clash with another writer's, and one with a domain wants a path.
 */
function finalizerWarnings(object: KubeObject, old: KubeObject | undefined): string[] {
  const before = new Set(old?.metadata.finalizers ?? []);
  const added = [...new Set(object.metadata.finalizers ?? [])].filter((name) => !before.has(name)).sort();
  return added.flatMap((name) => {
    if (name.includes('/') || STANDARD_FINALIZERS.has(name)) return [];
    const advice = name.includes('.')
      ? 'prefer a domain-qualified finalizer name including a path (/)'
      : 'prefer a domain-qualified finalizer name';
    return [
      `metadata.finalizers: ${JSON.stringify(name)}: ${advice} to avoid accidental conflicts with other finalizer writers`,
    ];
  });
}

/** A custom resource's strategy: schema defaults, status kept apart when it is a subresource, generations, schema and rule validation. */
function customResourceStrategy(options: {
  readonly namespaced: boolean;
  readonly hasStatus: boolean;
  readonly scale: ScaleSubresource | undefined;
  readonly schemaFor: (version: string) => JSONSchemaProps | undefined;
  /** The version it serves, whose schema validates: writes are prepared in the request's version. */
  readonly version: string;
}): Strategy {
  const { namespaced, hasStatus, scale, schemaFor, version } = options;
  // The scale's paths must read as the Scale reads them: on a write of the whole object both
  // replicas paths and the selector's, on a status write those of the status alone.
  const scaleErrors = (object: KubeObject): FieldError[] =>
    scale === undefined ? [] : [...validateCustomScaleSpec(object, scale), ...validateCustomScaleStatus(object, scale)];
  const statusScaleErrors = (object: KubeObject): FieldError[] =>
    scale === undefined ? [] : validateCustomScaleStatus(object, scale);
  return buildStrategy(
    { namespaced, nameRule: 'dns-subdomain', hasStatus, apiextensions: true },
    {
      // Bodies were pruned when decoded (the type's prune); objects made inside the server were not.
      defaults: (object, defaulted) => {
        const schema = schemaFor(defaulted);
        if (schema === undefined) return;
        pruneBySchema(object, schema);
        applySchemaDefaults(object, schema);
      },
      prepareForCreate: (object) => {
        if (hasStatus) delete object.status;
      },
      tracksGeneration: true,
      // The reference's status strategy copies the stored object but for its status (and managedFields).
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      validate: (object) =>
        validateCustomResource(object, undefined, {
          schema: schemaFor(version),
          scaleErrors: scaleErrors(object),
        }),
      validateUpdate: (object, old) =>
        validateCustomResource(object, old, { schema: schemaFor(version), scaleErrors: scaleErrors(object) }),
      validateStatusUpdate: (object, old) =>
        validateCustomResource(object, old, {
          schema: schemaFor(version),
          scaleErrors: statusScaleErrors(object),
          statusOnly: true,
        }),
      warnings: (object, old) => [...(ratchetedRuleFailures.get(object) ?? []), ...finalizerWarnings(object, old)],
      // The status strategy warns of nothing itself; the rules its validation ratcheted still warn.
      statusWarnings: (object) => ratchetedRuleFailures.get(object) ?? [],
    },
  );
}

/**
 * Each served version's schema as an OpenAPI definition keyed by its definition name, and its
 * list's, as the reference publishes them (published-schema.ts).
 */
export function customResourceDefinitions(crd: CustomResourceDefinition): Record<string, SchemaNode> {
  const definitions: Record<string, SchemaNode> = {};
  const { group, names } = crd.spec;
  for (const version of servedVersions(crd)) {
    const definition = customDefinitionName(group, version.name, names.kind);
    definitions[definition] = publishedKindSchema(crd, version);
    definitions[customDefinitionName(group, version.name, names.listKind ?? `${names.kind}List`)] = publishedListSchema(
      crd,
      version,
      definition,
    );
  }
  return definitions;
}
