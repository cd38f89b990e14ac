/**
 * The PodTolerationRestriction plugin: a namespace gives its new pods default tolerations and
 * confines every pod's tolerations to a whitelist. Both come from the namespace's annotations
 * (`scheduler.alpha.kubernetes.io/defaultTolerations` and `.../tolerationsWhitelist`, JSON lists
 * of tolerations), else from the plugin's configuration; an annotation present but empty means
 * none, and then nothing from the configuration either. A pod that is not BestEffort also
 * tolerates the memory-pressure NoSchedule taint. The defaults are merged as the reference
 * merges tolerations, dropping each that another covers. A pod beyond the whitelist, or a
 * namespace annotation that is no list of tolerations, is refused with the reference's plain
 * error (a 500 without reason).
 *
 * Configuration, in the file `--admission-control-config-file` names for the plugin:
 *   apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
 *   kind: Configuration
 *   default: [<toleration>, ...]
 *   whitelist: [<toleration>, ...]
 */
import type { KubeObject } from '../../../api/objects';
import { podQOSClass } from '../../registry/defaults/pod';
import type { FeatureEnabled } from '../../registry/types';
import { forbidden, internalError, notFound, unclassified } from '../../status/catalogue';
import { refusedName } from '../refused-name';
import { fieldErrorText } from '../../status/field-error';
import { FieldPath } from '../../status/field-errors';
import { validateTolerations, type Toleration } from '../../validation/pod-scheduling';
import { decodeTolerations } from '../../validation/toleration-json';
import type { ObjectStorage } from '../../../storage/objects/types';
import { AdmissionConfigError } from '../config-error';
import { writes } from '../lookup';
import { findNamespace } from '../namespace-lifecycle';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

export const DEFAULT_TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/defaultTolerations';
export const TOLERATIONS_WHITELIST_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerationsWhitelist';
const API_VERSION = 'podtolerationrestriction.admission.k8s.io/v1alpha1';
const MEMORY_PRESSURE: Toleration = {
  key: 'node.kubernetes.io/memory-pressure',
  operator: 'Exists',
  effect: 'NoSchedule',
};

export interface PodTolerationRestrictionConfiguration {
  readonly default: readonly Toleration[];
  readonly whitelist: readonly Toleration[];
}

const tolerationList = (value: unknown): Toleration[] => (Array.isArray(value) ? (value as Toleration[]) : []);

/** The plugin's part of the AdmissionConfiguration; none gives no defaults and no whitelist. */
export function podTolerationRestrictionConfiguration(raw: unknown): PodTolerationRestrictionConfiguration {
  if (raw === undefined) return { default: [], whitelist: [] };
  const failed = (reason: string) =>
    new AdmissionConfigError(`couldn't init admission plugin "PodTolerationRestriction": ${reason}`);
  const document = (raw ?? {}) as Record<string, unknown>;
  if (document.kind !== 'Configuration' || document.apiVersion !== API_VERSION)
    throw failed(
      `no kind ${JSON.stringify(String(document.kind ?? ''))} is registered for version ${JSON.stringify(String(document.apiVersion ?? ''))} in scheme "pkg/runtime/scheme.go:110"`,
    );
  const configuration = { default: tolerationList(document.default), whitelist: tolerationList(document.whitelist) };
  const errors = (['default', 'whitelist'] as const).flatMap((field) =>
    validateTolerations(configuration[field], FieldPath.root('podtolerationrestriction', field)),
  );
  // The reference prints the list of field errors as Go prints a slice.
  if (errors.length > 0) throw failed(`invalid config: [${errors.map(fieldErrorText).join(' ')}]`);
  return configuration;
}

const sameToleration = (a: Toleration, b: Toleration) =>
  (a.key ?? '') === (b.key ?? '') &&
  (a.operator ?? '') === (b.operator ?? '') &&
  (a.value ?? '') === (b.value ?? '') &&
  (a.effect ?? '') === (b.effect ?? '') &&
  a.tolerationSeconds === b.tolerationSeconds;

/** Whether `wide` tolerates every taint `narrow` does. */
function covers(wide: Toleration, narrow: Toleration): boolean {
  if (sameToleration(wide, narrow)) return true;
  const [wideKey, narrowKey] = [wide.key ?? '', narrow.key ?? ''];
  if (narrowKey !== wideKey && (wideKey !== '' || wide.operator !== 'Exists')) return false;
  const wideEffect = wide.effect ?? '';
  if ((narrow.effect ?? '') !== wideEffect && wideEffect !== '') return false;
  if (wideEffect === 'NoExecute' && wide.tolerationSeconds !== undefined) {
    if (narrow.tolerationSeconds === undefined || narrow.tolerationSeconds > wide.tolerationSeconds) return false;
  }
  switch (wide.operator ?? '') {
    case 'Equal':
    case '':
      return narrow.operator === 'Equal' && (narrow.value ?? '') === (wide.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** Both lists in order, without each toleration another already kept or a later distinct one covers. */
function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second];
  const merged: Toleration[] = [];
  all.forEach((toleration, i) => {
    if (merged.some((kept) => covers(kept, toleration))) return;
    const later = all.slice(i + 1);
    if (later.some((other) => !sameToleration(toleration, other) && covers(other, toleration))) return;
    merged.push(toleration);
  });
  return merged;
}

/** A namespace's annotation read as the reference reads it (into v1 tolerations), or refused with Go's error. */
function decodeNamespaceTolerations(text: string): Toleration[] {
  const { tolerations, error } = decodeTolerations(text, 'v1');
  if (error !== undefined) throw unclassified(error);
  return tolerations;
}

export function podTolerationRestrictionPlugin(
  namespaces: ObjectStorage,
  configuration: PodTolerationRestrictionConfiguration,
  featureEnabled: FeatureEnabled,
): AdmissionPlugin {
  const applies = (attributes: AdmissionAttributes) =>
    (attributes.operation === 'CREATE' || attributes.operation === 'UPDATE') &&
    writes(attributes, '', 'pods') &&
    attributes.object !== undefined;
  const specOf = (pod: KubeObject) => (pod.spec ??= {}) as { tolerations?: Toleration[] | null };

  /** The namespace's tolerations under `annotation`; undefined when it has no such annotation. */
  async function namespaceTolerations(name: string, annotation: string): Promise<Toleration[] | undefined> {
    let namespace: KubeObject | undefined;
    try {
      namespace = await findNamespace(namespaces, name);
    } catch (error) {
      throw internalError((error as Error).message);
    }
    if (namespace === undefined) throw notFound({ group: '', resource: 'namespaces' }, name);
    const text = namespace.metadata.annotations?.[annotation];
    if (text === undefined) return undefined;
    return text === '' ? [] : decodeNamespaceTolerations(text);
  }

  async function checkWhitelist(attributes: AdmissionAttributes): Promise<void> {
    const tolerations = specOf(attributes.object!).tolerations ?? [];
    if (tolerations.length === 0) return;
    const own = await namespaceTolerations(attributes.namespace, TOLERATIONS_WHITELIST_ANNOTATION);
    const [whitelist, scope] = own === undefined ? [configuration.whitelist, 'cluster'] : [own, 'namespace'];
    if (whitelist.length === 0) return;
    if (tolerations.every((toleration) => whitelist.some((allowed) => covers(allowed, toleration)))) return;
    // The reference returns this refusal as a bare error, which its handler answers with a 500;
    // it is the pod that is refused, so a 403 with the same words.
    throw forbidden(
      { group: '', resource: 'pods' },
      refusedName(attributes),
      `pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`,
    );
  }

  return {
    name: 'PodTolerationRestriction',
    async admit(attributes) {
      if (!applies(attributes)) return;
      const pod = attributes.object!;
      const extra: Toleration[] = [];
      if (attributes.operation === 'CREATE')
        extra.push(
          ...((await namespaceTolerations(attributes.namespace, DEFAULT_TOLERATIONS_ANNOTATION)) ??
            configuration.default),
        );
      const spec = specOf(pod);
      const qosClass = (pod.status as { qosClass?: string } | undefined)?.qosClass || podQOSClass(spec, featureEnabled);
      if (qosClass !== 'BestEffort') extra.push(MEMORY_PRESSURE);
      if (extra.length > 0) spec.tolerations = mergeTolerations(spec.tolerations ?? [], extra);
      await checkWhitelist(attributes);
    },
    async validate(attributes) {
      if (applies(attributes)) await checkWhitelist(attributes);
    },
  };
}
