/**
 * Why a kube-apiserver flag capstan knows but does not act on is accepted only at its default:
 * a flag is never silently ignored, so any other value stops the start with one line naming the
 * flag and this reason. Keyed by flag name; a name not here falls back to its section's reason.
 */

const BY_FLAG: Readonly<Record<string, string>> = {
  'tracing-config-file': 'capstan exports no traces',
  'egress-selector-config-file': 'capstan has no egress selector: it dials clusters and webhooks directly',
  'debug-socket-path': 'capstan serves no debug socket',
  'http2-max-streams-per-connection': 'capstan serves HTTP/1.1 only',
  'permit-address-sharing': 'capstan does not listen with SO_REUSEADDR',
  'max-connection-bytes-per-sec': 'capstan does not throttle connections by bytes',
  'delete-collection-workers': 'capstan deletes a collection in one pass',
  'enable-garbage-collector': "capstan's deletion always honours owner references and finalizers",
  'watch-cache': "capstan's reads are served by its watch caches, which cannot be turned off",
  'storage-initialization-timeout': 'capstan waits for its store without this bound',
  'etcd-count-metric-poll-period': 'capstan counts objects from its watch caches',
  'etcd-db-metric-poll-interval': 'capstan does not poll the etcd database size',
  'emulation-forward-compatible': 'capstan serves 1.34 only and emulates no earlier release',
  'runtime-config-emulation-forward-compatible': 'capstan serves 1.34 only and emulates no earlier release',
  'shutdown-send-retry-after': 'capstan closes its listener on shutdown instead of answering 429s',
  'shutdown-watch-termination-grace-period': 'capstan ends watches at once on shutdown',
  'peer-advertise-ip': 'capstan does not proxy requests to peer API servers (mixed-version proxy)',
  'peer-advertise-port': 'capstan does not proxy requests to peer API servers (mixed-version proxy)',
  'peer-ca-file': 'capstan does not proxy requests to peer API servers (mixed-version proxy)',
  'allow-metric-labels': 'capstan does not filter metric labels',
  'allow-metric-labels-manifest': 'capstan does not filter metric labels',
  'disabled-metrics': 'capstan cannot turn metrics off one by one',
  'logging-format': 'capstan writes its log as text only',
  'log-flush-frequency': 'capstan writes its log lines unbuffered',
  'log-json-info-buffer-size': 'capstan writes its log as text only',
  'log-json-split-stream': 'capstan writes its log as text only',
  'log-text-info-buffer-size': 'capstan writes its log lines unbuffered',
  'log-text-split-stream': 'capstan writes all its log lines to standard error',
  vmodule: 'capstan has no per-file log verbosity',
  'default-watch-cache-size': "capstan's watch caches keep a window of events by time, not by count",
  'enable-logs-handler': 'capstan serves no /logs',
  'admission-control':
    'the deprecated plugin list is not read: name plugins with --enable-admission-plugins and --disable-admission-plugins',
};

const BY_SECTION: Readonly<Record<string, string>> = {
  'egress selector': 'capstan has no egress selector',
  traces: 'capstan exports no traces',
  logs: 'capstan writes its log as plain text to standard error',
};

export function unbuiltReason(name: string, section: string): string {
  return BY_FLAG[name] ?? BY_SECTION[section] ?? 'capstan does not act on this flag';
}
