/**
 * The flags controller-runtime v0.22's envtest gives the API server it starts (its
 * `APIServer.Configure` defaults; /work/shared/notes/outside-suites.md): one list for the tests
 * and the benchmark that start capstan as envtest would.
 */
export function envtestFlags(options: {
  readonly etcdServer: string;
  readonly certDir: string;
  readonly port: number;
}): string[] {
  const { port } = options;
  return [
    `--etcd-servers=${options.etcdServer}`,
    `--cert-dir=${options.certDir}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    '--disable-admission-plugins=ServiceAccount',
    '--authorization-mode=RBAC',
    `--service-account-issuer=https://127.0.0.1:${port}/`,
  ];
}
