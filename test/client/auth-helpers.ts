/**
 * kubectl as someone other than the admin: kubeconfigs for a token, an exec plugin or a client
 * certificate against a test server, and `kubectl auth whoami -o json` read back.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runKubectl, type KubectlResult, type TestServer } from '../helpers/server';

export interface KubeconfigUser {
  readonly token?: string;
  readonly 'client-certificate-data'?: string;
  readonly 'client-key-data'?: string;
  readonly exec?: Record<string, unknown>;
  readonly as?: string;
  readonly 'as-groups'?: string[];
  readonly 'as-uid'?: string;
  readonly 'as-user-extra'?: Record<string, string[]>;
}

export function writeKubeconfig(server: TestServer, dir: string, name: string, user: KubeconfigUser): string {
  const path = join(dir, `${name}.kubeconfig`);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'capstan',
        cluster: { server: server.url, 'certificate-authority-data': server.credentials.ca.toString('base64') },
      },
    ],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: 'capstan', user: name } }],
    'current-context': name,
  };
  writeFileSync(path, JSON.stringify(config));
  return path;
}

export function kubectlWith(kubeconfig: string, args: readonly string[], input?: string): Promise<KubectlResult> {
  return runKubectl(kubeconfig, args, { input: input ?? '' });
}

export interface WhoAmI {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: string[];
  readonly extra?: Record<string, string[]>;
}

/** The user kubectl reports, or the failed run. */
export async function whoami(kubeconfig: string): Promise<WhoAmI> {
  const result = await kubectlWith(kubeconfig, ['auth', 'whoami', '-o', 'json']);
  if (result.code !== 0) throw new Error(`kubectl auth whoami failed (${result.code}): ${result.stderr}`);
  const review = JSON.parse(result.stdout) as { kind: string; apiVersion: string; status: { userInfo: WhoAmI } };
  expect(review).toMatchObject({ kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' });
  return review.status.userInfo;
}
