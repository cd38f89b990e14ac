/**
 * The webhook backend (`--audit-webhook-config-file`, a kubeconfig): each batch is POSTed as an
 * audit.k8s.io/v1 EventList to the kubeconfig's server over HTTPS, with its client certificate
 * or token. A failed POST (no answer, or a status other than 2xx) is retried after
 * `--audit-webhook-initial-backoff`, growing by half each time, five tries in all, as the
 * reference's; the bounded buffer in front keeps requests from waiting on any of it.
 */
import { readWebhookKubeconfig } from '../webhook-client/kubeconfig';
import { withBackoff } from '../webhook-client/backoff';
import { postJson } from '../webhook-client/post-json';
import type { AuditBackend } from './audit-backend';
import { AUDIT_EVENT_VERSION, goJson, type AuditEvent } from './record/event';

export interface WebhookBackendOptions {
  readonly kubeconfigFile: string;
  readonly initialBackoffMs: number;
}

/** Per POST. */
const REQUEST_TIMEOUT_MS = 30_000;

export function openWebhookBackend(options: WebhookBackendOptions): AuditBackend {
  const client = readWebhookKubeconfig(options.kubeconfigFile);
  const shutdown = new AbortController();
  const post = async (body: Buffer) => {
    const answer = await postJson(client, body, { timeoutMs: REQUEST_TIMEOUT_MS, signal: shutdown.signal });
    if (answer.status < 200 || answer.status >= 300) throw new Error(`the audit webhook answered ${answer.status}`);
  };
  return {
    name: 'webhook',
    async send(events: readonly AuditEvent[]) {
      const body = Buffer.from(
        goJson({ kind: 'EventList', apiVersion: AUDIT_EVENT_VERSION, metadata: {}, items: events }),
      );
      await withBackoff(
        options.initialBackoffMs,
        () => post(body),
        () => !shutdown.signal.aborted,
      );
    },
    async close() {
      shutdown.abort(new Error('the server is shutting down'));
    },
  };
}
