/**
 * The generic strategy every built-in kind starts from, and the builder that adds a kind's own
 * facts to it. The handlers run the methods in the order written in types.ts; every built-in
 * type's `strategy` has all methods filled, so handlers need no fallback of their own.
 *
 * What the generic behaviour does, after the reference's per-kind strategies:
 * - create: with a status subresource, status is replaced by the kind's fresh status (most
 *   kinds: the empty status Go prints, e.g. `{}` or `{replicas: 0}`); kinds that track
 *   generation start at 1, the others keep the generation the client sent.
 * - update of the main resource: status is kept from the stored object; generation goes up
 *   by one when anything outside metadata and status changed, or, for a kind that does not
 *   track it, stays the stored one.
 * - update of the status subresource: everything outside metadata and status is kept from the
 *   stored object, and so are generation and deletionTimestamp; the rest of metadata is the
 *   writer's, as most of the reference's status strategies let it through (a deployment
 *   controller records its revision annotation with a status write). A kind names the further
 *   metadata its status writes keep (`statusKeepsMetadata`).
 * - validate: metadata rules (name rule, namespace, labels, annotations, owner references,
 *   finalizers) then the kind's rules; validateUpdate checks metadata as many times as the
 *   reference does, with what may not change, and the kind's rules among those checks where the
 *   reference runs them (see UpdatePass).
 */
import type { KubeObject, ObjectMeta } from '../../api/objects';
import type { FeatureEnabled, FieldError, ResourceType, Strategy, WriteContext } from './types';
import { deepEqual } from '../status/field-errors';
import { copyJson } from '../json/value';
import {
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameIsPathSegment,
  nameIsConfigMapKey,
  nameIsGroupResource,
  type NameValidator,
} from '../validation/names';
import { isValidIP } from '../validation/ip';
import { featureGateReader } from '../config/feature-enabled';
import {
  kubeFinalizerListErrors,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type ObjectMetaRules,
} from '../validation/object-meta';

/**
 * A check of metadata that a kind's update validation runs besides the generic ones every update
 * gets (the reference's registry checks the new metadata as on a create, with any path segment
 * for a name, then as an update): `update` is the reference's ValidateObjectMetaUpdate of the new
 * metadata over the old, `create` its ValidateObjectMeta of the new object, with the kind's name
 * rule, where the kind's update runs its create validation again. Each reports a bad label or
 * annotation once more.
 */
export type MetadataCheck = 'create' | 'update';

/**
 * A pass of a kind's update (or status write) validation, in the order of the reference's
 * strategy, which decides the order of the causes of an update wrong in its metadata and
 * elsewhere: a metadata check; `createRules`, the kind's create rules of the new object
 * (`validateOnUpdate`, absent: `validate`), where the strategy or its ValidateXUpdate validates
 * the object as on a create (ValidateX: its metadata, then the rest); `updateRules`, the kind's
 * update rules (`validateUpdate`; of a status write, `validateStatusUpdate`). A list that names
 * neither kind of rules has the update rules last.
 */
export type UpdatePass = MetadataCheck | 'createRules' | 'updateRules';

/** What a kind adds to the generic behaviour; everything optional. */
export interface KindBehaviour {
  /** Defaults on the storage-version object (may mutate), some of them behind feature gates. */
  readonly defaults?: (object: KubeObject, version: string, featureEnabled: FeatureEnabled) => void;
  /**
   * The status a new object starts with, read from it before the fields of gates that are off
   * are dropped; absent keeps what the client sent (Nodes).
   */
  readonly initialStatus?: (object: KubeObject, featureEnabled: FeatureEnabled) => Record<string, unknown>;
  /**
   * Whether metadata.generation is kept (1 on create, +1 on spec changes); `on-update`: only
   * raised on spec changes, the client's kept on create (the reference's CSIDriver); else it is
   * the client's on create, then stays.
   */
  readonly tracksGeneration?: boolean | 'on-update';
  /** Further fields whose change bumps generation (Deployments: `metadata.annotations`). */
  readonly generationAlsoFollows?: (object: KubeObject) => unknown;
  /** Extra create preparation after the generic one (may mutate). */
  readonly prepareForCreate?: (object: KubeObject, context: WriteContext) => void;
  /** Extra update preparation after the generic one (may mutate `object`). */
  readonly prepareForUpdate?: (object: KubeObject, old: KubeObject, context: WriteContext) => void;
  /** Extra status-write preparation after the generic one (may mutate `object`). */
  readonly prepareForStatusUpdate?: (object: KubeObject, old: KubeObject, context: WriteContext) => void;
  /**
   * Removes what the fields of a feature gate that is off hold, unless `old` (absent on create)
   * already uses them, as the reference's `dropDisabledFields` (may mutate `object`, not `old`).
   * It runs last in a create and a status write; in an update, before generation is counted
   * and the kind's own preparation looks at the spec, so that a change made only of dropped
   * fields changes nothing, unless `generationCountsDroppedFields`.
   */
  readonly dropDisabledFields?: (
    object: KubeObject,
    old: KubeObject | undefined,
    featureEnabled: FeatureEnabled,
  ) => void;
  /**
   * The kind's update counts generation on the spec as sent and drops gated fields after: an
   * update made only of dropped fields still raises generation (the reference's ResourceSlice).
   */
  readonly generationCountsDroppedFields?: true;
  /** Metadata a status write keeps from the stored object, beyond generation and deletionTimestamp. */
  readonly statusKeepsMetadata?: readonly (keyof ObjectMeta)[];
  readonly validate?: (object: KubeObject, context: WriteContext) => FieldError[];
  /**
   * A name rule that depends on the object or the gates, in place of the type's (ClusterTrustBundles
   * are named after their signer; Services' names relax with RelaxedServiceNameValidation).
   */
  readonly nameRuleOf?: (object: KubeObject, context: WriteContext) => NameValidator;
  /**
   * The create rules as an update runs them (`createRules`), with what the old object allows
   * (a selector's invalid value kept, a claim's class upgraded); absent: `validate`.
   */
  readonly validateOnUpdate?: (object: KubeObject, old: KubeObject, context: WriteContext) => FieldError[];
  /** Update rules beyond metadata; absent: the create rules on the new object. */
  readonly validateUpdate?: (object: KubeObject, old: KubeObject, context: WriteContext) => FieldError[];
  /**
   * The passes of the kind's update validation (see UpdatePass), in the order of the reference's
   * strategy; absent: `['update']`, the reference's ValidateXUpdate checking the metadata's
   * update and then the rest.
   */
  readonly updatePasses?: readonly UpdatePass[];
  /** Status-write rules beyond metadata; absent: the update rules. */
  readonly validateStatusUpdate?: (object: KubeObject, old: KubeObject, context: WriteContext) => FieldError[];
  /** The passes of a status write; absent: `['update']`, as for an update. */
  readonly statusUpdatePasses?: readonly UpdatePass[];
  /** Finalize-write rules beyond metadata (Namespaces, whose metadata it checks as an update's); absent: the update rules. */
  readonly validateFinalizeUpdate?: (object: KubeObject, old: KubeObject) => FieldError[];
  readonly warnings?: (object: KubeObject, old: KubeObject | undefined, context: WriteContext) => string[];
  /** Warnings of a status write; absent: none. */
  readonly statusWarnings?: (object: KubeObject, old: KubeObject) => string[];
  /** See Strategy.markForDeletion (mutates `object`). */
  readonly markForDeletion?: (object: KubeObject, now: Date) => void;
}

export interface StrategyFacts {
  readonly namespaced: boolean;
  readonly nameRule: ResourceType['nameRule'];
  readonly hasStatus: boolean;
  /** Served by the apiextensions server (CRDs, custom resources): any qualified finalizer name. */
  readonly apiextensions?: boolean;
}

const NAME_VALIDATORS: Record<ResourceType['nameRule'], NameValidator> = {
  'dns-subdomain': nameIsDNSSubdomain,
  'dns-label': nameIsDNSLabel,
  'dns1035-label': nameIsDNS1035Label,
  'path-segment': nameIsPathSegment,
  'config-map-key': nameIsConfigMapKey,
  'group-resource': nameIsGroupResource,
  // IPAddresses are named by the address they hold; their names are never generated.
  'ip-address': (name) => isValidIP(name),
};

/** The gates of a server started without `--feature-gates`. */
const DEFAULT_GATES: FeatureEnabled = featureGateReader({});

/** Everything of an object outside metadata and status: what "the spec changed" compares. */
function specPart(object: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, status: _status, apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return rest;
}

/** Metadata no status write changes (the reference's generic update keeps them). */
const STATUS_PROTECTED_METADATA: readonly (keyof ObjectMeta)[] = ['deletionTimestamp', 'generation'];

/** All the metadata the reference's ResetObjectMetaForStatus keeps, for kinds whose status strategy calls it. */
export const RESET_OBJECT_META_FOR_STATUS: readonly (keyof ObjectMeta)[] = [
  ...STATUS_PROTECTED_METADATA,
  'labels',
  'annotations',
  'finalizers',
  'ownerReferences',
];

/** Every hook of a strategy, but the ones whose absence means the generic behaviour. */
export type BuiltStrategy = Required<Omit<Strategy, 'markForDeletion'>> & Strategy;

export function buildStrategy(facts: StrategyFacts, kind: KindBehaviour = {}): BuiltStrategy {
  const metaRules: ObjectMetaRules = {
    namespaced: facts.namespaced,
    validateName: NAME_VALIDATORS[facts.nameRule],
    anyQualifiedFinalizer: facts.apiextensions,
  };
  const metaRulesOf = (object: KubeObject, context: WriteContext): ObjectMetaRules =>
    kind.nameRuleOf === undefined ? metaRules : { ...metaRules, validateName: kind.nameRuleOf(object, context) };
  /** What the reference's registry checks of the metadata of every update, before the kind's own rules. */
  const commonUpdateErrors = (object: KubeObject, old: KubeObject): FieldError[] => [
    ...validateObjectMeta(object.metadata, {
      ...metaRules,
      validateName: nameIsPathSegment,
      // The generic registry's check is apimachinery's: the standard names are the kinds' own rule.
      anyQualifiedFinalizer: true,
    }),
    ...validateObjectMetaUpdate(object.metadata, old.metadata),
  ];
  type RulesOf = (object: KubeObject, old: KubeObject, context: WriteContext) => FieldError[];
  /** The errors of the passes, the kind's update rules (`updateRules`) last unless placed. */
  const passErrors = (
    object: KubeObject,
    old: KubeObject,
    context: WriteContext,
    passes: readonly UpdatePass[],
    updateRules: RulesOf,
  ): FieldError[] =>
    (passes.includes('updateRules') || passes.includes('createRules')
      ? passes
      : [...passes, 'updateRules' as const]
    ).flatMap((pass) => {
      switch (pass) {
        case 'update':
          return [
            ...validateObjectMetaUpdate(object.metadata, old.metadata),
            ...(metaRules.anyQualifiedFinalizer ? [] : kubeFinalizerListErrors(object.metadata.finalizers)),
          ];
        case 'create':
          return validateObjectMeta(object.metadata, metaRulesOf(object, context));
        case 'createRules':
          return kind.validateOnUpdate?.(object, old, context) ?? kind.validate?.(object, context) ?? [];
        case 'updateRules':
          return updateRules(object, old, context);
      }
    });
  const updatePasses = kind.updatePasses ?? ['update'];
  const statusPasses = kind.statusUpdatePasses ?? ['update'];
  const kindUpdateErrors: RulesOf = (object, old, context) =>
    kind.validateUpdate ? kind.validateUpdate(object, old, context) : (kind.validate?.(object, context) ?? []);
  return {
    applyDefaults(object, version, featureEnabled = DEFAULT_GATES) {
      kind.defaults?.(object, version, featureEnabled);
    },
    prepareForCreate(object, context) {
      if (facts.hasStatus && kind.initialStatus) object.status = kind.initialStatus(object, context.featureEnabled);
      // A kind that does not track it keeps what the client sent, as the reference's (whose
      // create never clears it).
      if (kind.tracksGeneration === true) object.metadata.generation = 1;
      kind.prepareForCreate?.(object, context);
      kind.dropDisabledFields?.(object, undefined, context.featureEnabled);
    },
    prepareForUpdate(object, old, context) {
      if (facts.hasStatus) {
        if (old.status === undefined) delete object.status;
        else object.status = copyJson(old.status);
      }
      if (!kind.generationCountsDroppedFields) kind.dropDisabledFields?.(object, old, context.featureEnabled);
      const raised =
        Boolean(kind.tracksGeneration) &&
        (!deepEqual(specPart(object), specPart(old)) ||
          (kind.generationAlsoFollows !== undefined &&
            !deepEqual(kind.generationAlsoFollows(object), kind.generationAlsoFollows(old))));
      // No client changes it: an update keeps the stored one (the reference's BeforeUpdate), absent
      // where the stored object has none (an `on-update` kind's may not), and the kind raises it.
      if (raised) object.metadata.generation = (old.metadata.generation ?? 0) + 1;
      else if (old.metadata.generation !== undefined) object.metadata.generation = old.metadata.generation;
      else delete object.metadata.generation;
      kind.prepareForUpdate?.(object, old, context);
      if (kind.generationCountsDroppedFields) kind.dropDisabledFields?.(object, old, context.featureEnabled);
    },
    prepareForStatusUpdate(object, old, context) {
      const status = object.status;
      for (const key of Object.keys(object)) {
        if (key !== 'metadata' && key !== 'status' && key !== 'apiVersion' && key !== 'kind') delete object[key];
      }
      for (const [key, value] of Object.entries(specPart(old))) object[key] = copyJson(value);
      if (status === undefined) delete object.status;
      for (const key of [...STATUS_PROTECTED_METADATA, ...(kind.statusKeepsMetadata ?? [])]) {
        if (old.metadata[key] === undefined) delete object.metadata[key];
        else object.metadata[key] = copyJson(old.metadata[key]);
      }
      kind.dropDisabledFields?.(object, old, context.featureEnabled);
      kind.prepareForStatusUpdate?.(object, old, context);
    },
    validate(object, context) {
      return [
        ...validateObjectMeta(object.metadata, metaRulesOf(object, context)),
        ...(kind.validate?.(object, context) ?? []),
      ];
    },
    validateUpdate(object, old, context) {
      return [...commonUpdateErrors(object, old), ...passErrors(object, old, context, updatePasses, kindUpdateErrors)];
    },
    validateStatusUpdate(object, old, context) {
      const statusRules = kind.validateStatusUpdate ?? kindUpdateErrors;
      return [...commonUpdateErrors(object, old), ...passErrors(object, old, context, statusPasses, statusRules)];
    },
    validateFinalizeUpdate(object, old, context) {
      const finalizeRules: RulesOf = (object, old, context) =>
        kind.validateFinalizeUpdate?.(object, old) ?? kindUpdateErrors(object, old, context);
      return [...commonUpdateErrors(object, old), ...passErrors(object, old, context, ['update'], finalizeRules)];
    },
    warnings(object, old, context) {
      return kind.warnings?.(object, old, context) ?? [];
    },
    statusWarnings(object, old) {
      return kind.statusWarnings?.(object, old) ?? [];
    },
    ...(kind.markForDeletion ? { markForDeletion: kind.markForDeletion } : {}),
  };
}
