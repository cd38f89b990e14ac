/**
 * The `--kubelet-*` settings (server/kubelet/kubelet-client.ts uses them), apart from the client
 * so that parsing flags (`--help` among them) loads nothing more.
 */
export interface KubeletClientConfig {
  readonly clientCertificate?: string;
  readonly clientKey?: string;
  readonly certificateAuthority?: string;
  readonly preferredAddressTypes: readonly string[];
  readonly timeoutMs: number;
}

/** The reference's defaults: every address type, host names first; 5 s. */
export const DEFAULT_KUBELET_CLIENT_CONFIG: KubeletClientConfig = {
  preferredAddressTypes: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'],
  timeoutMs: 5_000,
};
