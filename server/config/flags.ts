/**
 * Command-line flags, named as the reference server names them so operators bring what they
 * know. Both `--flag=value` and `--flag value` are accepted.
 */
import { basename } from 'node:path';
import { checkControllerSelection } from './controller-selection';
import { parseGoDuration } from './duration';
import { settleFeatureGates } from './feature-gate-settings';
import { DEFAULT_KUBELET_CLIENT_CONFIG, type KubeletClientConfig } from './kubelet-client';
import { canonicalFlagValue, GO_BOOLEANS, parseBool, splitList } from './flag-values';
import { flagListing, type GivenFlag } from './flag-listing';
import { REFERENCE_FLAG_SECTIONS, REFERENCE_FLAGS, type ReferenceFlag } from './reference-flags';
import { unbuiltReason } from './unbuilt-flags';
import { compileRe2 } from '../regex/re2';
import { featureEnabled } from './feature-enabled';
import { parseAddr } from '../net/netip';
import { parseServiceIPRanges, type ServiceIPRanges } from '../net/service-ip-ranges';
import { DEFAULT_NODE_PORT_RANGE, parsePortRange, type PortRange } from './port-range';
import {
  checkCipherSuiteNames,
  parseNamedCertKey,
  tlsVersionName,
  type NamedCertKey,
  type TlsVersionName,
} from './tls-flags';
import { parseWatchCacheSize } from './watch-cache-sizes';
import { STORAGE_MEDIA_TYPES, type StorageMediaType } from './storage-media-type';
import { checkShowHiddenMetricsVersion } from './show-hidden-metrics';
import { goAggregate } from '../../api/go-json-syntax';

export interface CoordinatedLeadershipTimers {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

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
  /** `--storage-media-type`: how built-in kinds' values are stored (server/codec/storage-value.ts). */
  readonly storageMediaType: StorageMediaType;
  /** `--encryption-provider-config`: the EncryptionConfiguration of encryption at rest. */
  readonly encryptionProviderConfig?: string;
  /** `--encryption-provider-config-automatic-reload`: follow the file's changes. */
  readonly encryptionProviderConfigAutomaticReload: boolean;
  /** `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`: TLS to etcd for https endpoints. */
  readonly etcdCaFile?: string;
  readonly etcdCertFile?: string;
  readonly etcdKeyFile?: string;
  /** `--etcd-servers-overrides`: built-in resources kept on etcd servers of their own. */
  readonly etcdServersOverrides: readonly EtcdServersOverride[];
  /** `--service-cluster-ip-range` as given ('' for the default); see serviceIPRangesOf. */
  readonly serviceClusterIPRange: string;
  /** `--service-node-port-range`: the ports NodePort and LoadBalancer Services are given. */
  readonly serviceNodePortRange: PortRange;
  /** `--kubernetes-service-node-port`: the `kubernetes` Service's node port; 0: a ClusterIP Service. */
  readonly kubernetesServiceNodePort: number;
  /** `--advertise-address`; absent: the bind address, or the host's default interface's (advertise-address.ts). */
  readonly advertiseAddress?: string;
  /**
   * `--external-hostname`: the host (and port, if it names one) of the URLs this server gives
   * out, the OpenID discovery's jwks_uri and `/api`'s address; empty: the advertise address.
   */
  readonly externalHostname: string;
  /**
   * `--enable-aggregator-routing`: APIServices' and webhooks' Services are reached at an
   * endpoint's address; off (the default), at their cluster IP.
   */
  readonly enableAggregatorRouting: boolean;
  /** `--aggregator-reject-forwarding-redirect`: an extension server's redirect reaches the client as a 502. */
  readonly aggregatorRejectForwardingRedirect: boolean;
  /** `--etcd-healthcheck-timeout` (livez and healthz): how long the store's check waits for its answer. */
  readonly etcdHealthcheckTimeoutMs: number;
  /** `--etcd-readycheck-timeout` (readyz): the same for readiness. */
  readonly etcdReadycheckTimeoutMs: number;
  /**
   * `--apiserver-count` (deprecated): over 1, a new CRD is Installing for 5 s before it is
   * Established, the reference's guard for replicas. It counts nothing else with leases.
   */
  readonly apiserverCount: number;
  /** `--permit-port-sharing`: the secure port is bound with SO_REUSEPORT, so servers that all ask share it. */
  readonly permitPortSharing: boolean;
  /** 0 disables compaction. */
  readonly etcdCompactionIntervalMs: number;
  /** `--event-ttl` in whole seconds, as the reference gives it to its store (0: Events are kept). */
  readonly eventTtlSeconds: number;
  /** `--lease-reuse-duration-seconds`: how long one etcd lease serves writes with a TTL. */
  readonly leaseReuseDurationSeconds: number;
  /** `--endpoint-reconciler-type`: `lease` keeps every live replica in the `kubernetes` Endpoints; `none` leaves them alone. */
  readonly endpointReconcilerType: 'lease' | 'none';
  readonly shutdownDelayMs: number;
  /** `--coordinated-leadership-*`: the leader election of the coordinated leader election controller. */
  readonly coordinatedLeadership: CoordinatedLeadershipTimers;
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
  /** Go regular expressions of the origins CORS answers; empty: none. */
  readonly corsAllowedOrigins: readonly string[];
  /** `Strict-Transport-Security` directives of every answer; empty: none. */
  readonly strictTransportSecurityDirectives: readonly string[];
  /** `-v`: klog's verbosity; from 3 on every request is logged (server/http/with-request-log.ts). */
  readonly logVerbosity: number;
  readonly dataDir: string;
  /** The name the server was started under, which decides some defaults. */
  readonly personality: Personality;
  /** The flags as given, in order, for `/flagz` (see flagzListing). */
  readonly givenFlags: readonly GivenFlag[];
  /** `--cert-dir`: the serving pair and every generated file (server/config/file-locations.ts); absent: `<data-dir>/pki`. */
  readonly certDir?: string;
  /** `--anonymous-auth` (default true): requests without any credential are `system:anonymous`. */
  readonly anonymousAuth: boolean;
  /** Set when `--anonymous-auth` was given, which `--authentication-config`'s anonymous section excludes. */
  readonly anonymousAuthSet?: boolean;
  readonly tokenAuthFile?: string;
  /** PEM files of keys that verify service-account tokens; empty: the signing key (generated under the data dir when not given). */
  readonly serviceAccountKeyFiles: readonly string[];
  readonly serviceAccountSigningKeyFile?: string;
  /** The unix socket (`@name`: abstract) of an external JWT signer, which then signs instead of a key file. */
  readonly serviceAccountSigningEndpoint?: string;
  /** The first issues tokens; all are accepted. Empty: `https://kubernetes.default.svc.cluster.local`. */
  readonly serviceAccountIssuers: readonly string[];
  readonly serviceAccountLookup: boolean;
  /** 0: no maximum. */
  readonly serviceAccountMaxTokenExpirationSeconds: number;
  /** The kubelet's hour-long pod tokens are issued for a year, with `warnafter` at the hour. */
  readonly serviceAccountExtendTokenExpiration: boolean;
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
  /** `--kubelet-*`: how pods/log, exec, attach, portforward and nodes/proxy reach a node's kubelet (server/kubelet/). */
  readonly kubelet: KubeletClientConfig;
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
  /** `--allow-privileged` (default false): pods may ask for privileged and hostProcess containers. */
  readonly allowPrivileged: boolean;
  /** `--tls-min-version`: VersionTLS10..13; absent: TLS 1.2. */
  readonly tlsMinVersion?: TlsVersionName;
  /** `--tls-cipher-suites`: Go's names (TLS 1.2 and below; TLS 1.3's are not configurable); empty: the defaults. */
  readonly tlsCipherSuites: readonly string[];
  /** `--tls-sni-cert-key`, repeated: certificates chosen by the name the client asks for. */
  readonly tlsSniCertKeys: readonly NamedCertKey[];
  /** `--min-request-timeout` (seconds): a watch without `timeoutSeconds` runs [min, 2·min); 0: no end. */
  readonly minRequestTimeoutSeconds: number;
  /** `--goaway-chance`: the fraction of requests whose connection is closed after the answer (0 to 0.02). */
  readonly goawayChance: number;
  /** `--watch-cache-sizes`, as `resource[.group]` → size; only 0 means something (no watch cache). */
  readonly watchCacheSizes: Readonly<Record<string, number>>;
  /** `--profiling` (default true): `/debug/pprof/` serves CPU and heap profiles. */
  readonly profiling: boolean;
  /** `--show-hidden-metrics-for-version`: the previous minor (`1.33`) shows the metrics deprecated before this one again. */
  readonly showHiddenMetricsForVersion?: string;
}

/** One entry of `--etcd-servers-overrides`: `group/resource#url;url`. */
export interface EtcdServersOverride {
  readonly group: string;
  readonly resource: string;
  readonly servers: readonly string[];
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

/** The reference's etcd health and readiness check timeout. */
const DEFAULT_STORE_CHECK_TIMEOUT_MS = 2_000;

export const DEFAULT_OPTIONS: ServerOptions = {
  allowPrivileged: false,
  tlsCipherSuites: [],
  tlsSniCertKeys: [],
  minRequestTimeoutSeconds: 1800,
  goawayChance: 0,
  watchCacheSizes: {},
  profiling: true,
  securePort: 6443,
  bindAddress: '127.0.0.1',
  etcdServers: [],
  etcdPrefix: '/registry',
  storageMediaType: 'application/vnd.kubernetes.protobuf',
  encryptionProviderConfigAutomaticReload: false,
  etcdServersOverrides: [],
  serviceClusterIPRange: '',
  serviceNodePortRange: parsePortRange(DEFAULT_NODE_PORT_RANGE),
  kubernetesServiceNodePort: 0,
  externalHostname: '',
  enableAggregatorRouting: false,
  apiserverCount: 1,
  permitPortSharing: false,
  etcdHealthcheckTimeoutMs: DEFAULT_STORE_CHECK_TIMEOUT_MS,
  etcdReadycheckTimeoutMs: DEFAULT_STORE_CHECK_TIMEOUT_MS,
  aggregatorRejectForwardingRedirect: true,
  etcdCompactionIntervalMs: 5 * 60_000,
  eventTtlSeconds: 60 * 60,
  leaseReuseDurationSeconds: 60,
  endpointReconcilerType: 'lease',
  shutdownDelayMs: 0,
  coordinatedLeadership: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
  enablePriorityAndFairness: true,
  requestTimeoutMs: 60_000,
  featureGates: {},
  runtimeConfig: {},
  livezGracePeriodMs: 0,
  logVerbosity: 0,
  strictTransportSecurityDirectives: [],
  corsAllowedOrigins: [],
  dataDir: './data',
  personality: 'capstan',
  givenFlags: [],
  anonymousAuth: true,
  serviceAccountKeyFiles: [],
  serviceAccountIssuers: [],
  serviceAccountLookup: true,
  serviceAccountMaxTokenExpirationSeconds: 0,
  serviceAccountExtendTokenExpiration: true,
  apiAudiences: [],
  requestheaderUsernameHeaders: [],
  requestheaderUidHeaders: [],
  requestheaderGroupHeaders: [],
  requestheaderExtraHeadersPrefix: [],
  requestheaderAllowedNames: [],
  kubelet: DEFAULT_KUBELET_CLIENT_CONFIG,
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
    usage: 'port for HTTPS (0 picks a free port)',
    apply: (o, v) => (o.securePort = parsePort(v)),
  },
  'bind-address': { usage: 'address to listen on', apply: (o, v) => (o.bindAddress = v) },
  'tls-cert-file': {
    usage: 'serving certificate (PEM); default: apiserver.crt of --cert-dir, generated when absent',
    apply: (o, v) => (o.tlsCertFile = v),
  },
  'tls-private-key-file': { usage: 'key of --tls-cert-file (PEM)', apply: (o, v) => (o.tlsPrivateKeyFile = v) },
  'client-ca-file': {
    usage: 'CA bundle verifying client certificates; default: the generated CA',
    apply: (o, v) => (o.clientCaFile = v),
  },
  'etcd-servers': {
    usage: 'comma-separated etcd URLs; none: embedded SQLite store',
    apply: (o, v) => (o.etcdServers = splitList(v)),
  },
  'etcd-prefix': { usage: 'key prefix', apply: (o, v) => (o.etcdPrefix = v) },
  'storage-media-type': {
    usage: `media type of stored built-in objects: ${STORAGE_MEDIA_TYPES.join(', ')} (CRDs, APIServices and custom resources are JSON)`,
    apply: (o, v) => {
      const allowed: readonly string[] = [...STORAGE_MEDIA_TYPES].sort();
      if (!allowed.includes(v))
        throw new FlagError(`--storage-media-type ${JSON.stringify(v)} invalid, allowed values: ${allowed.join(', ')}`);
      o.storageMediaType = v as StorageMediaType;
    },
  },
  'encryption-provider-config': {
    usage: 'EncryptionConfiguration file: which resources are encrypted at rest, and how',
    apply: (o, v) => (o.encryptionProviderConfig = v),
  },
  'encryption-provider-config-automatic-reload': {
    usage: 'reload --encryption-provider-config when its contents change',
    boolean: true,
    apply: (o, v) => (o.encryptionProviderConfigAutomaticReload = parseBool(v)),
  },
  'etcd-cafile': {
    usage: 'CA bundle verifying the servers of https etcd URLs; none: the system roots',
    apply: (o, v) => (o.etcdCaFile = v),
  },
  'etcd-certfile': {
    usage: 'client certificate presented to https etcd servers (with --etcd-keyfile)',
    apply: (o, v) => (o.etcdCertFile = v),
  },
  'etcd-keyfile': { usage: 'private key of --etcd-certfile', apply: (o, v) => (o.etcdKeyFile = v) },
  'etcd-servers-overrides': {
    usage:
      'per-resource etcd servers, comma separated, each group/resource#servers with the URLs semicolon separated, e.g. "/events#http://etcd6:2379" (built-in resources only)',
    apply: (o, v) => (o.etcdServersOverrides = [...o.etcdServersOverrides, ...parseEtcdServersOverrides(v)]),
  },
  'service-cluster-ip-range': {
    usage: 'CIDR of Service cluster IPs, or two of different families (dual-stack), the primary first',
    apply: (o, v) => (o.serviceClusterIPRange = v),
  },
  'service-node-port-range': {
    usage: 'ports of NodePort and LoadBalancer Services: a-b, a+n (n ports after a) or one port',
    apply: (o, v) => (o.serviceNodePortRange = parsePortRange(v)),
  },
  'kubernetes-service-node-port': {
    usage: 'node port of the kubernetes Service, which is then of type NodePort (0: of type ClusterIP)',
    apply: (o, v) => (o.kubernetesServiceNodePort = Number(canonicalFlagValue('int', v))),
  },
  'advertise-address': {
    usage:
      "IP address the kubernetes Service's endpoints name (none given: --bind-address, else the default interface's)",
    apply: (o, v) => (o.advertiseAddress = parseIP(v)),
  },
  'enable-aggregator-routing': {
    usage: "reach APIServices' and webhooks' Services at an endpoint's address, not their cluster IP",
    boolean: true,
    apply: (o, v) => (o.enableAggregatorRouting = parseBool(v)),
  },
  'aggregator-reject-forwarding-redirect': {
    usage: "answer an extension API server's redirect with a 502 rather than pass it on",
    boolean: true,
    apply: (o, v) => (o.aggregatorRejectForwardingRedirect = parseBool(v)),
  },
  'external-hostname': {
    usage:
      "host of the URLs this server gives out (OpenID discovery's jwks_uri, /api's address); empty: the advertise address",
    apply: (o, v) => (o.externalHostname = v),
  },
  'disable-http2-serving': {
    usage: 'serve HTTP/1.1 only: capstan always does (its TLS offers no h2), so both values are accepted',
    boolean: true,
    apply: (_o, v) => void parseBool(v),
  },
  'permit-port-sharing': {
    usage: 'bind the secure port with SO_REUSEPORT, so that several servers that all ask share it',
    boolean: true,
    apply: (o, v) => (o.permitPortSharing = parseBool(v)),
  },
  'apiserver-count': {
    usage: 'number of API servers (deprecated): over 1, a new CRD is Established 5 s after its names are accepted',
    apply: (o, v) => (o.apiserverCount = Number(canonicalFlagValue('int', v))),
  },
  'etcd-healthcheck-timeout': {
    usage: "Go duration the store's livez and healthz check waits for an answer (0: 2s)",
    apply: (o, v) => (o.etcdHealthcheckTimeoutMs = storeCheckTimeout(v)),
  },
  'etcd-readycheck-timeout': {
    usage: "Go duration the store's readyz check waits for an answer (0: 2s)",
    apply: (o, v) => (o.etcdReadycheckTimeoutMs = storeCheckTimeout(v)),
  },
  'etcd-compaction-interval': {
    usage: 'Go duration between compactions (0 disables)',
    apply: (o, v) => (o.etcdCompactionIntervalMs = parseNonNegativeDuration(v)),
  },
  'event-ttl': {
    usage: 'Go duration Events are kept after their last write (under a second: kept for good)',
    // Whole seconds, as the reference converts it; a TTL of 0 asks its store for no lease.
    apply: (o, v) => (o.eventTtlSeconds = Math.max(0, Math.floor(parseGoDuration(v) / 1000))),
  },
  'endpoint-reconciler-type': {
    usage: 'lease (every live replica listed in the kubernetes Endpoints, 15 s leases) or none',
    apply: (o, v) => {
      if (v === 'master-count')
        throw new FlagError(
          '--endpoint-reconciler-type: master-count (the deprecated count of --apiserver-count) is not built: capstan keeps the kubernetes Endpoints by leases',
        );
      if (v !== 'lease' && v !== 'none')
        throw new FlagError(`--endpoint-reconciler-type: Reconciler not implemented: ${v}`);
      o.endpointReconcilerType = v;
    },
  },
  'lease-reuse-duration-seconds': {
    usage: 'seconds one etcd lease serves Event writes before another is granted',
    apply: (o, v) => {
      if (!/^[+-]?\d+$/.test(v)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
      o.leaseReuseDurationSeconds = Number(v);
    },
  },
  'shutdown-delay-duration': {
    usage: 'Go duration to keep serving after SIGTERM while /readyz fails',
    apply: (o, v) => (o.shutdownDelayMs = parseNonNegativeDuration(v)),
  },
  'max-requests-inflight': {
    usage: 'short read-only requests in flight before 429s (0: no limit)',
    apply: (o, v) => (o.maxRequestsInflight = parseCount(v)),
  },
  'max-mutating-requests-inflight': {
    usage: 'short mutating requests in flight before 429s (0: no limit)',
    apply: (o, v) => (o.maxMutatingRequestsInflight = parseCount(v)),
  },
  'enable-priority-and-fairness': {
    usage: 'classify, queue and shed requests by FlowSchemas and priority levels, sharing the two in-flight limits',
    boolean: true,
    apply: (o, v) => (o.enablePriorityAndFairness = parseBool(v)),
  },
  'request-timeout': {
    usage: 'Go duration after which a short request is answered 504',
    apply: (o, v) => (o.requestTimeoutMs = parseNonNegativeDuration(v)),
  },
  'feature-gates': {
    usage: 'A=true,B=false',
    apply: (o, v) => (o.featureGates = { ...o.featureGates, ...parseFeatureGates(v) }),
  },
  'runtime-config': {
    usage: 'group/version=true|false,... (api/all, api/ga, api/beta, api/alpha too)',
    apply: (o, v) => (o.runtimeConfig = { ...o.runtimeConfig, ...parseRuntimeConfig(v) }),
  },
  'coordinated-leadership-lease-duration': {
    usage: 'Go duration of the lease the coordinated leader election controller is elected by',
    apply: (o, v) => (o.coordinatedLeadership = { ...o.coordinatedLeadership, leaseDurationMs: parseGoDuration(v) }),
  },
  'coordinated-leadership-renew-deadline': {
    usage: 'Go duration its leader retries a failed renewal before giving leadership up',
    apply: (o, v) => (o.coordinatedLeadership = { ...o.coordinatedLeadership, renewDeadlineMs: parseGoDuration(v) }),
  },
  'coordinated-leadership-retry-period': {
    usage: 'Go duration between its attempts to acquire or renew the lease',
    apply: (o, v) => (o.coordinatedLeadership = { ...o.coordinatedLeadership, retryPeriodMs: parseGoDuration(v) }),
  },
  'livez-grace-period': {
    usage: 'Go duration during which /livez ignores unfinished post-start hooks',
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
    usage: 'tolerationSeconds of the not-ready:NoExecute toleration added to pods',
    apply: (o, v) => (o.defaultNotReadyTolerationSeconds = parseCount(v)),
  },
  'default-unreachable-toleration-seconds': {
    usage: 'tolerationSeconds of the unreachable:NoExecute toleration added to pods',
    apply: (o, v) => (o.defaultUnreachableTolerationSeconds = parseCount(v)),
  },
  'authorization-mode': {
    usage: 'comma list of AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node, Webhook, asked in order',
    apply: (o, v) => (o.authorizationModes = splitList(v)),
  },
  'authorization-config': {
    usage:
      'AuthorizationConfiguration file (apiserver.config.k8s.io/v1); not with --authorization-mode or --authorization-webhook-*',
    apply: (o, v) => (o.authorizationConfigFile = v),
  },
  'authorization-policy-file': {
    usage: 'ABAC policy file, one JSON Policy a line (with --authorization-mode=ABAC)',
    apply: (o, v) => (o.authorizationPolicyFile = v),
  },
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
    usage: 'Go duration to cache allowed answers of the webhook',
    apply: (o, v) => (o.authorizationWebhookAuthorizedTtlMs = parseNonNegativeDuration(v)),
  },
  'authorization-webhook-cache-unauthorized-ttl': {
    usage: 'Go duration to cache denied answers of the webhook',
    apply: (o, v) => (o.authorizationWebhookUnauthorizedTtlMs = parseNonNegativeDuration(v)),
  },
  'data-dir': {
    usage: 'directory of the SQLite store, and of the certificates (pki/) and admin kubeconfig without --cert-dir',
    apply: (o, v) => (o.dataDir = v),
  },
  'cert-dir': {
    usage:
      'directory of the serving pair apiserver.crt/apiserver.key (read, or generated when absent; not with --tls-cert-file) and of every file capstan generates; none given: <data-dir>/pki',
    apply: (o, v) => {
      if (v === '') throw new Error('must name a directory');
      o.certDir = v;
    },
  },
  'anonymous-auth': {
    usage: 'requests without credentials are system:anonymous',
    boolean: true,
    apply: (o, v) => {
      o.anonymousAuth = parseBool(v);
      o.anonymousAuthSet = true;
    },
  },
  'token-auth-file': {
    usage: 'CSV of bearer tokens: token,user,uid[,"group1,group2"]',
    apply: (o, v) => (o.tokenAuthFile = v),
  },
  'service-account-key-file': {
    usage: 'PEM keys (RSA or ECDSA, public or private) verifying service-account tokens; repeatable',
    apply: (o, v) => (o.serviceAccountKeyFiles = [...o.serviceAccountKeyFiles, v]),
  },
  'service-account-signing-key-file': {
    usage: 'PEM private key signing service-account tokens; default: generated under --data-dir',
    apply: (o, v) => (o.serviceAccountSigningKeyFile = v),
  },
  'service-account-signing-endpoint': {
    usage:
      'unix socket of an external JWT signer (externaljwt.v1) that signs service-account tokens and serves their keys; excludes the key-file flags',
    // Empty, as in the reference: no signer.
    apply: (o, v) => (o.serviceAccountSigningEndpoint = v === '' ? undefined : v),
  },
  'service-account-issuer': {
    usage:
      'issuer of service-account tokens; repeatable, the first issues; none given: https://kubernetes.default.svc.cluster.local',
    apply: (o, v) => (o.serviceAccountIssuers = [...o.serviceAccountIssuers, v]),
  },
  'service-account-lookup': {
    usage: 'reject tokens of deleted service accounts and bound objects',
    boolean: true,
    apply: (o, v) => (o.serviceAccountLookup = parseBool(v)),
  },
  'service-account-max-token-expiration': {
    usage: 'Go duration capping TokenRequest lifetimes (default: none)',
    apply: (o, v) => (o.serviceAccountMaxTokenExpirationSeconds = Math.floor(parseNonNegativeDuration(v) / 1000)),
  },
  'service-account-extend-token-expiration': {
    usage:
      "issue the kubelet's hour-long pod tokens for a year, with warnafter at the hour, so old clients keep working",
    boolean: true,
    apply: (o, v) => (o.serviceAccountExtendTokenExpiration = parseBool(v)),
  },
  'service-account-jwks-uri': {
    usage: 'jwks_uri in the OpenID discovery document; none given: https://<this server>/openid/v1/jwks',
    apply: (o, v) => (o.serviceAccountJwksUri = v),
  },
  'api-audiences': {
    usage: 'audiences of the API server (default: the service-account issuers)',
    apply: (o, v) => (o.apiAudiences = splitList(v)),
  },
  'requestheader-username-headers': {
    usage: 'headers an authenticating proxy names the user in',
    apply: (o, v) => (o.requestheaderUsernameHeaders = splitList(v)),
  },
  'requestheader-uid-headers': {
    usage: 'headers an authenticating proxy names the uid in',
    apply: (o, v) => (o.requestheaderUidHeaders = splitList(v)),
  },
  'requestheader-group-headers': {
    usage: 'headers an authenticating proxy names groups in',
    apply: (o, v) => (o.requestheaderGroupHeaders = splitList(v)),
  },
  'requestheader-extra-headers-prefix': {
    usage: 'header prefixes an authenticating proxy puts extra in',
    apply: (o, v) => (o.requestheaderExtraHeadersPrefix = splitList(v)),
  },
  'requestheader-client-ca-file': {
    usage: "CA bundle verifying an authenticating proxy's client certificate",
    apply: (o, v) => (o.requestheaderClientCaFile = v),
  },
  'requestheader-allowed-names': {
    usage: 'Common Names a proxy certificate may have (default: any)',
    apply: (o, v) => (o.requestheaderAllowedNames = splitList(v)),
  },
  'proxy-client-cert-file': {
    usage: 'client certificate the aggregator presents to extension API servers',
    apply: (o, v) => (o.proxyClientCertFile = v),
  },
  'proxy-client-key-file': {
    usage: 'private key of --proxy-client-cert-file',
    apply: (o, v) => (o.proxyClientKeyFile = v),
  },
  'kubelet-client-certificate': {
    usage: 'client certificate (PEM) presented to kubelets',
    apply: (o, v) => (o.kubelet = { ...o.kubelet, clientCertificate: v }),
  },
  'kubelet-client-key': {
    usage: 'private key of --kubelet-client-certificate',
    apply: (o, v) => (o.kubelet = { ...o.kubelet, clientKey: v }),
  },
  'kubelet-certificate-authority': {
    usage: "CA bundle verifying kubelets' serving certificates; without it they are not verified",
    apply: (o, v) => (o.kubelet = { ...o.kubelet, certificateAuthority: v }),
  },
  'kubelet-preferred-address-types': {
    usage: 'node address types a kubelet is reached by, in order',
    apply: (o, v) => (o.kubelet = { ...o.kubelet, preferredAddressTypes: splitList(v) }),
  },
  'kubelet-timeout': {
    usage: "Go duration to connect to a kubelet and get its answer's headers",
    apply: (o, v) => (o.kubelet = { ...o.kubelet, timeoutMs: parseGoDuration(v) }),
  },
  'authentication-token-webhook-config-file': {
    usage: 'kubeconfig of a TokenReview webhook',
    apply: (o, v) => (o.authenticationTokenWebhookConfigFile = v),
  },
  'authentication-token-webhook-cache-ttl': {
    usage: 'Go duration the webhook answers are kept',
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
    usage:
      "capstan's own copies of kube-controller-manager's controllers, in its --controllers syntax: '*' all, 'name' on, '-name' off, empty none; default: all as capstan, none as kube-apiserver",
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
  'oidc-issuer-url': {
    usage: 'https URL of an OpenID issuer whose ID tokens are accepted',
    apply: (o, v) => (o.oidc = { ...o.oidc, issuerUrl: v }),
  },
  'oidc-client-id': { usage: 'audience OIDC tokens must name', apply: (o, v) => (o.oidc = { ...o.oidc, clientId: v }) },
  'oidc-username-claim': {
    usage: 'claim naming the user',
    apply: (o, v) => (o.oidc = { ...o.oidc, usernameClaim: v }),
  },
  'oidc-username-prefix': {
    usage: "prefix of OIDC usernames ('-': none)",
    apply: (o, v) => (o.oidc = { ...o.oidc, usernamePrefix: v }),
  },
  'oidc-groups-claim': { usage: 'claim holding the groups', apply: (o, v) => (o.oidc = { ...o.oidc, groupsClaim: v }) },
  'oidc-groups-prefix': { usage: 'prefix of OIDC groups', apply: (o, v) => (o.oidc = { ...o.oidc, groupsPrefix: v }) },
  'oidc-required-claim': {
    usage: 'key=value a token must hold; repeatable',
    apply: (o, v) => (o.oidc = { ...o.oidc, requiredClaims: { ...o.oidc.requiredClaims, ...parseKeyValues(v) } }),
  },
  'oidc-ca-file': {
    usage: "CA verifying the issuer's certificate (default: system roots)",
    apply: (o, v) => (o.oidc = { ...o.oidc, caFile: v }),
  },
  'oidc-signing-algs': {
    usage: 'accepted algorithms',
    apply: (o, v) => (o.oidc = { ...o.oidc, signingAlgs: splitList(v) }),
  },
  'audit-policy-file': {
    usage: 'audit.k8s.io/v1 Policy: which requests are audited, at which level',
    apply: (o, v) => (o.audit = { ...o.audit, policyFile: v }),
  },
  'audit-log-path': {
    usage: "file the audit events are written to, one a line ('-': standard output)",
    apply: (o, v) => (o.audit = { ...o.audit, logPath: v }),
  },
  'audit-log-format': {
    usage: 'json (default, audit.k8s.io/v1 Events) or legacy (one line of text an event)',
    apply: (o, v) => (o.audit = { ...o.audit, logFormat: oneOf(v, ['json', 'legacy'], 'format') }),
  },
  'audit-log-maxage': {
    usage: 'days to keep rotated audit logs, by the time in their names (default: no limit)',
    apply: (o, v) => (o.audit = { ...o.audit, logMaxAgeDays: parseCount(v) }),
  },
  'audit-log-maxbackup': {
    usage: 'rotated audit logs to keep (0: all)',
    apply: (o, v) => (o.audit = { ...o.audit, logMaxBackups: parseCount(v) }),
  },
  'audit-log-maxsize': {
    usage: 'megabytes of the audit log before it is rotated (0: 100)',
    apply: (o, v) => (o.audit = { ...o.audit, logMaxSizeMB: parseCount(v) }),
  },
  'audit-log-compress': {
    usage: 'gzip rotated audit logs',
    boolean: true,
    apply: (o, v) => (o.audit = { ...o.audit, logCompress: parseBool(v) }),
  },
  'audit-log-mode': {
    usage: 'batch, blocking (default) or blocking-strict (a request whose first event cannot be kept fails)',
    apply: (o, v) => (o.audit = { ...o.audit, logMode: oneOf(v, AUDIT_MODE_NAMES, 'mode') }),
  },
  'audit-log-batch-buffer-size': {
    usage: 'audit events waiting for the log before new ones are dropped',
    apply: (o, v) => (o.audit = { ...o.audit, logBatchBufferSize: parsePositive(v) }),
  },
  'audit-log-batch-max-size': {
    usage: 'audit events written at once in batch mode',
    apply: (o, v) => (o.audit = { ...o.audit, logBatchMaxSize: parsePositive(v) }),
  },
  'audit-log-batch-max-wait': {
    usage: 'Go duration a batch waits to fill in batch mode',
    apply: (o, v) => (o.audit = { ...o.audit, logBatchMaxWaitMs: parseNonNegativeDuration(v) }),
  },
  'audit-log-version': {
    usage: 'audit.k8s.io/v1, the only version written',
    apply: (_o, v) => void oneOf(v, ['audit.k8s.io/v1'], 'version'),
  },
  'audit-webhook-config-file': {
    usage: 'kubeconfig of the audit webhook, which is POSTed EventLists',
    apply: (o, v) => (o.audit = { ...o.audit, webhookConfigFile: v }),
  },
  'audit-webhook-mode': {
    usage: 'batch (default), blocking or blocking-strict',
    apply: (o, v) => (o.audit = { ...o.audit, webhookMode: oneOf(v, AUDIT_MODE_NAMES, 'mode') }),
  },
  'audit-webhook-batch-buffer-size': {
    usage: 'audit events waiting for the webhook before new ones are dropped',
    apply: (o, v) => (o.audit = { ...o.audit, webhookBatchBufferSize: parsePositive(v) }),
  },
  'audit-webhook-batch-max-size': {
    usage: 'audit events in one webhook request',
    apply: (o, v) => (o.audit = { ...o.audit, webhookBatchMaxSize: parsePositive(v) }),
  },
  'audit-webhook-batch-max-wait': {
    usage: 'Go duration a batch waits to fill',
    apply: (o, v) => (o.audit = { ...o.audit, webhookBatchMaxWaitMs: parseNonNegativeDuration(v) }),
  },
  'audit-webhook-initial-backoff': {
    usage: 'Go duration before the first retry of a failed webhook request',
    apply: (o, v) => (o.audit = { ...o.audit, webhookInitialBackoffMs: parseNonNegativeDuration(v) }),
  },
  // The deprecated name of the same setting, still read by the reference.
  'audit-webhook-batch-initial-backoff': {
    usage: 'deprecated name of --audit-webhook-initial-backoff',
    apply: (o, v) => (o.audit = { ...o.audit, webhookInitialBackoffMs: parseNonNegativeDuration(v) }),
  },
  'cors-allowed-origins': {
    usage:
      "Go regular expressions of the origins whose browsers may call the API (CORS), each pinned to the host: '^' or '//' before it, '$' or ':' after it, e.g. //example\\.com(:|$)",
    apply: (o, v) => {
      const patterns = v === '' ? [] : v.split(',');
      patterns.forEach(checkCorsOrigin);
      o.corsAllowedOrigins = patterns;
    },
  },
  'strict-transport-security-directives': {
    usage:
      'directives of the Strict-Transport-Security header sent with every answer, e.g. max-age=31536000,includeSubDomains,preload',
    apply: (o, v) => {
      // As pflag reads the list: empty items kept, so that the check below can refuse them.
      const directives = v === '' ? [] : v.split(',');
      checkStrictTransportSecurityDirectives(directives);
      o.strictTransportSecurityDirectives = directives;
    },
  },
  v: {
    usage: 'log verbosity: from 3 on, one line for every request, as the reference logs them',
    apply: (o, v) => (o.logVerbosity = Number(canonicalFlagValue('Level', v))),
  },
  'emulated-version': {
    usage:
      'kube=1.34 (or 1.34): the one version capstan emulates, its own; the reference also emulates 1.31 to 1.33, which capstan refuses',
    apply: (_o, v) => {
      for (const entry of splitList(v)) {
        const [component, version] = entry.includes('=') ? entry.split('=', 2) : ['kube', entry];
        if (component !== 'kube') throw new FlagError(`component not registered: ${component}`);
        if (!/^\d+\.\d+$/.test(version)) throw new FlagError(`illegal version string ${JSON.stringify(version)}`);
        if (version !== '1.34')
          throw new FlagError(`--emulated-version=${entry}: capstan serves 1.34 only and emulates no earlier release`);
      }
    },
  },
  'storage-backend': {
    usage: "etcd3, the only backend (capstan's embedded store is chosen by giving no --etcd-servers)",
    apply: (_o, v) => {
      if (v !== '' && v !== 'etcd3')
        throw new FlagError(
          `--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'`,
        );
    },
  },
  ...auditThrottleFlags('log'),
  ...auditThrottleFlags('webhook'),
  ...auditTruncateFlags('log'),
  ...auditTruncateFlags('webhook'),
  'audit-webhook-version': {
    usage: 'audit.k8s.io/v1, the only version sent',
    apply: (_o, v) => void oneOf(v, ['audit.k8s.io/v1'], 'version'),
  },
  'allow-privileged': {
    usage: 'privileged containers may be created (pods and pod templates); refused with 422 otherwise',
    boolean: true,
    apply: (o, v) => (o.allowPrivileged = parseBool(v)),
  },
  'tls-min-version': {
    usage:
      'Minimum TLS version supported. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13 (default: VersionTLS12)',
    apply: (o, v) => (o.tlsMinVersion = tlsVersionName(v)),
  },
  'tls-cipher-suites': {
    usage: "Comma-separated list of Go's cipher suite names for TLS 1.2 and below (default: the defaults)",
    apply: (o, v) => (o.tlsCipherSuites = [...o.tlsCipherSuites, ...checkCipherSuiteNames(splitList(v))]),
  },
  'tls-sni-cert-key': {
    usage:
      'cert,key[:name1,name2]: a certificate served to clients asking for one of the names (default: the names in the certificate); repeatable',
    apply: (o, v) => (o.tlsSniCertKeys = [...o.tlsSniCertKeys, parseNamedCertKey(v)]),
  },
  'min-request-timeout': {
    usage: 'seconds a watch without timeoutSeconds runs at least; it ends at random before twice this',
    apply: (o, v) => (o.minRequestTimeoutSeconds = parseGoInt(v, '--min-request-timeout can not be negative value')),
  },
  'goaway-chance': {
    usage:
      'fraction of requests whose connection is closed after the answer, so that clients spread over replicas (at most 0.02)',
    apply: (o, v) => (o.goawayChance = parseGoawayChance(v)),
  },
  'watch-cache-sizes': {
    usage:
      'resource[.group]#size,...: size 0 serves that resource without a watch cache; other sizes keep it (caches size themselves)',
    apply: (o, v) =>
      (o.watchCacheSizes = { ...o.watchCacheSizes, ...Object.fromEntries(splitList(v).map(parseWatchCacheSize)) }),
  },
  profiling: {
    usage: 'serve CPU and heap profiles at /debug/pprof/',
    boolean: true,
    apply: (o, v) => (o.profiling = parseBool(v)),
  },
  'contention-profiling': {
    usage: "block profiling (Go's); Node.js has no block profile, so only false is accepted",
    boolean: true,
    apply: (_o, v) => {
      if (parseBool(v))
        throw new Error(
          'capstan has no block profile to serve (Node.js measures no lock contention): only false is supported',
        );
    },
  },
  'show-hidden-metrics-for-version': {
    usage: 'the previous minor version (1.33) shows the metrics deprecated before 1.34 again',
    apply: (o, v) => (o.showHiddenMetricsForVersion = checkShowHiddenMetricsVersion(v)),
  },
  'authentication-config': {
    usage: 'AuthenticationConfiguration file (apiserver.config.k8s.io/v1); reloaded on change',
    apply: (o, v) => (o.authenticationConfig = v),
  },
};

export type ParseResult =
  | { readonly options: ServerOptions; readonly warnings: readonly string[] }
  | { readonly help: string }
  | { readonly version: 'true' | 'raw' };

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

/** Flags of capstan's own, which the reference does not have. */
const CAPSTAN_FLAGS: ReadonlySet<string> = new Set(['data-dir', 'controllers']);

/**
 * The spec of a flag: capstan's own parser where it acts on the flag, else, for a flag of the
 * reference's, one that checks the value by its type and accepts only the reference's default.
 */
function specOf(name: string): FlagSpec | undefined {
  const reference = REFERENCE_FLAGS[name];
  const own = FLAGS[name];
  if (own !== undefined || reference === undefined) return own;
  return {
    usage: `not acted on: ${unbuiltReason(name, reference.section)}; only the default is accepted`,
    boolean: reference.type === 'bool' ? true : undefined,
    apply: (_o, value) => {
      if (canonicalFlagValue(reference.type, value) === canonicalFlagValue(reference.type, reference.default)) return;
      throw new FlagError(
        `--${name}=${value}: ${unbuiltReason(name, reference.section)}; capstan accepts only its default ${JSON.stringify(reference.default)}`,
      );
    },
  };
}

function shorthandName(letter: string): string | undefined {
  return Object.keys(REFERENCE_FLAGS).find((name) => REFERENCE_FLAGS[name].shorthand === letter);
}

/**
 * Parses argv (without `node` and the script) as pflag does: `--name=value`, `--name value`, a
 * bare `--name` for bool flags, and `-x value`, `-x=value`, `-xvalue` for a shorthand. Throws
 * `FlagError` with a message for the operator.
 */
export function parseFlags(argv: readonly string[], personality: Personality = 'capstan'): ParseResult {
  const options: Options =
    personality === 'kube-apiserver' ? { ...DEFAULT_OPTIONS, ...KUBE_APISERVER_DEFAULTS } : { ...DEFAULT_OPTIONS };
  const givenFlags: GivenFlag[] = [];
  options.personality = personality;
  options.givenFlags = givenFlags;
  const positional: string[] = [];
  const warnings: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: usage(personality) };
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--') && arg.length > 2) {
      const equals = arg.indexOf('=');
      name = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
      inline = equals < 0 ? undefined : arg.slice(equals + 1);
    } else if (/^-[^-]/.test(arg)) {
      name = shorthandName(arg[1]);
      if (name === undefined) throw new FlagError(`unknown shorthand flag: '${arg[1]}' in ${arg}`);
      const rest = arg.slice(2);
      inline = rest === '' ? undefined : rest.startsWith('=') ? rest.slice(1) : rest;
    } else {
      positional.push(arg);
      continue;
    }
    const spec = specOf(name);
    if (spec === undefined) throw new FlagError(`unknown flag: --${name}`);
    const bareValue = spec.boolean ? 'true' : REFERENCE_FLAGS[name]?.noOptDefault;
    let value: string;
    if (inline !== undefined) value = inline;
    else if (bareValue !== undefined) value = bareValue;
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new FlagError(`flag needs an argument: --${name}`);
    if (REFERENCE_FLAGS[name]?.deprecated)
      warnings.push(`Flag --${name} has been deprecated in the reference kube-apiserver`);
    givenFlags.push({ name, value });
    if (name === 'version') {
      if (value === 'raw') return { version: 'raw' };
      if (parseBool(value)) return { version: 'true' };
      continue;
    }
    try {
      spec.apply(options, value);
    } catch (error) {
      // Checks the reference makes after parsing, in its own words.
      if (error instanceof FlagError) throw error;
      throw new FlagError(
        `invalid argument ${JSON.stringify(value)} for "--${name}" flag: ${(error as Error).message}`,
      );
    }
  }
  if (positional.length > 0) {
    throw new FlagError(
      `${JSON.stringify(personality)} does not take any arguments, got ${JSON.stringify(positional)}`,
    );
  }
  // The reference authorizes everything when neither --authorization-mode nor
  // --authorization-config is given; capstan alone authorizes by RBAC then.
  const authorizationGiven =
    options.authorizationModes !== undefined ||
    options.authorizationConfigFile !== undefined ||
    options.authorizationWebhookConfigFile !== undefined;
  if (personality === 'kube-apiserver' && !authorizationGiven) options.authorizationModes = ['AlwaysAllow'];
  // As the reference: an anonymous request must never meet an authorizer that allows anything.
  if (options.anonymousAuth && options.authorizationModes?.includes('AlwaysAllow')) {
    options.anonymousAuth = false;
    warnings.push(
      '--anonymous-auth is set to false: the AlwaysAllow authorizer would let anonymous requests do anything',
    );
  }
  try {
    const featureGates = settleFeatureGates(options.featureGates);
    options.featureGates = featureGates.gates;
    warnings.push(...featureGates.warnings);
  } catch (error) {
    throw new FlagError((error as Error).message);
  }
  checkEtcdFlags(options);
  checkCoordinatedLeadershipTimers(options.coordinatedLeadership);
  checkKubernetesServiceNodePort(options);
  // Older Node takes the listen option without a word and binds without SO_REUSEPORT.
  if (options.permitPortSharing && !nodeListensWithReusePort(process.versions.node))
    throw new FlagError(`--permit-port-sharing needs Node.js 22.12 or newer (this is ${process.versions.node})`);
  if (options.apiserverCount <= 0)
    throw new FlagError(
      `--apiserver-count should be a positive number, but value '${options.apiserverCount}' provided`,
    );
  // Refused at once rather than when the control plane opens.
  serviceIPRangesOf(options);
  return { options, warnings };
}

/**
 * Where `capstan` and the reference differ in their defaults, the reference's, which hold when
 * started as `kube-apiserver`. capstan alone serves loopback only (a first `make run` must not
 * open a server to the network), keeps its certificates beside its store under the data dir
 * (the reference's /var/run/kubernetes needs root) and runs its copies of the controller
 * manager's controllers so that it works without one.
 */
const KUBE_APISERVER_DEFAULTS: Partial<Options> = {
  bindAddress: '0.0.0.0',
  controllers: [],
  certDir: '/var/run/kubernetes',
};

/** capstan's defaults as `--help` prints them, where they are not the reference's. */
const CAPSTAN_PRINTED_DEFAULTS: Readonly<Record<string, string>> = {
  'bind-address': '127.0.0.1',
  'authorization-mode': '[RBAC]',
  'cert-dir': '',
};

/** pflag's names in `--help` for the types that it prints otherwise than their `Type()`. */
const PRINTED_TYPES: Readonly<Record<string, string>> = {
  bool: '',
  float64: 'float',
  int64: 'int',
  uint64: 'uint',
  stringSlice: 'strings',
};

/** The defaults pflag counts as zero, and so does not print, by type; other types: its fallback list. */
const ZERO_VALUES: Readonly<Record<string, readonly string[]>> = {
  bool: ['false'],
  duration: ['0', '0s'],
  string: [''],
  stringSlice: ['[]'],
  stringArray: ['[]'],
  ...Object.fromEntries(
    ['int', 'int32', 'int64', 'uint', 'uint32', 'uint64', 'float32', 'float64'].map((type) => [type, ['0']]),
  ),
};

/** A flag's default as pflag prints it in `--help`: nothing for a zero value, strings quoted. */
function printedDefault(flag: ReferenceFlag, value: string): string {
  if ((ZERO_VALUES[flag.type] ?? ['false', '<nil>', '', '0']).includes(value)) return '';
  return flag.type === 'string' ? ` (default ${JSON.stringify(value)})` : ` (default ${value})`;
}

/**
 * `--help`: the reference's flags in its sections and order, each with capstan's own words (or
 * why only its default is accepted) and the reference's default, then capstan's own flags.
 * Hidden and deprecated flags are accepted but not listed, as the reference lists them.
 */
export function usage(personality: Personality = 'capstan'): string {
  const out = [`Usage: ${personality} [flags]`, ''];
  const sections = [
    ...REFERENCE_FLAG_SECTIONS.map((section) => ({
      title: `${section.charAt(0).toUpperCase()}${section.slice(1)} flags:`,
      section,
    })),
    { title: 'capstan flags:', section: '' },
  ];
  for (const { title, section } of sections) {
    const rows: (readonly [head: string, text: string])[] = [];
    if (section === '') {
      for (const name of CAPSTAN_FLAGS) rows.push([`      --${name} string`, FLAGS[name].usage]);
    } else {
      for (const name of Object.keys(REFERENCE_FLAGS).sort()) {
        const flag = REFERENCE_FLAGS[name];
        if (flag.section !== section || flag.hidden) continue;
        const text =
          name === 'version'
            ? 'print version information and quit; --version=raw prints more'
            : (specOf(name) as FlagSpec).usage;
        const value = personality === 'capstan' ? (CAPSTAN_PRINTED_DEFAULTS[name] ?? flag.default) : flag.default;
        rows.push([helpHead(name, flag), `${text}${printedDefault(flag, value)}`]);
      }
      if (section === 'global') rows.unshift(['  -h, --help', `help for ${personality}`]);
    }
    // As pflag aligns them: the texts of a section start three spaces after its longest head.
    const width = Math.max(...rows.map(([head]) => head.length)) + 3;
    out.push(title, '', ...rows.map(([head, text]) => `${head.padEnd(width)}${text}`), '');
  }
  return `${out.join('\n')}`;
}

/**
 * What `/flagz` lists: the reference's flags (and `--help`, which it lists too), and capstan's
 * own when started as capstan, each with its value as the reference would print it.
 */
export function flagzListing(options: ServerOptions): Record<string, string> {
  const asCapstan = options.personality === 'capstan';
  const types: Record<string, string> = { help: 'bool' };
  const defaults: Record<string, string> = { help: 'false' };
  for (const [name, flag] of Object.entries(REFERENCE_FLAGS)) {
    types[name] = flag.type;
    defaults[name] = (asCapstan ? CAPSTAN_PRINTED_DEFAULTS[name] : undefined) ?? flag.default;
  }
  if (asCapstan) {
    Object.assign(types, { 'data-dir': 'string', controllers: 'stringSlice' });
    Object.assign(defaults, {
      'data-dir': DEFAULT_OPTIONS.dataDir,
      controllers: `[${DEFAULT_OPTIONS.controllers.join(',')}]`,
    });
  }
  return flagListing({ types, defaults, given: options.givenFlags });
}

/** `  -v, --v Level` or `      --name type`, the type as pflag prints it (`version[=true]` when a bare flag means something). */
function helpHead(name: string, flag: ReferenceFlag): string {
  const printedType = PRINTED_TYPES[flag.type] ?? flag.type;
  const bare = flag.noOptDefault !== undefined && flag.type !== 'bool' ? `[=${flag.noOptDefault}]` : '';
  return `  ${flag.shorthand ? `-${flag.shorthand}, ` : '    '}--${name}${printedType === '' ? '' : ` ${printedType}${bare}`}`;
}

/**
 * The reference's check of an allowed origin: a Go regular expression anchored to the start of
 * the host (`^` first, or `//` in it) and to its end (`$` last, or `:` in it), so that
 * `example.com` cannot be matched by `example.com.attacker.net`.
 */
function checkCorsOrigin(pattern: string): void {
  const invalid = (why: string) => new FlagError(`--cors-allowed-origins has an invalid regular expression: ${why}`);
  if (pattern === '') throw new FlagError('empty value in --cors-allowed-origins');
  try {
    compileRe2(pattern);
  } catch (error) {
    throw invalid((error as Error).message);
  }
  const pinnedStart = pattern.startsWith('^') || pattern.includes('//');
  const pinnedEnd = pattern.endsWith('$') || pattern.includes(':');
  if (!pinnedStart || !pinnedEnd)
    throw invalid('regular expression does not pin to start/end of host in the origin header');
}

/** The reference's check of the directives: each `max-age=<anything>`, `includeSubDomains` or `preload`. */
function checkStrictTransportSecurityDirectives(directives: readonly string[]): void {
  for (const directive of directives) {
    if (directive.trim() === '') throw new FlagError('empty value in strict-transport-security-directives');
    if (directive === 'includeSubDomains' || directive === 'preload') continue;
    const parts = directive.split('=');
    if (parts.length !== 2 || parts[0] !== 'max-age') {
      throw new FlagError(
        '--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information',
      );
    }
  }
}

function parsePort(value: string): number {
  if (!/^\d+$/.test(value)) throw new Error('not a port number');
  const port = Number(value);
  if (port > 65535) throw new Error('port must be at most 65535');
  return port;
}

/** Go's strconv.Atoi, then a lower bound of 0 with the reference's own message. */
function parseGoInt(value: string, negativeMessage: string): number {
  if (!/^[+-]?\d+$/.test(value)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const parsed = Number(value);
  if (parsed < 0) throw new Error(negativeMessage);
  return parsed;
}

/** A Go float64 between 0 and 0.02, as the reference validates `--goaway-chance`. */
function parseGoawayChance(value: string): number {
  const chance = Number(value);
  if (value.trim() === '' || Number.isNaN(chance))
    throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(value)}: invalid syntax`);
  if (chance < 0 || chance > 0.02) throw new Error('--goaway-chance can not be less than 0 or greater than 0.02');
  return chance;
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new Error('not a non-negative integer');
  return Number(value);
}

/** `--audit-<backend>-batch-throttle-enable`, `-qps`, `-burst` (batch mode only). */
function auditThrottleFlags(backend: 'log' | 'webhook'): Record<string, FlagSpec> {
  const key = backend === 'log' ? 'logThrottle' : 'webhookThrottle';
  const set = (o: Options, change: Partial<AuditThrottleFlags>) =>
    (o.audit = { ...o.audit, [key]: { ...o.audit[key], ...change } });
  return {
    [`audit-${backend}-batch-throttle-enable`]: {
      usage: `limit the ${backend}'s batches a second in batch mode`,
      boolean: true,
      apply: (o, v) => set(o, { enabled: parseBool(v) }),
    },
    [`audit-${backend}-batch-throttle-qps`]: {
      usage: `batches a second on average`,
      apply: (o, v) => {
        const qps = Number(v);
        if (!Number.isFinite(qps) || qps < 0 || v.trim() === '') throw new Error('not a non-negative number');
        set(o, { qps });
      },
    },
    [`audit-${backend}-batch-throttle-burst`]: {
      usage: `batches at once after a quiet spell`,
      apply: (o, v) => set(o, { burst: parseCount(v) }),
    },
  };
}

/** `--audit-<backend>-truncate-enabled`, `-max-event-size`, `-max-batch-size`. */
function auditTruncateFlags(backend: 'log' | 'webhook'): Record<string, FlagSpec> {
  const key = backend === 'log' ? 'logTruncate' : 'webhookTruncate';
  const set = (o: Options, change: Partial<AuditTruncateFlags>) =>
    (o.audit = { ...o.audit, [key]: { ...o.audit[key], ...change } });
  return {
    [`audit-${backend}-truncate-enabled`]: {
      usage: `cut the objects from ${backend} events past the maximum size, and split batches`,
      boolean: true,
      apply: (o, v) => set(o, { enabled: parseBool(v) }),
    },
    [`audit-${backend}-truncate-max-event-size`]: {
      usage: 'bytes of an event before its objects are cut, or it is dropped',
      apply: (o, v) => set(o, { maxEventSize: parsePositive(v) }),
    },
    [`audit-${backend}-truncate-max-batch-size`]: {
      usage: 'bytes of a batch before it is split',
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
  if (!(known as readonly string[]).includes(value))
    throw new Error(
      `invalid audit log ${what} ${JSON.stringify(value)}, allowed ${what}s are ${JSON.stringify(known.join(','))}`,
    );
  return value as T;
}

/** A store check's timeout, as the reference's etcd check takes it: 0 is its default. */
function storeCheckTimeout(value: string): number {
  return parseGoDuration(value) || DEFAULT_STORE_CHECK_TIMEOUT_MS;
}

function parseNonNegativeDuration(value: string): number {
  const ms = parseGoDuration(value);
  if (ms < 0) throw new Error('must not be negative');
  return ms;
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

/**
 * The gates one `--feature-gates` names, checked only for form: the reference checks names and
 * locks once every flag is read (`settleFeatureGates`). Its texts carry no flag prefix.
 */
function parseFeatureGates(value: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const entry of splitList(value)) {
    const equals = entry.indexOf('=');
    if (equals < 0) throw new FlagError(`missing bool value for ${entry}`);
    const [name, setting] = [entry.slice(0, equals), entry.slice(equals + 1)];
    const parsed = GO_BOOLEANS[setting];
    if (parsed === undefined)
      throw new FlagError(
        `invalid value of ${entry}, err: strconv.ParseBool: parsing ${JSON.stringify(setting)}: invalid syntax`,
      );
    // The reference also takes names qualified by its own component.
    gates[name.startsWith('kube:') ? name.slice('kube:'.length) : name] = parsed;
  }
  return gates;
}

function parseRuntimeConfig(value: string): Record<string, string> {
  const config: Record<string, string> = {};
  for (const entry of splitList(value)) {
    // A key without a value keeps '' (as the reference's map flag does): a group-version
    // reads it as true, a stability class (`api/all`) refuses it.
    const equals = entry.indexOf('=');
    if (equals < 0) config[entry.trim()] = '';
    else config[entry.slice(0, equals).trim()] = entry.slice(equals + 1).trim();
  }
  return config;
}

/** The ranges of `--service-cluster-ip-range`; throws `FlagError` with the reference's message. */
export function serviceIPRangesOf(
  options: Pick<ServerOptions, 'serviceClusterIPRange' | 'featureGates'>,
): ServiceIPRanges {
  try {
    // MultiCIDRServiceAllocator is locked on in 1.34, so DisableAllocatorDualWrite alone decides.
    return parseServiceIPRanges(options.serviceClusterIPRange, {
      limitSize: !featureEnabled(options.featureGates, 'DisableAllocatorDualWrite'),
    });
  } catch (error) {
    throw new FlagError((error as Error).message);
  }
}

const OVERRIDES_INVALID =
  '--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated';

/** pflag's string slice: comma separated (an empty value is an empty list); checked as the reference's ParseEtcdServersOverrides. */
function parseEtcdServersOverrides(value: string): EtcdServersOverride[] {
  if (value === '') return [];
  return value.split(',').map((override) => {
    const tokens = override.split('#');
    if (tokens.length !== 2) throw new FlagError(OVERRIDES_INVALID);
    const groupResource = tokens[0].split('/');
    if (groupResource.length !== 2) throw new FlagError(OVERRIDES_INVALID);
    const servers = tokens[1].split(';');
    if (servers.some((server) => server === '')) throw new FlagError(OVERRIDES_INVALID);
    return { group: groupResource[0], resource: groupResource[1], servers };
  });
}

/** The reference's rules for the TLS files (etcd's client TLSInfo), found before anything opens. */
function checkEtcdFlags(options: ServerOptions): void {
  if (Boolean(options.etcdCertFile) !== Boolean(options.etcdKeyFile)) {
    throw new FlagError(
      `KeyFile and CertFile must both be present[key: ${options.etcdKeyFile ?? ''}, cert: ${options.etcdCertFile ?? ''}] (--etcd-keyfile, --etcd-certfile)`,
    );
  }
  if (options.encryptionProviderConfigAutomaticReload && !options.encryptionProviderConfig) {
    throw new FlagError('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
  }
  if (options.etcdServersOverrides.length > 0 && options.etcdServers.length === 0) {
    throw new FlagError('--etcd-servers-overrides needs --etcd-servers (the embedded store keeps every resource)');
  }
}

/** Whether this Node's `listen` takes `reusePort` (22.12 and 23.1 on). */
export function nodeListensWithReusePort(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

/** The reference's validateServiceNodePort: both failures named together. */
function checkKubernetesServiceNodePort(options: ServerOptions): void {
  const port = options.kubernetesServiceNodePort;
  const errors: string[] = [];
  if (port < 0 || port > 65535)
    errors.push(
      `--kubernetes-service-node-port ${port} must be between 0 and 65535, inclusive. If 0, the Kubernetes master service will be of type ClusterIP`,
    );
  if (port > 0 && !options.serviceNodePortRange.contains(port))
    errors.push(`kubernetes service node port range ${String(options.serviceNodePortRange)} doesn't contain ${port}`);
  if (errors.length > 0) throw new FlagError(goAggregate(errors));
}

/** The reference's order of the three timers; both failures are named together, as its aggregate does. */
function checkCoordinatedLeadershipTimers(timers: CoordinatedLeadershipTimers): void {
  const errors: string[] = [];
  if (timers.leaseDurationMs <= timers.renewDeadlineMs)
    errors.push('--coordinated-leadership-lease-duration must be greater than --coordinated-leadership-renew-deadline');
  if (timers.renewDeadlineMs <= timers.retryPeriodMs)
    errors.push('--coordinated-leadership-renew-deadline must be greater than --coordinated-leadership-retry-period');
  if (errors.length > 0) throw new FlagError(goAggregate(errors));
}

/** pflag's IP flag: Go's net.ParseIP of the trimmed value, kept in its canonical form. */
function parseIP(value: string): string | undefined {
  if (value === '') return undefined;
  const addr = parseAddr(value.trim());
  if (typeof addr === 'string' || addr.zone !== '') throw new Error(`failed to parse IP: ${JSON.stringify(value)}`);
  return addr.toString();
}
