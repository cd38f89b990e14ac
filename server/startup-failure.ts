/**
 * Start-up failures an operator can cause and fix (a port in use, a file that cannot be read, a
 * bad flag value, an unreachable etcd): one line that says what failed and how to act on it, and
 * an exit code, never a stack trace. Anything else is a bug and keeps its stack.
 *
 * Exit codes: 2 for a configuration the server refuses (flags and their values), 1 for what
 * the machine refused (ports, files, the store).
 */
import { StoreUnavailableError } from '../storage/errors';
import { AdmissionConfigError, AdmissionFlagError } from './admission/config-error';
import { AuditConfigError } from './audit/record/config-error';
import { AuthenticationConfigError } from './authn/config-error';
import { AuthorizationConfigError } from './authz/config-error';
import { FlagError } from './config/flags';
import { RuntimeConfigError } from './config/runtime-config';
import { EncryptionConfigError } from './encryption/config-error';

export const EXIT_BAD_CONFIGURATION = 2;
export const EXIT_UNAVAILABLE = 1;

export class StartupFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'StartupFailure';
  }
}

/** The Node.js errors that name what the system refused. */
interface SystemError extends Error {
  readonly code?: string;
  readonly syscall?: string;
  readonly path?: string;
  readonly port?: number;
  readonly address?: string;
}

const SYSTEM_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
};

function listenFailure(error: SystemError): string | undefined {
  const where = `${error.address ?? ''}:${error.port ?? ''}`;
  if (error.code === 'EADDRINUSE')
    return `cannot listen on ${where}: the address is already in use (choose another port with --secure-port)`;
  if (error.code === 'EACCES')
    return `cannot listen on ${where}: permission denied (ports below 1024 need privileges; see --secure-port)`;
  if (error.code === 'EADDRNOTAVAIL')
    return `cannot listen on ${where}: the address is not on this machine (see --bind-address)`;
  return undefined;
}

/**
 * The failure of the start-up step `what` ("reading the certificates", ...) as a one-line
 * `StartupFailure`, or the error itself when it is not one an operator can fix.
 */
export function describeStartupFailure(what: string, error: unknown): unknown {
  if (error instanceof StartupFailure) return error;
  if (error instanceof FlagError) return new StartupFailure(`${what}: ${error.message}`, EXIT_BAD_CONFIGURATION);
  // Found while the control plane starts, but the flag is what to fix.
  if (error instanceof RuntimeConfigError)
    return new StartupFailure(`invalid --runtime-config: ${error.message}`, EXIT_BAD_CONFIGURATION);
  if (error instanceof AdmissionFlagError) return new StartupFailure(error.message, EXIT_BAD_CONFIGURATION);
  // The reference wraps what it meets while it sets admission up.
  if (error instanceof AdmissionConfigError)
    return new StartupFailure(`failed to apply admission: ${error.message}`, EXIT_BAD_CONFIGURATION);
  if (error instanceof AuditConfigError) return new StartupFailure(error.message, EXIT_BAD_CONFIGURATION);
  if (error instanceof AuthenticationConfigError) return new StartupFailure(error.message, EXIT_BAD_CONFIGURATION);
  if (error instanceof AuthorizationConfigError) return new StartupFailure(error.message, EXIT_BAD_CONFIGURATION);
  if (error instanceof EncryptionConfigError) return new StartupFailure(error.message, EXIT_BAD_CONFIGURATION);
  if (error instanceof StoreUnavailableError)
    return new StartupFailure(`${what}: ${firstLine(error.message)}`, EXIT_UNAVAILABLE);
  if (!(error instanceof Error)) return error;
  const system = error as SystemError;
  if (system.syscall === 'listen') {
    const line = listenFailure(system);
    if (line !== undefined) return new StartupFailure(line, EXIT_UNAVAILABLE);
  }
  if (system.code !== undefined && system.path !== undefined && SYSTEM_REASONS[system.code] !== undefined) {
    return new StartupFailure(`${what}: ${system.path}: ${SYSTEM_REASONS[system.code]}`, EXIT_UNAVAILABLE);
  }
  if (system.code === 'ERR_SQLITE_ERROR')
    return new StartupFailure(`${what}: ${firstLine(system.message)}`, EXIT_UNAVAILABLE);
  // OpenSSL's refusals of a certificate or key file's content.
  if (system.code?.startsWith('ERR_OSSL') || system.code === 'ERR_INVALID_ARG_VALUE') {
    return new StartupFailure(
      `${what}: not a valid PEM certificate or key (${firstLine(system.message)})`,
      EXIT_UNAVAILABLE,
    );
  }
  return error;
}

function firstLine(text: string): string {
  return text
    .split('\n')[0]
    .replace(/\s*Resolution note:\s*$/, '')
    .trim();
}

/** Runs one start-up step, turning the failures an operator can fix into `StartupFailure`s. */
export async function startupStep<T>(what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw describeStartupFailure(what, error);
  }
}
