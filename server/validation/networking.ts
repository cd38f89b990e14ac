/** networking.k8s.io/v1 rules: Ingresses and their classes, NetworkPolicies, IPAddresses, ServiceCIDRs. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import type { WriteContext } from '../registry/types';
import {
  FIELD_IMMUTABLE,
  FieldPath,
  forbidden,
  GoValue,
  immutable,
  invalid,
  notSupported,
  required,
  tooLong,
} from '../status/field-errors';
import { ipFamilyOf, isStrictSubnet, isValidCIDR, isValidCIDRForLegacyField, sloppyIPFamily } from './ip';
import { validateIngressLoadBalancerStatus } from './status-addresses';
import { internalCompactJson } from './internal-json';
import { immutableAs, memberType } from './semantic-equality';
import { domainPrefixedPathErrors } from './domain-prefixed-path';
import {
  goLen,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
  isWildcardDNS1123Subdomain,
  isValidPortName,
  isValidPortNum,
} from './names';
import { validateLabelSelector, type LabelSelectorOptions, type LabelSelectorShape } from './object-meta';

interface TypedReference {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

interface IngressBackend {
  resource?: TypedReference;
  service?: { name?: string; port?: { name?: string; number?: number } };
}

interface IngressPath {
  path?: string;
  pathType?: string;
  backend?: IngressBackend;
}

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

/** A reference to an object of any kind in the same namespace (or the cluster). */
function validateTypedReference(reference: TypedReference, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (reference.apiGroup !== undefined)
    for (const message of isDNS1123Subdomain(reference.apiGroup))
      errors.push(invalid(path.child('apiGroup'), reference.apiGroup, message));
  for (const member of ['kind', 'name'] as const) {
    const value = reference[member];
    if (!value) errors.push(required(path.child(member)));
    else for (const message of isValidPathSegmentName(value)) errors.push(invalid(path.child(member), value, message));
  }
  return errors;
}

/** What names an Ingress backend's Service may have: a DNS-1035 label, or any DNS label when relaxed. */
type ServiceNameCheck = (name: string) => string[];

/** A backend is a resource or a Service port, named or numbered, never both. */
function validateIngressBackend(backend: IngressBackend, path: FieldPath, serviceName: ServiceNameCheck): FieldError[] {
  if (backend.resource !== undefined && backend.service !== undefined)
    return [invalid(path, '', 'cannot set both resource and service backends')];
  if (backend.resource !== undefined) return validateTypedReference(backend.resource, path.child('resource'));
  if (backend.service === undefined) return [invalid(path, '', 'resource or service backend is required')];
  const errors: FieldError[] = [];
  const { name, port } = backend.service;
  if (!name) errors.push(required(path.child('service', 'name')));
  else for (const message of serviceName(name)) errors.push(invalid(path.child('service', 'name'), name, message));
  const portName = port?.name ?? '';
  const portNumber = port?.number ?? 0;
  if (portName !== '' && portNumber !== 0) errors.push(invalid(path, '', 'cannot set both port name & port number'));
  else if (portName !== '')
    for (const message of isValidPortName(portName))
      errors.push(invalid(path.child('service', 'port', 'name'), portName, message));
  else if (portNumber !== 0)
    for (const message of isValidPortNum(portNumber))
      errors.push(invalid(path.child('service', 'port', 'number'), portNumber, message));
  else errors.push(required(path, 'port name or number is required'));
  return errors;
}

interface IngressRule {
  host?: string;
  http?: { paths?: IngressPath[] } | null;
}

interface IngressSpec {
  rules?: IngressRule[];
  defaultBackend?: IngressBackend;
  tls?: { hosts?: string[]; secretName?: string }[];
  ingressClassName?: string | null;
}

function ingressSpecOf(ingress: KubeObject): IngressSpec {
  return (ingress.spec as IngressSpec | undefined) ?? {};
}

/**
 * Backend Services may be named as any DNS label while RelaxedServiceNameValidation is on, or
 * when the stored Ingress already names one that only the relaxed rule takes (its paths only,
 * as the reference's allowRelaxedServiceNameValidation looks).
 */
function serviceNameCheck(old: KubeObject | undefined, context: WriteContext): ServiceNameCheck {
  const relaxedOnly = (name: string) => isDNS1123Label(name).length === 0 && isDNS1035Label(name).length > 0;
  const oldUsesRelaxed =
    old !== undefined &&
    (ingressSpecOf(old).rules ?? []).some((rule) =>
      (rule.http?.paths ?? []).some((path) => relaxedOnly(path.backend?.service?.name ?? '')),
    );
  return context.featureEnabled('RelaxedServiceNameValidation') || oldUsesRelaxed ? isDNS1123Label : isDNS1035Label;
}

/** What an update tolerates because the stored Ingress already has it (invalid data written by older servers). */
interface IngressTolerance {
  readonly serviceName: ServiceNameCheck;
  readonly invalidSecretName: boolean;
  readonly invalidWildcardHostRule: boolean;
}

function ingressTolerance(old: KubeObject | undefined, context: WriteContext): IngressTolerance {
  const spec = old === undefined ? undefined : ingressSpecOf(old);
  return {
    serviceName: serviceNameCheck(old, context),
    invalidSecretName: (spec?.tls ?? []).some((tls) => tlsSecretNameProblems(tls.secretName).length > 0),
    invalidWildcardHostRule: (spec?.rules ?? []).some(
      (rule) =>
        (rule.host ?? '').includes('*') && ingressRuleValueErrors(rule, FieldPath.root(''), isDNS1035Label).length > 0,
    ),
  };
}

/** The ingress class a legacy annotation names, which must agree with `ingressClassName`. */
const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

export function validateIngress(ingress: KubeObject, context: WriteContext): FieldError[] {
  const errors = validateIngressSpec(ingress, ingressTolerance(undefined, context));
  const annotation = ingress.metadata.annotations?.[INGRESS_CLASS_ANNOTATION];
  const className = ingressSpecOf(ingress).ingressClassName;
  if (annotation !== undefined && typeof className === 'string' && annotation !== className)
    errors.push(
      // The reference's path here starts at `annotations`, not `metadata`.
      invalid(
        FieldPath.root('annotations', INGRESS_CLASS_ANNOTATION),
        annotation,
        'must match `ingressClassName` when both are specified',
      ),
    );
  return errors;
}

/** A main update keeps the stored status, so only status writes meet the status rules. */
export function validateIngressUpdate(ingress: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  return [
    ...validateIngressSpec(ingress, ingressTolerance(old, context)),
    ...validateIngressLoadBalancerStatus(ingress, old, context.featureEnabled('StrictIPCIDRValidation')),
  ];
}

/** Path pieces no Exact or Prefix path may hold, or end with. */
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];

function validateIngressSpec(ingress: KubeObject, tolerance: IngressTolerance): FieldError[] {
  const errors: FieldError[] = [];
  const spec = ingressSpecOf(ingress);
  const specPath = FieldPath.root('spec');
  const rules = spec.rules ?? [];
  if (rules.length === 0 && spec.defaultBackend === undefined)
    errors.push(invalid(specPath, spec.rules ?? null, 'either `defaultBackend` or `rules` must be specified'));
  if (spec.defaultBackend !== undefined)
    errors.push(
      ...validateIngressBackend(spec.defaultBackend, specPath.child('defaultBackend'), tolerance.serviceName),
    );
  rules.forEach((rule, i) => {
    const at = specPath.child('rules').index(i);
    const host = rule.host ?? '';
    const wildcard = host.includes('*');
    if (host !== '') {
      if (sloppyIPFamily(host) !== 0)
        errors.push(invalid(at.child('host'), host, 'must be a DNS name, not an IP address'));
      const problems = wildcard ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      for (const message of problems) errors.push(invalid(at.child('host'), host, message));
    }
    if (!wildcard || !tolerance.invalidWildcardHostRule)
      errors.push(...ingressRuleValueErrors(rule, at, tolerance.serviceName));
  });
  (spec.tls ?? []).forEach((tls, i) => {
    const at = specPath.child('tls').index(i);
    (tls.hosts ?? []).forEach((host, j) => {
      const problems = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      for (const message of problems) errors.push(invalid(at.child('hosts').index(j), host, message));
    });
    if (!tolerance.invalidSecretName)
      for (const message of tlsSecretNameProblems(tls.secretName))
        errors.push(invalid(at.child('secretName'), tls.secretName, message));
  });
  if (typeof spec.ingressClassName === 'string')
    for (const message of isDNS1123Subdomain(spec.ingressClassName))
      errors.push(invalid(specPath.child('ingressClassName'), spec.ingressClassName, message));
  return errors;
}

function tlsSecretNameProblems(name: string | undefined): string[] {
  return name ? isDNS1123Subdomain(name) : [];
}

/** A rule's HTTP paths: each with its type, a path that type allows, and its backend. */
function ingressRuleValueErrors(rule: IngressRule, at: FieldPath, serviceName: ServiceNameCheck): FieldError[] {
  if (rule.http === undefined || rule.http === null) return [];
  const errors: FieldError[] = [];
  const paths = rule.http.paths ?? [];
  if (paths.length === 0) errors.push(required(at.child('http', 'paths')));
  paths.forEach((path, j) => {
    const pathAt = at.child('http', 'paths').index(j);
    if (!path.pathType) {
      errors.push(required(pathAt.child('pathType'), 'pathType must be specified'));
      return;
    }
    const text = path.path ?? '';
    if (path.pathType === 'Exact' || path.pathType === 'Prefix') {
      if (!text.startsWith('/')) errors.push(invalid(pathAt.child('path'), text, 'must be an absolute path'));
      if (text !== '') {
        for (const sequence of INVALID_PATH_SEQUENCES)
          if (text.includes(sequence))
            errors.push(invalid(pathAt.child('path'), text, `must not contain '${sequence}'`));
        for (const suffix of INVALID_PATH_SUFFIXES)
          if (text.endsWith(suffix)) errors.push(invalid(pathAt.child('path'), text, `cannot end with '${suffix}'`));
      }
    } else if (path.pathType === 'ImplementationSpecific') {
      if (text !== '' && !text.startsWith('/'))
        errors.push(invalid(pathAt.child('path'), text, 'must be an absolute path'));
    } else errors.push(notSupported(pathAt.child('pathType'), path.pathType, PATH_TYPES));
    if (path.backend === undefined) errors.push(required(pathAt.child('backend')));
    else errors.push(...validateIngressBackend(path.backend, pathAt.child('backend'), serviceName));
  });
  return errors;
}

interface IngressClassParameters extends TypedReference {
  scope?: string;
  namespace?: string;
}

/** An IngressClass's controller name, at most this many bytes. */
const MAX_INGRESS_CLASS_CONTROLLER_LENGTH = 250;

/** An IngressClass names its controller, and its parameters by kind, name and scope. */
export function validateIngressClass(ingressClass: KubeObject): FieldError[] {
  const spec = (ingressClass.spec as { controller?: string; parameters?: IngressClassParameters } | undefined) ?? {};
  const errors: FieldError[] = [];
  const controller = spec.controller ?? '';
  const controllerPath = FieldPath.root('spec', 'controller');
  if (goLen(controller) > MAX_INGRESS_CLASS_CONTROLLER_LENGTH)
    errors.push(tooLong(controllerPath, MAX_INGRESS_CLASS_CONTROLLER_LENGTH));
  errors.push(...domainPrefixedPathErrors(controller, controllerPath));
  const parameters = spec.parameters;
  if (parameters === undefined) return errors;
  const path = FieldPath.root('spec', 'parameters');
  errors.push(...validateTypedReference(parameters, path));
  if (parameters.scope === undefined) return [...errors, required(path.child('scope'))];
  if (!['Cluster', 'Namespace'].includes(parameters.scope))
    return [...errors, notSupported(path.child('scope'), parameters.scope, ['Cluster', 'Namespace'])];
  if (parameters.scope === 'Namespace') {
    if (parameters.namespace === undefined)
      errors.push(required(path.child('namespace'), "`parameters.scope` is set to 'Namespace'"));
    else
      for (const message of isDNS1123Label(parameters.namespace))
        errors.push(invalid(path.child('namespace'), parameters.namespace, message));
  }
  if (parameters.scope === 'Cluster' && parameters.namespace !== undefined)
    errors.push(forbidden(path.child('namespace'), "`parameters.scope` is set to 'Cluster'"));
  return errors;
}

interface NetworkPolicyPeer {
  podSelector?: LabelSelectorShape;
  namespaceSelector?: LabelSelectorShape;
  ipBlock?: { cidr?: string; except?: string[] };
}

interface NetworkPolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

interface NetworkPolicyRule {
  ports?: NetworkPolicyPort[];
  from?: NetworkPolicyPeer[];
  to?: NetworkPolicyPeer[];
}

/** What an ipBlock's CIDRs must satisfy (validateNetworkPolicy says how strictly). */
type CIDRCheck = (cidr: string) => string[];

/**
 * A block's CIDR, then, if it parses at all, each exception: itself valid and a strictly smaller
 * part of the block (an exception not parsing is reported as such alone).
 */
function validateIPBlock(
  block: { cidr?: string; except?: string[] },
  path: FieldPath,
  cidrCheck: CIDRCheck,
): FieldError[] {
  const { cidr, except } = block;
  if (!cidr) return [required(path.child('cidr'))];
  const errors = cidrCheck(cidr).map((message) => invalid(path.child('cidr'), cidr, message));
  if (isValidCIDRForLegacyField(cidr, false).length > 0) return errors;
  (except ?? []).forEach((entry, i) => {
    const at = path.child('except').index(i);
    errors.push(...cidrCheck(entry).map((message) => invalid(at, entry, message)));
    if (isValidCIDRForLegacyField(entry, false).length === 0 && !isStrictSubnet(cidr, entry))
      errors.push(invalid(at, entry, 'must be a strict subset of `cidr`'));
  });
  return errors;
}

function validateNetworkPolicyPeer(peer: NetworkPolicyPeer, path: FieldPath, rules: PolicyRules): FieldError[] {
  const errors: FieldError[] = [];
  let peers = 0;
  if (peer.podSelector !== undefined) {
    peers++;
    errors.push(...validateLabelSelector(peer.podSelector, path.child('podSelector'), rules.selectors));
  }
  if (peer.namespaceSelector !== undefined) {
    peers++;
    errors.push(...validateLabelSelector(peer.namespaceSelector, path.child('namespaceSelector'), rules.selectors));
  }
  if (peer.ipBlock !== undefined) {
    peers++;
    errors.push(...validateIPBlock(peer.ipBlock, path.child('ipBlock'), rules.cidrCheck));
  }
  if (peers === 0) errors.push(required(path, 'must specify a peer'));
  else if (peers > 1 && peer.ipBlock !== undefined)
    errors.push(forbidden(path, 'may not specify both ipBlock and another peer'));
  return errors;
}

function validateNetworkPolicyPort(port: NetworkPolicyPort, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (port.protocol !== undefined && !['TCP', 'UDP', 'SCTP'].includes(port.protocol))
    errors.push(notSupported(path.child('protocol'), port.protocol, ['TCP', 'UDP', 'SCTP']));
  if (typeof port.port === 'number') {
    for (const message of isValidPortNum(port.port)) errors.push(invalid(path.child('port'), port.port, message));
    if (port.endPort !== undefined) {
      if (port.endPort < port.port)
        errors.push(invalid(path.child('endPort'), port.port, 'must be greater than or equal to `port`'));
      for (const message of isValidPortNum(port.endPort))
        errors.push(invalid(path.child('endPort'), port.endPort, message));
    }
  } else if (typeof port.port === 'string') {
    if (port.endPort !== undefined)
      errors.push(invalid(path.child('endPort'), port.endPort, 'may not be specified when `port` is non-numeric'));
    for (const message of isValidPortName(port.port)) errors.push(invalid(path.child('port'), port.port, message));
  } else if (port.endPort !== undefined) {
    errors.push(invalid(path.child('endPort'), port.endPort, 'may not be specified when `port` is not specified'));
  }
  return errors;
}

interface NetworkPolicySpec {
  podSelector?: LabelSelectorShape;
  ingress?: NetworkPolicyRule[];
  egress?: NetworkPolicyRule[];
  policyTypes?: string[];
}

const POLICY_TYPES = ['Ingress', 'Egress'];

/** Which directions a policy governs: at most the two there are (repeating one is allowed). */
function policyTypeErrors(types: readonly string[], path: FieldPath): FieldError[] {
  if (types.length > POLICY_TYPES.length) return [invalid(path, types, 'may not specify more than two policyTypes')];
  return types.flatMap((type, i) =>
    POLICY_TYPES.includes(type) ? [] : [notSupported(path.index(i), type, POLICY_TYPES)],
  );
}

function networkPolicySpecOf(policy: KubeObject): NetworkPolicySpec {
  return (policy.spec as NetworkPolicySpec | undefined) ?? {};
}

/** Every CIDR of a policy's ipBlocks, excepted ones included. */
function ipBlockCIDRs(policy: KubeObject): string[] {
  const spec = networkPolicySpecOf(policy);
  return [
    ...(spec.ingress ?? []).flatMap((rule) => rule.from ?? []),
    ...(spec.egress ?? []).flatMap((rule) => rule.to ?? []),
  ].flatMap((peer) => (peer.ipBlock === undefined ? [] : [peer.ipBlock.cidr ?? '', ...(peer.ipBlock.except ?? [])]));
}

/**
 * CIDRs as sloppy as Go's parser takes, or with StrictIPCIDRValidation strict but for those the
 * stored policy already has (an update need not fix them), as the reference's
 * AllowCIDRsEvenIfInvalid.
 */
function cidrCheckOf(old: KubeObject | undefined, context: WriteContext): CIDRCheck {
  const strict = context.featureEnabled('StrictIPCIDRValidation');
  const existing = new Set(old === undefined ? [] : ipBlockCIDRs(old));
  return (cidr) => (existing.has(cidr) ? [] : isValidCIDRForLegacyField(cidr, strict));
}

/** How strictly a policy's parts are checked, which on update depends on the stored policy. */
interface PolicyRules {
  readonly cidrCheck: CIDRCheck;
  readonly selectors: LabelSelectorOptions;
}

/**
 * The selectors' values are checked unless the stored policy's own podSelector is invalid in
 * any way: then none of the policy's selectors has its values checked, as the reference's
 * ValidationOptionsForNetworking allows (the labels of matchLabels stay checked).
 */
function selectorOptionsOf(old: KubeObject | undefined): LabelSelectorOptions {
  const storedPodSelector = old === undefined ? undefined : networkPolicySpecOf(old).podSelector;
  const strict = { allowInvalidLabelValues: false };
  return {
    allowInvalidLabelValues:
      validateLabelSelector(storedPodSelector, FieldPath.root('spec', 'podSelector'), strict).length > 0,
  };
}

export function validateNetworkPolicy(policy: KubeObject, context: WriteContext): FieldError[] {
  return validateNetworkPolicySpec(policy, {
    cidrCheck: cidrCheckOf(undefined, context),
    selectors: selectorOptionsOf(undefined),
  });
}

/**
 * The spec as the reference's strategy checks it before the update's metadata: selector values
 * are spared as the stored policy allows, but not the stored CIDRs (with StrictIPCIDRValidation
 * on, a policy holding a CIDR the strict rules refuse cannot be updated at all: recorded).
 */
export function validateNetworkPolicyOnUpdate(
  policy: KubeObject,
  old: KubeObject,
  context: WriteContext,
): FieldError[] {
  return validateNetworkPolicySpec(policy, {
    cidrCheck: cidrCheckOf(undefined, context),
    selectors: selectorOptionsOf(old),
  });
}

/** The spec again, after the metadata: the CIDRs the stored policy has are spared too. */
export function validateNetworkPolicyUpdate(policy: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  return validateNetworkPolicySpec(policy, { cidrCheck: cidrCheckOf(old, context), selectors: selectorOptionsOf(old) });
}

function validateNetworkPolicySpec(policy: KubeObject, rules: PolicyRules): FieldError[] {
  const spec = networkPolicySpecOf(policy);
  const path = FieldPath.root('spec');
  const errors = validateLabelSelector(spec.podSelector, path.child('podSelector'), rules.selectors);
  for (const [direction, peers] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    (spec[direction] ?? []).forEach((rule, i) => {
      const at = path.child(direction).index(i);
      (rule.ports ?? []).forEach((port, j) =>
        errors.push(...validateNetworkPolicyPort(port, at.child('ports').index(j))),
      );
      (rule[peers] ?? []).forEach((peer, j) =>
        errors.push(...validateNetworkPolicyPeer(peer, at.child(peers).index(j), rules)),
      );
    });
  }
  errors.push(...policyTypeErrors(spec.policyTypes ?? [], path.child('policyTypes')));
  return errors;
}

interface ParentReference {
  group?: string;
  resource?: string;
  namespace?: string;
  name?: string;
}

/** An IPAddress names what holds it (the core group, written empty, is allowed). */
export function validateIPAddress(address: KubeObject): FieldError[] {
  const parent = (address.spec as { parentRef?: ParentReference } | undefined)?.parentRef;
  const path = FieldPath.root('spec', 'parentRef');
  if (parent === undefined) return [required(path)];
  const errors: FieldError[] = [];
  if (parent.group)
    for (const message of isDNS1123Subdomain(parent.group))
      errors.push(invalid(path.child('group'), parent.group, message));
  for (const member of ['resource', 'name'] as const) {
    const value = parent[member];
    if (!value) errors.push(required(path.child(member)));
    else for (const message of isValidPathSegmentName(value)) errors.push(invalid(path.child(member), value, message));
  }
  if (parent.namespace)
    for (const message of isValidPathSegmentName(parent.namespace))
      errors.push(invalid(path.child('namespace'), parent.namespace, message));
  return errors;
}

/** One or two CIDRs, canonical, at most one of each IP family. */
export function validateServiceCIDR(serviceCIDR: KubeObject): FieldError[] {
  const cidrs = (serviceCIDR.spec as { cidrs?: string[] } | undefined)?.cidrs ?? [];
  const path = FieldPath.root('spec', 'cidrs');
  if (cidrs.length === 0) return [required(path, 'at least one CIDR required')];
  // The reference shows the whole spec, as its internal struct marshals.
  if (cidrs.length > 2)
    return [
      invalid(
        path,
        new GoValue(internalCompactJson('networking.ServiceCIDRSpec', serviceCIDR.spec)),
        'may only hold up to 2 values',
      ),
    ];
  const errors = cidrs.flatMap((cidr, i) => isValidCIDR(cidr).map((message) => invalid(path.index(i), cidr, message)));
  if (cidrs.length === 2 && ipFamilyOf(cidrs[0]) !== 0 && ipFamilyOf(cidrs[0]) === ipFamilyOf(cidrs[1])) {
    errors.push(
      invalid(path, cidrs, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'),
    );
  }
  return errors;
}

/** The controller an IngressClass names is fixed once made (the reference's 422). */
export function validateIngressClassUpdate(ingressClass: KubeObject, old: KubeObject): FieldError[] {
  const controllerOf = (object: KubeObject) => (object.spec as { controller?: string } | undefined)?.controller ?? '';
  return immutable(FieldPath.root('spec', 'controller'), controllerOf(ingressClass), controllerOf(old));
}

/** What holds an IPAddress is fixed once made; nothing else of it is judged again. */
export function validateIPAddressUpdate(address: KubeObject, old: KubeObject): FieldError[] {
  const parentOf = (object: KubeObject) => (object.spec as { parentRef?: ParentReference } | undefined)?.parentRef;
  const type = memberType('networking.IPAddressSpec', 'parentRef');
  const shown = new GoValue(internalCompactJson(type, parentOf(address)));
  return immutableAs(type, FieldPath.root('spec', 'parentRef'), parentOf(address), parentOf(old), shown);
}

/**
 * A ServiceCIDR's ranges are fixed once made, except that a single-stack one may gain a range
 * of the other family (then the new pair is judged as on create).
 */
export function validateServiceCIDRUpdate(serviceCIDR: KubeObject, old: KubeObject): FieldError[] {
  const cidrsOf = (object: KubeObject) => (object.spec as { cidrs?: string[] } | undefined)?.cidrs ?? [];
  const [cidrs, oldCidrs] = [cidrsOf(serviceCIDR), cidrsOf(old)];
  const path = FieldPath.root('spec', 'cidrs');
  if (cidrs.length === oldCidrs.length)
    return oldCidrs.flatMap((cidr, i) =>
      cidr === cidrs[i] ? [] : [invalid(path.index(i), cidrs[i], FIELD_IMMUTABLE)],
    );
  if (oldCidrs.length === 1 && cidrs.length === 2)
    return [
      ...(cidrs[0] === oldCidrs[0] ? [] : [invalid(path.index(0), cidrs[0], FIELD_IMMUTABLE)]),
      ...validateServiceCIDR(serviceCIDR),
    ];
  return [invalid(path, cidrs, FIELD_IMMUTABLE)];
}
