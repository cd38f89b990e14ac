/**
 * Identities for authorization tests against a real server: a client certificate signed by the
 * server's own CA (`CN` the user, one `O` per group), in a kubeconfig of its own, and kubectl
 * 1.33 run with it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueLeaf } from '../../server/pki/certificates';
import { runKubectl as runKubectlWith, type KubectlResult, type TestServer } from '../helpers/server';

export type Kubectl = (args: readonly string[], options?: { input?: string }) => Promise<KubectlResult>;

export function runKubectl(kubeconfig: string): Kubectl {
  return (args, options = {}) => runKubectlWith(kubeconfig, args, options);
}

/** kubectl as `user` in `groups`, with a certificate from the server's CA. */
export async function kubectlAs(server: TestServer, user: string, groups: readonly string[] = []): Promise<Kubectl> {
  const pki = join(server.dataDir, 'pki');
  const ca = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
  const subject = [`CN=${user}`, ...groups.map((group) => `O=${group}`)].join(', ');
  const issued = await issueLeaf({ ca, subject, usage: 'client', validDays: 1 });
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const path = join(server.dataDir, `${user.replace(/[^a-z0-9-]/gi, '_')}.kubeconfig`);
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'capstan',
          cluster: { server: server.url, 'certificate-authority-data': server.credentials.ca.toString('base64') },
        },
      ],
      users: [
        { name: user, user: { 'client-certificate-data': b64(issued.certPem), 'client-key-data': b64(issued.keyPem) } },
      ],
      contexts: [{ name: user, context: { cluster: 'capstan', user } }],
      'current-context': user,
    }),
  );
  return runKubectl(path);
}

/** `kubectl auth can-i ...` as yes/no; anything else fails the test. */
export async function canI(kubectl: Kubectl, args: readonly string[]): Promise<boolean> {
  const result = await kubectl(['auth', 'can-i', ...args]);
  // "no" may be followed by the reason: `no - RBAC: ...`.
  const answer = result.stdout.trim().split(/\s/)[0];
  if (answer !== 'yes' && answer !== 'no')
    throw new Error(`kubectl auth can-i ${args.join(' ')}: ${result.stdout}${result.stderr}`);
  return answer === 'yes';
}

/** Whether kubectl's request was refused by authorization (as opposed to done, or failed otherwise). */
export function forbidden(result: KubectlResult): boolean {
  if (result.code === 0) return false;
  if (/\(Forbidden\)|is forbidden|forbidden:/.test(result.stderr)) return true;
  throw new Error(`kubectl failed for another reason: ${result.stderr}`);
}
