/**
 * A pod's sysctls (`spec.securityContext.sysctls`), as the reference's validateSysctls judges
 * them: each name present, of the sysctl format (dots or slashes between segments) and given
 * once; and none that belongs to a kernel namespace the pod shares with its node, since setting
 * it would change the node's own network or IPC settings. Which sysctls are namespaced follows
 * the reference's component-helpers list; a name written with slashes is read as its dotted form.
 */
import type { FieldError } from '../status/field-error';
import { duplicate, invalid, required, type FieldPath } from '../status/field-errors';

const SYSCTL_MAX_LENGTH = 253;
const SYSCTL_NAME_FMT = '([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_NAME = new RegExp(`^${SYSCTL_NAME_FMT}$`);

/** The host namespace a namespaced sysctl belongs to, named by the pod field that shares it. */
type HostNamespaceField = 'hostNetwork' | 'hostIPC';

/** The IPC namespace's sysctls named whole: semaphores, shared memory and messages. */
const IPC_SYSCTLS = new Set([
  'kernel.sem',
  'kernel.shmall',
  'kernel.shmmax',
  'kernel.shmmni',
  'kernel.shm_rmid_forced',
  'kernel.shm',
  'kernel.msgmax',
  'kernel.msgmnb',
  'kernel.msgmni',
  'kernel.msg',
]);

/** Whole subtrees: everything below `net.` is the network namespace's, below `fs.mqueue.` the IPC one's. */
const NAMESPACED_PREFIXES: readonly [string, HostNamespaceField][] = [
  ['net.', 'hostNetwork'],
  ['fs.mqueue.', 'hostIPC'],
];

export interface SysctlPodSpec {
  hostNetwork?: unknown;
  hostIPC?: unknown;
  securityContext?: { sysctls?: readonly { name?: string }[] | null } | null;
}

/**
 * The dotted form of a name: one whose first separator is a slash (`net/ipv4/conf/eno2.100/rp_filter`)
 * has its dots and slashes swapped, as sysctl(8) reads it.
 */
function dottedName(name: string): string {
  const first = name.search(/[./]/);
  if (first === -1 || name[first] === '.') return name;
  return name.replace(/[./]/g, (separator) => (separator === '.' ? '/' : '.'));
}

/** The namespace a sysctl (or, up to a `*`, a family of them) is in; undefined when not namespaced. */
function namespaceOf(name: string): HostNamespaceField | undefined {
  let dotted = dottedName(name);
  const wildcard = dotted.indexOf('*');
  if (wildcard !== -1) dotted = dotted.slice(0, wildcard);
  if (IPC_SYSCTLS.has(dotted)) return 'hostIPC';
  return NAMESPACED_PREFIXES.find(([prefix]) => dotted.startsWith(prefix))?.[1];
}

/** The host namespace the pod shares that this sysctl would change, if any. */
function sharedNamespaceOf(name: string, spec: SysctlPodSpec): HostNamespaceField | undefined {
  const namespace = namespaceOf(name);
  return namespace !== undefined && spec[namespace] === true ? namespace : undefined;
}

/**
 * Whether a stored spec already sets a sysctl of a namespace it shares with the host: an update
 * of it may keep doing so (GetValidationOptionsFromPodSpecAndMeta's ratchet, for objects written
 * before the rule).
 */
export function setsHostNamespacedSysctl(spec: SysctlPodSpec | undefined): boolean {
  return (spec?.securityContext?.sysctls ?? []).some(
    (sysctl) => sharedNamespaceOf(sysctl.name ?? '', spec ?? {}) !== undefined,
  );
}

/**
 * Each sysctl's name, then whether the pod shares its namespace with the host (for a bad name
 * too), unless `allowHostNamespaced`.
 */
export function validateSysctls(
  spec: SysctlPodSpec,
  path: FieldPath,
  { allowHostNamespaced }: { readonly allowHostNamespaced: boolean },
): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  (spec.securityContext?.sysctls ?? []).forEach((sysctl, i) => {
    const at = path.index(i).child('name');
    const name = sysctl.name ?? '';
    if (name === '') errors.push(required(at));
    else if (name.length > SYSCTL_MAX_LENGTH || !SYSCTL_NAME.test(name)) {
      errors.push(
        invalid(at, name, `must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ^${SYSCTL_NAME_FMT}$`),
      );
    } else if (names.has(name)) errors.push(duplicate(at, name));
    const shared = allowHostNamespaced ? undefined : sharedNamespaceOf(name, spec);
    if (shared !== undefined) errors.push(invalid(at, name, `may not be specified when '${shared}' is true`));
    names.add(name);
  });
  return errors;
}
