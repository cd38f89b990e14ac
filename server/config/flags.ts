/**
 * Command-line flags, named as the reference server names them so operators bring what they
 * know. Both `--flag=value` and `--flag value` are accepted.
 */
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
  /** Deadline of short requests; the `timeout` query parameter may only shorten it. */
  readonly requestTimeoutMs: number;
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** `group/version` (or `api/all`, ...) → `true`/`false`, a bare key meaning `true`. */
  readonly runtimeConfig: Readonly<Record<string, string>>;
  readonly livezGracePeriodMs: number;
  readonly dataDir: string;
  /** Admission plugins on besides the default ones, and plugins off (disabling wins). */
  readonly enableAdmissionPlugins: readonly string[];
  readonly disableAdmissionPlugins: readonly string[];
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
  requestTimeoutMs: 60_000,
  featureGates: {},
  runtimeConfig: {},
  livezGracePeriodMs: 0,
  dataDir: './data',
  enableAdmissionPlugins: [],
  disableAdmissionPlugins: [],
  defaultNotReadyTolerationSeconds: 300,
  defaultUnreachableTolerationSeconds: 300,
  authorizationWebhookVersion: 'v1beta1',
  authorizationWebhookAuthorizedTtlMs: 5 * 60_000,
  authorizationWebhookUnauthorizedTtlMs: 30_000,
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
}

const FLAGS: Readonly<Record<string, FlagSpec>> = {
  'secure-port': {
    usage: 'port for HTTPS (default 6443; 0 picks a free port)',
    apply: (o, v) => (o.securePort = parsePort(v)),
  },
  'bind-address': { usage: 'address to listen on (default 127.0.0.1)', apply: (o, v) => (o.bindAddress = v) },
  'tls-cert-file': { usage: 'serving certificate (PEM); default: generated under --data-dir', apply: (o, v) => (o.tlsCertFile = v) },
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
  'data-dir': { usage: 'directory for generated certificates, kubeconfig and the SQLite store (default ./data)', apply: (o, v) => (o.dataDir = v) },
};

export type ParseResult = { readonly options: ServerOptions } | { readonly help: string };

/** Parses argv (without `node` and the script). Throws `FlagError` with a message for the operator. */
export function parseFlags(argv: readonly string[]): ParseResult {
  const options: Options = { ...DEFAULT_OPTIONS };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: usage() };
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
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new FlagError(`flag needs an argument: --${name}`);
    try {
      spec.apply(options, value);
    } catch (error) {
      throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: ${(error as Error).message}`);
    }
  }
  if (positional.length > 0) {
    throw new FlagError(`"capstan" does not take any arguments, got ${JSON.stringify(positional)}`);
  }
  return { options };
}

export function usage(): string {
  const lines = Object.entries(FLAGS).map(([name, spec]) => `  --${name.padEnd(28)} ${spec.usage}`);
  return `Usage: capstan [flags]\n\nFlags:\n${lines.join('\n')}\n`;
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
