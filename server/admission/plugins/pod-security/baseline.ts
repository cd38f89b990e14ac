/**
 * The checks of the baseline Pod Security Standard, one function per check: each reads a pod's
 * metadata and spec and answers allowed, or the reference's reason and detail. Which versions of
 * the standard run which function is in checks.ts.
 */
import { goQuote } from '../../../../api/go-quote';
import {
  ALLOWED,
  containerName,
  containers,
  containersPhrase,
  forbid,
  joinQuote,
  list,
  pluralize,
  present,
  record,
  securityContext,
  sorted,
  strings,
  type CheckResult,
  type Fields,
  type PodView,
} from './pod-view';

/** Pod and containers must not set securityContext.windowsOptions.hostProcess. */
export function windowsHostProcess({ spec }: PodView): CheckResult {
  const hostProcess = (owner: Fields) => record(securityContext(owner).windowsOptions).hostProcess === true;
  const setters = [...(hostProcess(spec) ? ['pod'] : []), ...containersSetting(spec, hostProcess)];
  return setters.length === 0
    ? ALLOWED
    : forbid('hostProcess', `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`);
}

function containersSetting(spec: Fields, predicate: (container: Fields) => boolean): string[] {
  const bad = containers(spec).filter(predicate).map(containerName);
  return bad.length === 0 ? [] : [containersPhrase(bad)];
}

export function hostNamespaces({ spec }: PodView): CheckResult {
  const shared = (['hostNetwork', 'hostPID', 'hostIPC'] as const)
    .filter((field) => spec[field] === true)
    .map((field) => `${field}=true`);
  return shared.length === 0 ? ALLOWED : forbid('host namespaces', shared.join(', '));
}

export function privileged({ spec }: PodView): CheckResult {
  const bad = containers(spec)
    .filter((container) => securityContext(container).privileged === true)
    .map(containerName);
  return bad.length === 0
    ? ALLOWED
    : forbid('privileged', `${containersPhrase(bad)} must not set securityContext.privileged=true`);
}

const DEFAULT_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

export function capabilitiesBaseline({ spec }: PodView): CheckResult {
  const bad: string[] = [];
  const added: string[] = [];
  for (const container of containers(spec)) {
    const extra = strings(record(securityContext(container).capabilities).add).filter(
      (capability) => !DEFAULT_CAPABILITIES.has(capability),
    );
    if (extra.length > 0) bad.push(containerName(container));
    added.push(...extra);
  }
  return bad.length === 0
    ? ALLOWED
    : forbid(
        'non-default capabilities',
        `${containersPhrase(bad)} must not include ${joinQuote(sorted(added))} in securityContext.capabilities.add`,
      );
}

export function hostPathVolumes({ spec }: PodView): CheckResult {
  const bad = list(spec.volumes)
    .filter((volume) => present(volume.hostPath))
    .map((volume) => String(volume.name ?? ''));
  return bad.length === 0
    ? ALLOWED
    : forbid('hostPath volumes', `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}`);
}

export function hostPorts({ spec }: PodView): CheckResult {
  const bad: string[] = [];
  const ports = new Set<string>();
  for (const container of containers(spec)) {
    const used = list(container.ports)
      .map((port) => Number(port.hostPort ?? 0))
      .filter((port) => port !== 0);
    if (used.length > 0) bad.push(containerName(container));
    for (const port of used) ports.add(String(port));
  }
  if (bad.length === 0) return ALLOWED;
  return forbid(
    'hostPort',
    `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', ports.size)} ${sorted(ports).join(', ')}`,
  );
}

const handlerHosts = (handler: unknown): string[] =>
  [record(record(handler).httpGet).host, record(record(handler).tcpSocket).host].filter(
    (host): host is string => typeof host === 'string' && host !== '',
  );

/** Probes and lifecycle handlers must not name a host (from 1.34). */
export function hostProbesAndHostLifecycle({ spec }: PodView): CheckResult {
  const bad = new Set<string>();
  const hosts = new Set<string>();
  for (const container of containers(spec)) {
    const lifecycle = record(container.lifecycle);
    const found = [
      container.livenessProbe,
      container.readinessProbe,
      container.startupProbe,
      lifecycle.postStart,
      lifecycle.preStop,
    ].flatMap(handlerHosts);
    if (found.length > 0) bad.add(containerName(container));
    for (const host of found) hosts.add(host);
  }
  if (bad.size === 0) return ALLOWED;
  return forbid(
    'probe or lifecycle host',
    `${containersPhrase(sorted(bad))} ${pluralize('uses', 'use', bad.size)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', hosts.size)} ${joinQuote(sorted(hosts))}`,
  );
}

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
const allowedAppArmorAnnotation = (value: string) =>
  value === '' || value === 'runtime/default' || value.startsWith('localhost/');
const allowedAppArmorType = (type: unknown) => type === 'RuntimeDefault' || type === 'Localhost';

export function appArmorProfile({ annotations, spec }: PodView): CheckResult {
  const setters: string[] = [];
  const values = new Set<string>();
  const profile = (owner: Fields) => securityContext(owner).appArmorProfile;
  if (present(profile(spec)) && !allowedAppArmorType(record(profile(spec)).type)) {
    setters.push('pod');
    values.add(String(record(profile(spec)).type ?? ''));
  }
  const bad: string[] = [];
  for (const container of containers(spec)) {
    if (present(profile(container)) && !allowedAppArmorType(record(profile(container)).type)) {
      bad.push(containerName(container));
      values.add(String(record(profile(container)).type ?? ''));
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  const badValues = sorted(values);
  const forbiddenAnnotations = Object.entries(annotations)
    .filter(([key, value]) => key.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAppArmorAnnotation(value))
    .map(([key, value]) => `${key}=${goQuote(value)}`)
    .sort();
  if (forbiddenAnnotations.length > 0) {
    badValues.push(...forbiddenAnnotations);
    setters.push(pluralize('annotation', 'annotations', forbiddenAnnotations.length));
  }
  if (setters.length === 0) return ALLOWED;
  return forbid(
    pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', badValues.length),
    `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(badValues)}`,
  );
}

const SELINUX_TYPES_1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t'];
const SELINUX_TYPES_1_31 = [...SELINUX_TYPES_1_0, 'container_engine_t'];

function seLinuxOptions({ spec }: PodView, allowedTypes: readonly string[]): CheckResult {
  const badTypes = new Set<string>();
  let setUser = false;
  let setRole = false;
  const valid = (options: Fields) => {
    const type = String(options.type ?? '');
    const typeAllowed = allowedTypes.includes(type);
    if (!typeAllowed) badTypes.add(type);
    if (String(options.user ?? '') !== '') setUser = true;
    if (String(options.role ?? '') !== '') setRole = true;
    return typeAllowed && String(options.user ?? '') === '' && String(options.role ?? '') === '';
  };
  const setters: string[] = [];
  if (present(securityContext(spec).seLinuxOptions) && !valid(record(securityContext(spec).seLinuxOptions)))
    setters.push('pod');
  const bad = containers(spec)
    .filter(
      (container) =>
        present(securityContext(container).seLinuxOptions) && !valid(record(securityContext(container).seLinuxOptions)),
    )
    .map(containerName);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  const data = [
    ...(badTypes.size > 0 ? [`${pluralize('type', 'types', badTypes.size)} ${joinQuote(sorted(badTypes))}`] : []),
    ...(setUser ? ['user may not be set'] : []),
    ...(setRole ? ['role may not be set'] : []),
  ];
  return forbid(
    'seLinuxOptions',
    `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`,
  );
}

export const seLinuxOptions1_0 = (pod: PodView) => seLinuxOptions(pod, SELINUX_TYPES_1_0);
export const seLinuxOptions1_31 = (pod: PodView) => seLinuxOptions(pod, SELINUX_TYPES_1_31);

/** procMount must stay Default (user-namespaced pods may be relaxed: see checks.ts). */
export function procMount({ spec }: PodView): CheckResult {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const container of containers(spec)) {
    const mount = securityContext(container).procMount;
    if (present(mount) && mount !== 'Default') {
      bad.push(containerName(container));
      types.add(String(mount));
    }
  }
  return bad.length === 0
    ? ALLOWED
    : forbid(
        'procMount',
        `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sorted(types))}`,
      );
}

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const validSeccompAnnotation = (value: string) =>
  value === 'runtime/default' || value === 'docker/default' || value.startsWith('localhost/');
export const validSeccompType = (type: unknown) => type === 'Localhost' || type === 'RuntimeDefault';

/** Before 1.19 seccomp was set by annotations. */
export function seccompProfileBaseline1_0({ annotations, spec }: PodView): CheckResult {
  const forbidden = new Set<string>();
  const keys = [
    SECCOMP_POD_ANNOTATION,
    ...containers(spec).map((container) => SECCOMP_CONTAINER_ANNOTATION_PREFIX + containerName(container)),
  ];
  for (const key of keys) {
    const value = annotations[key];
    if (value !== undefined && !validSeccompAnnotation(value)) forbidden.add(`${key}=${goQuote(value)}`);
  }
  if (forbidden.size === 0) return ALLOWED;
  return forbid(
    'seccompProfile',
    `forbidden ${pluralize('annotation', 'annotations', forbidden.size)} ${sorted(forbidden).join(', ')}`,
  );
}

/** Pod and container seccomp profiles that are set, with the containers that set a forbidden one. */
export function seccompSetters(spec: Fields): {
  setters: string[];
  values: Set<string>;
  podSet: boolean;
  unsetContainers: string[];
} {
  const setters: string[] = [];
  const values = new Set<string>();
  const profile = (owner: Fields) => securityContext(owner).seccompProfile;
  let podSet = false;
  if (present(profile(spec))) {
    const type = record(profile(spec)).type;
    if (validSeccompType(type)) podSet = true;
    else {
      setters.push('pod');
      values.add(String(type ?? ''));
    }
  }
  const bad: string[] = [];
  const unsetContainers: string[] = [];
  for (const container of containers(spec)) {
    if (present(profile(container))) {
      const type = record(profile(container)).type;
      if (!validSeccompType(type)) {
        bad.push(containerName(container));
        values.add(String(type ?? ''));
      }
    } else if (!podSet) {
      unsetContainers.push(containerName(container));
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return { setters, values, podSet, unsetContainers };
}

export function seccompProfileBaseline1_19({ spec }: PodView): CheckResult {
  const { setters, values } = seccompSetters(spec);
  if (setters.length === 0) return ALLOWED;
  return forbid(
    'seccompProfile',
    `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sorted(values))}`,
  );
}

const SAFE_SYSCTLS_1_0 = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
];
const SAFE_SYSCTLS_1_27 = [...SAFE_SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SAFE_SYSCTLS_1_29 = [
  ...SAFE_SYSCTLS_1_27,
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];
const SAFE_SYSCTLS_1_32 = [...SAFE_SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

function sysctls({ spec }: PodView, safe: readonly string[]): CheckResult {
  const bad = list(securityContext(spec).sysctls)
    .map((sysctl) => String(sysctl.name ?? ''))
    .filter((name) => !safe.includes(name));
  return bad.length === 0 ? ALLOWED : forbid('forbidden sysctls', bad.join(', '));
}

export const sysctls1_0 = (pod: PodView) => sysctls(pod, SAFE_SYSCTLS_1_0);
export const sysctls1_27 = (pod: PodView) => sysctls(pod, SAFE_SYSCTLS_1_27);
export const sysctls1_29 = (pod: PodView) => sysctls(pod, SAFE_SYSCTLS_1_29);
export const sysctls1_32 = (pod: PodView) => sysctls(pod, SAFE_SYSCTLS_1_32);
