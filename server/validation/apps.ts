/**
 * apps/v1 workload rules: selectors that must exist, be non-empty, match the template's labels
 * and never change; the template's restart policy; strategy enums and counts.
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import {
  FieldPath,
  forbidden,
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
  validateEnum,
  validateLabelSelector,
  validateNonnegative,
  type LabelSelectorOptions,
  type LabelSelectorShape,
} from './object-meta';
import { validatePersistentVolumeClaimSpec, type ClaimSpec } from './core';
import { podValidationOptions, validatePodTemplateSpec, type PodTemplateShape, type PodValidationOptions } from './pod';
import type { WriteContext } from '../registry/types';

interface WorkloadSpec {
  replicas?: number;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  selector?: LabelSelectorShape;
  template?: PodTemplateShape;
  strategy?: { type?: string; rollingUpdate?: unknown };
  updateStrategy?: { type?: string };
  podManagementPolicy?: string;
  volumeClaimTemplates?: { spec?: ClaimSpec }[];
  [field: string]: unknown;
}

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
  selectorOptions: LabelSelectorOptions = { allowInvalidLabelValues: false },
): FieldError[] {
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
  const template = spec.template;
  if (template === undefined) return [...errors, required(SPEC.child('template'))];
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
  if (skips !== 'podTemplate') errors.push(...validatePodTemplateSpec(template, SPEC.child('template'), options));
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
};

/** The selector shows as JSON, as a 1.34 server prints a struct it is given. */
function selectorImmutable(object: KubeObject, old: KubeObject): FieldError[] {
  return immutable(SPEC.child('selector'), specOf(object).selector, specOf(old).selector);
}

/** The pod options of a workload written over `old` (absent on create). */
function templateOptions(context: WriteContext, old: KubeObject | undefined): PodValidationOptions {
  return podValidationOptions(context.featureEnabled, old === undefined ? undefined : specOf(old).template);
}

export function validateDeployment(deployment: KubeObject, context: WriteContext, old?: KubeObject): FieldError[] {
  const spec = specOf(deployment);
  const errors = [
    ...validateNonnegative(spec.replicas, SPEC.child('replicas')),
    ...validateSelectorAndTemplate(spec, REPLICA_SET_WORDING, templateOptions(context, old)),
    ...validateNonnegative(spec.minReadySeconds, SPEC.child('minReadySeconds')),
    ...validateNonnegative(spec.revisionHistoryLimit, SPEC.child('revisionHistoryLimit')),
    ...validateEnum(spec.strategy?.type, ['Recreate', 'RollingUpdate'], SPEC.child('strategy', 'type'), true),
  ];
  if (spec.strategy?.type === 'Recreate' && spec.strategy.rollingUpdate !== undefined) {
    errors.push(
      forbidden(SPEC.child('strategy', 'rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'"),
    );
  }
  const rollingUpdate = spec.strategy?.rollingUpdate;
  if (typeof rollingUpdate === 'object' && rollingUpdate !== null) {
    const { maxSurge, maxUnavailable } = rollingUpdate as { maxSurge?: unknown; maxUnavailable?: unknown };
    errors.push(
      ...validateIntOrPercent(maxUnavailable, SPEC.child('strategy', 'rollingUpdate', 'maxUnavailable')),
      ...validateIntOrPercent(maxSurge, SPEC.child('strategy', 'rollingUpdate', 'maxSurge')),
    );
  }
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

/** An int-or-string count: a non-negative integer or a percent string (`25%`). */
function validateIntOrPercent(value: unknown, path: FieldPath): FieldError[] {
  if (typeof value === 'string') {
    if (/^[0-9]+%$/.test(value)) return [];
    return [
      invalid(
        path,
        value,
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ),
    ];
  }
  return typeof value === 'number' ? validateNonnegative(value, path) : [];
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
      allowInvalidLabelValues: old !== undefined && hasInvalidLabelValue(specOf(old).selector),
    }),
    ...validateNonnegative(spec.minReadySeconds, SPEC.child('minReadySeconds')),
    ...validateNonnegative(spec.revisionHistoryLimit, SPEC.child('revisionHistoryLimit')),
    ...validateEnum(
      spec.updateStrategy?.type,
      ['OnDelete', 'RollingUpdate'],
      SPEC.child('updateStrategy', 'type'),
      true,
    ),
  ];
}

export function validateDaemonSetUpdate(daemonSet: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  // The reference checks what the update changes before the spec itself.
  return [...selectorImmutable(daemonSet, old), ...validateDaemonSet(daemonSet, context, old)];
}

export function validateStatefulSet(statefulSet: KubeObject, context: WriteContext, old?: KubeObject): FieldError[] {
  const spec = specOf(statefulSet);
  return [
    ...validateEnum(spec.podManagementPolicy, ['OrderedReady', 'Parallel'], SPEC.child('podManagementPolicy'), true),
    ...validateEnum(spec.updateStrategy?.type, ['OnDelete', 'RollingUpdate'], SPEC.child('updateStrategy'), true),
    ...validateNonnegative(spec.replicas, SPEC.child('replicas')),
    ...validateNonnegative(spec.minReadySeconds, SPEC.child('minReadySeconds')),
    ...validateSelectorAndTemplate(spec, STATEFUL_SET_WORDING, templateOptions(context, old)),
    ...(spec.volumeClaimTemplates ?? []).flatMap((template, i) =>
      validatePersistentVolumeClaimSpec(template.spec, SPEC.child('volumeClaimTemplates').index(i).child('spec')),
    ),
  ];
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

export function validateStatefulSetUpdate(
  statefulSet: KubeObject,
  old: KubeObject,
  context: WriteContext,
): FieldError[] {
  const rest = (spec: WorkloadSpec) =>
    Object.fromEntries(Object.entries(spec).filter(([k]) => !STATEFULSET_MUTABLE.includes(k)));
  const errors = validateStatefulSet(statefulSet, context, old);
  if (immutable(SPEC, rest(specOf(statefulSet)), rest(specOf(old))).length > 0) {
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
