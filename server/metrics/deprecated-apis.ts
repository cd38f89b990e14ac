/**
 * Which requests name a deprecated API, for `apiserver_requested_deprecated_apis`: the served
 * version of the requested type says so (the same flag that adds its `Warning` header). The
 * registry is asked per request, so types added or removed at run time are counted right.
 */
import type { RequestInfo } from '../request/request-info';
import type { ResourceRegistry } from '../registry/types';
import type { DeprecatedApi } from './with-request-metrics';

/** No built-in deprecated version has a planned removal release today. */
const NOT_PLANNED: DeprecatedApi = { removedRelease: '' };

export function deprecatedApisOf(registry: ResourceRegistry): (info: RequestInfo) => DeprecatedApi | undefined {
  return (info) => {
    const type = registry.find({ group: info.apiGroup, version: info.apiVersion }, info.resource);
    const served = type?.versions.find(({ version }) => version === info.apiVersion);
    return served?.deprecated ? NOT_PLANNED : undefined;
  };
}
