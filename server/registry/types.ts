/**
 * A resource type is data: what the API serves for one resource (names, scope, versions, verbs,
 * subresources, schema names) plus a strategy object for the little behaviour a kind has.
 * Built-in kinds are declared in server/registry/kinds/; custom resources will be made from
 * CustomResourceDefinitions into the same shape.
 *
 * The generic store (server/registry/store/) runs every write in one fixed order:
 *   decode (handlers) → (PUT/PATCH: the new object from the current one) → defaults →
 *   mutating admission → strategy.prepareForCreate / prepareForUpdate → strategy.validate /
 *   validateUpdate → validating admission → storage.
 * Status and scale subresources use their own strategy methods in the same places.
 */
import type { KubeObject } from '../../api/objects';
import type { UserInfo } from '../../api/user-info';
import type { FieldError } from '../status/field-error';
import type { Printer } from '../table/printer';
import type { Definitions } from '../validation/decode';
import type { GroupVersion, GroupVersionKind } from '../../api/identity';
import type { FieldLabels, SelectableFields } from '../selectors/field-selector';
import type { WarningRecorder } from '../request/warning-recorder';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Kinds' validation speaks in the reference's field errors (server/status/field-error.ts). */
export type { FieldError };

/** Whether a feature gate is on: as `--feature-gates` set it, else its 1.34 default. */
export type FeatureEnabled = (gate: string) => boolean;

/**
 * What a write's preparation and validation may consult beyond the objects themselves. The
 * store builds one for every write, so that a kind's behaviour is a function of its inputs
 * where the reference reads process-wide gates.
 */
export interface WriteContext {
  /** Who writes (a CertificateSigningRequest records its requester); absent: nobody in particular. */
  readonly user?: UserInfo;
  readonly featureEnabled: FeatureEnabled;
  /**
   * The request's warnings, for those a preparation sends as it mutates (the reference's
   * `warning.AddWarning` in PrepareForCreate): they reach the client even when validation then
   * refuses the object. Absent: nobody hears them.
   */
  readonly warnings?: WarningRecorder;
  /**
   * Told how many of a write's declarative validation errors disagreed with the hand-written
   * ones (server/validation/declarative-validation.ts); absent: not counted.
   */
  readonly declarativeMismatches?: DeclarativeMismatchCounter;
  /** The server's clock, for times a preparation fills in; absent: the wall clock. */
  readonly now?: () => Date;
}

/** Adds to the server's apiserver_validation_declarative_validation_mismatch_total. */
export type DeclarativeMismatchCounter = (mismatches: number) => void;

/**
 * Kind-specific behaviour. Every method is optional: absent means the generic behaviour
 * (server/registry/strategy.ts). Methods that may mutate say so; the others must not.
 */
export interface Strategy {
  /**
   * Fill defaults in place (may mutate `object`). Runs on create and update, after decode, and on
   * every object read from storage. A few defaults depend on feature gates (`featureEnabled`;
   * absent: the 1.34 defaults): the registry a server builds binds its own gates here.
   */
  applyDefaults?(object: KubeObject, version: string, featureEnabled?: FeatureEnabled): void;
  /**
   * Clear what a create may not set (status when a status subresource exists, fields of a
   * feature gate that is off...). May mutate `object`.
   */
  prepareForCreate?(object: KubeObject, context: WriteContext): void;
  /** Keep what an update of the main resource may not change (status...). May mutate `object`, not `old`. */
  prepareForUpdate?(object: KubeObject, old: KubeObject, context: WriteContext): void;
  /** On the status subresource: keep everything but status from `old`. May mutate `object`. */
  prepareForStatusUpdate?(object: KubeObject, old: KubeObject, context: WriteContext): void;
  validate?(object: KubeObject, context: WriteContext): FieldError[];
  validateUpdate?(object: KubeObject, old: KubeObject, context: WriteContext): FieldError[];
  /** The rules of a status write, which the reference gives a strategy of its own. */
  validateStatusUpdate?(object: KubeObject, old: KubeObject, context: WriteContext): FieldError[];
  /** The rules of a namespace's PUT /finalize, which the reference gives a strategy of its own. */
  validateFinalizeUpdate?(object: KubeObject, old: KubeObject, context: WriteContext): FieldError[];
  /**
   * Warnings to return in `Warning` headers for a create or an update of the main resource; a few
   * depend on feature gates (`context`).
   */
  warnings?(object: KubeObject, old: KubeObject | undefined, context: WriteContext): string[];
  /** The same for a write of the status subresource, which the reference gives a strategy of its own. */
  statusWarnings?(object: KubeObject, old: KubeObject): string[];
  /**
   * A kind whose first deletion is its own (CRDs): marks `object` for deletion in place of the
   * generic marks, and the object is kept whatever holds it. Later deletions are generic.
   * Mutates `object`.
   */
  markForDeletion?(object: KubeObject, now: Date): void;
}

/** The scale subresource: where the replica count and selector live in the parent object. */
export interface ScaleSubresource {
  readonly specReplicasPath: string; // e.g. 'spec.replicas'
  readonly statusReplicasPath: string; // e.g. 'status.replicas'
  readonly labelSelectorPath?: string; // e.g. 'status.selector' (string form) or 'spec.selector' (object)
  /** The selector there is a set of labels (a replication controller's), not a LabelSelector. */
  readonly labelSelectorIsSet?: true;
  /**
   * Built-in kinds: a Scale written has its metadata and replicas checked (see store/scale.ts);
   * custom resources' not, their parent's validation judging the replicas written.
   */
  readonly checksMetadata?: true;
  /**
   * Custom resources: the parent is read as the reference reads an unstructured object for its
   * Scale (store/custom-scale.ts), a member of the wrong type there failing the read.
   */
  readonly unstructuredParent?: true;
}

export interface Subresources {
  readonly status?: true;
  readonly scale?: ScaleSubresource;
  /** Namespaces only: PUT /finalize changes spec.finalizers. */
  readonly finalize?: true;
}

/**
 * Handlers a type brings beyond the generic ones: server/handlers/slots.ts declares what they
 * are. A kind only carries them; what a handler is built from (the store's scope, the request)
 * belongs to the layers above the kinds, so the endpoints layer adds the members to this
 * interface rather than the kinds layer importing it.
 */
export interface HandlerSlots {}

export interface ServedVersion {
  readonly version: string;
  /** OpenAPI definition name of the kind in this version, e.g. `io.k8s.api.apps.v1.Deployment`. */
  readonly definition: string;
  readonly deprecated?: boolean;
  readonly deprecationWarning?: string;
  /**
   * Table columns for `kubectl get` in this version (a custom resource's additionalPrinterColumns);
   * absent: the type's printer.
   */
  readonly printer?: Printer;
  /**
   * What this version serves differently from the type (a custom resource's versions each have
   * their own subresources and selectable fields, the field labels those make, and the strategy
   * its status subresource implies); see `typeAtVersion`.
   */
  readonly own?: Partial<Pick<ResourceType, 'subresources' | 'selectableFields' | 'fieldLabels' | 'strategy'>>;
}

export interface ResourceType {
  readonly group: string;
  readonly resource: string; // plural, lowercase
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  /** Served versions, preferred first. */
  readonly versions: readonly ServedVersion[];
  /** Its table for `kubectl get`, as the reference prints the kind; absent: Name and Created At. */
  readonly printer?: Printer;
  /** The version objects are stored in; others are converted (see `convert`). */
  readonly storageVersion: string;
  /**
   * The feature gate the reference's storage provider asks before serving the resource at all
   * (ClusterTrustBundle, StorageVersionMigrator ...); absent: served whatever the gates say.
   */
  readonly featureGate?: string;
  /**
   * The group of the storage version when it is not `group`: events.k8s.io Events are stored
   * as core v1 Events under the same key prefix. Use `storageGroupVersion(type)`.
   */
  readonly storageGroup?: string;
  /**
   * The version written to the store when it is not `storageVersion` (the one kept in memory,
   * which defaults and validation see): the reference 1.34 writes resource.k8s.io as v1beta2,
   * which has v1's fields, so that a 1.33 server reads it back. Discovery's storageVersionHash
   * names it. Use `encodedGroupVersion(type)`.
   */
  readonly encodedVersion?: string;
  /** Storage key segment under the etcd prefix (`pods`, `services/specs`, `minions` ...). */
  readonly storagePrefix: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly Verb[];
  /**
   * The verbs discovery lists, in its order; absent: `verbs`, sorted, as the reference's
   * installer lists a built-in kind's. Its custom resource discovery has an order of its own,
   * and lists fewer while the definition is being deleted.
   */
  readonly discoveryVerbs?: readonly Verb[];
  readonly subresources: Subresources;
  /** Which rule `metadata.name` must satisfy (Services: `dns1035-label`, a label starting with a letter). */
  readonly nameRule:
    | 'dns-subdomain'
    | 'dns-label'
    | 'dns1035-label'
    | 'path-segment'
    | 'ip-address'
    | 'config-map-key'
    | 'group-resource';
  readonly selectableFields: SelectableFields;
  /** The reference's field label conversion where the kind has its own (which labels, what words); absent: see fieldLabelsOf. */
  readonly fieldLabels?: FieldLabels;
  readonly strategy: Strategy;
  /**
   * Convert an object of this type between two of its versions (including between groups that
   * share storage, like core/v1 and events.k8s.io/v1 Events). Absent: only apiVersion changes.
   * Must not mutate its input; to the version the object already has, it returns the input
   * itself (served objects are shared and only read, see toServedVersion). May answer later (a
   * custom resource's conversion webhook); built-in conversions answer at once, and callers
   * only wait when given a promise.
   */
  convert?(object: KubeObject, to: GroupVersion): KubeObject | Promise<KubeObject>;
  /**
   * Resources that are operations rather than stored objects (reviews): nothing stored, no
   * watch cache, no table; their verbs are served by `handlers.verbs`.
   */
  readonly virtual?: boolean;
  /**
   * Custom resources: discovery names their storage version's hash whatever the
   * StorageVersionHash gate says, as the reference's CRD discovery (built apart from the gated
   * installer of built-in kinds) does. Absent: the hash follows the gate.
   */
  readonly storageVersionHashUngated?: true;
  /** Handlers beyond the generic ones: custom subresources and a virtual type's verbs. */
  readonly handlers?: HandlerSlots;
  /**
   * Schema definitions the type brings (a custom resource's), looked up before the built-in
   * ones: its versions' `definition` names may name one of these, which may refer to built-in
   * definitions (ObjectMeta) by `$ref`. Absent: the built-in definitions alone.
   */
  readonly definitions?: Definitions;
  /**
   * Whether objects have a protobuf form; absent: they do (every built-in kind). Without one,
   * a protobuf `Accept` is 406 and a protobuf body 415, as for the reference's custom resources.
   */
  readonly protobuf?: boolean;
  /**
   * A custom resource: the reference serves it from its apiextensions server rather than the
   * generic API installer of the built-in kinds. So it has no go-restful routes (no router check
   * of `Accept`, codec/route-accept.ts), and its aggregated discovery entries name their own
   * group and version where the installer's leave them empty.
   */
  readonly custom?: true;
  /**
   * Kinds deleted gracefully (Pods): the grace period a deletion gets, from the one it asked for
   * (the reference's CheckGracefulDelete). The object lingers, marked, until the grace is 0.
   */
  readonly deletionGracePeriod?: (object: KubeObject, requested: number | undefined) => number;
  /**
   * Custom resources: request bodies are not typed against the schema (the schema's validation
   * reports wrong types, as 422), and this removes what the schema of `version` does not
   * declare, answering the removed paths, which `fieldValidation` reports as unknown fields.
   * May mutate `object`. Absent: bodies are typed against the definitions.
   */
  prune?(object: KubeObject, version: string): string[];
  /**
   * The stored object as reads (get, list, watch) and writes' answers show it: a custom
   * resource's defaults added since it was written filled in, as the reference defaults what it
   * decodes from storage; a Service's fields its registry's decorator drops. Answers the object
   * itself when nothing changes, else a copy; never changes it. Absent: objects are served as stored.
   */
  readDefaults?(object: KubeObject): KubeObject;
  /**
   * What a deletion does to dependents when neither its options nor the object's finalizers say
   * (the reference's DefaultGarbageCollectionPolicy): `OrphanDependents` (v1 ReplicationControllers
   * and batch/v1 Jobs, kept for old clients), `Unsupported` (Events: never a garbage collector
   * finalizer). Absent: the collector deletes them in the background.
   */
  readonly garbageCollectionPolicy?: 'OrphanDependents' | 'Unsupported';
  /** A `Warning` for a DELETE that says nothing of dependents (Jobs: their pods are kept). */
  readonly unsetPropagationWarning?: string;
  /**
   * Why a DELETE of the object named is refused before it is looked up (the system
   * PriorityClasses), as the reference's storage for the kind refuses it; undefined to go on.
   * A DELETE of the collection does not ask, as the reference's does not.
   */
  readonly deleteRefusal?: (name: string) => string | undefined;
  /**
   * Why every new object of the type is refused (a custom resource whose definition is being
   * deleted: its cleanup would never end). A 403 before mutating admission, as the reference's
   * admission wrapper for the type gives it, for a POST and for an apply that would create.
   */
  readonly createRefusal?: string;
  /**
   * Fields no write to the main resource owns, though it may send them: the reference's reset
   * fields of its strategy (CSRs: spec and status), each a path of field names. Absent: status
   * where it has an endpoint of its own, as most strategies have it. See mainResetFieldsOf.
   */
  readonly mainResetFields?: readonly (readonly string[])[];
  /**
   * Fields no write through /status owns, though it may send them: the reference's reset fields
   * of the kind's status strategy (Deployments: spec and labels), each a path of field names.
   * Absent: spec alone, as most status strategies have it. See statusResetFieldsOf.
   */
  readonly statusResetFields?: readonly (readonly string[])[];
  /** DELETE answers the deleted object rather than a Success Status (the reference's ReturnDeletedObject). */
  readonly returnsDeletedObject?: boolean;
  /**
   * The reference's OpenAPI documents say DELETE answers a Status although it answers the object:
   * its namespace storage wraps the generic store without passing on that it returns the object.
   */
  readonly deleteDocumentedAsStatus?: true;
  /** A PUT of a missing object creates it (AllowCreateOnUpdate). */
  readonly allowCreateOnUpdate?: boolean;
  /**
   * A PUT must carry metadata.resourceVersion: custom resources and the built-in kinds whose
   * reference strategy says AllowUnconditionalUpdate false (webhook and policy configurations,
   * leases, PodDisruptionBudgets, CSI and storage-version kinds, CRDs, APIServices, …).
   */
  readonly requiresResourceVersionOnUpdate?: boolean;
}

/** The type as requests at `version` see it: the type's facts with the version's own in their place. */
export function typeAtVersion(type: ResourceType, version: ServedVersion | undefined): ResourceType {
  return version?.own === undefined ? type : { ...type, ...version.own };
}

/** The group-version objects of this type are stored in. */
export function storageGroupVersion(type: ResourceType): GroupVersion {
  return { group: type.storageGroup ?? type.group, version: type.storageVersion };
}

/** The group-version objects of this type are written to the store in. */
export function encodedGroupVersion(type: ResourceType): GroupVersion {
  return { group: type.storageGroup ?? type.group, version: type.encodedVersion ?? type.storageVersion };
}

/** What one change of the registry did. A replaced type is in both lists (its old and its new object). */
export interface RegistryChange {
  readonly added: readonly ResourceType[];
  readonly removed: readonly ResourceType[];
}

export type RegistryListener = (change: RegistryChange) => void;

/** Every served resource type, looked up the ways requests and discovery need. */
export interface ResourceRegistry {
  /** The type served at `<group>/<version>/<resource>`, when that version is enabled. */
  find(groupVersion: GroupVersion, resource: string): ResourceType | undefined;
  /** The type that serves this kind in this group-version. */
  findKind(gvk: GroupVersionKind): ResourceType | undefined;
  /** All served types, in a stable order (group, then resource); a new array after every change. */
  all(): readonly ResourceType[];
  /** Calls `listener` after every change (types come and go while serving), synchronously; returns a function that stops it. */
  onChange(listener: RegistryListener): () => void;
}
