/**
 * The Kubernetes URL library: `url(string)`, `isURL(string)` and the accessors getScheme,
 * getHost, getHostname, getPort, getEscapedPath, getQuery. A URL is what Go's
 * `url.ParseRequestURI` accepts (an absolute URL or an absolute path); its parts are what Go's
 * `url.Parse` gives, which is how the reference reads them (ParseRequestURI leaves a fragment
 * in the path or query).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { GoURL, parseGoRequestURI, parseGoURL } from '../../net/go-url';
import { traversalCost } from '../runtime-cost';
import { CelFunctionError, type CelLibrary } from './library';

function toURL(text: string): GoURL {
  const checked = parseGoRequestURI(text);
  const parsed = 'error' in checked ? checked : parseGoURL(text);
  if ('error' in parsed) throw new CelFunctionError(`URL parse error during conversion from string: ${parsed.error}`);
  return parsed;
}

export const urlsLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerType('kubernetes.URL', GoURL)
      .registerFunction('url(string): kubernetes.URL', toURL)
      .registerFunction('isURL(string): bool', (text: string) => !('error' in parseGoRequestURI(text)))
      .registerFunction('kubernetes.URL.getScheme(): string', (url: GoURL) => url.scheme)
      .registerFunction('kubernetes.URL.getHost(): string', (url: GoURL) => url.host)
      .registerFunction('kubernetes.URL.getHostname(): string', (url: GoURL) => url.hostname())
      .registerFunction('kubernetes.URL.getPort(): string', (url: GoURL) => url.port())
      .registerFunction('kubernetes.URL.getEscapedPath(): string', (url: GoURL) => url.escapedPath())
      .registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (url: GoURL) => url.query());
  },
  // As the reference prices them: url() traverses its string; isURL has no price of its own (1).
  costs: {
    url: ([text]) => traversalCost(text),
  },
};
