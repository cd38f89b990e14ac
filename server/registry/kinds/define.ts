/**
 * `defineKind` turns a short declaration into a full `ResourceType`: it fills the facts most
 * kinds share (list kind, singular, the eight verbs, DNS-subdomain names, storage prefix = the
 * resource, schema definition names) and builds the strategy from the generic one.
 */
import type { KubeObject } from '../../../api/objects';
import { valueAtPath } from '../../json/value';
import { buildStrategy, type KindBehaviour } from '../strategy';
import { roundResourceLists } from '../defaults/resource-lists';
import type { ResourceType, Subresources, Verb } from '../types';

import type { GroupVersion } from '../../../api/identity';
import type { FieldLabels, SelectableFields } from '../../selectors/field-selector';
import type { Printer } from '../../table/printer';
export const ALL_VERBS: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
export const VERBS_WITHOUT_DELETECOLLECTION: readonly Verb[] = [
  'create',
  'delete',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

/** The Go package of each group's API types, which names its schema definitions. */
const DEFINITION_PACKAGES: Readonly<Record<string, string>> = {
  '': 'core',
  apps: 'apps',
  batch: 'batch',
  autoscaling: 'autoscaling',
  policy: 'policy',
  'coordination.k8s.io': 'coordination',
  'events.k8s.io': 'events',
  'discovery.k8s.io': 'discovery',
  'networking.k8s.io': 'networking',
  'scheduling.k8s.io': 'scheduling',
  'storage.k8s.io': 'storage',
  'node.k8s.io': 'node',
  'resource.k8s.io': 'resource',
  'admissionregistration.k8s.io': 'admissionregistration',
  'rbac.authorization.k8s.io': 'rbac',
  'authorization.k8s.io': 'authorization',
  'certificates.k8s.io': 'certificates',
  'flowcontrol.apiserver.k8s.io': 'flowcontrol',
  'internal.apiserver.k8s.io': 'apiserverinternal',
  'storagemigration.k8s.io': 'storagemigration',
};

export function definitionName(group: string, version: string, kind: string): string {
  const pkg = DEFINITION_PACKAGES[group];
  if (pkg === undefined) throw new Error(`no schema package known for group ${JSON.stringify(group)}`);
  return `io.k8s.api.${pkg}.${version}.${kind}`;
}

export interface KindDeclaration {
  readonly group: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** Served versions, preferred first; the first is the storage version unless `storageVersion` says. */
  readonly versions?: readonly string[];
  readonly storageVersion?: string;
  readonly featureGate?: string;
  readonly encodedVersion?: string;
  readonly storageGroup?: string;
  readonly storagePrefix?: string;
  /** Where the kind's schema definitions live when not under `io.k8s.api.<package>` (apiextensions). */
  readonly definitionPrefix?: string;
  /** Served by the apiextensions server, whose metadata rules differ a little (see StrategyFacts). */
  readonly apiextensions?: true;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly verbs?: readonly Verb[];
  readonly subresources?: Subresources;
  readonly nameRule?: ResourceType['nameRule'];
  readonly selectableFields?: SelectableFields;
  readonly fieldLabels?: FieldLabels;
  readonly behaviour?: KindBehaviour;
  readonly convert?: (object: KubeObject, to: GroupVersion) => KubeObject;
  /** See ResourceType.readDefaults. */
  readonly readDefaults?: (object: KubeObject) => KubeObject;
  readonly returnsDeletedObject?: true;
  readonly deleteDocumentedAsStatus?: true;
  readonly deletionGracePeriod?: ResourceType['deletionGracePeriod'];
  readonly garbageCollectionPolicy?: ResourceType['garbageCollectionPolicy'];
  readonly unsetPropagationWarning?: string;
  readonly deleteRefusal?: ResourceType['deleteRefusal'];
  readonly mainResetFields?: ResourceType['mainResetFields'];
  readonly statusResetFields?: ResourceType['statusResetFields'];
  readonly allowCreateOnUpdate?: true;
  /** A PUT must name the resourceVersion it replaces (the reference's AllowUnconditionalUpdate false). */
  readonly requiresResourceVersionOnUpdate?: true;
  /** Served versions that are deprecated, with the `Warning` text the reference sends for them. */
  readonly deprecatedVersions?: Readonly<Record<string, string>>;
  /** Its table for `kubectl get` (server/table/): the reference's printer of the kind. */
  readonly printer?: Printer;
}

/** The kind's own defaults, then the reference's rounding of its ResourceLists (resource-lists.ts). */
function withRoundedResourceLists(
  behaviour: KindBehaviour | undefined,
  definitionOf: ReadonlyMap<string, string>,
  fallbackDefinition: string,
): KindBehaviour {
  return {
    ...behaviour,
    defaults: (object, version, featureEnabled) => {
      behaviour?.defaults?.(object, version, featureEnabled);
      roundResourceLists(object, definitionOf.get(version) ?? fallbackDefinition);
    },
  };
}

export function defineKind(declaration: KindDeclaration): ResourceType {
  const versions = declaration.versions ?? ['v1'];
  const nameRule = declaration.nameRule ?? 'dns-subdomain';
  const subresources = declaration.subresources ?? {};
  const definitionOf = new Map(
    versions.map((version) => [
      version,
      declaration.definitionPrefix === undefined
        ? definitionName(declaration.group, version, declaration.kind)
        : `${declaration.definitionPrefix}.${version}.${declaration.kind}`,
    ]),
  );
  return {
    group: declaration.group,
    resource: declaration.resource,
    singular: declaration.kind.toLowerCase(),
    kind: declaration.kind,
    listKind: `${declaration.kind}List`,
    namespaced: declaration.namespaced,
    versions: versions.map((version) => {
      const definition = definitionOf.get(version)!;
      const warning = declaration.deprecatedVersions?.[version];
      return warning === undefined
        ? { version, definition }
        : { version, definition, deprecated: true, deprecationWarning: warning };
    }),
    ...(declaration.printer !== undefined ? { printer: declaration.printer } : {}),
    storageVersion: declaration.storageVersion ?? versions[0],
    ...(declaration.featureGate !== undefined ? { featureGate: declaration.featureGate } : {}),
    ...(declaration.encodedVersion !== undefined ? { encodedVersion: declaration.encodedVersion } : {}),
    ...(declaration.storageGroup !== undefined ? { storageGroup: declaration.storageGroup } : {}),
    storagePrefix: declaration.storagePrefix ?? declaration.resource,
    shortNames: declaration.shortNames ?? [],
    categories: declaration.categories ?? [],
    verbs: declaration.verbs ?? ALL_VERBS,
    subresources,
    nameRule,
    selectableFields: declaration.selectableFields ?? {},
    ...(declaration.fieldLabels !== undefined ? { fieldLabels: declaration.fieldLabels } : {}),
    strategy: buildStrategy(
      {
        namespaced: declaration.namespaced,
        nameRule,
        hasStatus: subresources.status === true,
        apiextensions: declaration.apiextensions,
      },
      withRoundedResourceLists(declaration.behaviour, definitionOf, definitionOf.get(versions[0])!),
    ),
    ...(declaration.convert ? { convert: declaration.convert } : {}),
    ...(declaration.readDefaults ? { readDefaults: declaration.readDefaults } : {}),
    ...(declaration.returnsDeletedObject ? { returnsDeletedObject: true } : {}),
    ...(declaration.deleteDocumentedAsStatus ? { deleteDocumentedAsStatus: true } : {}),
    ...(declaration.deletionGracePeriod ? { deletionGracePeriod: declaration.deletionGracePeriod } : {}),
    ...(declaration.garbageCollectionPolicy ? { garbageCollectionPolicy: declaration.garbageCollectionPolicy } : {}),
    ...(declaration.unsetPropagationWarning ? { unsetPropagationWarning: declaration.unsetPropagationWarning } : {}),
    ...(declaration.deleteRefusal ? { deleteRefusal: declaration.deleteRefusal } : {}),
    ...(declaration.allowCreateOnUpdate ? { allowCreateOnUpdate: true } : {}),
    ...(declaration.requiresResourceVersionOnUpdate ? { requiresResourceVersionOnUpdate: true } : {}),
    ...(declaration.mainResetFields ? { mainResetFields: declaration.mainResetFields } : {}),
    ...(declaration.statusResetFields ? { statusResetFields: declaration.statusResetFields } : {}),
  };
}

/** A selectable field read from a dotted path, printed as the reference's field sets print it. */
export function fieldAt(path: string): (object: KubeObject) => string | undefined {
  const segments = path.split('.');
  return (object) => {
    const value = valueAtPath(object, segments);
    if (value === undefined || value === null) return undefined;
    return typeof value === 'string' ? value : String(value);
  };
}

/**
 * A kind's own field label conversion, as the reference registers one: these labels (each
 * reading the field of its name, or the one it maps to) and no other, refused in `refusal`'s
 * words (by default `field label not supported: <label>`). metadata.namespace is a label only
 * where listed.
 */
export function fieldLabels(
  labels: readonly string[] | Readonly<Record<string, string>>,
  refusal: FieldLabels['refusal'] = (label) => `field label not supported: ${label}`,
): FieldLabels {
  const pairs = Array.isArray(labels) ? labels.map((label) => [label, label] as const) : Object.entries(labels);
  return { accepted: new Map(pairs), refusal };
}

/** Field readers for each path, keyed by the path itself. */
export function selectable(...paths: string[]): SelectableFields {
  return Object.fromEntries(paths.map((path) => [path, fieldAt(path)]));
}

/** The scale subresource of the workload kinds: replicas in spec/status, selector as a string in status. */
export const WORKLOAD_SCALE = {
  specReplicasPath: 'spec.replicas',
  statusReplicasPath: 'status.replicas',
  labelSelectorPath: 'status.selector',
  checksMetadata: true,
} as const;
