/**
 * The webhook kubeconfig reader answers as the reference's loader does (asked of kube-apiserver
 * v1.34.4 with token and authorization webhook files): no current context, or a context whose
 * cluster is missing, stops the start with its words; a query in the server URL is kept.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWebhookKubeconfig } from '../../../server/webhook-client/kubeconfig';

const NO_CONFIGURATION =
  'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-webhook-kubeconfig-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, config: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(config));
  return path;
}

const cluster = {
  name: 'hook',
  cluster: { server: 'https://127.0.0.1:9443/review?tenant=a', 'insecure-skip-tls-verify': true },
};
const user = { name: 'apiserver', user: { token: 'secret', 'client-key': 'client.key' } };

test('the current context picks the cluster and the user; relative files are read beside the file', () => {
  writeFileSync(join(dir, 'client.key'), 'KEY');
  const config = readWebhookKubeconfig(
    write('ok.json', {
      clusters: [{ name: 'other', cluster: { server: 'https://127.0.0.2' } }, cluster],
      users: [{ name: 'other', user: { token: 'wrong' } }, user],
      contexts: [{ name: 'c', context: { cluster: 'hook', user: 'apiserver' } }],
      'current-context': 'c',
    }),
  );
  expect(config.url.href).toBe('https://127.0.0.1:9443/review?tenant=a');
  expect(config).toMatchObject({ token: 'secret', key: 'KEY', insecureSkipTLSVerify: true });
});

test('a context naming a missing user means no credentials', () => {
  const config = readWebhookKubeconfig(
    write('no-user.json', {
      clusters: [cluster],
      users: [user],
      contexts: [{ name: 'c', context: { cluster: 'hook', user: 'gone' } }],
      'current-context': 'c',
    }),
  );
  expect(config.token).toBeUndefined();
  expect(config.key).toBeUndefined();
});

test.each([
  ['no current context', { clusters: [cluster], users: [user] }],
  ['a current context that is not there', { clusters: [cluster], users: [user], contexts: [], 'current-context': 'c' }],
  [
    'a context whose cluster is missing',
    {
      clusters: [cluster],
      users: [user],
      contexts: [{ name: 'c', context: { cluster: 'gone', user: 'apiserver' } }],
      'current-context': 'c',
    },
  ],
  ['an empty file', null],
])('%s is refused with the reference`s words', (_, config) => {
  const path = write('bad.json', config);
  expect(() => readWebhookKubeconfig(path)).toThrow(`${path}: ${NO_CONFIGURATION}`);
});

test('a plain-HTTP server is refused: the server would send tokens and reviews in the clear', () => {
  const path = write('http.json', {
    clusters: [{ name: 'hook', cluster: { server: 'http://127.0.0.1:9' } }],
    contexts: [{ name: 'c', context: { cluster: 'hook' } }],
    'current-context': 'c',
  });
  expect(() => readWebhookKubeconfig(path)).toThrow('must be https');
});
