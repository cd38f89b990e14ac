/**
 * Calling one admission webhook: an AdmissionReview v1 POSTed over HTTPS to the webhook's URL,
 * or to its Service (reached at the address of the Service's endpoints, since this server has
 * no cluster network of its own, with the Service's DNS name checked in the certificate), within
 * its timeout; the review's response back. Failures are errors for the caller's failure policy.
 */
import { request } from 'node:https';
import type { KubeObject } from '../../../storage/objects/types';
import { getCached, type StorageOf } from '../lookup';
import type { WebhookClientConfig } from './types';

/** The answer part of an AdmissionReview. */
export interface AdmissionResponse {
  readonly uid?: string;
  readonly allowed?: boolean;
  readonly status?: { readonly code?: number; readonly message?: string; readonly reason?: string };
  readonly patch?: string;
  readonly patchType?: string;
  readonly warnings?: readonly string[];
  readonly auditAnnotations?: Readonly<Record<string, string>>;
}

/** An AdmissionReview answer bigger than this is refused (the reference caps them at 30 MB too). */
const MAX_RESPONSE_BYTES = 30 * 1024 * 1024;

/** Where a webhook is called: its URL, and the name its serving certificate must carry. */
export interface WebhookTarget {
  readonly url: URL;
  /** The name the serving certificate must carry when it differs from the URL's host. */
  readonly serverName?: string;
}

/** The target of a webhook client config (also a CRD conversion webhook's): its URL, or its Service's endpoints. */
export async function webhookTarget(config: WebhookClientConfig, storageOf: StorageOf): Promise<WebhookTarget> {
  if (config.url) return { url: new URL(config.url) };
  const service = config.service;
  if (!service) throw new Error('webhook has neither url nor service');
  const port = service.port ?? 443;
  const serviceObject = await getCached(storageOf('', 'services'), service.name, service.namespace);
  if (serviceObject === undefined) throw new Error(`service "${service.name}" not found`);
  const servicePort = ((serviceObject.spec as { ports?: Array<{ port: number; targetPort?: number | string; name?: string }> }).ports ?? []).find((p) => p.port === port);
  if (servicePort === undefined) throw new Error(`no service port ${port} found for service "${service.name}"`);
  const address = await endpointAddress(storageOf, service, servicePort);
  return { url: new URL(`https://${address}${service.path ?? ''}`), serverName: `${service.name}.${service.namespace}.svc` };
}

/** The first ready address of the Service's Endpoints, with the port the service port targets. */
async function endpointAddress(storageOf: StorageOf, service: { namespace: string; name: string }, servicePort: { port: number; targetPort?: number | string; name?: string }): Promise<string> {
  const endpoints: KubeObject | undefined = await getCached(storageOf('', 'endpoints'), service.name, service.namespace);
  const subsets = (endpoints?.subsets ?? []) as Array<{ addresses?: Array<{ ip: string }>; ports?: Array<{ port: number; name?: string }> }>;
  for (const subset of subsets) {
    const ip = subset.addresses?.[0]?.ip;
    if (!ip) continue;
    const port = subset.ports?.find((p) => (servicePort.name ? p.name === servicePort.name : true))?.port ?? (typeof servicePort.targetPort === 'number' ? servicePort.targetPort : servicePort.port);
    return `${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
  }
  throw new Error(`service "${service.name}" has no ready endpoints`);
}

/** POSTs the review and resolves with its response; rejects on transport errors, non-2xx, bad bodies and the timeout. */
export async function callWebhook(options: {
  readonly config: WebhookClientConfig;
  readonly review: object;
  readonly timeoutSeconds: number;
  readonly storageOf: StorageOf;
}): Promise<AdmissionResponse> {
  const target = await webhookTarget(options.config, options.storageOf);
  // The reference tells the webhook its deadline in a `timeout` query parameter.
  target.url.searchParams.set('timeout', `${options.timeoutSeconds}s`);
  const timeoutMs = options.timeoutSeconds * 1000;
  const body = JSON.stringify(options.review);
  const ca = options.config.caBundle ? Buffer.from(options.config.caBundle, 'base64').toString('utf8') : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      target.url,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(body) },
        ...(ca ? { ca } : {}),
        // Node checks the certificate against `servername` when it is given.
        ...(target.serverName ? { servername: target.serverName } : {}),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) req.destroy(new Error('the webhook answered more than 30 MB'));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
            reject(new Error(`the server responded with status ${res.statusCode}`));
            return;
          }
          try {
            const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { response?: AdmissionResponse };
            if (!review.response) throw new Error('the webhook answered no response');
            resolve(review.response);
          } catch (error) {
            reject(error);
          }
        });
        res.on('error', reject);
      },
    );
    // The whole call, not only an idle socket, must end by the webhook's timeout.
    const deadline = setTimeout(() => req.destroy(new Error('context deadline exceeded')), timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', (error) => reject(new Error(`Post "${target.url.href}": ${error.message}`)));
    req.end(body);
  });
}
