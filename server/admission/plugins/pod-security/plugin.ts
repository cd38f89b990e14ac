/**
 * The PodSecurity plugin (validating): pods are held to the Pod Security Standard their
 * namespace's labels enforce, and measured against the audit and warn levels, which add audit
 * annotations (`pod-security.kubernetes.io/*`) and `Warning`s; the pod templates of workload
 * kinds are measured against audit and warn only. Namespace labels that do not parse are
 * refused; a namespace update that tightens enforcement warns about existing pods that would
 * violate it. Exempt users, namespaces and runtime classes and the default policy come from the
 * plugin's configuration.
 */
import { refusedName } from '../../refused-name';
import type { KubeObject } from '../../../../api/objects';
import { EVERYTHING } from '../../../../storage/objects/types';
import { aggregateFieldErrors, type FieldError } from '../../../status/field-error';
import { forbidden, invalid } from '../../../status/catalogue';
import { findNamespace } from '../../namespace-lifecycle';
import type { StorageOf } from '../../lookup';
import type { AdmissionAttributes, AdmissionPlugin } from '../../types';
import { podSecurityEvaluator, violationText, type CheckOptions, type Violations } from './checks';
import type { PodSecurityConfiguration } from './configuration';
import {
  LABEL_PREFIX,
  compareLevels,
  equivalent,
  fullyPrivileged,
  levelLabel,
  levelVersionString,
  MODES,
  policyOfLabels,
  sameLevelVersion,
  versionLabel,
  versionString,
  type EvaluatedPolicy,
  type LevelVersion,
  type Policy,
} from './levels';
import { record, type Fields, type PodView } from './pod-view';

/** Where each workload kind keeps its pod template. */
const TEMPLATE_PATHS: Readonly<Record<string, readonly string[]>> = {
  '/replicationcontrollers': ['spec', 'template'],
  '/podtemplates': ['template'],
  'apps/replicasets': ['spec', 'template'],
  'apps/deployments': ['spec', 'template'],
  'apps/statefulsets': ['spec', 'template'],
  'apps/daemonsets': ['spec', 'template'],
  'batch/jobs': ['spec', 'template'],
  'batch/cronjobs': ['spec', 'jobTemplate', 'spec', 'template'],
};

/** Pod subresources that cannot change what the standards look at. */
const IGNORED_POD_SUBRESOURCES = new Set([
  'exec',
  'attach',
  'binding',
  'eviction',
  'log',
  'portforward',
  'proxy',
  'status',
]);

/** A namespace update checks at most this many existing pods against a tighter enforce level. */
const MAX_PODS_TO_CHECK = 3000;

const labelsOf = (object: KubeObject | undefined): Record<string, string> =>
  (object?.metadata.labels ?? {}) as Record<string, string>;

function podView(metadata: unknown, spec: unknown): PodView {
  return { annotations: (record(metadata).annotations ?? {}) as Record<string, string>, spec: record(spec) };
}

function templateOf(object: KubeObject, path: readonly string[]): Fields | undefined {
  let value: unknown = object;
  for (const field of path) value = record(value)[field];
  return value === undefined || value === null ? undefined : record(value);
}

/** Whether a pod update changes anything the standards look at: containers and their images, or new ephemeral containers. */
function significantPodUpdate(pod: KubeObject, old: KubeObject): boolean {
  const spec = record(pod.spec);
  const oldSpec = record(old.spec);
  const images = (value: unknown) => (Array.isArray(value) ? value.map((container) => record(container).image) : []);
  for (const field of ['containers', 'initContainers']) {
    const now = images(spec[field]);
    const before = images(oldSpec[field]);
    if (now.length !== before.length || now.some((image, index) => image !== before[index])) return true;
  }
  const oldEphemeral = new Map(
    (Array.isArray(oldSpec.ephemeralContainers) ? oldSpec.ephemeralContainers : []).map((container) => [
      record(container).name,
      record(container).image,
    ]),
  );
  return (Array.isArray(spec.ephemeralContainers) ? spec.ephemeralContainers : []).some((container) => {
    const { name, image } = record(container);
    return !oldEphemeral.has(name) || oldEphemeral.get(name) !== image;
  });
}

export function podSecurityPlugin(options: {
  storageOf: StorageOf;
  configuration: PodSecurityConfiguration;
  checks: CheckOptions;
}): AdmissionPlugin {
  const { storageOf, configuration } = options;
  const evaluator = podSecurityEvaluator(options.checks);
  const { exemptions, defaults } = configuration;
  const exemptNamespace = (name: string) => name !== '' && exemptions.namespaces.includes(name);
  const exemptUser = (name: string) => name !== '' && exemptions.usernames.includes(name);
  const exemptRuntimeClass = (name: unknown) =>
    typeof name === 'string' && name !== '' && exemptions.runtimeClasses.includes(name);
  const annotate = (attributes: AdmissionAttributes, key: string, value: string) =>
    (attributes.auditAnnotations[`${LABEL_PREFIX}${key}`] = value);

  async function namespacePolicy(name: string): Promise<EvaluatedPolicy> {
    return policyOfLabels(labelsOf(await findNamespace(storageOf('', 'namespaces'), name)), defaults);
  }

  /** The reference's warning that an exempt namespace's labels do nothing, when they ask for more than the defaults. */
  function exemptNamespaceWarning(name: string, policy: Policy, labels: Record<string, string>): string | undefined {
    if (fullyPrivileged(policy) || MODES.every((mode) => equivalent(policy[mode], defaults[mode]))) return undefined;
    const ignored = MODES.filter(
      (mode) =>
        policy[mode].level !== 'privileged' &&
        (labels[levelLabel(mode)] !== undefined || labels[versionLabel(mode)] !== undefined),
    );
    return `namespace ${JSON.stringify(name)} is exempt from Pod Security, and the policy (${ignored.map((mode) => `${mode}=${levelVersionString(policy[mode])}`).join(', ')}) will be ignored`;
  }

  /** Warnings about existing pods that a new enforce level would refuse, grouped by what they violate. */
  async function existingPodWarnings(namespace: string, enforce: LevelVersion): Promise<string[]> {
    const pods = (await storageOf('', 'pods').list({ namespace }, { resourceVersion: '0', predicate: EVERYTHING }))
      .items;
    // One pod per controller first, so that a capped check sees as many kinds of pod as it can.
    const first: KubeObject[] = [];
    const repeated: KubeObject[] = [];
    const controllers = new Set<string>();
    for (const pod of pods) {
      if (exemptRuntimeClass(record(pod.spec).runtimeClassName)) continue;
      const controller = (
        pod.metadata.ownerReferences as Array<{ controller?: boolean; uid?: string }> | undefined
      )?.find((owner) => owner.controller === true);
      if (controller === undefined || !controllers.has(String(controller.uid))) first.push(pod);
      else repeated.push(pod);
      if (controller !== undefined) controllers.add(String(controller.uid));
    }
    const prioritized = [...first, ...repeated];
    const checked = prioritized.slice(0, MAX_PODS_TO_CHECK);
    const byViolation = new Map<string, { name: string; count: number }>();
    for (const pod of checked) {
      const { reasons } = evaluator.evaluate(enforce, podView(pod.metadata, pod.spec));
      if (reasons.length === 0) continue;
      const violation = reasons.join(', ');
      const name = String(pod.metadata.name);
      const seen = byViolation.get(violation);
      byViolation.set(violation, {
        name: seen === undefined || name < seen.name ? name : seen.name,
        count: (seen?.count ?? 0) + 1,
      });
    }
    const warnings: string[] = [];
    if (checked.length < prioritized.length)
      warnings.push(
        `new PodSecurity enforce level only checked against the first ${checked.length} of ${prioritized.length} existing pods`,
      );
    if (byViolation.size > 0)
      warnings.push(
        `existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`,
      );
    const podWarnings = [...byViolation].map(([violation, { name, count }]) => {
      if (count === 1) return `${name}: ${violation}`;
      return `${name} (and ${count - 1} other ${count === 2 ? 'pod' : 'pods'}): ${violation}`;
    });
    return [...warnings, ...podWarnings.sort()];
  }

  async function validateNamespace(attributes: AdmissionAttributes): Promise<void> {
    if (attributes.subResource !== '' || attributes.object === undefined) return;
    const name = attributes.name;
    const labels = labelsOf(attributes.object);
    const { policy, errors } = policyOfLabels(labels, defaults);
    const refuse = (fieldErrors: readonly FieldError[]) => invalid({ group: '', kind: 'Namespace' }, name, fieldErrors);
    const warnIfExempt = () => {
      const warning = exemptNamespaceWarning(name, policy, labels);
      if (warning !== undefined) attributes.warnings.add(warning);
    };
    if (attributes.operation === 'CREATE') {
      if (errors.length > 0) throw refuse(errors);
      if (exemptNamespace(name)) warnIfExempt();
      return;
    }
    const old = policyOfLabels(labelsOf(attributes.oldObject), defaults);
    const sameErrors =
      errors.length === old.errors.length &&
      errors.every((error, index) => JSON.stringify(error) === JSON.stringify(old.errors[index]));
    if (errors.length > 0 && (old.errors.length === 0 || !sameErrors)) throw refuse(errors);
    const enforce = policy.enforce;
    if (sameLevelVersion(enforce, old.policy.enforce) || enforce.level === 'privileged') return;
    const sameVersion = versionString(enforce.version) === versionString(old.policy.enforce.version);
    if (sameVersion && compareLevels(enforce.level, old.policy.enforce.level) < 1) return;
    if (exemptNamespace(name)) return warnIfExempt();
    for (const warning of await existingPodWarnings(name, enforce)) attributes.warnings.add(warning);
  }

  /** Measures one pod (or template) against the namespace's policy; `enforce` refuses what violates it. */
  function evaluatePod(
    attributes: AdmissionAttributes,
    evaluated: EvaluatedPolicy,
    pod: PodView,
    enforce: boolean,
  ): void {
    if (exemptRuntimeClass(pod.spec.runtimeClassName)) {
      annotate(attributes, 'exempt', 'runtimeClass');
      return;
    }
    const { policy, errors } = evaluated;
    if (errors.length > 0) annotate(attributes, 'error', `Failed to parse policy: ${aggregateFieldErrors(errors)}`);
    const results = new Map<string, Violations>();
    const resultAt = (levelVersion: LevelVersion) => {
      const key = levelVersionString(levelVersion);
      if (!results.has(key)) results.set(key, evaluator.evaluate(levelVersion, pod));
      return results.get(key)!;
    };
    let refusal: Error | undefined;
    if (enforce) {
      annotate(attributes, 'enforce-policy', levelVersionString(policy.enforce));
      const result = resultAt(policy.enforce);
      if (result.reasons.length > 0) {
        refusal = forbidden(
          attributes.resource,
          refusedName(attributes),
          `violates PodSecurity ${JSON.stringify(levelVersionString(policy.enforce))}: ${violationText(result)}`,
        );
      }
    }
    const audit = resultAt(policy.audit);
    if (audit.reasons.length > 0)
      annotate(
        attributes,
        'audit-violations',
        `would violate PodSecurity ${JSON.stringify(levelVersionString(policy.audit))}: ${violationText(audit)}`,
      );
    if (refusal !== undefined) throw refusal;
    const warn = resultAt(policy.warn);
    if (warn.reasons.length > 0)
      attributes.warnings.add(
        `would violate PodSecurity ${JSON.stringify(levelVersionString(policy.warn))}: ${violationText(warn)}`,
      );
  }

  /** Exempt by namespace or user: recorded, not evaluated. */
  function exempted(attributes: AdmissionAttributes): boolean {
    const reason = exemptNamespace(attributes.namespace)
      ? 'namespace'
      : exemptUser(attributes.userInfo.name)
        ? 'user'
        : undefined;
    if (reason !== undefined) annotate(attributes, 'exempt', reason);
    return reason !== undefined;
  }

  async function validatePod(attributes: AdmissionAttributes): Promise<void> {
    if (IGNORED_POD_SUBRESOURCES.has(attributes.subResource) || attributes.object === undefined || exempted(attributes))
      return;
    const evaluated = await namespacePolicy(attributes.namespace);
    if (evaluated.errors.length === 0 && fullyPrivileged(evaluated.policy)) {
      annotate(attributes, 'enforce-policy', 'privileged:latest');
      return;
    }
    if (
      attributes.operation === 'UPDATE' &&
      attributes.oldObject !== undefined &&
      !significantPodUpdate(attributes.object, attributes.oldObject)
    )
      return;
    evaluatePod(attributes, evaluated, podView(attributes.object.metadata, attributes.object.spec), true);
  }

  async function validateTemplate(attributes: AdmissionAttributes, path: readonly string[]): Promise<void> {
    if (attributes.subResource !== '' || attributes.object === undefined || exempted(attributes)) return;
    const evaluated = await namespacePolicy(attributes.namespace);
    if (
      evaluated.errors.length === 0 &&
      evaluated.policy.warn.level === 'privileged' &&
      evaluated.policy.audit.level === 'privileged'
    )
      return;
    const template = templateOf(attributes.object, path);
    if (template === undefined) return;
    evaluatePod(attributes, evaluated, podView(template.metadata, template.spec), false);
  }

  return {
    name: 'PodSecurity',
    async validate(attributes) {
      if (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') return;
      const { group, resource } = attributes.resource;
      if (group === '' && resource === 'namespaces') return validateNamespace(attributes);
      if (group === '' && resource === 'pods') return validatePod(attributes);
      const templatePath = TEMPLATE_PATHS[`${group}/${resource}`];
      if (templatePath !== undefined) return validateTemplate(attributes, templatePath);
    },
  };
}
