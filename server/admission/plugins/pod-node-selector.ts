/**
 * The PodNodeSelector plugin: a namespace confines its pods to nodes by labels. The selector is
 * the namespace's `scheduler.alpha.kubernetes.io/node-selector` annotation, else the cluster's
 * default from the plugin's configuration; a new pod gets it merged into its node selector (a
 * pod asking for another value of one of its labels is refused), and must then stay within the
 * whitelist the configuration gives its namespace, if any.
 *
 * Configuration, in the file `--admission-control-config-file` names for the plugin:
 *   podNodeSelectorPluginConfig:
 *     clusterDefaultNodeSelector: env=prod
 *     <namespace>: tier=web
 */
import type { ObjectStorage } from '../../../storage/objects/types';
import { SelectorParseError } from '../../selectors/label-selector';
import { forbidden } from '../../status/catalogue';
import { FieldPath, invalid } from '../../status/field-errors';
import { isQualifiedName, isValidLabelValue } from '../../validation/names';
import { AdmissionConfigError } from '../config-error';
import { getCached, writes } from '../lookup';
import { refusedName } from '../refused-name';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

export const NODE_SELECTOR_ANNOTATION = 'scheduler.alpha.kubernetes.io/node-selector';
const CLUSTER_DEFAULT = 'clusterDefaultNodeSelector';

type Labels = Record<string, string>;

/**
 * The reference's ConvertSelectorToLabelsMap: `k=v` pairs split on `,` and `=` (no selector
 * syntax: `a==b` and `a in (b)` are no pairs), each key and value trimmed and checked as a
 * label's. The errors read as the reference's, whose paths are unset (`<nil>`, `[key]`).
 */
function labelsOf(selector: string): Labels {
  const labels: Labels = {};
  if (selector === '') return labels;
  for (const pair of selector.split(',')) {
    const parts = pair.split('=');
    if (parts.length !== 2) throw new SelectorParseError(`invalid selector: [${parts.join(' ')}]`);
    const key = parts[0].trim();
    const value = parts[1].trim();
    const keyErrors = isQualifiedName(key);
    if (keyErrors.length > 0)
      throw new SelectorParseError(`<nil>: ${invalid(FieldPath.root(), key, keyErrors.join('; ')).detail}`);
    const valueErrors = isValidLabelValue(value);
    if (valueErrors.length > 0)
      throw new SelectorParseError(`[${key}]: ${invalid(FieldPath.root(), value, valueErrors.join('; ')).detail}`);
    labels[key] = value;
  }
  return labels;
}

/** The plugin's part of the AdmissionConfiguration: namespace (or the cluster default) → selector. */
export function podNodeSelectorConfiguration(configuration: unknown): Readonly<Record<string, string>> {
  const selectors =
    (configuration as { podNodeSelectorPluginConfig?: unknown } | undefined)?.podNodeSelectorPluginConfig ?? {};
  if (typeof selectors !== 'object' || selectors === null || Array.isArray(selectors))
    throw new AdmissionConfigError('PodNodeSelector: podNodeSelectorPluginConfig must map names to node selectors');
  const checked: Record<string, string> = {};
  for (const [name, selector] of Object.entries(selectors)) {
    try {
      labelsOf(String(selector));
    } catch (error) {
      throw new AdmissionConfigError(`PodNodeSelector: ${name}: ${(error as Error).message}`);
    }
    checked[name] = String(selector);
  }
  return checked;
}

const isPodCreate = (attributes: AdmissionAttributes) =>
  attributes.operation === 'CREATE' && writes(attributes, '', 'pods') && attributes.object !== undefined;

export function podNodeSelectorPlugin(
  namespaces: ObjectStorage,
  selectors: Readonly<Record<string, string>>,
): AdmissionPlugin {
  const refuse = (attributes: AdmissionAttributes, reason: string) =>
    forbidden({ group: '', resource: 'pods' }, refusedName(attributes), reason);
  const podSpecOf = (attributes: AdmissionAttributes) => (attributes.object!.spec ??= {}) as { nodeSelector?: Labels };

  async function namespaceSelector(attributes: AdmissionAttributes): Promise<Labels> {
    const namespace = await getCached(namespaces, attributes.namespace);
    const annotation = namespace?.metadata.annotations?.[NODE_SELECTOR_ANNOTATION];
    try {
      return labelsOf(annotation ?? selectors[CLUSTER_DEFAULT] ?? '');
    } catch (error) {
      throw refuse(attributes, (error as Error).message);
    }
  }

  return {
    name: 'PodNodeSelector',
    async admit(attributes) {
      if (!isPodCreate(attributes)) return;
      const spec = podSpecOf(attributes);
      const wanted = await namespaceSelector(attributes);
      const own = spec.nodeSelector ?? {};
      if (Object.entries(wanted).some(([key, value]) => key in own && own[key] !== value))
        throw refuse(attributes, 'pod node label selector conflicts with its namespace node label selector');
      const merged = { ...wanted, ...own };
      if (Object.keys(merged).length > 0) spec.nodeSelector = merged;
    },
    async validate(attributes) {
      if (!isPodCreate(attributes)) return;
      const whitelist = labelsOf(selectors[attributes.namespace] ?? '');
      if (Object.keys(whitelist).length === 0) return;
      const own = podSpecOf(attributes).nodeSelector ?? {};
      if (Object.entries(own).some(([key, value]) => whitelist[key] !== value))
        throw refuse(attributes, 'pod node label selector labels conflict with its namespace whitelist');
    },
  };
}
