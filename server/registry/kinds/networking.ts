/** networking.k8s.io/v1 resources. */
import { loadBalancerStatusWarnings, networkPolicyWarnings } from '../../validation/write-warnings';
import type { KubeObject } from '../../../api/objects';
import {
  validateIngress,
  validateIngressUpdate,
  validateIngressClass,
  validateIngressClassUpdate,
  validateIPAddressUpdate,
  validateServiceCIDRUpdate,
  validateIPAddress,
  validateNetworkPolicy,
  validateNetworkPolicyOnUpdate,
  validateNetworkPolicyUpdate,
  validateServiceCIDR,
} from '../../validation/networking';
import { child, fill, fillWhenEmpty, items, type Json } from '../defaults/fill';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import {
  ingressClassPrinter,
  ipAddressPrinter,
  networkPolicyPrinter,
  serviceCIDRPrinter,
} from '../../table/admin-printers';
import { ingressPrinter } from '../../table/printers';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';

/** policyTypes: Ingress always, Egress when egress rules exist; rule ports default to TCP. */
function defaultNetworkPolicy(policy: KubeObject): void {
  const spec = child(policy as Json, 'spec');
  const egress = items(spec, 'egress');
  fillWhenEmpty(spec, 'policyTypes', egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress']);
  for (const rule of [...items(spec, 'ingress'), ...egress]) {
    for (const port of items(rule, 'ports')) fill(port, 'protocol', 'TCP');
  }
}

/** Parameters of an IngressClass are cluster-scoped unless they say otherwise. */
function defaultIngressClass(ingressClass: KubeObject): void {
  const parameters = (ingressClass.spec as Json | undefined)?.parameters as Json | undefined;
  if (parameters) fill(parameters, 'scope', 'Cluster');
}

export const networkingKinds: readonly ResourceType[] = [
  defineKind({
    group: 'networking.k8s.io',
    resource: 'ingresses',
    printer: ingressPrinter,
    kind: 'Ingress',
    namespaced: true,
    shortNames: ['ing'],
    storagePrefix: 'ingress',
    subresources: { status: true },
    behaviour: {
      updatePasses: ['update', 'create'],
      initialStatus: () => ({ loadBalancer: {} }),
      tracksGeneration: true,
      validate: validateIngress,
      validateUpdate: validateIngressUpdate,
      statusWarnings: loadBalancerStatusWarnings,
    },
  }),
  defineKind({
    group: 'networking.k8s.io',
    resource: 'ingressclasses',
    printer: ingressClassPrinter,
    kind: 'IngressClass',
    namespaced: false,
    behaviour: {
      updatePasses: ['update', 'updateRules', 'create', 'createRules'],
      defaults: defaultIngressClass,
      tracksGeneration: true,
      validate: validateIngressClass,
      validateUpdate: validateIngressClassUpdate,
    },
  }),
  defineKind({
    group: 'networking.k8s.io',
    resource: 'networkpolicies',
    printer: networkPolicyPrinter,
    kind: 'NetworkPolicy',
    namespaced: true,
    shortNames: ['netpol'],
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      defaults: defaultNetworkPolicy,
      tracksGeneration: true,
      validate: validateNetworkPolicy,
      validateOnUpdate: validateNetworkPolicyOnUpdate,
      validateUpdate: validateNetworkPolicyUpdate,
      warnings: networkPolicyWarnings,
    },
  }),
  // Service IP bookkeeping: the cluster IP allocator holds each address as an IPAddress object.
  defineKind({
    group: 'networking.k8s.io',
    resource: 'ipaddresses',
    printer: ipAddressPrinter,
    kind: 'IPAddress',
    namespaced: false,
    // v1beta1 is field-identical: a version is an apiVersion.
    versions: ['v1', 'v1beta1'],
    shortNames: ['ip'],
    nameRule: 'ip-address',
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      validate: validateIPAddress,
      validateUpdate: validateIPAddressUpdate,
    },
  }),
  defineKind({
    group: 'networking.k8s.io',
    resource: 'servicecidrs',
    printer: serviceCIDRPrinter,
    kind: 'ServiceCIDR',
    namespaced: false,
    // v1beta1 is field-identical: a version is an apiVersion.
    versions: ['v1', 'v1beta1'],
    subresources: { status: true },
    behaviour: {
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      initialStatus: () => ({}),
      validate: validateServiceCIDR,
      validateUpdate: validateServiceCIDRUpdate,
    },
  }),
];
