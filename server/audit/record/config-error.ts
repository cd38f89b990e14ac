/** An audit configuration the server refuses to start with (policy, log path, webhook kubeconfig): one line, exit code 2. */
export class AuditConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditConfigError';
  }
}
