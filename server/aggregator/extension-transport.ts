/**
 * How the aggregator speaks to an extension API server: TLS verified against the APIService's
 * caBundle (or not at all with insecureSkipTLSVerify) for the Service's DNS name, capstan's
 * front-proxy client certificate (`--proxy-client-cert-file`/`--proxy-client-key-file`) as its
 * credential, and the user it vouches for in the request-header form the extension server's
 * `--requestheader-*` settings read: `X-Remote-User`, `X-Remote-Uid`, one `X-Remote-Group` per
 * group and `X-Remote-Extra-<key>` (the key percent-encoded) per extra value.
 */
import { readFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import type { UserInfo } from '../../api/user-info';
import type { KubeObject } from '../../api/objects';
import { specOf, type APIServiceSpec, type ServiceReference } from '../../api/apiregistration';
import type { ServiceEndpoint, ServiceResolver } from '../proxy/service-endpoint';

/** The front-proxy client certificate and key, PEM; absent: the aggregator presents none. */
export interface ProxyClientCertificate {
  readonly certPem: string;
  readonly keyPem: string;
}

export function readProxyClientCertificate(options: {
  proxyClientCertFile?: string;
  proxyClientKeyFile?: string;
}): ProxyClientCertificate | undefined {
  if (!options.proxyClientCertFile || !options.proxyClientKeyFile) return undefined;
  return {
    certPem: readFileSync(options.proxyClientCertFile, 'utf8'),
    keyPem: readFileSync(options.proxyClientKeyFile, 'utf8'),
  };
}

/** TLS and address options of a request to the extension server behind `endpoint`. */
export function extensionTlsOptions(options: {
  readonly spec: APIServiceSpec;
  readonly endpoint: ServiceEndpoint;
  readonly clientCertificate: ProxyClientCertificate | undefined;
  /** The availability check trusts any serving certificate, as the reference's does: it proves reachability, not identity. */
  readonly skipVerify?: boolean;
}): RequestOptions {
  const { spec, endpoint, clientCertificate } = options;
  const insecure = options.skipVerify === true || spec.insecureSkipTLSVerify === true;
  const ca = spec.caBundle ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : undefined;
  return {
    host: endpoint.host,
    port: endpoint.port,
    servername: endpoint.serverName,
    rejectUnauthorized: !insecure,
    ...(ca !== undefined && !insecure ? { ca } : {}),
    ...(clientCertificate ? { cert: clientCertificate.certPem, key: clientCertificate.keyPem } : {}),
    // One connection per request keeps certificates and CA changes of an APIService effective at once.
    agent: false,
  };
}

/** What reaching an extension server takes: where its Service leads, and the certificate to present. */
export interface ExtensionAccess {
  readonly services: ServiceResolver;
  readonly clientCertificate: ProxyClientCertificate | undefined;
}

/** The APIService informer's map, with what reaching their servers takes. */
export interface APIServiceAccess extends ExtensionAccess {
  readonly current: ReadonlyMap<string, KubeObject>;
}

export type ExtensionConnection =
  | { readonly ok: true; readonly endpoint: ServiceEndpoint; readonly tls: RequestOptions }
  | { readonly ok: false; readonly reason: string; readonly message: string };

/**
 * How to reach the server behind an APIService's `service`: the endpoint it resolves to and the
 * TLS options for it, or the reason and message of the resolution's failure.
 */
export async function connectToExtension(
  apiService: KubeObject,
  service: ServiceReference,
  options: ExtensionAccess & { readonly skipVerify?: boolean },
): Promise<ExtensionConnection> {
  const resolution = await options.services.resolveChecked(service);
  if (!resolution.ok) return resolution;
  const tls = extensionTlsOptions({
    spec: specOf(apiService),
    endpoint: resolution.endpoint,
    clientCertificate: options.clientCertificate,
    skipVerify: options.skipVerify,
  });
  return { ok: true, endpoint: resolution.endpoint, tls };
}

/** The request-header identity of `user`, for the extension server to authenticate by. */
export function identityHeaders(user: UserInfo): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'X-Remote-User': user.name };
  if (user.uid) headers['X-Remote-Uid'] = user.uid;
  if (user.groups.length > 0) headers['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    if (values.length > 0) headers[`X-Remote-Extra-${encodeURIComponent(key)}`] = [...values];
  }
  return headers;
}

/** The aggregator's own identity toward extension servers (discovery, OpenAPI), which they must let read. */
const AGGREGATOR_USER: UserInfo = { name: 'system:kube-aggregator', groups: ['system:masters'] };
/** A document bigger than this is refused: extension servers are trusted, but not without bound. */
const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 5_000;

export interface FetchedDocument {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** The body parsed as JSON; throws when it is not. */
  json(): unknown;
}

/** GETs `path` from the extension server as the aggregator, within 5 s; non-2xx answers resolve too, transport failures reject. */
export function fetchFromExtension(tls: RequestOptions, path: string, accept: string): Promise<FetchedDocument> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...tls,
        method: 'GET',
        path,
        headers: { ...identityHeaders(AGGREGATOR_USER), Accept: accept },
        timeout: FETCH_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_DOCUMENT_BYTES)
            req.destroy(new Error(`${path}: document larger than ${MAX_DOCUMENT_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'] ?? '',
            body,
            json: () => JSON.parse(body.toString('utf8')) as unknown,
          });
        });
        res.on('error', reject);
      },
    );
    const deadline = setTimeout(
      () => req.destroy(new Error(`${path}: no answer within ${FETCH_TIMEOUT_MS} ms`)),
      FETCH_TIMEOUT_MS,
    );
    req.on('close', () => clearTimeout(deadline));
    req.on('error', reject);
    req.end();
  });
}
