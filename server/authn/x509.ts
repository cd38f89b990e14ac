/**
 * Client-certificate authentication: a certificate that the TLS layer verified against the
 * client CA names the user by its Common Name and the groups by its Organizations.
 *
 * The HTTPS server asks for a certificate but does not reject the handshake without a valid one
 * (`rejectUnauthorized: false`), so that anonymous and bearer-token requests still arrive; the
 * verification result is read here. Results are kept per connection, since a connection's
 * certificate cannot change.
 */
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { chainsTo } from './certificate-chain';
import type { AuthenticationResult, Authenticator } from './types';

const CLIENT_AUTH_USAGE = '1.3.6.1.5.5.7.3.2';
const ANY_USAGE = '2.5.29.37.0';

/**
 * `clientCas`: the CAs of `--client-ca-file`, needed when the TLS layer also trusts other CAs
 * (an authenticating proxy's); absent, whatever the TLS layer verified is believed.
 */
export function x509Authenticator(clientCas?: readonly X509Certificate[]): Authenticator {
  const byConnection = new WeakMap<TLSSocket, AuthenticationResult>();
  return {
    authenticate(request) {
      const socket = request.socket as TLSSocket;
      if (byConnection.has(socket)) return byConnection.get(socket);
      const result = authenticateConnection(socket, clientCas);
      byConnection.set(socket, result);
      return result;
    },
  };
}

function authenticateConnection(
  socket: TLSSocket,
  clientCas: readonly X509Certificate[] | undefined,
): AuthenticationResult {
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
  return { user: { name, groups: list(certificate.subject?.O) } };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...value] : [value];
}
