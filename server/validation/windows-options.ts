/**
 * A pod's or container's Windows options (`securityContext.windowsOptions`) as the reference's
 * validateWindowsSecurityContextOptions judges them, whatever OS the pod declares: the GMSA
 * credential spec's name (an object's) and size, and the user name's form, `DOMAIN\USER` with
 * the domain optional. Sizes are in bytes, as Go's len counts them, though the messages say
 * characters. The values are printed as the reference prints the string pointers it passes: as
 * JSON, not quoted the Go way. Then the one option judged across the pod: hostProcess.
 */
import { goJSONQuote } from '../../api/go-quote';
import type { FieldError } from '../status/field-error';
import { forbidden, GoValue, invalid, type FieldPath } from '../status/field-errors';
import { clusterPolicy } from './cluster-policy';
import { isDNS1123Subdomain } from './names';
import { containersOf, type ContainerLists } from './pod-containers';

export interface WindowsOptions {
  gmsaCredentialSpecName?: unknown;
  gmsaCredentialSpec?: unknown;
  runAsUserName?: unknown;
  hostProcess?: boolean;
}

const MAX_CREDENTIAL_SPEC_KIB = 64;
const MAX_DOMAIN_BYTES = 256;
const MAX_USER_BYTES = 104;

/** Go's `[[:cntrl:]]`: the ASCII control characters only. */
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;
/** A NetBIOS domain: at most 15 characters (not bytes), none of `\/:*?"<>|`, no dot first. */
const NETBIOS_DOMAIN = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/u;
/** A DNS domain, its labels of either case (unlike an object's name). */
const DNS_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const DNS_DOMAIN = new RegExp(`^${DNS_LABEL}(?:\\.${DNS_LABEL})*$`);
const USER_FORBIDDEN_CHARACTER = /["/\\:;|=,+*?<>@[\]]/;
const ONLY_DOTS_AND_SPACES = /^[. ]+$/;

const shown = (value: string) => new GoValue(goJSONQuote(value));

export function validateWindowsOptions(options: WindowsOptions | null | undefined, path: FieldPath): FieldError[] {
  if (options === undefined || options === null) return [];
  const errors: FieldError[] = [];
  const { gmsaCredentialSpecName: specName, gmsaCredentialSpec: spec, runAsUserName: userName } = options;
  if (typeof specName === 'string')
    for (const message of isDNS1123Subdomain(specName))
      errors.push(invalid(path.child('gmsaCredentialSpecName'), shown(specName), message));
  if (typeof spec === 'string') {
    const at = path.child('gmsaCredentialSpec');
    if (spec === '') errors.push(invalid(at, shown(spec), 'gmsaCredentialSpec cannot be an empty string'));
    else if (Buffer.byteLength(spec) > MAX_CREDENTIAL_SPEC_KIB * 1024)
      errors.push(invalid(at, shown(spec), `gmsaCredentialSpec size must be under ${MAX_CREDENTIAL_SPEC_KIB} KiB`));
  }
  if (typeof userName === 'string')
    for (const message of userNameMessages(userName))
      errors.push(invalid(path.child('runAsUserName'), shown(userName), message));
  return errors;
}

/**
 * An empty name, control characters or a second backslash end the checks; otherwise the domain
 * (when there is a backslash) and the user are each judged on every rule.
 */
function userNameMessages(userName: string): string[] {
  if (userName === '') return ['runAsUserName cannot be an empty string'];
  if (CONTROL_CHARACTER.test(userName)) return ['runAsUserName cannot contain control characters'];
  const parts = userName.split('\\');
  if (parts.length > 2) return ['runAsUserName cannot contain more than one backslash'];
  const [domain, user] = parts.length === 2 ? parts : ['', parts[0]];
  const messages: string[] = [];
  if (Buffer.byteLength(domain) >= MAX_DOMAIN_BYTES)
    messages.push(`runAsUserName's Domain length must be under ${MAX_DOMAIN_BYTES} characters`);
  if (parts.length === 2 && !NETBIOS_DOMAIN.test(domain) && !DNS_DOMAIN.test(domain))
    messages.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format");
  const userBytes = Buffer.byteLength(user);
  if (userBytes === 0) messages.push("runAsUserName's User cannot be empty");
  else if (userBytes > MAX_USER_BYTES)
    messages.push(`runAsUserName's User length must not be longer than ${MAX_USER_BYTES} characters`);
  if (ONLY_DOTS_AND_SPACES.test(user)) messages.push("runAsUserName's User cannot contain only periods or spaces");
  if (USER_FORBIDDEN_CHARACTER.test(user))
    messages.push(`runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`);
  return messages;
}

interface WindowsSecurityContext {
  windowsOptions?: WindowsOptions;
}

export interface HostProcessPodSpec extends ContainerLists<{ securityContext?: WindowsSecurityContext }> {
  hostNetwork?: unknown;
  securityContext?: WindowsSecurityContext;
}

/**
 * Windows hostProcess containers, as the reference's validateWindowsHostProcessPod checks them:
 * the pod's and a container's setting agree, all containers or none are hostProcess (a container
 * that says nothing takes the pod's), such a pod uses the host network, and only a cluster that
 * allows privileged containers takes one.
 */
export function validateHostProcessPod(spec: HostProcessPodSpec, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const podHostProcess = spec.securityContext?.windowsOptions?.hostProcess;
  const containers = containersOf(spec, path);
  let hostProcessCount = 0;
  for (const [container, at] of containers) {
    const hostProcess = container.securityContext?.windowsOptions?.hostProcess;
    if (podHostProcess !== undefined && hostProcess !== undefined && podHostProcess !== hostProcess)
      errors.push(
        invalid(
          at.child('securityContext', 'windowsOptions', 'hostProcess'),
          hostProcess,
          `pod hostProcess value must be identical if both are specified, was ${podHostProcess}`,
        ),
      );
    if (hostProcess ?? podHostProcess) hostProcessCount++;
  }
  if (hostProcessCount === 0) return errors;
  if (hostProcessCount !== containers.length)
    errors.push(
      invalid(
        path,
        '',
        'If pod contains any hostProcess containers then all containers must be HostProcess containers',
      ),
    );
  if (spec.hostNetwork !== true)
    errors.push(
      invalid(path.child('hostNetwork'), false, 'hostNetwork must be true if pod contains any hostProcess containers'),
    );
  if (!clusterPolicy().allowPrivileged)
    errors.push(forbidden(path, 'hostProcess containers are disallowed by cluster policy'));
  return errors;
}
