/**
 * core v1 Endpoints, after the reference's validateEndpointSubsets: each subset has addresses,
 * each address a valid IP outside the unspecified, loopback, link-local and link-local multicast
 * ranges, each port a number and protocol. One exception: the `kubernetes` Service's own
 * Endpoints and EndpointSlice in `default` may hold loopback addresses, since capstan publishes
 * its advertise address there when that is loopback (a server on one machine, envtest), where the
 * reference's reconciler fails on it and leaves the Service without endpoints.
 */
import type { KubeObject } from '../../api/objects';
import { KUBERNETES_SERVICE } from '../../api/kubernetes-service';
import type { FieldError } from '../status/field-error';
import type { WriteContext } from '../registry/types';
import { FieldPath, invalid, notSupported, required } from '../status/field-errors';
import { endpointIPProblems, isValidIPForLegacyField } from './ip';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortNum } from './names';

interface EndpointAddress {
  ip?: string;
  hostname?: string;
  nodeName?: string;
}

interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validateAddress(
  address: EndpointAddress,
  path: FieldPath,
  strictIPs: boolean,
  allowLoopback: boolean,
): FieldError[] {
  const ip = address.ip ?? '';
  const errors = isValidIPForLegacyField(ip, strictIPs).map((message) => invalid(path.child('ip'), ip, message));
  if (address.hostname)
    for (const message of isDNS1123Label(address.hostname))
      errors.push(invalid(path.child('hostname'), address.hostname, message));
  if (address.nodeName !== undefined)
    for (const message of isDNS1123Subdomain(address.nodeName))
      errors.push(invalid(path.child('nodeName'), address.nodeName, message));
  // The reference checks the address twice, the second time with a shorter text (and sloppily),
  // and for the ranges an endpoint may not be in.
  errors.push(...endpointRangeErrors(ip, path.child('ip'), allowLoopback));
  return errors;
}

/**
 * Whether `object` is the `kubernetes` Service's Endpoints or EndpointSlice, whose addresses may
 * be loopback (see the top of this file).
 */
export function isKubernetesServiceEndpoints(object: KubeObject): boolean {
  return object.metadata.namespace === KUBERNETES_SERVICE.namespace && object.metadata.name === KUBERNETES_SERVICE.name;
}

/** The reference's ValidateEndpointIP of an Endpoints or EndpointSlice address. */
export function endpointRangeErrors(address: string, path: FieldPath, allowLoopback: boolean): FieldError[] {
  return endpointIPProblems(address, { allowLoopback }).map((message) => invalid(path, address, message));
}

function validatePort(port: EndpointPort, requireName: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (requireName && !port.name) errors.push(required(path.child('name')));
  else if (port.name)
    for (const message of isDNS1123Label(port.name)) errors.push(invalid(path.child('name'), port.name, message));
  for (const message of isValidPortNum(port.port ?? 0))
    errors.push(invalid(path.child('port'), port.port ?? 0, message));
  if (!port.protocol) errors.push(required(path.child('protocol')));
  else if (!PROTOCOLS.includes(port.protocol))
    errors.push(notSupported(path.child('protocol'), port.protocol, PROTOCOLS));
  if (port.appProtocol !== undefined)
    for (const message of isQualifiedName(port.appProtocol))
      errors.push(invalid(path.child('appProtocol'), port.appProtocol, message));
  return errors;
}

export function validateEndpoints(endpoints: KubeObject, context: WriteContext): FieldError[] {
  const strictIPs = context.featureEnabled('StrictIPCIDRValidation');
  const allowLoopback = isKubernetesServiceEndpoints(endpoints);
  const errors: FieldError[] = [];
  ((endpoints.subsets as EndpointSubset[] | undefined) ?? []).forEach((subset, i) => {
    const at = FieldPath.root('subsets').index(i);
    const addresses = subset.addresses ?? [];
    const notReady = subset.notReadyAddresses ?? [];
    const ports = subset.ports ?? [];
    if (addresses.length === 0 && notReady.length === 0)
      errors.push(required(at, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((address, j) =>
      errors.push(...validateAddress(address, at.child('addresses').index(j), strictIPs, allowLoopback)),
    );
    notReady.forEach((address, j) =>
      errors.push(...validateAddress(address, at.child('notReadyAddresses').index(j), strictIPs, allowLoopback)),
    );
    ports.forEach((port, j) => errors.push(...validatePort(port, ports.length > 1, at.child('ports').index(j))));
  });
  return errors;
}
