/**
 * How service-account tokens are signed and verified, from the flags: a signing key file (or
 * the key generated in the certificate directory) with the public keys of
 * `--service-account-key-file`, or an external signer at `--service-account-signing-endpoint`
 * that holds the private keys and hands out the public ones. The checks follow the reference's
 * two passes: completing the options (the lifetime bounds, the signing-key conflict, then
 * dialling the signer and reading its limits), then validating them (the key-file conflict, the
 * ExternalServiceAccountTokenSigner gate, the abstract socket name), so a refused flag is
 * reported, as there, only once the signer has answered.
 */
import { readFileSync } from 'node:fs';
import { certDirOf } from './config/file-locations';
import { goDuration } from './config/duration';
import { featureEnabled } from './config/feature-enabled';
import type { Registry } from 'prom-client';
import type { ServerOptions } from './config/flags';
import { ensureServiceAccountKey } from './pki/service-account-key';
import { keySigner, type TokenSigner } from './authn/service-account/claims';
import { connectExternalSigner } from './authn/service-account/external-signer';
import { parsePublicKeys, parseSigningKey, type VerifyingKey } from './authn/service-account/keys';
import { staticKeySource, type ServiceAccountKeySource } from './authn/service-account/key-source';
import { EXTENDED_EXPIRATION_SECONDS, WARN_ONLY_BOUND_EXPIRATION_SECONDS } from './authn/service-account/token-request';
import { goAggregate } from '../api/go-json-syntax';

export interface ServiceAccountSigning {
  readonly signer: TokenSigner;
  readonly keys: ServiceAccountKeySource;
  /** The cap on a token's lifetime; 0: none. */
  readonly maxExpirationSeconds: number;
  /** The lifetime of the kubelet's extended tokens. */
  readonly maxExtendedExpirationSeconds: number;
}

const MIN_MAX_EXPIRATION_SECONDS = 3600;
const MAX_MAX_EXPIRATION_SECONDS = 2 ** 32;
/** The shortest lifetime a TokenRequest may ask for: a signer must sign at least that. */
const MIN_TOKEN_AGE_SECONDS = 600;
const ABSTRACT_SOCKET_NAME = /^@([a-zA-Z0-9_-]+\.)*[a-zA-Z0-9_-]+$/;

/** Rejects with the reference's message for flags it refuses or a signer it cannot use. */
export async function serviceAccountSigningOf(
  options: ServerOptions,
  /** Where an external signer's metrics go. */
  registry: Registry,
  warn: (message: string) => void = (message) => console.error(message),
): Promise<ServiceAccountSigning> {
  const signing = await signingOf(options, registry);
  warnOfShortExtension(options, signing.maxExpirationSeconds, warn);
  return signing;
}

/**
 * The reference's start-up warnings when the kubelet's tokens are to be extended beyond a cap
 * that cuts the extension short (worded for the signer's lifetime when one signs).
 */
function warnOfShortExtension(options: ServerOptions, maxSeconds: number, warn: (message: string) => void): void {
  if (!options.serviceAccountExtendTokenExpiration || maxSeconds === 0) return;
  const external = options.serviceAccountSigningEndpoint !== undefined;
  const max = goDuration(maxSeconds * 1e9);
  if (maxSeconds < WARN_ONLY_BOUND_EXPIRATION_SECONDS)
    warn(
      external
        ? `service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, token lifetime supported by external-jwt-signer must be longer than ${WARN_ONLY_BOUND_EXPIRATION_SECONDS} seconds (currently ${max})`
        : `service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than ${WARN_ONLY_BOUND_EXPIRATION_SECONDS} seconds (currently ${max})`,
    );
  if (maxSeconds < EXTENDED_EXPIRATION_SECONDS)
    warn(
      external
        ? `service-account-extend-token-expiration is true, tokens validity will be caped at the smaller of ${EXTENDED_EXPIRATION_SECONDS} seconds and maximum token lifetime supported by external-jwt-signer (${max})`
        : `service-account-extend-token-expiration is true, enabling tokens valid up to ${EXTENDED_EXPIRATION_SECONDS} seconds, which is longer than service-account-max-token-expiration set to ${max}`,
    );
}

async function signingOf(options: ServerOptions, registry: Registry): Promise<ServiceAccountSigning> {
  const maxFlag = options.serviceAccountMaxTokenExpirationSeconds;
  if (maxFlag !== 0 && (maxFlag < MIN_MAX_EXPIRATION_SECONDS || maxFlag > MAX_MAX_EXPIRATION_SECONDS))
    throw new Error('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  const endpoint = options.serviceAccountSigningEndpoint;
  if (endpoint === undefined) return await keyFileSigning(options);
  if (options.serviceAccountSigningKeyFile)
    throw new Error(
      'service-account-signing-key-file and service-account-signing-endpoint are mutually exclusive and cannot be set at the same time',
    );
  const signer = await connectExternalSigner({ endpoint, registry });
  try {
    const signerMax = signer.maxTokenExpirationSeconds;
    if (signerMax < MIN_TOKEN_AGE_SECONDS)
      throw new Error(
        `max token life supported by external-jwt-signer (${signerMax}s) is less than acceptable (min ${MIN_TOKEN_AGE_SECONDS}s)`,
      );
    if (maxFlag > signerMax)
      throw new Error(
        `service-account-max-token-expiration cannot be set longer than the token expiration supported by service-account-signing-endpoint: ${goDuration(maxFlag * 1e9)} > ${goDuration(signerMax * 1e9)}`,
      );
    const problems = endpointFlagProblems(options, endpoint);
    if (problems.length > 0) throw new Error(goAggregate(problems));
    return {
      signer,
      keys: signer.keys,
      maxExpirationSeconds: maxFlag === 0 ? signerMax : maxFlag,
      maxExtendedExpirationSeconds: Math.min(signerMax, EXTENDED_EXPIRATION_SECONDS),
    };
  } catch (error) {
    signer.close();
    throw error;
  }
}

function endpointFlagProblems(options: ServerOptions, endpoint: string): string[] {
  const problems: string[] = [];
  if (options.serviceAccountSigningKeyFile || options.serviceAccountKeyFiles.length > 0)
    problems.push(
      "can't set `--service-account-signing-key-file` and/or `--service-account-key-file` with `--service-account-signing-endpoint` (They are mutually exclusive)",
    );
  if (!featureEnabled(options.featureGates, 'ExternalServiceAccountTokenSigner'))
    problems.push(
      'setting `--service-account-signing-endpoint` requires enabling ExternalServiceAccountTokenSigner feature gate',
    );
  if (endpoint.startsWith('@') && !ABSTRACT_SOCKET_NAME.test(endpoint))
    problems.push(
      `invalid value ${JSON.stringify(endpoint)} passed for \`--service-account-signing-endpoint\`, when prefixed with @ must be a valid abstract socket name`,
    );
  return problems;
}

/** Whether this start signs with the key it generates in the certificate directory: no key file, no external signer. */
function signsWithGeneratedKey(options: ServerOptions): boolean {
  return options.serviceAccountSigningEndpoint === undefined && !options.serviceAccountSigningKeyFile;
}

/**
 * Makes the generated signing key if this start signs with it and it is not there yet; a start
 * calls it early, so that the key is made while the rest of the start runs.
 */
export async function prepareGeneratedServiceAccountKey(options: ServerOptions): Promise<void> {
  if (signsWithGeneratedKey(options)) await ensureServiceAccountKey(certDirOf(options));
}

/** The signing key (the flag's, or the one generated in the certificate directory) and every key that verifies. */
async function keyFileSigning(options: ServerOptions): Promise<ServiceAccountSigning> {
  const keyFile = options.serviceAccountSigningKeyFile;
  const signing = keyFile
    ? parseSigningKey(readFileSync(keyFile, 'utf8'), keyFile)
    : parseSigningKey((await ensureServiceAccountKey(certDirOf(options))).keyPem, 'the generated service-account key');
  const verifying: VerifyingKey[] = [signing];
  for (const file of options.serviceAccountKeyFiles) {
    for (const key of parsePublicKeys(readFileSync(file, 'utf8'), file)) {
      if (!verifying.some((known) => known.kid === key.kid)) verifying.push(key);
    }
  }
  return {
    signer: keySigner(signing),
    keys: staticKeySource(verifying),
    maxExpirationSeconds: options.serviceAccountMaxTokenExpirationSeconds,
    maxExtendedExpirationSeconds: EXTENDED_EXPIRATION_SECONDS,
  };
}
