/** Requests that may run as long as the client likes: no deadline, no wait at shutdown. */
import type { RequestInfo } from './request-info';

const LONG_RUNNING_VERBS: ReadonlySet<string> = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES: ReadonlySet<string> = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(info: RequestInfo): boolean {
  return LONG_RUNNING_VERBS.has(info.verb) || LONG_RUNNING_SUBRESOURCES.has(info.subresource);
}
