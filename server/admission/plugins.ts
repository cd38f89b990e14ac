/**
 * The admission plugins a 1.34 server knows, in the order its chain runs them, which of them
 * are on by default, and the chain `--enable-admission-plugins` / `--disable-admission-plugins`
 * make of them (disabling wins). A name the reference does not know is refused at start with its
 * message.
 */
import type { Authorizer } from '../authz/types';
import type { AdmissionPlugin } from './types';
import type { PluginConfigurations } from './admission-configuration';
import { AdmissionFlagError } from './config-error';
import type { StorageOf } from './lookup';
import type { ParamKindLookup } from './policy/params';
import type { ServedTypeLookup } from './webhook/versions';
import { namespaceLifecycle } from './namespace-lifecycle';
import { alwaysAdmitPlugin, alwaysDenyPlugin, alwaysPullImagesPlugin } from './plugins/always';
import { defaultIngressClassPlugin, defaultStorageClassPlugin } from './plugins/default-classes';
import { defaultTolerationSecondsPlugin } from './plugins/default-toleration-seconds';
import { denyServiceExternalIPsPlugin } from './plugins/deny-service-external-ips';
import { eventRateLimitConfiguration, eventRateLimitPlugin } from './plugins/event-rate-limit';
import { extendedResourceTolerationPlugin } from './plugins/extended-resource-toleration';
import { limitPodHardAntiAffinityTopologyPlugin } from './plugins/limit-pod-hard-anti-affinity-topology';
import { namespaceAutoProvisionPlugin, type NamespaceCreator } from './plugins/namespace-auto-provision';
import { namespaceExistsPlugin } from './plugins/namespace-exists';
import {
  certificateApprovalPlugin,
  certificateSigningPlugin,
  certificateSubjectRestrictionPlugin,
} from './plugins/certificates';
import { clusterTrustBundleAttestPlugin } from './plugins/cluster-trust-bundle-attest';
import { imagePolicyConfiguration, imagePolicyWebhookPlugin } from './plugins/image-policy-webhook';
import { limitRangerPlugin } from './plugins/limit-ranger';
import { nodeRestrictionPlugin } from './plugins/node-restriction';
import {
  ownerReferencesPermissionEnforcementPlugin,
  type ServedKindLookup,
} from './plugins/owner-references-permission-enforcement';
import { persistentVolumeClaimResizePlugin } from './plugins/persistent-volume-claim-resize';
import { podNodeSelectorConfiguration, podNodeSelectorPlugin } from './plugins/pod-node-selector';
import {
  podTolerationRestrictionConfiguration,
  podTolerationRestrictionPlugin,
} from './plugins/pod-toleration-restriction';
import { podTopologyLabelsPlugin } from './plugins/pod-topology-labels';
import { podSecurityConfiguration } from './plugins/pod-security/configuration';
import { podSecurityPlugin } from './plugins/pod-security/plugin';
import { priorityPlugin } from './plugins/priority';
import { resourceQuotaPlugin } from './plugins/resource-quota';
import { runtimeClassPlugin } from './plugins/runtime-class';
import { serviceAccountPlugin } from './plugins/service-account';
import { storageObjectInUseProtectionPlugin } from './plugins/storage-object-in-use-protection';
import { taintNodesByConditionPlugin } from './plugins/taint-nodes-by-condition';
import { validatingAdmissionPolicyPlugin } from './plugins/validating-admission-policy';
import { mutatingAdmissionPolicyPlugin } from './plugins/mutating-admission-policy';
import { mutatingAdmissionWebhookPlugin, validatingAdmissionWebhookPlugin } from './webhook/dispatch';
import type { ServiceResolver } from '../proxy/service-endpoint';

export interface AdmissionDependencies {
  readonly storageOf: StorageOf;
  /** Where webhooks' Services lead (`--enable-aggregator-routing`). */
  readonly services: ServiceResolver;
  /** `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`. */
  readonly tolerationSeconds: { readonly notReady: number; readonly unreachable: number };
  /** The server's authorizer, for plugins that ask whether the requester may do more (signers, token audiences) and for admission expressions' `authorizer` variable. */
  readonly authorizer: Authorizer;
  /** Whether a feature gate is on (`--feature-gates`, else the 1.34 default). */
  readonly featureEnabled: (gate: string) => boolean;
  /** Each plugin's part of `--admission-control-config-file`. */
  readonly pluginConfigurations: PluginConfigurations;
  /** The served kind of a policy's paramKind (its cache and scope), for the params bindings select. */
  readonly paramKinds: ParamKindLookup;
  /** The served type of a group-version-resource, for webhooks' matchPolicy Equivalent. */
  readonly servedType: ServedTypeLookup;
  /** Creates a namespace as the server, for NamespaceAutoProvision. */
  readonly createNamespace: NamespaceCreator;
  /** The served type of a kind, for the owners OwnerReferencesPermissionEnforcement checks. */
  readonly servedKind: ServedKindLookup;
}

interface PluginEntry {
  readonly name: string;
  readonly onByDefault: boolean;
  readonly make: (dependencies: AdmissionDependencies) => AdmissionPlugin;
}

/** The reference's order (its AllOrderedPlugins): mutations that others depend on come first. */
const PLUGINS: readonly PluginEntry[] = [
  { name: 'AlwaysAdmit', onByDefault: false, make: alwaysAdmitPlugin },
  {
    name: 'NamespaceAutoProvision',
    onByDefault: false,
    make: ({ storageOf, createNamespace }) =>
      namespaceAutoProvisionPlugin(storageOf('', 'namespaces'), createNamespace),
  },
  {
    name: 'NamespaceLifecycle',
    onByDefault: true,
    make: ({ storageOf }) => namespaceLifecycle(storageOf('', 'namespaces')),
  },
  {
    name: 'NamespaceExists',
    onByDefault: false,
    make: ({ storageOf }) => namespaceExistsPlugin(storageOf('', 'namespaces')),
  },
  { name: 'LimitPodHardAntiAffinityTopology', onByDefault: false, make: limitPodHardAntiAffinityTopologyPlugin },
  { name: 'LimitRanger', onByDefault: true, make: ({ storageOf }) => limitRangerPlugin(storageOf) },
  { name: 'ServiceAccount', onByDefault: true, make: ({ storageOf }) => serviceAccountPlugin(storageOf) },
  { name: 'NodeRestriction', onByDefault: false, make: nodeRestrictionPlugin },
  { name: 'TaintNodesByCondition', onByDefault: true, make: taintNodesByConditionPlugin },
  { name: 'AlwaysPullImages', onByDefault: false, make: alwaysPullImagesPlugin },
  {
    name: 'ImagePolicyWebhook',
    onByDefault: false,
    make: ({ pluginConfigurations }) =>
      imagePolicyWebhookPlugin(imagePolicyConfiguration(pluginConfigurations('ImagePolicyWebhook'))),
  },
  {
    name: 'PodSecurity',
    onByDefault: true,
    make: ({ storageOf, pluginConfigurations, featureEnabled }) =>
      podSecurityPlugin({
        storageOf,
        configuration: podSecurityConfiguration(pluginConfigurations('PodSecurity')),
        checks: { relaxForUserNamespacePods: featureEnabled('UserNamespacesPodSecurityStandards') },
      }),
  },
  {
    name: 'PodNodeSelector',
    onByDefault: false,
    make: ({ storageOf, pluginConfigurations }) =>
      podNodeSelectorPlugin(
        storageOf('', 'namespaces'),
        podNodeSelectorConfiguration(pluginConfigurations('PodNodeSelector')),
      ),
  },
  { name: 'Priority', onByDefault: true, make: ({ storageOf }) => priorityPlugin(storageOf) },
  {
    name: 'DefaultTolerationSeconds',
    onByDefault: true,
    make: ({ tolerationSeconds }) => defaultTolerationSecondsPlugin(tolerationSeconds),
  },
  {
    name: 'PodTolerationRestriction',
    onByDefault: false,
    make: ({ storageOf, pluginConfigurations, featureEnabled }) =>
      podTolerationRestrictionPlugin(
        storageOf('', 'namespaces'),
        podTolerationRestrictionConfiguration(pluginConfigurations('PodTolerationRestriction')),
        featureEnabled,
      ),
  },
  {
    name: 'EventRateLimit',
    onByDefault: false,
    make: ({ pluginConfigurations }) =>
      eventRateLimitPlugin(eventRateLimitConfiguration(pluginConfigurations('EventRateLimit'))),
  },
  { name: 'ExtendedResourceToleration', onByDefault: false, make: extendedResourceTolerationPlugin },
  { name: 'DefaultStorageClass', onByDefault: true, make: ({ storageOf }) => defaultStorageClassPlugin(storageOf) },
  {
    name: 'StorageObjectInUseProtection',
    onByDefault: true,
    make: ({ featureEnabled }) =>
      storageObjectInUseProtectionPlugin({ volumeAttributesClasses: featureEnabled('VolumeAttributesClass') }),
  },
  {
    name: 'OwnerReferencesPermissionEnforcement',
    onByDefault: false,
    make: ({ authorizer, servedKind }) => ownerReferencesPermissionEnforcementPlugin(authorizer, servedKind),
  },
  {
    name: 'PersistentVolumeClaimResize',
    onByDefault: true,
    make: ({ storageOf }) => persistentVolumeClaimResizePlugin(storageOf),
  },
  { name: 'RuntimeClass', onByDefault: true, make: ({ storageOf }) => runtimeClassPlugin(storageOf) },
  { name: 'CertificateApproval', onByDefault: true, make: ({ authorizer }) => certificateApprovalPlugin(authorizer) },
  { name: 'CertificateSigning', onByDefault: true, make: ({ authorizer }) => certificateSigningPlugin(authorizer) },
  {
    name: 'ClusterTrustBundleAttest',
    onByDefault: true,
    make: ({ authorizer, featureEnabled }) =>
      clusterTrustBundleAttestPlugin(authorizer, featureEnabled('ClusterTrustBundle')),
  },
  { name: 'CertificateSubjectRestriction', onByDefault: true, make: certificateSubjectRestrictionPlugin },
  { name: 'DefaultIngressClass', onByDefault: true, make: ({ storageOf }) => defaultIngressClassPlugin(storageOf) },
  { name: 'DenyServiceExternalIPs', onByDefault: false, make: denyServiceExternalIPsPlugin },
  {
    name: 'PodTopologyLabels',
    onByDefault: true,
    make: ({ storageOf, featureEnabled }) =>
      podTopologyLabelsPlugin(storageOf, featureEnabled('PodTopologyLabelsAdmission')),
  },
  {
    name: 'MutatingAdmissionPolicy',
    onByDefault: true,
    // As the reference's, the plugin does nothing while its feature gate is off.
    make: ({ storageOf, authorizer, paramKinds, servedType, featureEnabled }) =>
      featureEnabled('MutatingAdmissionPolicy')
        ? mutatingAdmissionPolicyPlugin({ storageOf, authorizer, servedKinds: paramKinds, servedType })
        : { name: 'MutatingAdmissionPolicy' },
  },
  {
    name: 'MutatingAdmissionWebhook',
    onByDefault: true,
    make: ({ storageOf, services, authorizer, servedType }) =>
      mutatingAdmissionWebhookPlugin(storageOf, services, authorizer, servedType),
  },
  {
    name: 'ValidatingAdmissionPolicy',
    onByDefault: true,
    make: ({ storageOf, authorizer, paramKinds, servedType }) =>
      validatingAdmissionPolicyPlugin(storageOf, authorizer, paramKinds, servedType),
  },
  {
    name: 'ValidatingAdmissionWebhook',
    onByDefault: true,
    make: ({ storageOf, services, authorizer, servedType }) =>
      validatingAdmissionWebhookPlugin(storageOf, services, authorizer, servedType),
  },
  { name: 'ResourceQuota', onByDefault: true, make: ({ storageOf }) => resourceQuotaPlugin(storageOf) },
  { name: 'AlwaysDeny', onByDefault: false, make: alwaysDenyPlugin },
];

export interface AdmissionSelection {
  readonly enable: readonly string[];
  readonly disable: readonly string[];
}

export interface SelectedPlugins {
  /** The chain's plugins, in the reference's order. */
  readonly plugins: readonly AdmissionPlugin[];
}

/** The chain the flags select. Throws `AdmissionFlagError` with the reference's text for unknown names. */
export function selectAdmissionPlugins(
  selection: AdmissionSelection,
  dependencies: AdmissionDependencies,
): SelectedPlugins {
  const known = new Map(PLUGINS.map((entry) => [entry.name, entry]));
  for (const [flag, names] of [
    ['enable-admission-plugins', selection.enable],
    ['disable-admission-plugins', selection.disable],
  ] as const) {
    for (const name of names)
      if (!known.has(name)) throw new AdmissionFlagError(`${flag} plugin ${JSON.stringify(name)} is unknown`);
  }
  const chosen = PLUGINS.filter(
    (entry) => (entry.onByDefault || selection.enable.includes(entry.name)) && !selection.disable.includes(entry.name),
  );
  return { plugins: chosen.map((entry) => entry.make(dependencies)) };
}
