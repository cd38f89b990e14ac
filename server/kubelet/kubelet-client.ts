/**
 * How the server reaches a node's kubelet, as the reference's kubelet client does: HTTPS to the
 * node's address of the first `--kubelet-preferred-address-types` type it reports (for
 * `Hostname`, its `kubernetes.io/hostname` label when it reports none), at the port of
 * `status.daemonEndpoints.kubeletEndpoint.Port` (10250 when unset), presenting
 * `--kubelet-client-certificate`/`--kubelet-client-key`, and verifying the kubelet's serving
 * certificate against `--kubelet-certificate-authority` only: without it, it is not verified.
 *
 * The files are read again when they change (a rotated client certificate).
 *
 * `--kubelet-timeout` bounds connecting and waiting for the kubelet's answer headers (the
 * reference stores the flag and uses it nowhere); a stream, once answered, runs as long as the
 * client reads it.
 */
import { readFileSync, statSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import type { KubeObject } from '../../api/objects';
import { unclassified } from '../status/catalogue';
import type { KubeletClientConfig } from '../config/kubelet-client';

export { DEFAULT_KUBELET_CLIENT_CONFIG, type KubeletClientConfig } from '../config/kubelet-client';

/** The reference's default kubelet port, for nodes that report none. */
export const DEFAULT_KUBELET_PORT = 10250;
const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/** Where one kubelet listens. */
export interface KubeletEndpoint {
  readonly host: string;
  readonly port: number;
}

export interface KubeletClient {
  /** The node's kubelet; the reference's 500 `no preferred addresses found; ...` when it has no address of a preferred type. */
  endpointOf(node: KubeObject): KubeletEndpoint;
  /** TLS and address options of a request to `endpoint` (`insecureSkipVerify`: the caller asked not to verify, as pods/log's `insecureSkipTLSVerifyBackend`). */
  requestOptions(endpoint: KubeletEndpoint, insecureSkipVerify?: boolean): RequestOptions;
  /** 0: no deadline. */
  readonly timeoutMs: number;
}

interface NodeAddress {
  readonly type?: string;
  readonly address?: string;
}

interface NodeStatus {
  readonly addresses?: readonly NodeAddress[];
  readonly daemonEndpoints?: { readonly kubeletEndpoint?: { readonly Port?: number } };
}

/** The reference's GetPreferredNodeAddress, with its error text (Go's `%v` of the addresses). */
export function preferredNodeAddress(node: KubeObject, preferredTypes: readonly string[]): string {
  const addresses = (node.status as NodeStatus | undefined)?.addresses ?? [];
  for (const type of preferredTypes) {
    const found = addresses.find((address) => address.type === type);
    if (found) return found.address ?? '';
    const hostname = node.metadata.labels?.[HOSTNAME_LABEL];
    if (type === 'Hostname' && hostname !== undefined) return hostname;
  }
  const known = addresses.map((address) => `{${address.type ?? ''} ${address.address ?? ''}}`).join(' ');
  throw unclassified(`no preferred addresses found; known addresses: [${known}]`);
}

export function kubeletPortOf(node: KubeObject): number {
  const port = (node.status as NodeStatus | undefined)?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
  return port > 0 ? port : DEFAULT_KUBELET_PORT;
}

/**
 * A PEM file read at start (one that cannot be read stops the server, as it stops the
 * reference) and read again when it changes, as the reference reloads its kubelet TLS files:
 * a rotated client certificate is presented from the next connection on. A file that cannot be
 * read later (mid-rotation) keeps the last contents.
 */
function reloadingFile(path: string): () => string {
  let contents = readFileSync(path, 'utf8');
  let stamp = statSync(path).mtimeMs;
  return () => {
    try {
      const now = statSync(path).mtimeMs;
      if (now !== stamp) {
        contents = readFileSync(path, 'utf8');
        stamp = now;
      }
    } catch {
      // Kept: the reference also keeps what it last loaded.
    }
    return contents;
  };
}

export function createKubeletClient(config: KubeletClientConfig): KubeletClient {
  if ((config.clientCertificate === undefined) !== (config.clientKey === undefined)) {
    throw new Error('--kubelet-client-certificate and --kubelet-client-key must be given together');
  }
  const cert = config.clientCertificate === undefined ? undefined : reloadingFile(config.clientCertificate);
  const key = config.clientKey === undefined ? undefined : reloadingFile(config.clientKey);
  const ca = config.certificateAuthority === undefined ? undefined : reloadingFile(config.certificateAuthority);
  return {
    endpointOf: (node) => ({
      host: preferredNodeAddress(node, config.preferredAddressTypes),
      port: kubeletPortOf(node),
    }),
    requestOptions: (endpoint, insecureSkipVerify = false) => {
      const verify = ca !== undefined && !insecureSkipVerify;
      return {
        host: endpoint.host,
        port: endpoint.port,
        rejectUnauthorized: verify,
        ...(verify ? { ca: ca() } : {}),
        ...(cert !== undefined && key !== undefined ? { cert: cert(), key: key() } : {}),
        // A kubelet stream holds its connection for as long as it runs; none is kept for another.
        agent: false,
      };
    },
    timeoutMs: Math.max(0, config.timeoutMs),
  };
}
