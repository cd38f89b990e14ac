/**
 * apps/v1 workload rules: selectors that must exist, be non-empty, match the template's labels
 * and never change; the template's restart policy; strategy enums and counts.
 */
import { goJSONEscaped } from '../../api/go-quote';
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import {
  FieldPath,
  forbidden,
  GoValue,
  jsonLabelSelector,
  jsonStringMap,
  immutable,
  invalid,
  notSupported,
  required,
} from '../status/field-errors';
import {
  hasInvalidLabelValue,
  labelSelectorParses,
  selectorMatches,
  validateAnnotations,
  validateLabels,
  validateLabelSelector,
  validateNonnegative,
  type LabelSelectorOptions,
  type LabelSelectorShape,
} from './object-meta';
import { validatePersistentVolumeClaimSpec, type ClaimSpec } from './claim-spec';
import {
  podValidationOptions,
  validatePodAnnotations,
  validatePodTemplateSpec,
  type PodTemplateShape,
  type PodValidationOptions,
} from './pod';
import type { WriteContext } from '../registry/types';
import { isDNS1123Label } from './names';
import { immutableAs, LABEL_SELECTOR_POINTER, semanticEqual } from './semantic-equality';

interface WorkloadSpec {
  replicas?: number;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  selector?: LabelSelectorShape;
  template?: PodTemplateShape;
  strategy?: { type?: string; rollingUpdate?: { maxUnavailable?: IntOrPercent; maxSurge?: IntOrPercent } | null };
  updateStrategy?: {
    type?: string;
    rollingUpdate?: { partition?: number; maxUnavailable?: IntOrPercent; maxSurge?: IntOrPercent } | null;
  };
  podManagementPolicy?: string;
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
  ordinals?: { start?: number };
  serviceName?: string;
  volumeClaimTemplates?: { metadata?: { name?: string }; spec?: ClaimSpec }[];
  [field: string]: unknown;
}

/** An int-or-string count: an integer, or a percent string (`25%`). */
type IntOrPercent = number | string;

const SPEC = FieldPath.root('spec');

function specOf(object: KubeObject): WorkloadSpec {
  return (object.spec as WorkloadSpec | undefined) ?? {};
}

/**
 * What the reference does with a workload's selector and template: its wording (its own
 * template check names a kind; Deployments share ReplicaSet's), whether a selector is required,
 * and what follows when LabelSelectorAsSelector refuses the selector.
 */
interface WorkloadWording {
  readonly emptySelector: string;
  readonly templateKind: 'ReplicaSet' | 'DaemonSet' | 'StatefulSet';
  readonly selectorRequired: boolean;
  readonly unparsedSelector: UnparsedSelector;
  /**
   * The template's labels and annotations checked once more after the pod template's own checks,
   * at the same paths (the reference's StatefulSet template rule repeats them), so each bad one
   * is reported twice, and still once when the pod template's checks are skipped.
   */
  readonly rechecksTemplateMetadata?: true;
}

/** How far a workload's template is checked, beyond its wording. */
interface TemplateChecks {
  readonly selectorOptions?: LabelSelectorOptions;
  /** The pod template's own checks left out: a StatefulSet update over a stored one that breaks a rule. */
  readonly podTemplateSkipped?: boolean;
}

/**
 * A selector LabelSelectorAsSelector refuses: the detail of the `spec.selector` cause it adds
 * (none when absent), and which of the template's checks it then skips: all of them, the
 * label match and the pod template's own checks, or only the label match.
 */
interface UnparsedSelector {
  readonly detail?: string;
  readonly skips: 'template' | 'podTemplate' | 'labelMatch';
}

const hasRequirements = (selector: LabelSelectorShape): boolean =>
  Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length > 0;

/** Selector and template as ReplicaSet, Deployment, DaemonSet and StatefulSet check them, restartPolicy Always. */
function validateSelectorAndTemplate(
  spec: WorkloadSpec,
  wording: WorkloadWording,
  options: PodValidationOptions,
  checks: TemplateChecks = {},
): FieldError[] {
  const { selectorOptions = { allowInvalidLabelValues: false }, podTemplateSkipped = false } = checks;
  const errors: FieldError[] = [];
  const selector = spec.selector;
  if (selector === undefined) {
    if (wording.selectorRequired) errors.push(required(SPEC.child('selector')));
  } else {
    errors.push(...validateLabelSelector(selector, SPEC.child('selector'), selectorOptions));
    if (!hasRequirements(selector)) {
      errors.push(invalid(SPEC.child('selector'), jsonLabelSelector(selector), wording.emptySelector));
    }
  }
  const skips = labelSelectorParses(selector) ? undefined : wording.unparsedSelector.skips;
  const unparsedDetail = wording.unparsedSelector.detail;
  if (skips !== undefined && unparsedDetail !== undefined) {
    errors.push(invalid(SPEC.child('selector'), jsonLabelSelector(selector), unparsedDetail));
  }
  if (skips === 'template') return errors;
  // The versioned template is a struct, never absent: one left out (or null) is an empty one.
  const template = spec.template ?? {};
  // No selector selects nothing, so no template matches it; an empty one selects everything.
  const matches =
    selector !== undefined && (!hasRequirements(selector) || selectorMatches(selector, template.metadata?.labels));
  if (skips === undefined && !matches) {
    errors.push(
      invalid(
        SPEC.child('template', 'metadata', 'labels'),
        jsonStringMap(template.metadata?.labels),
        '`selector` does not match template `labels`',
      ),
    );
  }
  if (skips !== 'podTemplate') {
    if (!podTemplateSkipped) errors.push(...validatePodTemplateSpec(template, SPEC.child('template'), options));
    if (wording.rechecksTemplateMetadata) errors.push(...templateMetadataErrors(template, options));
  }
  const restartPolicy = template.spec?.restartPolicy;
  if (restartPolicy !== undefined && restartPolicy !== 'Always') {
    errors.push(notSupported(SPEC.child('template', 'spec', 'restartPolicy'), restartPolicy, ['Always']));
  }
  if (template.spec?.activeDeadlineSeconds !== undefined) {
    errors.push(
      forbidden(
        SPEC.child('template', 'spec', 'activeDeadlineSeconds'),
        `activeDeadlineSeconds in ${wording.templateKind} is not Supported`,
      ),
    );
  }
  return errors;
}

function templateMetadataErrors(template: PodTemplateShape, options: PodValidationOptions): FieldError[] {
  const path = SPEC.child('template');
  const { labels, annotations } = template.metadata ?? {};
  return [
    ...validateLabels(labels, path.child('labels')),
    ...validateAnnotations(annotations, path.child('annotations')),
    ...validatePodAnnotations(annotations, template.spec, path.child('annotations'), options),
  ];
}

// A ReplicaSet's empty selector is "invalid for deployment" in the reference too.
const REPLICA_SET_WORDING: WorkloadWording = {
  emptySelector: 'empty selector is invalid for deployment',
  templateKind: 'ReplicaSet',
  selectorRequired: true,
  unparsedSelector: { detail: 'invalid label selector', skips: 'template' },
};
// A DaemonSet without a selector is refused only for its template, which nothing matches.
const DAEMON_SET_WORDING: WorkloadWording = {
  emptySelector: 'empty selector is invalid for daemonset',
  templateKind: 'DaemonSet',
  selectorRequired: false,
  unparsedSelector: { skips: 'labelMatch' },
};
// The StatefulSet cause has no detail, and restartPolicy and activeDeadlineSeconds stay checked.
const STATEFUL_SET_WORDING: WorkloadWording = {
  emptySelector: 'empty selector is invalid for statefulset',
  templateKind: 'StatefulSet',
  selectorRequired: true,
  unparsedSelector: { detail: '', skips: 'podTemplate' },
  rechecksTemplateMetadata: true,
};

/** The selector shows as JSON, as a 1.34 server prints a struct it is given. */
function selectorImmutable(object: KubeObject, old: KubeObject): FieldError[] {
  return immutableAs(LABEL_SELECTOR_POINTER, SPEC.child('selector'), specOf(object).selector, specOf(old).selector);
}

/** The pod options of a workload written over `old` (absent on create). */
function templateOptions(context: WriteContext, old: KubeObject | undefined): PodValidationOptions {
  return podValidationOptions(context.featureEnabled, old === undefined ? undefined : specOf(old).template);
}

/** In the reference's order (ValidateDeploymentSpec): replicas, selector and template, strategy, the counts. */
export function validateDeployment(deployment: KubeObject, context: WriteContext, old?: KubeObject): FieldError[] {
  const spec = specOf(deployment);
  const errors = [
    ...validateNonnegative(spec.replicas, SPEC.child('replicas')),
    ...validateSelectorAndTemplate(spec, REPLICA_SET_WORDING, templateOptions(context, old)),
    ...deploymentStrategyErrors(spec.strategy ?? {}, SPEC.child('strategy')),
    ...validateNonnegative(spec.minReadySeconds, SPEC.child('minReadySeconds')),
    ...validateNonnegative(spec.revisionHistoryLimit, SPEC.child('revisionHistoryLimit')),
  ];
  if (spec.progressDeadlineSeconds !== undefined) {
    errors.push(...validateNonnegative(spec.progressDeadlineSeconds, SPEC.child('progressDeadlineSeconds')));
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
      errors.push(
        invalid(
          SPEC.child('progressDeadlineSeconds'),
          spec.progressDeadlineSeconds,
          'must be greater than minReadySeconds',
        ),
      );
    }
  }
  return errors;
}

/**
 * A Deployment's strategy as the reference checks it after defaulting (RollingUpdate with 25%
 * and 25% when none is given): an unknown type is shown as the internal struct it parsed into.
 */
function deploymentStrategyErrors(strategy: NonNullable<WorkloadSpec['strategy']>, path: FieldPath): FieldError[] {
  const { type, rollingUpdate } = strategy;
  if (type === 'Recreate')
    return rollingUpdate == null
      ? []
      : [forbidden(path.child('rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")];
  if (type === 'RollingUpdate') {
    if (rollingUpdate == null)
      return [required(path.child('rollingUpdate'), 'this should be defaulted and never be nil')];
    const { at, maxUnavailable, maxSurge, countErrors } = rollingCounts(rollingUpdate, path);
    const errors = [...countErrors];
    if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0)
      errors.push(invalid(at.child('maxUnavailable'), maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
    return [...errors, ...notMoreThan100Percent(maxUnavailable, at.child('maxUnavailable'))];
  }
  return [unknownStrategy(strategy, path, ['Recreate', 'RollingUpdate'])];
}

/** A rolling update's two counts, defaulted to 0 as the internal type holds them, each an integer or a percent. */
function rollingCounts(
  rollingUpdate: { readonly maxUnavailable?: IntOrPercent; readonly maxSurge?: IntOrPercent },
  strategyPath: FieldPath,
): { at: FieldPath; maxUnavailable: IntOrPercent; maxSurge: IntOrPercent; countErrors: FieldError[] } {
  const at = strategyPath.child('rollingUpdate');
  const maxUnavailable = rollingUpdate.maxUnavailable ?? 0;
  const maxSurge = rollingUpdate.maxSurge ?? 0;
  const countErrors = [
    ...validatePositiveIntOrPercent(maxUnavailable, at.child('maxUnavailable')),
    ...validatePositiveIntOrPercent(maxSurge, at.child('maxSurge')),
  ];
  return { at, maxUnavailable, maxSurge, countErrors };
}

/**
 * A Deployment's or DaemonSet's strategy of a type the reference does not know: refused on the
 * strategy itself, shown as the internal struct it parsed into (counts are plain, 0 when unset).
 */
function unknownStrategy(
  strategy: {
    readonly type?: string;
    readonly rollingUpdate?: { maxUnavailable?: IntOrPercent; maxSurge?: IntOrPercent } | null;
  },
  path: FieldPath,
  supported: readonly string[],
): FieldError {
  const { type, rollingUpdate } = strategy;
  const shown =
    rollingUpdate == null
      ? null
      : { MaxUnavailable: rollingUpdate.maxUnavailable ?? 0, MaxSurge: rollingUpdate.maxSurge ?? 0 };
  return notSupported(
    path,
    new GoValue(goJSONEscaped(JSON.stringify({ Type: type ?? '', RollingUpdate: shown }))),
    supported,
  );
}

const PERCENT = /^[0-9]+%$/;

/** A non-negative integer or a percent string (the reference's ValidatePositiveIntOrPercent). */
export function validatePositiveIntOrPercent(value: IntOrPercent, path: FieldPath): FieldError[] {
  if (typeof value === 'number') return validateNonnegative(value, path);
  if (PERCENT.test(value)) return [];
  return [
    invalid(
      path,
      value,
      "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    ),
  ];
}

/** The number a count stands for: a percent's number, or the integer (a string that is neither counts as 0, as Go's IntValue takes it). */
function intOrPercentValue(value: IntOrPercent): number {
  if (typeof value === 'number') return value;
  if (PERCENT.test(value)) return Number(value.slice(0, -1));
  return /^[+-]?[0-9]+$/.test(value) ? Number(value) : 0;
}

/** A percent of at most 100 (the reference's IsNotMoreThan100Percent); an integer passes. */
export function notMoreThan100Percent(value: IntOrPercent, path: FieldPath): FieldError[] {
  return typeof value === 'string' && PERCENT.test(value) && Number(value.slice(0, -1)) > 100
    ? [invalid(path, value, 'must not be greater than 100%')]
    : [];
}

export function validateDeploymentUpdate(deployment: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  return [...validateDeployment(deployment, context, old), ...selectorImmutable(deployment, old)];
}

export function validateReplicaSet(replicaSet: KubeObject, context: WriteContext, old?: KubeObject): FieldError[] {
  const spec = specOf(replicaSet);
  return [
    ...validateNonnegative(spec.replicas, SPEC.child('replicas')),
    ...validateNonnegative(spec.minReadySeconds, SPEC.child('minReadySeconds')),
    ...validateSelectorAndTemplate(spec, REPLICA_SET_WORDING, templateOptions(context, old)),
  ];
}

export function validateReplicaSetUpdate(replicaSet: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  return [...validateReplicaSet(replicaSet, context, old), ...selectorImmutable(replicaSet, old)];
}

export function validateDaemonSet(daemonSet: KubeObject, context: WriteContext, old?: KubeObject): FieldError[] {
  const spec = specOf(daemonSet);
  return [
    // Values are checked unless the stored selector has invalid ones (the reference's DaemonSet strategy).
    ...validateSelectorAndTemplate(spec, DAEMON_SET_WORDING, templateOptions(context, old), {
      selectorOptions: { allowInvalidLabelValues: old !== undefined && hasInvalidLabelValue(specOf(old).selector) },
    }),
    ...validateNonnegative(spec.minReadySeconds, SPEC.child('minReadySeconds')),
    ...daemonSetUpdateStrategyErrors(spec.updateStrategy ?? {}, SPEC.child('updateStrategy')),
    ...validateNonnegative(spec.revisionHistoryLimit, SPEC.child('revisionHistoryLimit')),
  ];
}

/**
 * A DaemonSet's update strategy as the reference checks it after defaulting (RollingUpdate, one
 * node unavailable at a time): exactly one of the counts is non-zero, neither over 100%; an
 * unknown type is shown as the internal struct.
 */
function daemonSetUpdateStrategyErrors(
  strategy: NonNullable<WorkloadSpec['updateStrategy']>,
  path: FieldPath,
): FieldError[] {
  const { type, rollingUpdate } = strategy;
  if (type === 'OnDelete') return [];
  if (type === 'RollingUpdate') {
    if (rollingUpdate == null) return [required(path.child('rollingUpdate'))];
    const { at, maxUnavailable, maxSurge, countErrors } = rollingCounts(rollingUpdate, path);
    const errors = [
      ...countErrors,
      ...notMoreThan100Percent(maxUnavailable, at.child('maxUnavailable')),
      ...notMoreThan100Percent(maxSurge, at.child('maxSurge')),
    ];
    const hasUnavailable = intOrPercentValue(maxUnavailable) !== 0;
    const hasSurge = intOrPercentValue(maxSurge) !== 0;
    if (hasUnavailable && hasSurge)
      errors.push(invalid(at.child('maxSurge'), maxSurge, 'may not be set when maxUnavailable is non-zero'));
    if (!hasUnavailable && !hasSurge)
      errors.push(required(at.child('maxUnavailable'), 'cannot be 0 when maxSurge is 0'));
    return errors;
  }
  return [unknownStrategy(strategy, path, ['RollingUpdate', 'OnDelete'])];
}

export function validateDaemonSetUpdate(daemonSet: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  // The reference checks what the update changes before the spec itself.
  return [...selectorImmutable(daemonSet, old), ...validateDaemonSet(daemonSet, context, old)];
}

/**
 * In the reference's order (ValidateStatefulSetSpec): policies, claim templates, counts, the
 * service name, then selector and template. An update (`old`) spares the service name and the
 * claim templates, which cannot change and may hold what an older server accepted.
 */
export function validateStatefulSet(statefulSet: KubeObject, context: WriteContext, old?: KubeObject): FieldError[] {
  return statefulSetSpecErrors(specOf(statefulSet), context, old);
}

function statefulSetSpecErrors(
  spec: WorkloadSpec,
  context: WriteContext,
  old: KubeObject | undefined,
  checks: TemplateChecks = {},
): FieldError[] {
  const errors = [
    ...podManagementPolicyErrors(spec.podManagementPolicy),
    ...statefulSetUpdateStrategyErrors(spec.updateStrategy ?? {}, SPEC.child('updateStrategy')),
    ...retentionPolicyErrors(spec.persistentVolumeClaimRetentionPolicy),
  ];
  if (old === undefined)
    errors.push(
      ...(spec.volumeClaimTemplates ?? []).flatMap((template, i) =>
        validatePersistentVolumeClaimSpec(template.spec, SPEC.child('volumeClaimTemplates').index(i).child('spec')),
      ),
    );
  errors.push(
    ...validateNonnegative(spec.replicas, SPEC.child('replicas')),
    ...validateNonnegative(spec.minReadySeconds, SPEC.child('minReadySeconds')),
  );
  // One path segment in the reference: `spec.ordinals.start`.
  if (spec.ordinals != null)
    errors.push(...validateNonnegative(spec.ordinals.start ?? 0, SPEC.child('ordinals.start')));
  if (old === undefined && spec.serviceName)
    for (const message of isDNS1123Label(spec.serviceName))
      errors.push(invalid(SPEC.child('serviceName'), spec.serviceName, message));
  errors.push(
    ...validateSelectorAndTemplate(
      { ...spec, template: templateAsPodsGetIt(spec) },
      STATEFUL_SET_WORDING,
      templateOptions(context, old),
      checks,
    ),
  );
  return errors;
}

function podManagementPolicyErrors(policy: string | undefined): FieldError[] {
  const path = SPEC.child('podManagementPolicy');
  if (!policy) return [required(path)];
  return policy === 'OrderedReady' || policy === 'Parallel'
    ? []
    : [invalid(path, policy, "must be 'OrderedReady' or 'Parallel'")];
}

/** A type the reference does not know, or a rollingUpdate beside OnDelete, is shown as the internal struct. */
function statefulSetUpdateStrategyErrors(
  strategy: NonNullable<WorkloadSpec['updateStrategy']>,
  path: FieldPath,
): FieldError[] {
  const { type, rollingUpdate } = strategy;
  const shownRollingUpdate =
    rollingUpdate == null
      ? null
      : { Partition: rollingUpdate.partition ?? 0, MaxUnavailable: rollingUpdate.maxUnavailable ?? null };
  if (!type) return [required(path)];
  if (type === 'OnDelete')
    return rollingUpdate == null
      ? []
      : [
          invalid(
            path.child('rollingUpdate'),
            new GoValue(goJSONEscaped(JSON.stringify(shownRollingUpdate))),
            "only allowed for updateStrategy 'RollingUpdate'",
          ),
        ];
  if (type === 'RollingUpdate') {
    if (rollingUpdate == null) return [];
    const at = path.child('rollingUpdate');
    const errors = validateNonnegative(rollingUpdate.partition ?? 0, at.child('partition'));
    const maxUnavailable = rollingUpdate.maxUnavailable;
    if (maxUnavailable == null) return errors;
    errors.push(...validatePositiveIntOrPercent(maxUnavailable, at.child('maxUnavailable')));
    if (intOrPercentValue(maxUnavailable) === 0)
      errors.push(invalid(at.child('maxUnavailable'), maxUnavailable, 'cannot be 0'));
    return [...errors, ...notMoreThan100Percent(maxUnavailable, at.child('maxUnavailable'))];
  }
  return [
    invalid(
      path,
      new GoValue(goJSONEscaped(JSON.stringify({ Type: type, RollingUpdate: shownRollingUpdate }))),
      "must be 'RollingUpdate' or 'OnDelete'",
    ),
  ];
}

function retentionPolicyErrors(policy: WorkloadSpec['persistentVolumeClaimRetentionPolicy']): FieldError[] {
  if (policy == null) return [];
  const path = SPEC.child('persistentVolumeClaimRetentionPolicy');
  return (['whenDeleted', 'whenScaled'] as const).flatMap((name) =>
    policy[name] === 'Retain' || policy[name] === 'Delete'
      ? []
      : [notSupported(path.child(name), policy[name] ?? '', ['Retain', 'Delete'])],
  );
}

/**
 * The template as the controller makes pods of it, which is what the reference validates: a
 * volume per claim template (named as the claim) ahead of the template's other volumes, and no
 * hostname or subdomain, which the controller sets.
 */
function templateAsPodsGetIt(spec: WorkloadSpec): PodTemplateShape | undefined {
  const { template } = spec;
  const claims = (spec.volumeClaimTemplates ?? []).map((claim) => claim.metadata?.name ?? '');
  if (template?.spec === undefined) return template;
  const podSpec = template.spec as NonNullable<PodTemplateShape['spec']> & { hostname?: unknown; subdomain?: unknown };
  if (claims.length === 0 && !podSpec.hostname && !podSpec.subdomain) return template;
  const { hostname: _hostname, subdomain: _subdomain, ...rest } = podSpec;
  const claimVolumes = [...new Set(claims)].map((name) => ({ name, persistentVolumeClaim: { claimName: name } }));
  const ownVolumes = (rest.volumes ?? []).filter((volume) => !claims.includes(volume.name ?? ''));
  const volumes = [...claimVolumes, ...ownVolumes];
  return { ...template, spec: { ...rest, ...(volumes.length > 0 ? { volumes } : {}) } };
}

/** Fields of a StatefulSet spec an update may change. */
const STATEFULSET_MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];

/** What an update may not change: the spec but for the fields it may. */
function fixedPart(spec: WorkloadSpec): Record<string, unknown> {
  return Object.fromEntries(Object.entries(spec).filter(([k]) => !STATEFULSET_MUTABLE.includes(k)));
}

/**
 * The new spec as on create, but for the service name and the claim templates; a stored spec
 * that breaks a rule itself (written by an older server) spares the pod template's own checks,
 * so that such a StatefulSet stays writable. Then what may not change.
 */
export function validateStatefulSetUpdate(
  statefulSet: KubeObject,
  old: KubeObject,
  context: WriteContext,
): FieldError[] {
  const podTemplateSkipped = statefulSetSpecErrors(specOf(old), context, old).length > 0;
  const errors = statefulSetSpecErrors(specOf(statefulSet), context, old, { podTemplateSkipped });
  if (!semanticEqual('apps.StatefulSetSpec', fixedPart(specOf(statefulSet)), fixedPart(specOf(old)))) {
    errors.push(
      forbidden(
        SPEC,
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return errors;
}

function validateRevisionNumber(revision: KubeObject): FieldError[] {
  return validateNonnegative(revision.revision as number | undefined, FieldPath.root('revision'));
}

/** A new revision holds its data, a JSON object (the member takes any JSON value when decoded). */
export function validateControllerRevision(revision: KubeObject): FieldError[] {
  const errors = validateRevisionNumber(revision);
  const data = revision.data;
  if (data === undefined || data === null) errors.push(required(FieldPath.root('data'), 'data is mandatory'));
  else if (typeof data !== 'object' || Array.isArray(data))
    errors.push(required(FieldPath.root('data'), 'data must be a valid JSON object'));
  return errors;
}

export function validateControllerRevisionUpdate(revision: KubeObject, old: KubeObject): FieldError[] {
  return [...validateRevisionNumber(revision), ...immutable(FieldPath.root('data'), revision.data, old.data)];
}
