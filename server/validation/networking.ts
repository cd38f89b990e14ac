/** networking.k8s.io/v1 rules for Ingresses, IPAddresses and ServiceCIDRs. */
import type { KubeObject } from '../../storage/objects/types';
import type { FieldError } from '../status/field-error';
import { FieldPath, invalid, notSupported, required } from './field-errors';
import { ipFamilyOf, isValidCIDR } from './ip';
import { isDNS1123Subdomain, isValidPathSegmentName } from './names';

interface IngressPath {
  path?: string;
  pathType?: string;
  backend?: unknown;
}

export function validateIngress(ingress: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = (ingress.spec as { rules?: { http?: { paths?: IngressPath[] } }[]; defaultBackend?: unknown } | undefined) ?? {};
  const rules = spec.rules ?? [];
  if (rules.length === 0 && spec.defaultBackend === undefined) errors.push(required(FieldPath.root('spec'), 'either `defaultBackend` or `rules` must be specified'));
  rules.forEach((rule, i) => {
    (rule.http?.paths ?? []).forEach((path, j) => {
      const at = FieldPath.root('spec', 'rules').index(i).child('http', 'paths').index(j);
      if (!path.pathType) errors.push(required(at.child('pathType'), 'pathType must be specified'));
      else if (!['Exact', 'ImplementationSpecific', 'Prefix'].includes(path.pathType)) errors.push(notSupported(at.child('pathType'), path.pathType, ['Exact', 'ImplementationSpecific', 'Prefix']));
      if (path.backend === undefined) errors.push(required(at.child('backend')));
    });
  });
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
  if (parent.group) for (const message of isDNS1123Subdomain(parent.group)) errors.push(invalid(path.child('group'), parent.group, message));
  for (const member of ['resource', 'name'] as const) {
    const value = parent[member];
    if (!value) errors.push(required(path.child(member)));
    else for (const message of isValidPathSegmentName(value)) errors.push(invalid(path.child(member), value, message));
  }
  if (parent.namespace) for (const message of isValidPathSegmentName(parent.namespace)) errors.push(invalid(path.child('namespace'), parent.namespace, message));
  return errors;
}

/** One or two CIDRs, canonical, at most one of each IP family. */
export function validateServiceCIDR(serviceCIDR: KubeObject): FieldError[] {
  const cidrs = (serviceCIDR.spec as { cidrs?: string[] } | undefined)?.cidrs ?? [];
  const path = FieldPath.root('spec', 'cidrs');
  if (cidrs.length === 0) return [required(path, 'at least one CIDR required')];
  if (cidrs.length > 2) return [invalid(path, { cidrs }, 'may only hold up to 2 values')];
  const errors = cidrs.flatMap((cidr, i) => isValidCIDR(cidr).map((message) => invalid(path.index(i), cidr, message)));
  if (cidrs.length === 2 && ipFamilyOf(cidrs[0]) !== 0 && ipFamilyOf(cidrs[0]) === ipFamilyOf(cidrs[1])) {
    errors.push(invalid(path, cidrs, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'));
  }
  return errors;
}
