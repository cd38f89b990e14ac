/**
 * How service-account tokens are signed and verified, from the flags: a signing key file (or
 * the key generated in the certificate directory) with the public keys of
 * `--service-account-key-file`.
 */
import { readFileSync } from 'node:fs';
import { certDirOf } from './config/file-locations';
import type { ServerOptions } from './config/flags';
import { ensureServiceAccountKey } from './pki/service-account-key';
import { keySigner, type TokenSigner } from './authn/service-account/claims';
import { parsePublicKeys, parseSigningKey, type VerifyingKey } from './authn/service-account/keys';
import { staticKeySource, type ServiceAccountKeySource } from './authn/service-account/key-source';
import { EXTENDED_EXPIRATION_SECONDS } from './authn/service-account/token-request';

export interface ServiceAccountSigning {
  readonly signer: TokenSigner;
  readonly keys: ServiceAccountKeySource;
  /** The cap on a token's lifetime; 0: none. */
  readonly maxExpirationSeconds: number;
  /** The lifetime of the kubelet's extended tokens. */
  readonly maxExtendedExpirationSeconds: number;
}

/** The signing key (the flag's, or the one generated in the certificate directory) and every key that verifies. */
export function serviceAccountSigningOf(options: ServerOptions): ServiceAccountSigning {
  const signing = options.serviceAccountSigningKeyFile
    ? parseSigningKey(readFileSync(options.serviceAccountSigningKeyFile, 'utf8'), options.serviceAccountSigningKeyFile)
    : parseSigningKey(ensureServiceAccountKey(certDirOf(options)).keyPem, 'the generated service-account key');
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
