/**
 * The server's authorization as its flags configure it: `system:masters` first, then the modes
 * of `--authorization-mode` (RBAC by default) or the authorizers of `--authorization-config`
 * (reloaded on change), over in-memory state that informers keep current: the RBAC policy
 * always (escalation checks and reviews need it whatever the modes), the node graph only when
 * a Node authorizer is configured.
 */
import type { ObjectStorage } from '../../storage/objects/types';
import type { ServerOptions } from '../config/flags';
import { featureGateReader } from '../config/feature-enabled';
import { AuthorizationConfigError } from './config-error';
import { abacAuthorizer, readPolicyFile } from './abac';
import { authorizationFlagErrors, DEFAULT_AUTHORIZATION_MODES, modeChain } from './authorization-chain';
import {
  AuthorizationConfigError as RefusedConfigurationFile,
  type AuthorizationConfig,
  type WebhookAuthorizerConfig,
} from './authorization-config';
import { NodeGraph } from './node/node-graph';
import { nodeAuthorizer } from './node/node-authorizer';
import { informedPolicySource } from './rbac/policy-source';
import { rbacAuthorizer } from './rbac/rbac-authorizer';
import { RuleResolver } from './rbac/rule-resolver';
import { reloadingAuthorizer } from './reloading-authorizer';
import { serverAuthorizer } from './server-authorizer';
import type { Authorizer } from './types';
import { readWebhookKubeconfig } from '../webhook-client/kubeconfig';
import { webhookAuthorizer, type SubjectAccessReview } from './webhook/webhook-authorizer';
import { celEnvironment } from '../cel/lazy';

export type StorageOf = (group: string, resource: string) => ObjectStorage;

export interface ConfiguredAuthorization {
  readonly authorizer: Authorizer;
  /** The RBAC policy's rules, for escalation checks. */
  readonly ruleResolver: RuleResolver;
  /** Resolves once the RBAC informers have their first lists. */
  readonly rbacSynced: Promise<void>;
  stop(): void;
}

const RBAC = 'rbac.authorization.k8s.io';

/** Throws when the flags cannot start a server (both ways of configuring, a bad file, ...). */
export function configureAuthorization(options: ServerOptions, storageOf: StorageOf): ConfiguredAuthorization {
  const errors = authorizationFlagErrors(options);
  if (errors.length > 0) throw new AuthorizationConfigError(`invalid authorization flags: ${errors.join('; ')}`);
  const policy = informedPolicySource({
    roles: storageOf(RBAC, 'roles'),
    clusterRoles: storageOf(RBAC, 'clusterroles'),
    roleBindings: storageOf(RBAC, 'rolebindings'),
    clusterRoleBindings: storageOf(RBAC, 'clusterrolebindings'),
  });
  const ruleResolver = new RuleResolver(policy);
  let nodeGraph: NodeGraph | undefined;
  const featureEnabled = featureGateReader(options.featureGates);
  const node = () =>
    nodeAuthorizer(
      (nodeGraph ??= new NodeGraph({
        pods: storageOf('', 'pods'),
        persistentVolumes: storageOf('', 'persistentvolumes'),
        volumeAttachments: storageOf('storage.k8s.io', 'volumeattachments'),
        resourceSlices: featureEnabled('DynamicResourceAllocation')
          ? storageOf('resource.k8s.io', 'resourceslices')
          : undefined,
      })),
      featureEnabled,
    );
  const rbac = () => rbacAuthorizer(ruleResolver);

  const buildChain = (): { chain: Authorizer[]; stopReloading: () => void } => {
    if (options.authorizationConfigFile !== undefined) {
      const reloading = reloadingAuthorizer({
        path: options.authorizationConfigFile,
        build: (config) => chainFromConfig(config, { rbac, node }),
        onRejected: (message) =>
          console.error(`authorization configuration not reloaded, keeping the previous one: ${message}`),
        onReloaded: () => console.log(`authorization configuration reloaded from ${options.authorizationConfigFile}`),
      });
      return { chain: [reloading], stopReloading: () => reloading.stop() };
    }
    const chain = modeChain(options.authorizationModes ?? DEFAULT_AUTHORIZATION_MODES, {
      rbac,
      node,
      abac: () => abacAuthorizer(readPolicyFile(String(options.authorizationPolicyFile))),
      webhook: () =>
        webhookAuthorizer({
          client: readWebhookKubeconfig(String(options.authorizationWebhookConfigFile)),
          version: options.authorizationWebhookVersion === 'v1' ? 'v1' : 'v1beta1',
          authorizedTtlMs: options.authorizationWebhookAuthorizedTtlMs,
          unauthorizedTtlMs: options.authorizationWebhookUnauthorizedTtlMs,
          cacheAuthorized: true,
          cacheUnauthorized: true,
          timeoutMs: 30_000,
          failurePolicy: 'NoOpinion',
        }),
    });
    return { chain, stopReloading: () => {} };
  };
  let built: { chain: Authorizer[]; stopReloading: () => void };
  try {
    built = buildChain();
  } catch (error) {
    policy.stop();
    nodeGraph?.stop();
    throw configurationFailure(error);
  }
  const { chain, stopReloading } = built;
  return {
    authorizer: serverAuthorizer(chain),
    ruleResolver,
    rbacSynced: policy.synced,
    stop() {
      stopReloading();
      policy.stop();
      nodeGraph?.stop();
    },
  };
}

/** The authorizers of a configuration file, in order; Node and RBAC share the server's state across reloads. */
export function chainFromConfig(
  config: AuthorizationConfig,
  shared: { rbac: () => Authorizer; node: () => Authorizer },
): Authorizer[] {
  return config.authorizers.map((entry) => {
    if (entry.type === 'Webhook') return configuredWebhook(entry.name, entry.webhook);
    return entry.type === 'RBAC' ? shared.rbac() : shared.node();
  });
}

function configuredWebhook(name: string, webhook: WebhookAuthorizerConfig): Authorizer {
  return webhookAuthorizer({
    ...(webhook.matchConditions.length > 0 ? { matches: compileMatchConditions(name, webhook.matchConditions) } : {}),
    name,
    client: readWebhookKubeconfig(webhook.kubeConfigFile),
    version: webhook.subjectAccessReviewVersion,
    authorizedTtlMs: webhook.authorizedTtlMs,
    unauthorizedTtlMs: webhook.unauthorizedTtlMs,
    cacheAuthorized: webhook.cacheAuthorizedRequests,
    cacheUnauthorized: webhook.cacheUnauthorizedRequests,
    timeoutMs: webhook.timeoutMs,
    failurePolicy: webhook.failurePolicy,
  });
}

/**
 * A file that is there but says something the server refuses is the operator's to fix (exit 2),
 * in the reference's words when it is the configuration file itself; a missing or unreadable one
 * is reported as such by the caller.
 */
function configurationFailure(error: unknown): unknown {
  if (error instanceof RefusedConfigurationFile) return new AuthorizationConfigError(error.message);
  if (!(error instanceof Error) || (error as NodeJS.ErrnoException).code !== undefined) return error;
  return new AuthorizationConfigError(`invalid authorization config: ${error.message.split('\n')[0]}`);
}

/**
 * A webhook's match conditions over `request` (the v1 SubjectAccessReview spec): the webhook is
 * asked only when all are true; one false skips it whatever the others do; otherwise an error
 * is thrown, for the failure policy to decide. Expressions that do not compile refuse the file.
 */
function compileMatchConditions(
  name: string,
  expressions: readonly string[],
): (review: SubjectAccessReview) => boolean {
  // A configuration file is stored text to the reference: its StoredExpressions environment.
  const compiler = new (celEnvironment().ExpressionCompiler)(
    { request: 'map<string, dyn>' },
    { environment: 'stored' },
  );
  const compiled = expressions.map((expression, i) => {
    const result = compiler.compile(expression);
    if (!result.ok)
      throw new Error(`authorizer ${JSON.stringify(name)}: matchConditions[${i}].expression: ${result.error}`);
    if (result.compiled.outputType !== 'bool' && result.compiled.outputType !== 'dyn') {
      throw new Error(
        `authorizer ${JSON.stringify(name)}: matchConditions[${i}].expression: must evaluate to bool, not ${result.compiled.outputType}`,
      );
    }
    return result.compiled;
  });
  return (review) => {
    const errors: string[] = [];
    for (const condition of compiled) {
      const result = condition.evaluate({ request: review.spec });
      if (!result.ok) errors.push(`${condition.expression}: ${result.error}`);
      else if (result.value === false) return false;
      else if (result.value !== true) errors.push(`${condition.expression}: did not evaluate to a bool`);
    }
    if (errors.length > 0) throw new Error(errors.join('; '));
    return true;
  };
}
