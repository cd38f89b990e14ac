/**
 * The built-in kinds' own subresources (the reference's pods/binding, pods/eviction ...), put
 * into their types' handler slots. Kept apart from the kinds' declarations: those say what a
 * kind is, these how its operations behave.
 */
import type { ResourceType } from '../registry/types';
import { defineKind } from '../registry/kinds/define';
import { legacyBindingCreate, podBindingCreate } from './binding';
import { approvalHandlers } from './certificate-approval';
import * as connect from './connect';
import { ephemeralContainersHandlers } from './ephemeral-containers';
import { podEvictionCreate } from './eviction';
import { resizeHandlers } from './pod-resize';

import type { GroupResource } from '../../api/identity';
import type { SubresourceEndpoint } from '../handlers/slots';
const POD_KIND = { group: '', version: 'v1', kind: 'Pod' };

/** A connect subresource: discovery names the core v1 options kind it takes. */
function coreOptions(kind: string, handlers: SubresourceEndpoint['handlers']): SubresourceEndpoint {
  return {
    kind: { group: '', version: 'v1', kind },
    definition: `io.k8s.api.core.v1.${kind}`,
    handlers,
    connection: true,
    produces: 'anything',
  };
}

/** A proxy subresource: the rest of the URL is the path it proxies to. */
function proxyOptions(kind: string, handlers: SubresourceEndpoint['handlers']): SubresourceEndpoint {
  return { ...coreOptions(kind, handlers), takesPath: true };
}

const SUBRESOURCES: ReadonlyArray<{
  readonly of: GroupResource;
  readonly endpoints: Readonly<Record<string, SubresourceEndpoint>>;
}> = [
  {
    of: { group: '', resource: 'pods' },
    endpoints: {
      binding: {
        kind: { group: '', version: 'v1', kind: 'Binding' },
        definition: 'io.k8s.api.core.v1.Binding',
        handlers: { create: podBindingCreate },
      },
      eviction: {
        kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
        definition: 'io.k8s.api.policy.v1.Eviction',
        handlers: { create: podEvictionCreate },
      },
      ephemeralcontainers: {
        kind: POD_KIND,
        definition: 'io.k8s.api.core.v1.Pod',
        handlers: ephemeralContainersHandlers,
      },
      resize: {
        kind: POD_KIND,
        definition: 'io.k8s.api.core.v1.Pod',
        handlers: resizeHandlers,
        featureGate: 'InPlacePodVerticalScaling',
      },
      log: {
        kind: POD_KIND,
        definition: 'io.k8s.api.core.v1.Pod',
        handlers: connect.podLogHandlers,
        connection: true,
        produces: ['text/plain'],
        optionsDefinition: 'io.k8s.api.core.v1.PodLogOptions',
      },
      exec: coreOptions('PodExecOptions', connect.podExecHandlers),
      attach: coreOptions('PodAttachOptions', connect.podAttachHandlers),
      portforward: coreOptions('PodPortForwardOptions', connect.podPortForwardHandlers),
      proxy: proxyOptions('PodProxyOptions', connect.podProxyHandlers),
    },
  },
  {
    of: { group: '', resource: 'nodes' },
    endpoints: { proxy: proxyOptions('NodeProxyOptions', connect.nodeProxyHandlers) },
  },
  {
    of: { group: '', resource: 'services' },
    endpoints: { proxy: proxyOptions('ServiceProxyOptions', connect.serviceProxyHandlers) },
  },
  {
    of: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests' },
    endpoints: {
      approval: {
        kind: { group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' },
        definition: 'io.k8s.api.certificates.v1.CertificateSigningRequest',
        handlers: approvalHandlers,
      },
    },
  },
];

/** `kinds` with the subresource handlers of each kind that has some, beside any it already had. */
export function withBuiltinSubresources(kinds: readonly ResourceType[]): ResourceType[] {
  return kinds.map((type) => {
    const own = SUBRESOURCES.find(({ of }) => of.group === type.group && of.resource === type.resource);
    if (own === undefined) return type;
    return {
      ...type,
      handlers: { ...type.handlers, subresources: { ...type.handlers?.subresources, ...own.endpoints } },
    };
  });
}

/**
 * The legacy `bindings` collection of core v1: POST a Binding naming the pod. Stores nothing of
 * its own (a virtual type), writes the pod as pods/binding does.
 */
export const LEGACY_BINDINGS: ResourceType = {
  ...defineKind({ group: '', resource: 'bindings', kind: 'Binding', namespaced: true, verbs: ['create'] }),
  virtual: true,
  handlers: { verbs: { create: legacyBindingCreate } },
};
