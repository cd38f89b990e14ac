/**
 * Command-line flags, named as the reference server names them so operators bring what they
 * know. Both `--flag=value` and `--flag value` are accepted.
 */
import { basename } from 'node:path';
import { checkControllerSelection } from '../controllers/embedded-controllers';
import { checkServiceCIDR, DEFAULT_SERVICE_CIDR } from '../registry/allocators/cluster-ip';
import { parseGoDuration } from './duration';
import { FEATURE_GATES } from './feature-gates';

export interface ServerOptions {
  /** 0 asks the system for a free port (tests). */
  readonly securePort: number;
  readonly bindAddress: string;
  readonly tlsCertFile?: string;
  readonly tlsPrivateKeyFile?: string;
  readonly clientCaFile?: string;
  /** Empty: the embedded SQLite store under the data dir. */
  readonly etcdServers: readonly string[];
  readonly etcdPrefix: string;
  /** 0 disables compaction. */
  readonly etcdCompactionIntervalMs: number;
  readonly shutdownDelayMs: number;
  /** Short read-only requests served at once; more are answered 429 (0: no limit). */
  readonly maxRequestsInflight: number;
  /** Short mutating requests served at once; more are answered 429 (0: no limit). */
  readonly maxMutatingRequestsInflight: number;
  /** `--enable-priority-and-fairness`: API Priority and Fairness in place of the two in-flight limits. */
  readonly enablePriorityAndFairness: boolean;
  /** Deadline of short requests; the `timeout` query parameter may only shorten it. */
  readonly requestTimeoutMs: number;
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** `group/version` (or `api/all`, ...) → `true`/`false`, a bare key meaning `true`. */
  readonly runtimeConfig: Readonly<Record<string, string>>;
  readonly livezGracePeriodMs: number;
  readonly dataDir: string;
  /** `--cert-dir`: the serving pair and every generated file (server/config/file-locations.ts); absent: `<data-dir>/pki`. */
  readonly certDir?: string;
  /** `--service-cluster-ip-range`: one IPv4 range Services' cluster IPs come from; absent: 10.96.0.0/12. */
  readonly serviceClusterIpRange?: string;
  /** `--anonymous-auth` (default true): requests without any credential are `system:anonymous`. */
  readonly anonymousAuth: boolean;
  /** Set when `--anonymous-auth` was given, which `--authentication-config`'s anonymous section excludes. */
  readonly anonymousAuthSet?: boolean;
  readonly tokenAuthFile?: string;
  /** PEM files of keys that verify service-account tokens; empty: the signing key (generated under the data dir when not given). */
  readonly serviceAccountKeyFiles: readonly string[];
  readonly serviceAccountSigningKeyFile?: string;
  /** The first issues tokens; all are accepted. Empty: `https://kubernetes.default.svc.cluster.local`. */
  readonly serviceAccountIssuers: readonly string[];
  readonly serviceAccountLookup: boolean;
  /** 0: no maximum. */
  readonly serviceAccountMaxTokenExpirationSeconds: number;
  readonly serviceAccountJwksUri?: string;
  /** Empty: the service-account issuers. */
  readonly apiAudiences: readonly string[];
  readonly requestheaderUsernameHeaders: readonly string[];
  readonly requestheaderUidHeaders: readonly string[];
  readonly requestheaderGroupHeaders: readonly string[];
  readonly requestheaderExtraHeadersPrefix: readonly string[];
  readonly requestheaderClientCaFile?: string;
  readonly requestheaderAllowedNames: readonly string[];
  /** The client certificate and key the aggregator presents to extension API servers. */
  readonly proxyClientCertFile?: string;
  readonly proxyClientKeyFile?: string;
  readonly authenticationTokenWebhookConfigFile?: string;
  readonly authenticationTokenWebhookCacheTtlMs: number;
  readonly authenticationTokenWebhookVersion: 'v1' | 'v1beta1';
  readonly enableBootstrapTokenAuth: boolean;
  /** `--controllers`: which of capstan's copies of the controller manager's controllers run (server/controllers/embedded-controllers.ts). */
  readonly controllers: readonly string[];
  readonly oidc: OidcFlags;
  readonly authenticationConfig?: string;
  /** Admission plugins on besides the default ones, and plugins off (disabling wins). */
  readonly enableAdmissionPlugins: readonly string[];
  readonly disableAdmissionPlugins: readonly string[];
  /** `--admission-control-config-file`: an AdmissionConfiguration giving plugins their configuration. */
  readonly admissionControlConfigFile?: string;
  /** tolerationSeconds of the not-ready and unreachable tolerations DefaultTolerationSeconds adds. */
  readonly defaultNotReadyTolerationSeconds: number;
  readonly defaultUnreachableTolerationSeconds: number;
  /** `--authorization-mode`, in order; absent when not given (RBAC then, unless `--authorization-config`). */
  readonly authorizationModes?: readonly string[];
  /** `--authorization-config`: an AuthorizationConfiguration file, reloaded when it changes. */
  readonly authorizationConfigFile?: string;
  /** `--authorization-policy-file`: the ABAC policy, one JSON object a line. */
  readonly authorizationPolicyFile?: string;
  readonly authorizationWebhookConfigFile?: string;
  /** `authorization.k8s.io/<this>` SubjectAccessReviews to the webhook: v1beta1 (default) or v1. */
  readonly authorizationWebhookVersion: string;
  readonly authorizationWebhookAuthorizedTtlMs: number;
  readonly authorizationWebhookUnauthorizedTtlMs: number;
  readonly audit: AuditFlags;
}

/** The `--audit-*` flags (server/audit/). */
export interface AuditFlags {
  readonly policyFile?: string;
  /** `-`: standard output. */
  readonly logPath?: string;
  readonly logFormat: 'json' | 'legacy';
  readonly logMaxAgeDays: number;
  readonly logMaxBackups: number;
  readonly logMaxSizeMB: number;
  readonly logCompress: boolean;
  readonly logMode: 'batch' | 'blocking' | 'blocking-strict';
  readonly logBatchBufferSize: number;
  readonly logBatchMaxSize: number;
  readonly logBatchMaxWaitMs: number;
  readonly webhookConfigFile?: string;
  readonly webhookMode: 'batch' | 'blocking' | 'blocking-strict';
  readonly webhookBatchBufferSize: number;
  readonly webhookBatchMaxSize: number;
  readonly webhookBatchMaxWaitMs: number;
  readonly webhookInitialBackoffMs: number;
  readonly logThrottle: AuditThrottleFlags;
  readonly webhookThrottle: AuditThrottleFlags;
  readonly logTruncate: AuditTruncateFlags;
  readonly webhookTruncate: AuditTruncateFlags;
}

/** `--audit-*-batch-throttle-*`: batches a second on average, and at once. */
export interface AuditThrottleFlags {
  readonly enabled: boolean;
  readonly qps: number;
  readonly burst: number;
}

/** `--audit-*-truncate-*`; off by default: events go whole, whatever their size. */
export interface AuditTruncateFlags {
  readonly enabled: boolean;
  readonly maxEventSize: number;
  readonly maxBatchSize: number;
}

/** The reference's defaults: off, 100 KiB an event, 10 MiB a batch. */
const DEFAULT_AUDIT_TRUNCATE: AuditTruncateFlags = { enabled: false, maxEventSize: 102_400, maxBatchSize: 10_485_760 };

/** The `--oidc-*` flags. */
export interface OidcFlags {
  readonly issuerUrl?: string;
  readonly clientId?: string;
  readonly usernameClaim: string;
  readonly usernamePrefix?: string;
  readonly groupsClaim?: string;
  readonly groupsPrefix?: string;
  readonly requiredClaims: Readonly<Record<string, string>>;
  readonly caFile?: string;
  readonly signingAlgs: readonly string[];
}

export const DEFAULT_OPTIONS: ServerOptions = {
  securePort: 6443,
  bindAddress: '127.0.0.1',
  etcdServers: [],
  etcdPrefix: '/registry',
  etcdCompactionIntervalMs: 5 * 60_000,
  shutdownDelayMs: 0,
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
  enablePriorityAndFairness: true,
  requestTimeoutMs: 60_000,
  featureGates: {},
  runtimeConfig: {},
  livezGracePeriodMs: 0,
  dataDir: './data',
  anonymousAuth: true,
  serviceAccountKeyFiles: [],
  serviceAccountIssuers: [],
  serviceAccountLookup: true,
  serviceAccountMaxTokenExpirationSeconds: 0,
  apiAudiences: [],
  requestheaderUsernameHeaders: [],
  requestheaderUidHeaders: [],
  requestheaderGroupHeaders: [],
  requestheaderExtraHeadersPrefix: [],
  requestheaderAllowedNames: [],
  authenticationTokenWebhookCacheTtlMs: 2 * 60_000,
  authenticationTokenWebhookVersion: 'v1beta1',
  enableBootstrapTokenAuth: false,
  controllers: ['*'],
  oidc: { usernameClaim: 'sub', requiredClaims: {}, signingAlgs: ['RS256'] },
  enableAdmissionPlugins: [],
  disableAdmissionPlugins: [],
  defaultNotReadyTolerationSeconds: 300,
  defaultUnreachableTolerationSeconds: 300,
  authorizationWebhookVersion: 'v1beta1',
  authorizationWebhookAuthorizedTtlMs: 5 * 60_000,
  authorizationWebhookUnauthorizedTtlMs: 30_000,
  audit: {
    logFormat: 'json',
    logMaxAgeDays: 0,
    logMaxBackups: 0,
    logMaxSizeMB: 0,
    logCompress: false,
    logMode: 'blocking',
    logBatchBufferSize: 10_000,
    logBatchMaxSize: 1,
    logBatchMaxWaitMs: 0,
    webhookMode: 'batch',
    webhookBatchBufferSize: 10_000,
    webhookBatchMaxSize: 400,
    webhookBatchMaxWaitMs: 30_000,
    webhookInitialBackoffMs: 10_000,
    // The reference's: the log unthrottled, the webhook at 10 batches a second, 15 at once.
    logThrottle: { enabled: false, qps: 0, burst: 0 },
    webhookThrottle: { enabled: true, qps: 10, burst: 15 },
    logTruncate: DEFAULT_AUDIT_TRUNCATE,
    webhookTruncate: DEFAULT_AUDIT_TRUNCATE,
  },
};

export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

type Options = { -readonly [K in keyof ServerOptions]: ServerOptions[K] };

interface FlagSpec {
  readonly usage: string;
  /** Parses the value into the options; throws a plain Error whose text follows "invalid argument". */
  readonly apply: (options: Options, value: string) => void;
  /** A Go bool flag: bare `--name` means true; a value needs `=`. */
  readonly boolean?: true;
}

const FLAGS: Readonly<Record<string, FlagSpec>> = {
  'secure-port': {
    usage: 'port for HTTPS (default 6443; 0 picks a free port)',
    apply: (o, v) => (o.securePort = parsePort(v)),
  },
  'bind-address': { usage: 'address to listen on (default 127.0.0.1)', apply: (o, v) => (o.bindAddress = v) },
  'tls-cert-file': { usage: 'serving certificate (PEM); default: apiserver.crt of --cert-dir, generated when absent', apply: (o, v) => (o.tlsCertFile = v) },
  'tls-private-key-file': { usage: 'key of --tls-cert-file (PEM)', apply: (o, v) => (o.tlsPrivateKeyFile = v) },
  'client-ca-file': { usage: 'CA bundle verifying client certificates; default: the generated CA', apply: (o, v) => (o.clientCaFile = v) },
  'etcd-servers': {
    usage: 'comma-separated etcd URLs; none: embedded SQLite store',
    apply: (o, v) => (o.etcdServers = splitList(v)),
  },
  'etcd-prefix': { usage: 'key prefix (default /registry)', apply: (o, v) => (o.etcdPrefix = v) },
  'etcd-compaction-interval': {
    usage: 'Go duration between compactions (default 5m0s; 0 disables)',
    apply: (o, v) => (o.etcdCompactionIntervalMs = parseNonNegativeDuration(v)),
  },
  'shutdown-delay-duration': {
    usage: 'Go duration to keep serving after SIGTERM while /readyz fails (default 0s)',
    apply: (o, v) => (o.shutdownDelayMs = parseNonNegativeDuration(v)),
  },
  'max-requests-inflight': {
    usage: 'short read-only requests in flight before 429s (default 400; 0: no limit)',
    apply: (o, v) => (o.maxRequestsInflight = parseCount(v)),
  },
  'max-mutating-requests-inflight': {
    usage: 'short mutating requests in flight before 429s (default 200; 0: no limit)',
    apply: (o, v) => (o.maxMutatingRequestsInflight = parseCount(v)),
  },
  'enable-priority-and-fairness': {
    usage: 'classify, queue and shed requests by FlowSchemas and priority levels, sharing the two in-flight limits (default true)',
    boolean: true,
    apply: (o, v) => (o.enablePriorityAndFairness = parseBool(v)),
  },
  'request-timeout': {
    usage: 'Go duration after which a short request is answered 504 (default 1m0s)',
    apply: (o, v) => (o.requestTimeoutMs = parseNonNegativeDuration(v)),
  },
  'feature-gates': { usage: 'A=true,B=false', apply: (o, v) => (o.featureGates = { ...o.featureGates, ...parseFeatureGates(v) }) },
  'runtime-config': {
    usage: 'group/version=true|false,... (api/all, api/ga, api/beta, api/alpha too)',
    apply: (o, v) => (o.runtimeConfig = { ...o.runtimeConfig, ...parseRuntimeConfig(v) }),
  },
  'livez-grace-period': {
    usage: 'Go duration during which /livez ignores unfinished post-start hooks (default 0s)',
    apply: (o, v) => (o.livezGracePeriodMs = parseNonNegativeDuration(v)),
  },
  'enable-admission-plugins': {
    usage: 'admission plugins to run besides the default ones (comma-separated)',
    apply: (o, v) => (o.enableAdmissionPlugins = splitList(v)),
  },
  'disable-admission-plugins': {
    usage: 'admission plugins not to run, default ones included (comma-separated)',
    apply: (o, v) => (o.disableAdmissionPlugins = splitList(v)),
  },
  'admission-control-config-file': {
    usage: 'AdmissionConfiguration file with the configuration of admission plugins',
    apply: (o, v) => (o.admissionControlConfigFile = v),
  },
  'default-not-ready-toleration-seconds': {
    usage: 'tolerationSeconds of the not-ready:NoExecute toleration added to pods (default 300)',
    apply: (o, v) => (o.defaultNotReadyTolerationSeconds = parseCount(v)),
  },
  'default-unreachable-toleration-seconds': {
    usage: 'tolerationSeconds of the unreachable:NoExecute toleration added to pods (default 300)',
    apply: (o, v) => (o.defaultUnreachableTolerationSeconds = parseCount(v)),
  },
  'authorization-mode': {
    usage: 'comma list of AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node, Webhook, asked in order (default RBAC)',
    apply: (o, v) => (o.authorizationModes = splitList(v)),
  },
  'authorization-config': {
    usage: 'AuthorizationConfiguration file (apiserver.config.k8s.io/v1); not with --authorization-mode or --authorization-webhook-*',
    apply: (o, v) => (o.authorizationConfigFile = v),
  },
  'authorization-policy-file': { usage: 'ABAC policy file, one JSON Policy a line (with --authorization-mode=ABAC)', apply: (o, v) => (o.authorizationPolicyFile = v) },
  'authorization-webhook-config-file': {
    usage: 'kubeconfig-format file of the authorization webhook (with --authorization-mode=Webhook)',
    apply: (o, v) => (o.authorizationWebhookConfigFile = v),
  },
  'authorization-webhook-version': {
    usage: 'authorization.k8s.io version of the SubjectAccessReviews sent to the webhook: v1beta1 (default) or v1',
    apply: (o, v) => {
      if (v !== 'v1' && v !== 'v1beta1') throw new Error('must be v1 or v1beta1');
      o.authorizationWebhookVersion = v;
    },
  },
  'authorization-webhook-cache-authorized-ttl': {
    usage: 'Go duration to cache allowed answers of the webhook (default 5m0s)',
    apply: (o, v) => (o.authorizationWebhookAuthorizedTtlMs = parseNonNegativeDuration(v)),
  },
  'authorization-webhook-cache-unauthorized-ttl': {
    usage: 'Go duration to cache denied answers of the webhook (default 30s)',
    apply: (o, v) => (o.authorizationWebhookUnauthorizedTtlMs = parseNonNegativeDuration(v)),
  },
  'data-dir': { usage: 'directory of the SQLite store, and of the certificates (pki/) and admin kubeconfig without --cert-dir (default ./data)', apply: (o, v) => (o.dataDir = v) },
  'service-cluster-ip-range': {
    usage: `the IPv4 CIDR Services' cluster IPs are allocated from, its first address the kubernetes Service's (default ${DEFAULT_SERVICE_CIDR}; one range, no dual-stack yet)`,
    apply: (o, v) => {
      checkServiceCIDR(v);
      o.serviceClusterIpRange = v;
    },
  },
  'allow-privileged': {
    usage: 'allow privileged containers: only true is supported, as capstan does not refuse them yet',
    boolean: true,
    apply: (_o, v) => {
      if (!parseBool(v)) throw new Error('capstan does not refuse privileged containers yet: only true is supported');
    },
  },
  'cert-dir': {
    usage: 'directory of the serving pair apiserver.crt/apiserver.key (read, or generated when absent; not with --tls-cert-file) and of every file capstan generates (default <data-dir>/pki)',
    apply: (o, v) => {
      if (v === '') throw new Error('must name a directory');
      o.certDir = v;
    },
  },
  'anonymous-auth': {
    usage: 'requests without credentials are system:anonymous (default true)',
    boolean: true,
    apply: (o, v) => {
      o.anonymousAuth = parseBool(v);
      o.anonymousAuthSet = true;
    },
  },
  'token-auth-file': { usage: 'CSV of bearer tokens: token,user,uid[,"group1,group2"]', apply: (o, v) => (o.tokenAuthFile = v) },
  'service-account-key-file': {
    usage: 'PEM keys (RSA or ECDSA, public or private) verifying service-account tokens; repeatable',
    apply: (o, v) => (o.serviceAccountKeyFiles = [...o.serviceAccountKeyFiles, v]),
  },
  'service-account-signing-key-file': { usage: 'PEM private key signing service-account tokens; default: generated under --data-dir', apply: (o, v) => (o.serviceAccountSigningKeyFile = v) },
  'service-account-issuer': {
    usage: 'issuer of service-account tokens; repeatable, the first issues (default https://kubernetes.default.svc.cluster.local)',
    apply: (o, v) => (o.serviceAccountIssuers = [...o.serviceAccountIssuers, v]),
  },
  'service-account-lookup': {
    usage: 'reject tokens of deleted service accounts and bound objects (default true)',
    boolean: true,
    apply: (o, v) => (o.serviceAccountLookup = parseBool(v)),
  },
  'service-account-max-token-expiration': {
    usage: 'Go duration capping TokenRequest lifetimes (default: none)',
    apply: (o, v) => (o.serviceAccountMaxTokenExpirationSeconds = Math.floor(parseNonNegativeDuration(v) / 1000)),
  },
  'service-account-jwks-uri': { usage: 'jwks_uri in the OpenID discovery document (default https://<this server>/openid/v1/jwks)', apply: (o, v) => (o.serviceAccountJwksUri = v) },
  'api-audiences': { usage: 'audiences of the API server (default: the service-account issuers)', apply: (o, v) => (o.apiAudiences = splitList(v)) },
  'requestheader-username-headers': { usage: 'headers an authenticating proxy names the user in', apply: (o, v) => (o.requestheaderUsernameHeaders = splitList(v)) },
  'requestheader-uid-headers': { usage: 'headers an authenticating proxy names the uid in', apply: (o, v) => (o.requestheaderUidHeaders = splitList(v)) },
  'requestheader-group-headers': { usage: 'headers an authenticating proxy names groups in', apply: (o, v) => (o.requestheaderGroupHeaders = splitList(v)) },
  'requestheader-extra-headers-prefix': { usage: 'header prefixes an authenticating proxy puts extra in', apply: (o, v) => (o.requestheaderExtraHeadersPrefix = splitList(v)) },
  'requestheader-client-ca-file': { usage: "CA bundle verifying an authenticating proxy's client certificate", apply: (o, v) => (o.requestheaderClientCaFile = v) },
  'requestheader-allowed-names': { usage: 'Common Names a proxy certificate may have (default: any)', apply: (o, v) => (o.requestheaderAllowedNames = splitList(v)) },
  'proxy-client-cert-file': { usage: 'client certificate the aggregator presents to extension API servers', apply: (o, v) => (o.proxyClientCertFile = v) },
  'proxy-client-key-file': { usage: 'private key of --proxy-client-cert-file', apply: (o, v) => (o.proxyClientKeyFile = v) },
  'authentication-token-webhook-config-file': { usage: 'kubeconfig of a TokenReview webhook', apply: (o, v) => (o.authenticationTokenWebhookConfigFile = v) },
  'authentication-token-webhook-cache-ttl': {
    usage: 'Go duration the webhook answers are kept (default 2m0s)',
    apply: (o, v) => (o.authenticationTokenWebhookCacheTtlMs = parseNonNegativeDuration(v)),
  },
  'authentication-token-webhook-version': {
    usage: 'TokenReview version sent to the webhook: v1beta1 (default) or v1',
    apply: (o, v) => {
      if (v !== 'v1' && v !== 'v1beta1') throw new Error('must be v1 or v1beta1');
      o.authenticationTokenWebhookVersion = v;
    },
  },
  controllers: {
    usage: "capstan's own copies of kube-controller-manager's controllers, in its --controllers syntax: '*' all (default), 'name' on, '-name' off, empty none; off where a controller manager runs",
    apply: (o, v) => {
      const selection = splitList(v);
      checkControllerSelection(selection);
      o.controllers = selection;
    },
  },
  'enable-bootstrap-token-auth': {
    usage: 'accept bootstrap tokens (kube-system secrets of type bootstrap.kubernetes.io/token)',
    boolean: true,
    apply: (o, v) => (o.enableBootstrapTokenAuth = parseBool(v)),
  },
  'oidc-issuer-url': { usage: 'https URL of an OpenID issuer whose ID tokens are accepted', apply: (o, v) => (o.oidc = { ...o.oidc, issuerUrl: v }) },
  'oidc-client-id': { usage: 'audience OIDC tokens must name', apply: (o, v) => (o.oidc = { ...o.oidc, clientId: v }) },
  'oidc-username-claim': { usage: 'claim naming the user (default sub)', apply: (o, v) => (o.oidc = { ...o.oidc, usernameClaim: v }) },
  'oidc-username-prefix': { usage: "prefix of OIDC usernames ('-': none)", apply: (o, v) => (o.oidc = { ...o.oidc, usernamePrefix: v }) },
  'oidc-groups-claim': { usage: 'claim holding the groups', apply: (o, v) => (o.oidc = { ...o.oidc, groupsClaim: v }) },
  'oidc-groups-prefix': { usage: 'prefix of OIDC groups', apply: (o, v) => (o.oidc = { ...o.oidc, groupsPrefix: v }) },
  'oidc-required-claim': {
    usage: 'key=value a token must hold; repeatable',
    apply: (o, v) => (o.oidc = { ...o.oidc, requiredClaims: { ...o.oidc.requiredClaims, ...parseKeyValues(v) } }),
  },
  'oidc-ca-file': { usage: "CA verifying the issuer's certificate (default: system roots)", apply: (o, v) => (o.oidc = { ...o.oidc, caFile: v }) },
  'oidc-signing-algs': { usage: 'accepted algorithms (default RS256)', apply: (o, v) => (o.oidc = { ...o.oidc, signingAlgs: splitList(v) }) },
  'audit-policy-file': { usage: 'audit.k8s.io/v1 Policy: which requests are audited, at which level', apply: (o, v) => (o.audit = { ...o.audit, policyFile: v }) },
  'audit-log-path': { usage: "file the audit events are written to, one a line ('-': standard output)", apply: (o, v) => (o.audit = { ...o.audit, logPath: v }) },
  'audit-log-format': {
    usage: 'json (default, audit.k8s.io/v1 Events) or legacy (one line of text an event)',
    apply: (o, v) => (o.audit = { ...o.audit, logFormat: oneOf(v, ['json', 'legacy'], 'format') }),
  },
  'audit-log-maxage': { usage: 'days to keep rotated audit logs, by the time in their names (default: no limit)', apply: (o, v) => (o.audit = { ...o.audit, logMaxAgeDays: parseCount(v) }) },
  'audit-log-maxbackup': { usage: 'rotated audit logs to keep (default 0: all)', apply: (o, v) => (o.audit = { ...o.audit, logMaxBackups: parseCount(v) }) },
  'audit-log-maxsize': { usage: 'megabytes of the audit log before it is rotated (default 0: 100)', apply: (o, v) => (o.audit = { ...o.audit, logMaxSizeMB: parseCount(v) }) },
  'audit-log-compress': { usage: 'gzip rotated audit logs', boolean: true, apply: (o, v) => (o.audit = { ...o.audit, logCompress: parseBool(v) }) },
  'audit-log-mode': {
    usage: 'batch, blocking (default) or blocking-strict (a request whose first event cannot be kept fails)',
    apply: (o, v) => (o.audit = { ...o.audit, logMode: oneOf(v, AUDIT_MODE_NAMES, 'mode') }),
  },
  'audit-log-batch-buffer-size': { usage: 'audit events waiting for the log before new ones are dropped (default 10000)', apply: (o, v) => (o.audit = { ...o.audit, logBatchBufferSize: parsePositive(v) }) },
  'audit-log-batch-max-size': { usage: 'audit events written at once in batch mode (default 1)', apply: (o, v) => (o.audit = { ...o.audit, logBatchMaxSize: parsePositive(v) }) },
  'audit-log-batch-max-wait': { usage: 'Go duration a batch waits to fill in batch mode (default 0s)', apply: (o, v) => (o.audit = { ...o.audit, logBatchMaxWaitMs: parseNonNegativeDuration(v) }) },
  'audit-log-version': { usage: 'audit.k8s.io/v1, the only version written', apply: (_o, v) => void oneOf(v, ['audit.k8s.io/v1'], 'version') },
  'audit-webhook-config-file': { usage: 'kubeconfig of the audit webhook, which is POSTed EventLists', apply: (o, v) => (o.audit = { ...o.audit, webhookConfigFile: v }) },
  'audit-webhook-mode': {
    usage: 'batch (default), blocking or blocking-strict',
    apply: (o, v) => (o.audit = { ...o.audit, webhookMode: oneOf(v, AUDIT_MODE_NAMES, 'mode') }),
  },
  'audit-webhook-batch-buffer-size': { usage: 'audit events waiting for the webhook before new ones are dropped (default 10000)', apply: (o, v) => (o.audit = { ...o.audit, webhookBatchBufferSize: parsePositive(v) }) },
  'audit-webhook-batch-max-size': { usage: 'audit events in one webhook request (default 400)', apply: (o, v) => (o.audit = { ...o.audit, webhookBatchMaxSize: parsePositive(v) }) },
  'audit-webhook-batch-max-wait': { usage: 'Go duration a batch waits to fill (default 30s)', apply: (o, v) => (o.audit = { ...o.audit, webhookBatchMaxWaitMs: parseNonNegativeDuration(v) }) },
  'audit-webhook-initial-backoff': { usage: 'Go duration before the first retry of a failed webhook request (default 10s)', apply: (o, v) => (o.audit = { ...o.audit, webhookInitialBackoffMs: parseNonNegativeDuration(v) }) },
  ...auditThrottleFlags('log'),
  ...auditThrottleFlags('webhook'),
  ...auditTruncateFlags('log'),
  ...auditTruncateFlags('webhook'),
  'audit-webhook-version': { usage: 'audit.k8s.io/v1, the only version sent', apply: (_o, v) => void oneOf(v, ['audit.k8s.io/v1'], 'version') },
  'authentication-config': { usage: 'AuthenticationConfiguration file (apiserver.config.k8s.io/v1); reloaded on change', apply: (o, v) => (o.authenticationConfig = v) },
};

export type ParseResult = { readonly options: ServerOptions } | { readonly help: string };

/**
 * The name the process was started under (bin/kube-apiserver or bin/capstan). As
 * `kube-apiserver` capstan stands in for the reference server alone, so suites written against
 * it see what it does: none of capstan's copies of the controller manager's controllers run
 * unless `--controllers` asks for them.
 */
export type Personality = 'capstan' | 'kube-apiserver';

export function personalityOf(argv0: string): Personality {
  return basename(argv0) === 'kube-apiserver' ? 'kube-apiserver' : 'capstan';
}

/** Parses argv (without `node` and the script). Throws `FlagError` with a message for the operator. */
export function parseFlags(argv: readonly string[], personality: Personality = 'capstan'): ParseResult {
  const options: Options = { ...DEFAULT_OPTIONS, controllers: personality === 'kube-apiserver' ? [] : DEFAULT_OPTIONS.controllers };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: usage(personality) };
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
    const spec = FLAGS[name];
    if (spec === undefined) throw new FlagError(`unknown flag: --${name}`);
    let value: string;
    if (equals >= 0) value = arg.slice(equals + 1);
    else if (spec.boolean) value = 'true';
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new FlagError(`flag needs an argument: --${name}`);
    try {
      spec.apply(options, value);
    } catch (error) {
      throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: ${(error as Error).message}`);
    }
  }
  if (positional.length > 0) {
    throw new FlagError(`${JSON.stringify(personality)} does not take any arguments, got ${JSON.stringify(positional)}`);
  }
  return { options };
}

export function usage(personality: Personality = 'capstan'): string {
  const lines = Object.entries(FLAGS).map(([name, spec]) => `  --${name.padEnd(28)} ${spec.usage}`);
  return `Usage: ${personality} [flags]\n\nFlags:\n${lines.join('\n')}\n`;
}

function parsePort(value: string): number {
  if (!/^\d+$/.test(value)) throw new Error('not a port number');
  const port = Number(value);
  if (port > 65535) throw new Error('port must be at most 65535');
  return port;
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new Error('not a non-negative integer');
  return Number(value);
}

/** `--audit-<backend>-batch-throttle-enable`, `-qps`, `-burst` (batch mode only). */
function auditThrottleFlags(backend: 'log' | 'webhook'): Record<string, FlagSpec> {
  const key = backend === 'log' ? 'logThrottle' : 'webhookThrottle';
  const set = (o: Options, change: Partial<AuditThrottleFlags>) => (o.audit = { ...o.audit, [key]: { ...o.audit[key], ...change } });
  const defaults = DEFAULT_OPTIONS.audit[key];
  return {
    [`audit-${backend}-batch-throttle-enable`]: {
      usage: `limit the ${backend}'s batches a second in batch mode (default ${defaults.enabled})`,
      boolean: true,
      apply: (o, v) => set(o, { enabled: parseBool(v) }),
    },
    [`audit-${backend}-batch-throttle-qps`]: {
      usage: `batches a second on average (default ${defaults.qps})`,
      apply: (o, v) => {
        const qps = Number(v);
        if (!Number.isFinite(qps) || qps < 0 || v.trim() === '') throw new Error('not a non-negative number');
        set(o, { qps });
      },
    },
    [`audit-${backend}-batch-throttle-burst`]: { usage: `batches at once after a quiet spell (default ${defaults.burst})`, apply: (o, v) => set(o, { burst: parseCount(v) }) },
  };
}

/** `--audit-<backend>-truncate-enabled`, `-max-event-size`, `-max-batch-size`. */
function auditTruncateFlags(backend: 'log' | 'webhook'): Record<string, FlagSpec> {
  const key = backend === 'log' ? 'logTruncate' : 'webhookTruncate';
  const set = (o: Options, change: Partial<AuditTruncateFlags>) => (o.audit = { ...o.audit, [key]: { ...o.audit[key], ...change } });
  return {
    [`audit-${backend}-truncate-enabled`]: {
      usage: `cut the objects from ${backend} events past the maximum size, and split batches`,
      boolean: true,
      apply: (o, v) => set(o, { enabled: parseBool(v) }),
    },
    [`audit-${backend}-truncate-max-event-size`]: {
      usage: 'bytes of an event before its objects are cut, or it is dropped (default 102400)',
      apply: (o, v) => set(o, { maxEventSize: parsePositive(v) }),
    },
    [`audit-${backend}-truncate-max-batch-size`]: {
      usage: 'bytes of a batch before it is split (default 10485760)',
      apply: (o, v) => set(o, { maxBatchSize: parsePositive(v) }),
    },
  };
}

function parsePositive(value: string): number {
  const count = parseCount(value);
  if (count === 0) throw new Error('must be greater than 0');
  return count;
}

const AUDIT_MODE_NAMES = ['batch', 'blocking', 'blocking-strict'] as const;

function oneOf<T extends string>(value: string, known: readonly T[], what: string): T {
  if (!(known as readonly string[]).includes(value)) throw new Error(`invalid audit log ${what} ${JSON.stringify(value)}, allowed ${what}s are ${JSON.stringify(known.join(','))}`);
  return value as T;
}

function parseNonNegativeDuration(value: string): number {
  const ms = parseGoDuration(value);
  if (ms < 0) throw new Error('must not be negative');
  return ms;
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The spellings Go's strconv.ParseBool accepts. */
export const GO_BOOLEANS: Readonly<Record<string, boolean>> = {
  '1': true, t: true, T: true, true: true, TRUE: true, True: true,
  '0': false, f: false, F: false, false: false, FALSE: false, False: false,
};

function parseBool(value: string): boolean {
  const parsed = GO_BOOLEANS[value];
  if (parsed === undefined) throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
  return parsed;
}

function parseKeyValues(value: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const entry of splitList(value)) {
    const equals = entry.indexOf('=');
    if (equals <= 0) throw new Error(`${entry} must be formatted as key=value`);
    pairs[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return pairs;
}

function parseFeatureGates(value: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const entry of splitList(value)) {
    const [name, setting, ...extra] = entry.split('=');
    if (setting === undefined || extra.length > 0) throw new Error(`missing bool value for ${name}`);
    const parsed = GO_BOOLEANS[setting];
    if (parsed === undefined) {
      throw new Error(`invalid value of ${name}: ${setting}, err: strconv.ParseBool: parsing ${JSON.stringify(setting)}: invalid syntax`);
    }
    // The reference also takes names qualified by its own component.
    const gate = name.startsWith('kube:') ? name.slice('kube:'.length) : name;
    const spec = FEATURE_GATES[gate];
    if (spec === undefined) throw new Error(`unrecognized feature gate: ${gate}`);
    if (spec.locked && parsed !== spec.default) throw new Error(`cannot set feature gate ${gate} to ${parsed}, feature is locked to ${spec.default}`);
    gates[gate] = parsed;
  }
  return gates;
}

function parseRuntimeConfig(value: string): Record<string, string> {
  const config: Record<string, string> = {};
  for (const entry of splitList(value)) {
    const equals = entry.indexOf('=');
    if (equals < 0) config[entry] = 'true';
    else config[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return config;
}
