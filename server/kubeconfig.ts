/** The admin's kubeconfig, so that `kubectl --kubeconfig <data-dir>/admin.kubeconfig` works at once (server/config/file-locations.ts). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface AdminKubeconfigOptions {
  readonly dir: string;
  /** e.g. `https://127.0.0.1:6443` */
  readonly serverUrl: string;
  readonly caPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
}

/** Writes `<dir>/admin.kubeconfig` (mode 0600: it holds a key) and returns its path. */
export function writeAdminKubeconfig(options: AdminKubeconfigOptions): string {
  const base64 = (pem: string) => Buffer.from(pem).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'capstan',
        cluster: { server: options.serverUrl, 'certificate-authority-data': base64(options.caPem) },
      },
    ],
    users: [
      {
        name: 'admin',
        user: {
          'client-certificate-data': base64(options.clientCertPem),
          'client-key-data': base64(options.clientKeyPem),
        },
      },
    ],
    contexts: [{ name: 'capstan', context: { cluster: 'capstan', user: 'admin' } }],
    'current-context': 'capstan',
    preferences: {},
  };
  const path = join(options.dir, 'admin.kubeconfig');
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}
