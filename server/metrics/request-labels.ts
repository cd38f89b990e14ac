/**
 * The request labels of `apiserver_request_total` and friends, computed as the reference does:
 * upper-case reported verbs (`LIST` and `WATCH` told apart from `GET`, `APPLY` for server-side
 * apply patches, `CONNECT` for connect subresources), the scope (`resource`, `namespace`,
 * `cluster`, or empty for non-resource paths), and `dry_run` as the sorted, de-duplicated
 * values of the query parameter.
 */
import type { RequestInfo } from '../request/request-info';
import type { RequestLabels } from './apiserver-metrics';

export const APISERVER_COMPONENT = 'apiserver';

const APPLY_PATCH_CONTENT_TYPE = 'application/apply-patch+yaml';
const CONNECT_SUBRESOURCES: ReadonlySet<string> = new Set(['attach', 'exec', 'portforward', 'proxy']);

const REPORTED_VERBS: Readonly<Record<string, string>> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETE',
  proxy: 'CONNECT',
};

export interface LabelledRequest {
  readonly info: RequestInfo;
  readonly method: string;
  readonly rawQuery: string;
  readonly contentType?: string;
}

export function reportedVerb({ info, method, contentType }: LabelledRequest): string {
  if (!info.isResourceRequest) return method.toUpperCase();
  if (info.verb === 'patch' && contentType?.split(';')[0].trim() === APPLY_PATCH_CONTENT_TYPE) return 'APPLY';
  if (info.subresource !== '' && CONNECT_SUBRESOURCES.has(info.subresource)) return 'CONNECT';
  return REPORTED_VERBS[info.verb] ?? method.toUpperCase();
}

export function requestScope(info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}

export function dryRunLabel(rawQuery: string): string {
  if (!rawQuery.includes('dryRun')) return '';
  const values = new URLSearchParams(rawQuery).getAll('dryRun');
  return [...new Set(values)].sort().join(',');
}

export function requestLabels(request: LabelledRequest): RequestLabels {
  const { info } = request;
  return {
    verb: reportedVerb(request),
    dry_run: dryRunLabel(request.rawQuery),
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    scope: requestScope(info),
    component: APISERVER_COMPONENT,
  };
}
