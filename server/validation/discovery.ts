/**
 * discovery.k8s.io/v1 EndpointSlice rules, after the reference's: an address type, and for
 * each endpoint its addresses (of that type and outside the ranges an endpoint may not be in),
 * node name, hostname and hints. As for Endpoints, the `kubernetes` Service's slice alone may
 * hold loopback addresses (endpoints.ts).
 */
import { isIPv6 } from 'node:net';
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import type { WriteContext } from '../registry/types';
import {
  deepEqual,
  duplicate,
  FieldPath,
  immutable,
  invalid,
  notSupported,
  required,
  tooMany,
} from '../status/field-errors';
import { isValidIP, isValidIPForLegacyField, sloppyIPFamily } from './ip';
import { endpointRangeErrors, isKubernetesServiceEndpoints } from './endpoints';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from './names';

interface Endpoint {
  addresses?: string[];
  nodeName?: string;
  hostname?: string;
  hints?: { forZones?: { name?: string }[]; forNodes?: { name?: string }[] };
}

function addressErrors(
  address: string,
  addressType: string,
  path: FieldPath,
  listPath: FieldPath,
  strictIPs: boolean,
  allowLoopback: boolean,
): FieldError[] {
  if (addressType === 'IPv4') {
    const messages = isValidIPForLegacyField(address, strictIPs);
    if (messages.length > 0) return messages.map((message) => invalid(path, address, message));
    // Read as Go's sloppy parser reads it: leading zeros, or IPv4-mapped, it is IPv4.
    const family = sloppyIPFamily(address) === 4 ? [] : [invalid(listPath, address, 'must be an IPv4 address')];
    return [...family, ...endpointRangeErrors(address, path, allowLoopback)];
  }
  if (addressType === 'IPv6') {
    const messages = isValidIP(address);
    if (messages.length > 0) return messages.map((message) => invalid(path, address, message));
    const family = isIPv6(address) ? [] : [invalid(listPath, address, 'must be an IPv6 address')];
    return [...family, ...endpointRangeErrors(address, path, allowLoopback)];
  }
  if (addressType === 'FQDN') return fullyQualifiedDomainNameErrors(address, path);
  return [];
}

/**
 * apimachinery's IsFullyQualifiedDomainName: a DNS subdomain (a final dot aside) of at least two
 * labels; the first problem found is the only one.
 */
function fullyQualifiedDomainNameErrors(address: string, path: FieldPath): FieldError[] {
  if (address === '') return [required(path)];
  const name = address.endsWith('.') ? address.slice(0, -1) : address;
  const problems = isDNS1123Subdomain(name);
  if (problems.length > 0) return [invalid(path, name, problems.join(','))];
  const labels = name.split('.');
  if (labels.length < 2)
    return [invalid(path, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const labelProblems = isDNS1123Label(label);
    if (labelProblems.length > 0) return [invalid(path, label, labelProblems.join(','))];
  }
  return [];
}

/** Each hint names a zone (a label value) or a node, each once. */
function hintErrors(hints: NonNullable<Endpoint['hints']>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const lists = [
    ['forZones', isValidLabelValue],
    ['forNodes', isDNS1123Subdomain],
  ] as const;
  for (const [list, check] of lists) {
    const seen = new Set<string>();
    (hints[list] ?? []).forEach((hint, i) => {
      const at = path.child(list).index(i).child('name');
      const name = hint.name ?? '';
      if (seen.has(name)) errors.push(duplicate(at, name));
      seen.add(name);
      for (const message of check(name)) errors.push(invalid(at, name, message));
    });
  }
  return errors;
}

export function validateEndpointSlice(slice: KubeObject, context: WriteContext): FieldError[] {
  return [...addressTypeErrors(slice), ...portErrors(slice), ...endpointErrors(slice, context)];
}

interface EndpointPort {
  name?: string;
  protocol?: string | null;
  appProtocol?: string;
}

const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** The reference's bounds on a slice: endpoints, addresses of one endpoint, ports. */
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20_000;

/**
 * Each port's name a DNS label and unique, its protocol one of the known ones: defaulting fills
 * only a protocol left out (a pointer in Go), so `""` sent is refused.
 */
function portErrors(slice: KubeObject): FieldError[] {
  const ports = (slice.ports as EndpointPort[] | undefined) ?? [];
  if (ports.length > MAX_PORTS) return [tooMany(FieldPath.root('ports'), ports.length, MAX_PORTS)];
  const errors: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = FieldPath.root('ports').index(i);
    const name = port.name ?? '';
    if (name !== '') for (const message of isDNS1123Label(name)) errors.push(invalid(at.child('name'), name, message));
    if (names.has(name)) errors.push(duplicate(at.child('name'), name));
    names.add(name);
    if (port.protocol === undefined || port.protocol === null) errors.push(required(at.child('protocol')));
    else if (!PORT_PROTOCOLS.includes(port.protocol))
      errors.push(notSupported(at.child('protocol'), port.protocol, PORT_PROTOCOLS));
    if (port.appProtocol !== undefined)
      for (const message of isQualifiedName(port.appProtocol))
        errors.push(invalid(at.child('appProtocol'), port.appProtocol, message));
  });
  return errors;
}

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];

function addressTypeErrors(slice: KubeObject): FieldError[] {
  const addressType = typeof slice.addressType === 'string' ? slice.addressType : '';
  if (addressType === '') return [required(FieldPath.root('addressType'))];
  return ADDRESS_TYPES.includes(addressType)
    ? []
    : [notSupported(FieldPath.root('addressType'), addressType, ADDRESS_TYPES)];
}

function endpointErrors(slice: KubeObject, context: WriteContext): FieldError[] {
  const strictIPs = context.featureEnabled('StrictIPCIDRValidation');
  const addressType = typeof slice.addressType === 'string' ? slice.addressType : '';
  const allowLoopback = isKubernetesServiceEndpoints(slice);
  const endpoints = (slice.endpoints as Endpoint[] | undefined) ?? [];
  if (endpoints.length > MAX_ENDPOINTS) return [tooMany(FieldPath.root('endpoints'), endpoints.length, MAX_ENDPOINTS)];
  const errors: FieldError[] = [];
  endpoints.forEach((endpoint, i) => {
    const at = FieldPath.root('endpoints').index(i);
    const addresses = endpoint.addresses ?? [];
    if (addresses.length === 0) errors.push(required(at.child('addresses'), 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES)
      errors.push(tooMany(at.child('addresses'), addresses.length, MAX_ADDRESSES));
    addresses.forEach((address, j) =>
      errors.push(
        ...addressErrors(
          address,
          addressType,
          at.child('addresses').index(j),
          at.child('addresses'),
          strictIPs,
          allowLoopback,
        ),
      ),
    );
    if (endpoint.nodeName !== undefined)
      for (const message of isDNS1123Subdomain(endpoint.nodeName))
        errors.push(invalid(at.child('nodeName'), endpoint.nodeName, message));
    if (endpoint.hostname !== undefined)
      for (const message of isDNS1123Label(endpoint.hostname))
        errors.push(invalid(at.child('hostname'), endpoint.hostname, message));
    if (endpoint.hints !== undefined) errors.push(...hintErrors(endpoint.hints, at.child('hints')));
  });
  return errors;
}

/**
 * Endpoints an update leaves as they were are not judged again, as the reference lets data an
 * older release took for valid stand (so an address type change is refused on its own).
 */
export function validateEndpointSliceUpdate(slice: KubeObject, old: KubeObject, context: WriteContext): FieldError[] {
  const unchanged = deepEqual(slice.endpoints ?? [], old.endpoints ?? []);
  return [
    ...addressTypeErrors(slice),
    ...portErrors(slice),
    ...(unchanged ? [] : endpointErrors(slice, context)),
    ...immutable(FieldPath.root('addressType'), slice.addressType ?? '', old.addressType ?? ''),
  ];
}
