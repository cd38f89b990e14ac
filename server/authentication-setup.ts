/**
 * Builds the server's authentication from its flags: which methods run and in which order
 * (client certificates, then the bearer-token methods), whether anonymous requests are
 * allowed, the API server's audiences, and the routes that belong to authentication (the
 * reviews, TokenRequest, the issuer's discovery documents).
 */
import type { Application } from 'express';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import { ObjectError } from '../storage/errors';
import type { ObjectStorage } from '../storage/objects/types';
import { featureEnabled } from './config/feature-enabled';
import { FlagError, type ServerOptions } from './config/flags';
import type { LeaderController } from './control-plane';
import { startAuthenticationInfoPublisher } from './controllers/authentication-info-publisher';
import { startBootstrapSigner } from './controllers/bootstrap-signer';
import { startBootstrapTokenCleaner } from './controllers/bootstrap-token-cleaner';
import { controllerEnabled, type EmbeddedController } from './config/controller-selection';
import { startLegacyTokenTracking } from './controllers/legacy-token-tracking';
import type { ObjectOperations } from './client/operations';
import { startRootCaPublisher } from './controllers/root-ca-publisher';
import { startServiceAccountController } from './controllers/service-account-controller';
import type { MutableResourceRegistry } from './registry/registry';
import type { ResourceType } from './registry/types';
import { audienceAgnostic } from './authn/audiences';
import { parseCaBundle } from './authn/certificate-chain';
import { requestHeaderAuthenticator } from './authn/request-header';
import { x509Authenticator } from './authn/x509';
import { bearerTokenAuthenticator, tokenUnion } from './authn/bearer-token';
import { bootstrapTokenAuthenticator } from './authn/bootstrap-token';
import { AuthenticationConfigError } from './authn/config-error';
import { liveAuthenticationConfig, type LiveAuthenticationConfig } from './authn/config-reload';
import { jwtAuthenticator } from './authn/jwt-authenticator';
import { oidcFlagsAsJwtConfig, validateOidcFlags } from './authn/oidc';
import { registerAuthenticationResources } from './subresources/authentication-kinds';
import { serviceAccountAuthenticator, type ObjectLookup } from './authn/service-account/authenticator';
import { mountOpenIdRoutes } from './authn/service-account/openid';
import { tokenFileAuthenticator } from './authn/token-file';
import { tokenWebhookAuthenticator } from './authn/token-webhook';
import { readWebhookKubeconfig } from './webhook-client/kubeconfig';
import { serviceAccountSigningOf } from './service-account-signing';
import type { Authenticator, TokenAuthenticator } from './authn/types';

export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface Authentication {
  /** Every method, in the reference's order: proxy headers, client certificates, bearer tokens. */
  readonly authenticators: readonly Authenticator[];
  /** CAs the TLS layer must accept client certificates from besides the client CA (the proxies'). */
  readonly extraClientCaPem?: string;
  /** Whether a request to this path without credentials is anonymous. */
  readonly anonymous: (path: string) => boolean;
  /** Every bearer-token method: what a TokenReview asks. */
  readonly tokens: TokenAuthenticator;
  readonly apiAudiences: readonly string[];
  /**
   * Mounts the issuer's discovery documents (the reviews and TokenRequest are in the registry's
   * slots); answers the paths mounted, for the server's index.
   */
  routes(app: Application, listening: { readonly externalAddress: () => string }): readonly string[];
  /** What runs on the leader: extension-apiserver-authentication, the `default` ServiceAccounts, the `kube-root-ca.crt` maps, the bootstrap-token controllers. */
  controllers(cluster: { readonly caPem: string }): LeaderController[];
}

export interface AuthenticationDeps {
  /** `--client-ca-file`, or the generated CA. */
  /** `--client-ca-file` (or capstan's CA); absent, no client certificate logs anyone in. */
  readonly clientCaPem?: string;
  readonly registry: MutableResourceRegistry;
  /** Where the configuration file's reload metrics and an external signer's metrics go. */
  readonly metrics: Registry;
  readonly storageFor: (type: ResourceType) => ObjectStorage;
}

export function apiAudiencesOf(options: ServerOptions): string[] {
  if (options.apiAudiences.length > 0) return [...options.apiAudiences];
  return serviceAccountIssuersOf(options);
}

export function serviceAccountIssuersOf(options: ServerOptions): string[] {
  return options.serviceAccountIssuers.length > 0
    ? [...options.serviceAccountIssuers]
    : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
}

/** Gets an object from the API's storage; undefined when it does not exist. */
export function objectLookup(deps: AuthenticationDeps): ObjectLookup {
  return async (resource, namespace, name) => {
    const type = deps.registry.find({ group: '', version: 'v1' }, resource);
    if (type === undefined) return undefined;
    try {
      return await deps.storageFor(type).get(namespace === '' ? { name } : { namespace, name });
    } catch (error) {
      if (error instanceof ObjectError && error.reason === 'NotFound') return undefined;
      throw error;
    }
  };
}

/**
 * `--requestheader-uid-headers`, as the reference's request-header options check it: only with
 * RemoteRequestHeaderUID, and with X-Remote-Uid among them (aggregated servers read it).
 */
function checkUIDHeaders(options: ServerOptions): void {
  const headers = options.requestheaderUidHeaders;
  if (!featureEnabled(options.featureGates, 'RemoteRequestHeaderUID')) {
    if (headers.length > 0)
      throw new Error('--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled');
    return;
  }
  if (headers.length > 0 && !headers.some((header) => header.toLowerCase() === 'x-remote-uid'))
    throw new Error(
      '--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work',
    );
}

function requestHeaderOf(options: ServerOptions): { authenticator: Authenticator; caPem: string } | undefined {
  checkUIDHeaders(options);
  if (!options.requestheaderClientCaFile) {
    if (options.requestheaderUsernameHeaders.length > 0)
      throw new Error('--requestheader-username-headers needs --requestheader-client-ca-file');
    return undefined;
  }
  if (options.requestheaderUsernameHeaders.length === 0)
    throw new Error('--requestheader-client-ca-file needs --requestheader-username-headers');
  const caPem = readFileSync(options.requestheaderClientCaFile, 'utf8');
  const cas = parseCaBundle(caPem);
  if (cas.length === 0)
    throw new Error(`--requestheader-client-ca-file ${options.requestheaderClientCaFile} holds no certificate`);
  return {
    caPem,
    authenticator: requestHeaderAuthenticator({
      cas,
      allowedNames: options.requestheaderAllowedNames,
      usernameHeaders: options.requestheaderUsernameHeaders,
      uidHeaders: options.requestheaderUidHeaders,
      groupHeaders: options.requestheaderGroupHeaders,
      extraHeaderPrefixes: options.requestheaderExtraHeadersPrefix,
    }),
  };
}

/** The configuration file, with the reference's exclusions of the flags it replaces. */
function liveConfigOf(
  options: ServerOptions,
  context: {
    readonly issuers: readonly string[];
    readonly apiAudiences: readonly string[];
    readonly metrics?: Registry;
  },
): LiveAuthenticationConfig | undefined {
  if (!options.authenticationConfig) return undefined;
  if (options.oidc.issuerUrl) throw new Error('authentication-config file and oidc-* flags are mutually exclusive');
  let live: LiveAuthenticationConfig;
  try {
    live = liveAuthenticationConfig({
      path: options.authenticationConfig,
      serviceAccountIssuers: context.issuers,
      apiAudiences: context.apiAudiences,
      registry: context.metrics,
      serverId: `${hostname()}_${process.pid}`,
    });
  } catch (error) {
    if (error instanceof AuthenticationConfigError) throw error;
    throw new Error(`invalid authentication config: ${(error as Error).message}`);
  }
  if (live.anonymous() !== undefined && options.anonymousAuthSet) {
    live.stop();
    throw new Error(
      'anonymous is configured in the authentication config and with --anonymous-auth: only one may be used',
    );
  }
  return live;
}

/**
 * Throws `FlagError` for a configuration the server refuses (a bad file, flags that exclude
 * each other), so the start fails with one line; what the system refused (a missing file)
 * keeps its own error.
 */
export async function setUpAuthentication(options: ServerOptions, deps: AuthenticationDeps): Promise<Authentication> {
  try {
    return await buildAuthentication(options, deps);
  } catch (error) {
    // The configuration file's refusal is the reference's whole line, with no step named before it.
    if (error instanceof AuthenticationConfigError) throw error;
    if (error instanceof Error && (error as NodeJS.ErrnoException).syscall === undefined)
      throw new FlagError(error.message);
    throw error;
  }
}

async function buildAuthentication(options: ServerOptions, deps: AuthenticationDeps): Promise<Authentication> {
  const apiAudiences = apiAudiencesOf(options);
  const issuers = serviceAccountIssuersOf(options);
  const signing = await serviceAccountSigningOf(options, deps.metrics);
  const lookup = objectLookup(deps);
  const tokenMethods: TokenAuthenticator[] = [];
  if (options.tokenAuthFile)
    tokenMethods.push(audienceAgnostic(apiAudiences, tokenFileAuthenticator(options.tokenAuthFile)));
  tokenMethods.push(
    serviceAccountAuthenticator({
      issuers,
      keys: signing.keys,
      apiAudiences,
      lookup: options.serviceAccountLookup ? lookup : undefined,
    }),
  );
  // The file first: it refuses the --oidc-* flags before anything reaches out to their issuer.
  const live = liveConfigOf(options, { issuers, apiAudiences, metrics: deps.metrics });
  if (live) tokenMethods.push(live.tokens);
  validateOidcFlags(options.oidc);
  const { issuerUrl, clientId } = options.oidc;
  if (issuerUrl && clientId)
    tokenMethods.push(
      audienceAgnostic(apiAudiences, jwtAuthenticator(oidcFlagsAsJwtConfig({ ...options.oidc, issuerUrl, clientId }))),
    );
  if (options.enableBootstrapTokenAuth)
    tokenMethods.push(audienceAgnostic(apiAudiences, bootstrapTokenAuthenticator({ lookup })));
  // The webhook last: the local methods answer without a round trip.
  if (options.authenticationTokenWebhookConfigFile) {
    tokenMethods.push(
      tokenWebhookAuthenticator({
        client: readWebhookKubeconfig(options.authenticationTokenWebhookConfigFile),
        version: options.authenticationTokenWebhookVersion,
        cacheTtlMs: options.authenticationTokenWebhookCacheTtlMs,
        apiAudiences,
      }),
    );
  }
  const tokens = tokenUnion(tokenMethods);
  registerAuthenticationResources(deps.registry, {
    tokens,
    apiAudiences,
    tokenRequest: {
      lookup,
      signer: signing.signer,
      issuer: issuers[0],
      apiAudiences,
      maxExpirationSeconds: signing.maxExpirationSeconds,
      maxExtendedExpirationSeconds: signing.maxExtendedExpirationSeconds,
      extendExpiration: options.serviceAccountExtendTokenExpiration,
      rejectUIDMismatch: featureEnabled(options.featureGates, 'TokenRequestServiceAccountUIDValidation'),
    },
  });
  const proxy = requestHeaderOf(options);
  const runs = (name: EmbeddedController) => controllerEnabled(options.controllers, name);
  return {
    authenticators: [
      ...(proxy ? [proxy.authenticator] : []),
      // Once the TLS layer also trusts the proxies' CA, client certificates must chain to the client CA itself.
      ...(deps.clientCaPem === undefined
        ? []
        : [
            x509Authenticator({
              clientCas: proxy ? parseCaBundle(deps.clientCaPem) : undefined,
              uidFromSubject: featureEnabled(options.featureGates, 'AllowParsingUserUIDFromCertAuth'),
            }),
          ]),
      bearerTokenAuthenticator({ tokenAuthenticators: [tokens], audiences: apiAudiences }),
    ],
    extraClientCaPem: proxy?.caPem,
    anonymous: (path) => {
      const section = live?.anonymous();
      if (section === undefined) return options.anonymousAuth;
      return section.enabled && (section.paths === undefined || section.paths.includes(path));
    },
    tokens,
    apiAudiences,
    routes(app, listening) {
      return mountOpenIdRoutes(app, {
        issuer: issuers[0],
        keys: signing.keys,
        jwksUri: options.serviceAccountJwksUri,
        externalAddress: listening.externalAddress,
      });
    },
    controllers: ({ caPem }) => [
      (operations, lost) =>
        startAuthenticationInfoPublisher(
          operations,
          {
            clientCaPem: deps.clientCaPem,
            requestHeader: proxy && {
              caPem: proxy.caPem,
              usernameHeaders: options.requestheaderUsernameHeaders,
              uidHeaders: options.requestheaderUidHeaders,
              groupHeaders: options.requestheaderGroupHeaders,
              extraHeaderPrefixes: options.requestheaderExtraHeadersPrefix,
              allowedNames: options.requestheaderAllowedNames,
            },
          },
          lost,
        ),
      ...(runs('serviceaccount-controller')
        ? [(operations: ObjectOperations, lost: AbortSignal) => startServiceAccountController(operations, lost)]
        : []),
      ...(runs('root-ca-certificate-publisher-controller')
        ? [(operations: ObjectOperations, lost: AbortSignal) => startRootCaPublisher(operations, caPem, lost)]
        : []),
      (operations, lost) => startLegacyTokenTracking(operations, lost),
      // The reference leaves these two off unless asked for; bootstrap tokens are how one asks here.
      ...(options.enableBootstrapTokenAuth && runs('token-cleaner-controller')
        ? [(operations: ObjectOperations, lost: AbortSignal) => startBootstrapTokenCleaner(operations, lost)]
        : []),
      ...(options.enableBootstrapTokenAuth && runs('bootstrap-signer-controller')
        ? [(operations: ObjectOperations, lost: AbortSignal) => startBootstrapSigner(operations, lost)]
        : []),
    ],
  };
}
