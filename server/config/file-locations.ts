/**
 * Where a start reads and writes its files. `--cert-dir` is the reference's flag: the serving
 * pair `apiserver.crt`/`apiserver.key` is read there, or made there when absent. Given, it
 * also holds everything else capstan generates (its CA, the admin's certificate and
 * kubeconfig, the service-account key), so a server on etcd writes nothing else anywhere:
 * envtest gives each control plane its own temporary `--cert-dir`, and suites started in
 * parallel from one directory share no state. Not given, capstan's own layout stands: the
 * data dir (`./data`) holds `pki/`, `admin.kubeconfig` and the embedded store, so one
 * command gives a working server and a kubeconfig for it. (Started as `kube-apiserver`, the
 * reference's default `/var/run/kubernetes` is given instead: server/config/flags.ts.)
 */
import { join } from 'node:path';

export interface FileLocationOptions {
  readonly dataDir: string;
  readonly certDir?: string;
  readonly etcdServers: readonly string[];
}

export interface FileLocations {
  /** Certificates and keys: read there, or made there when absent. */
  readonly certDir: string;
  /** Where `admin.kubeconfig` is written. */
  readonly kubeconfigDir: string;
  /** The data dir when this start uses it (created then), undefined when it touches nothing there. */
  readonly dataDir: string | undefined;
}

/** `--cert-dir`, or `pki/` under the data dir. */
export function certDirOf(options: Pick<FileLocationOptions, 'dataDir' | 'certDir'>): string {
  return options.certDir ?? join(options.dataDir, 'pki');
}

export function fileLocationsOf(options: FileLocationOptions): FileLocations {
  if (options.certDir === undefined)
    return { certDir: certDirOf(options), kubeconfigDir: options.dataDir, dataDir: options.dataDir };
  const embeddedStore = options.etcdServers.length === 0;
  return {
    certDir: options.certDir,
    kubeconfigDir: options.certDir,
    dataDir: embeddedStore ? options.dataDir : undefined,
  };
}
