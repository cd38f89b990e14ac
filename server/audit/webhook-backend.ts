/**
 * The webhook backend (`--audit-webhook-config-file`, a kubeconfig): each batch is POSTed as an
 * audit.k8s.io/v1 EventList to the kubeconfig's server over HTTPS, with its client certificate
 * or token. A failed POST (no answer, or a status other than 2xx) is retried after
 * `--audit-webhook-initial-backoff`, growing by half each time, five tries in all, as the
 * reference's; the bounded buffer in front keeps requests from waiting on any of it.
 */
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readWebhookClientConfig } from '../authz/webhook/client-config';
import type { AuditBackend } from './backend';
import { AUDIT_EVENT_VERSION, goJson, type AuditEvent } from './event';

export interface WebhookBackendOptions {
  readonly kubeconfigFile: string;
  readonly initialBackoffMs: number;
}

/** The reference's retry schedule after the first failure: ×1.5 each step, five attempts, ±20 % jitter. */
const BACKOFF_FACTOR = 1.5;
const BACKOFF_JITTER = 0.2;
const ATTEMPTS = 5;
/** Per POST. */
const REQUEST_TIMEOUT_MS = 30_000;

export function openWebhookBackend(options: WebhookBackendOptions): AuditBackend {
  const client = readWebhookClientConfig(options.kubeconfigFile);
  let closing = false;
  const inFlight = new Set<ClientRequest>();
  const post = (body: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const req = httpsRequest(
        client.url,
        {
          method: 'POST',
          ca: client.ca,
          cert: client.cert,
          key: client.key,
          rejectUnauthorized: !client.insecureSkipTLSVerify,
          timeout: REQUEST_TIMEOUT_MS,
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json',
            'Content-Length': String(body.length),
            ...(client.token ? { Authorization: `Bearer ${client.token}` } : {}),
          },
        },
        (res) => {
          res.resume();
          res.once('end', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve();
            else reject(new Error(`the audit webhook answered ${status}`));
          });
          res.once('error', reject);
        },
      );
      req.once('timeout', () => req.destroy(new Error(`the audit webhook did not answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.once('error', reject);
      inFlight.add(req);
      req.once('close', () => inFlight.delete(req));
      req.end(body);
    });
  return {
    name: 'webhook',
    async send(events: readonly AuditEvent[]) {
      const body = Buffer.from(goJson({ kind: 'EventList', apiVersion: AUDIT_EVENT_VERSION, metadata: {}, items: events }));
      let delayMs = options.initialBackoffMs;
      for (let attempt = 1; ; attempt++) {
        try {
          await post(body);
          return;
        } catch (error) {
          if (attempt >= ATTEMPTS || closing) throw error;
        }
        const jittered = delayMs * (1 + BACKOFF_JITTER * Math.random());
        await new Promise((resolve) => setTimeout(resolve, jittered).unref());
        delayMs *= BACKOFF_FACTOR;
      }
    },
    async close() {
      closing = true;
      for (const req of inFlight) req.destroy(new Error('the server is shutting down'));
    },
  };
}
