/**
 * A container's stop signal (`lifecycle.stopSignal`, with ContainerStopSignals), which the kubelet
 * sends in place of the image's: it means something only on an OS the pod declares, and each OS
 * takes its own signals (Windows only the two it can deliver). The lists are the reference's,
 * given sorted in its messages.
 */
import type { FieldError } from '../status/field-error';
import { forbidden, notSupported, type FieldPath } from '../status/field-errors';

const REALTIME_SIGNALS = [
  'SIGRTMIN',
  ...Array.from({ length: 15 }, (_, i) => `SIGRTMIN+${i + 1}`),
  ...Array.from({ length: 14 }, (_, i) => `SIGRTMAX-${i + 1}`),
  'SIGRTMAX',
];

const LINUX_STOP_SIGNALS = [
  ...['ABRT', 'ALRM', 'BUS', 'CHLD', 'CLD', 'CONT', 'FPE', 'HUP', 'ILL', 'INT', 'IO', 'IOT', 'KILL', 'PIPE'],
  ...['POLL', 'PROF', 'PWR', 'QUIT', 'SEGV', 'STKFLT', 'STOP', 'SYS', 'TERM', 'TRAP', 'TSTP', 'TTIN', 'TTOU'],
  ...['URG', 'USR1', 'USR2', 'VTALRM', 'WINCH', 'XCPU', 'XFSZ'],
]
  .map((name) => `SIG${name}`)
  .concat(REALTIME_SIGNALS)
  .sort();

const WINDOWS_STOP_SIGNALS = ['SIGKILL', 'SIGTERM'];

/** The signal against the pod's declared OS (`os`: `spec.os`), as validateStopSignal judges it. */
export function stopSignalErrors(
  signal: unknown,
  os: { name?: string } | null | undefined,
  path: FieldPath,
): FieldError[] {
  if (os === undefined || os === null)
    return [forbidden(path, 'may not be set for containers with empty `spec.os.name`')];
  const supported = os.name === 'windows' ? WINDOWS_STOP_SIGNALS : os.name === 'linux' ? LINUX_STOP_SIGNALS : undefined;
  if (supported === undefined || supported.includes(signal as string)) return [];
  return [notSupported(path, signal, supported)];
}
