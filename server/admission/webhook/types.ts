/** The parts of a Mutating/ValidatingWebhookConfiguration's webhooks that dispatch reads. */
import type { MatchResources, RuleWithOperations } from '../../../api/admissionregistration';

export interface WebhookClientConfig {
  readonly url?: string;
  readonly service?: {
    readonly namespace: string;
    readonly name: string;
    readonly path?: string;
    readonly port?: number;
  };
  /** Base64 PEM bundle verifying the webhook's serving certificate; absent: the system's roots. */
  readonly caBundle?: string;
}

export interface Webhook {
  readonly name: string;
  readonly clientConfig: WebhookClientConfig;
  readonly rules?: readonly RuleWithOperations[];
  readonly failurePolicy?: 'Fail' | 'Ignore';
  readonly matchPolicy?: 'Exact' | 'Equivalent';
  readonly namespaceSelector?: MatchResources['namespaceSelector'];
  readonly objectSelector?: MatchResources['objectSelector'];
  readonly sideEffects?: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';
  readonly timeoutSeconds?: number;
  readonly admissionReviewVersions?: readonly string[];
  readonly matchConditions?: ReadonlyArray<{ readonly name: string; readonly expression: string }>;
  readonly reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** One webhook of one configuration, as the dispatcher runs it. */
export interface ConfiguredWebhook {
  readonly configuration: string;
  readonly webhook: Webhook;
}
