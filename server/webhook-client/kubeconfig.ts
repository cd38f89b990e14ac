/**
 * The kubeconfig-format file that says how this server reaches a webhook it is configured with
 * by flag or file (the token webhook, the authorization webhooks, the audit webhook): the
 * current context names the remote service (`clusters`: an https `server` and the CA that
 * verifies it) and this server's credentials towards it (`users`: a client certificate and key,
 * or a bearer token). As the reference's loader: a file whose current context, or that
 * context's cluster, is missing is refused; a context naming a missing user means no
 * credentials. Relative file paths are relative to the file, as in client-go. The text is read
 * as client-go's loader reads it, through sigs.k8s.io/yaml (`insecure-skip-tls-verify: yes` is
 * true, `<<` merges), its refusals worded as the loader words them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { goQuote } from '../../api/go-quote';
import { decodeConfigValue } from '../validation/config-types';
import { GoYamlConversionError, readGoYamlText } from '../validation/go-yaml';
import { KUBECONFIG_ROOT, KUBECONFIG_TYPES } from './kubeconfig-types';
import type { PostDestination } from './post-json';

interface Named {
  readonly name?: unknown;
  readonly cluster?: Fields;
  readonly user?: Fields;
  readonly context?: Fields;
}

type Fields = Record<string, unknown>;

/** The reference's words for a file that names no usable cluster. */
const NO_CONFIGURATION =
  'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable';

const entries = (value: unknown): Named[] =>
  Array.isArray(value) ? value.filter((entry): entry is Named => entry !== null && typeof entry === 'object') : [];

function loadKubeconfig(path: string): unknown {
  if (!existsSync(path)) {
    // client-go looks for the file first, and says so in the stat's words.
    throw Object.assign(new Error(`stat ${path}: no such file or directory`), {
      code: 'ENOENT',
      path,
      syscall: 'stat',
    });
  }
  try {
    const reading = readGoYamlText(readFileSync(path, 'utf8'));
    // client-go's codec is lenient: fields its types lack are dropped, values of the wrong type refused.
    return decodeConfigValue(reading, { definitions: KUBECONFIG_TYPES, root: KUBECONFIG_ROOT, strict: false });
  } catch (error) {
    if (error instanceof GoYamlConversionError)
      throw new Error(`error loading config file ${goQuote(path)}: ${error.message}`);
    throw error;
  }
}

export function readWebhookKubeconfig(path: string): PostDestination {
  const config = loadKubeconfig(path);
  if (config === null || typeof config !== 'object') throw new Error(`${path}: ${NO_CONFIGURATION}`);
  const { clusters, users, contexts, 'current-context': current } = config as Fields;
  const context = entries(contexts).find((entry) => entry.name === current)?.context;
  const cluster =
    context === undefined ? undefined : entries(clusters).find((entry) => entry.name === context.cluster)?.cluster;
  if (cluster === undefined || typeof cluster.server !== 'string' || cluster.server === '')
    throw new Error(`${path}: ${NO_CONFIGURATION}`);
  const user = entries(users).find((entry) => entry.name === context?.user)?.user ?? {};
  const url = new URL(cluster.server);
  if (url.protocol !== 'https:')
    throw new Error(`${path}: the webhook server must be https, got ${JSON.stringify(cluster.server)}`);
  const base = dirname(path);
  const material = (fields: Fields, name: string): string | undefined => {
    const inline = fields[`${name}-data`];
    if (typeof inline === 'string' && inline !== '') return Buffer.from(inline, 'base64').toString('utf8');
    const file = fields[name];
    if (typeof file === 'string' && file !== '')
      return readFileSync(isAbsolute(file) ? file : join(base, file), 'utf8');
    return undefined;
  };
  const ca = material(cluster, 'certificate-authority');
  const insecureSkipTLSVerify = cluster['insecure-skip-tls-verify'] === true;
  // client-go's transport refuses the pair: a CA that skipping verification would silently ignore.
  if (insecureSkipTLSVerify && ca !== undefined)
    throw new Error('specifying a root certificates file with the insecure flag is not allowed');
  return {
    url,
    ca,
    cert: material(user, 'client-certificate'),
    key: material(user, 'client-key'),
    token: typeof user.token === 'string' && user.token !== '' ? user.token : undefined,
    insecureSkipTLSVerify,
  };
}
