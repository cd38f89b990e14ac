/**
 * Client-certificate authentication: a certificate that the TLS layer verified against the
 * client CA names the user by its Common Name, the groups by its Organizations and, while
 * AllowParsingUserUIDFromCertAuth is on, the UID by the subject's Kubernetes UID attribute.
 * The user's credential-id extra is the SHA-256 of the certificate (no gate asks for it in 1.34).
 *
 * The HTTPS server asks for a certificate but does not reject the handshake without a valid one
 * (`rejectUnauthorized: false`), so that anonymous and bearer-token requests still arrive; the
 * verification result is read here. Results are kept per connection, since a connection's
 * certificate cannot change.
 */
import { createHash, type X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { CREDENTIAL_ID_EXTRA } from '../../api/user-info';
import { chainsTo } from './certificate-chain';
import type { AuthenticationResult, Authenticator } from './types';

const CLIENT_AUTH_USAGE = '1.3.6.1.5.5.7.3.2';
const ANY_USAGE = '2.5.29.37.0';
/** The subject attribute Kubernetes names a user's UID with (OpenSSL, not knowing it, keys it by its OID). */
const UID_ATTRIBUTE = '1.3.6.1.4.1.57683.2';

export interface X509Options {
  /**
   * The CAs of `--client-ca-file`, needed when the TLS layer also trusts other CAs (an
   * authenticating proxy's); absent, whatever the TLS layer verified is believed.
   */
  readonly clientCas?: readonly X509Certificate[];
  /** AllowParsingUserUIDFromCertAuth: the user's UID is read from the subject. */
  readonly uidFromSubject: boolean;
}

export function x509Authenticator(options: X509Options): Authenticator {
  const byConnection = new WeakMap<TLSSocket, AuthenticationResult>();
  return {
    authenticate(request) {
      const socket = request.socket as TLSSocket;
      if (byConnection.has(socket)) return byConnection.get(socket);
      const result = authenticateConnection(socket, options);
      byConnection.set(socket, result);
      return result;
    },
  };
}

function authenticateConnection(socket: TLSSocket, { clientCas, uidFromSubject }: X509Options): AuthenticationResult {
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const certificate = socket.getPeerCertificate();
  if (!certificate || Object.keys(certificate).length === 0) return undefined;
  if (!socket.authorized) {
    return { error: `verifying certificate SN=${certificate.serialNumber}, failed: ${socket.authorizationError}` };
  }
  if (clientCas && !chainsTo(socket, clientCas)) {
    return {
      error: `verifying certificate SN=${certificate.serialNumber}, failed: x509: certificate signed by unknown authority`,
    };
  }
  // A certificate restricted to other uses (say, serving) must not log anyone in; one
  // without the extension may be used for anything, as in Go's verifier.
  const usages = certificate.ext_key_usage;
  if (usages && usages.length > 0 && !usages.includes(CLIENT_AUTH_USAGE) && !usages.includes(ANY_USAGE)) {
    return { error: 'x509: certificate specifies an incompatible key usage' };
  }
  const name = first(certificate.subject?.CN);
  // No Common Name: this method has nothing to say, as in the reference.
  if (!name) return undefined;
  const groups = list(certificate.subject?.O);
  const extra = { [CREDENTIAL_ID_EXTRA]: [`X509SHA256=${createHash('sha256').update(certificate.raw).digest('hex')}`] };
  if (!uidFromSubject) return { user: { name, groups, extra } };
  const uids = list(
    (certificate.subject as Record<string, string | string[] | undefined> | undefined)?.[UID_ATTRIBUTE],
  );
  if (uids.length === 0) return { user: { name, groups, extra } };
  // Go prints the list as %v does: [a b].
  if (uids.length > 1) return { error: `expected 1 UID, but found multiple: [${uids.join(' ')}]` };
  if (uids[0] === '') return { error: 'UID cannot be an empty string' };
  return { user: { name, uid: uids[0], groups, extra } };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...value] : [value];
}
