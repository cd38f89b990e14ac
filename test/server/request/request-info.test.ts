import { RequestInfoError, resolveRequestInfo, type RequestInfo } from '../../../server/request/request-info';

type Expected = Partial<RequestInfo>;

const cases: { name: string; method: string; url: string; expected: Expected }[] = [
  // Resource requests, core group.
  {
    name: 'list pods in all namespaces',
    method: 'GET',
    url: '/api/v1/pods',
    expected: {
      isResourceRequest: true,
      verb: 'list',
      apiPrefix: 'api',
      apiGroup: '',
      apiVersion: 'v1',
      namespace: '',
      resource: 'pods',
      name: '',
      parts: ['pods'],
    },
  },
  {
    name: 'list pods in a namespace',
    method: 'GET',
    url: '/api/v1/namespaces/other/pods',
    expected: { verb: 'list', namespace: 'other', resource: 'pods', parts: ['pods'] },
  },
  {
    name: 'get a pod',
    method: 'GET',
    url: '/api/v1/namespaces/other/pods/foo',
    expected: { verb: 'get', namespace: 'other', resource: 'pods', name: 'foo', parts: ['pods', 'foo'] },
  },
  {
    name: 'HEAD is get',
    method: 'HEAD',
    url: '/api/v1/namespaces/other/pods/foo',
    expected: { verb: 'get', name: 'foo' },
  },
  {
    name: 'create a pod',
    method: 'POST',
    url: '/api/v1/namespaces/other/pods',
    expected: { verb: 'create', resource: 'pods' },
  },
  {
    name: 'update a pod',
    method: 'PUT',
    url: '/api/v1/namespaces/other/pods/foo',
    expected: { verb: 'update', name: 'foo' },
  },
  {
    name: 'patch a pod',
    method: 'PATCH',
    url: '/api/v1/namespaces/other/pods/foo',
    expected: { verb: 'patch', name: 'foo' },
  },
  {
    name: 'delete a pod',
    method: 'DELETE',
    url: '/api/v1/namespaces/other/pods/foo',
    expected: { verb: 'delete', name: 'foo' },
  },
  {
    name: 'delete a collection',
    method: 'DELETE',
    url: '/api/v1/namespaces/other/pods',
    expected: { verb: 'deletecollection', name: '' },
  },
  {
    // Recorded from the reference: an anonymous OPTIONS there is refused as `cannot  resource "configmaps"`.
    name: 'a method outside the table has no verb on a resource path, as in the reference',
    method: 'OPTIONS',
    url: '/api/v1/pods',
    expected: { isResourceRequest: true, verb: '' },
  },
  {
    name: 'a known method in another case is not that method',
    method: 'get',
    url: '/api/v1/namespaces/default/pods/x/proxy',
    expected: { isResourceRequest: true, verb: '', subresource: 'proxy' },
  },
  {
    name: "a non-resource request's verb is its method in lower case",
    method: 'FOO',
    url: '/healthz',
    expected: { isResourceRequest: false, verb: 'foo' },
  },
  {
    name: 'trailing slash is ignored',
    method: 'GET',
    url: '/api/v1/namespaces/other/pods/',
    expected: { verb: 'list', resource: 'pods' },
  },
  // Watches.
  {
    name: 'watch=1',
    method: 'GET',
    url: '/api/v1/namespaces/other/pods?watch=1',
    expected: { verb: 'watch', resource: 'pods' },
  },
  { name: 'watch=true', method: 'GET', url: '/api/v1/pods?watch=true', expected: { verb: 'watch' } },
  { name: 'bare watch parameter', method: 'GET', url: '/api/v1/pods?watch', expected: { verb: 'watch' } },
  { name: 'watch=false lists', method: 'GET', url: '/api/v1/pods?watch=false', expected: { verb: 'list' } },
  { name: 'watch=FALSE lists', method: 'GET', url: '/api/v1/pods?watch=FALSE', expected: { verb: 'list' } },
  { name: 'watch=0 lists', method: 'GET', url: '/api/v1/pods?watch=0', expected: { verb: 'list' } },
  {
    name: 'watch on a named pod is still get',
    method: 'GET',
    url: '/api/v1/namespaces/other/pods/foo?watch=1',
    expected: { verb: 'get', name: 'foo' },
  },
  {
    name: 'legacy watch path, namespaced',
    method: 'GET',
    url: '/api/v1/watch/namespaces/other/pods',
    expected: { verb: 'watch', namespace: 'other', resource: 'pods', name: '', parts: ['pods'] },
  },
  {
    name: 'legacy watch path, one object',
    method: 'GET',
    url: '/api/v1/watch/namespaces/other/pods/foo',
    expected: { verb: 'watch', namespace: 'other', resource: 'pods', name: 'foo' },
  },
  {
    name: 'legacy watch path, all namespaces',
    method: 'GET',
    url: '/api/v1/watch/pods',
    expected: { verb: 'watch', namespace: '', resource: 'pods' },
  },
  // Field selector on metadata.name names the object.
  {
    name: 'list by metadata.name',
    method: 'GET',
    url: '/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3Dfoo',
    expected: { verb: 'list', name: 'foo' },
  },
  {
    name: 'watch by metadata.name==',
    method: 'GET',
    url: '/api/v1/namespaces/other/pods?watch=1&fieldSelector=metadata.name%3D%3Dfoo',
    expected: { verb: 'watch', name: 'foo' },
  },
  {
    name: 'metadata.name among other terms',
    method: 'GET',
    url: '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1,metadata.name%3Dfoo',
    expected: { verb: 'list', name: 'foo' },
  },
  {
    name: 'metadata.name!= names nothing',
    method: 'GET',
    url: '/api/v1/pods?fieldSelector=metadata.name!%3Dfoo',
    expected: { verb: 'list', name: '' },
  },
  {
    name: 'a name with a slash is ignored',
    method: 'GET',
    url: '/api/v1/pods?fieldSelector=metadata.name%3Da/b',
    expected: { verb: 'list', name: '' },
  },
  {
    name: 'an invalid selector is ignored',
    method: 'GET',
    url: '/api/v1/pods?fieldSelector=metadata.name',
    expected: { verb: 'list', name: '' },
  },
  {
    name: 'an undecodable limit drops the name but keeps watch',
    method: 'GET',
    url: '/api/v1/pods?watch=1&limit=x&fieldSelector=metadata.name%3Dfoo',
    expected: { verb: 'watch', name: '' },
  },
  {
    name: 'delete with a name selector is a named delete',
    method: 'DELETE',
    url: '/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3Dfoo',
    expected: { verb: 'deletecollection', name: '' },
  },
  // Subresources.
  {
    name: 'pod status',
    method: 'PUT',
    url: '/api/v1/namespaces/other/pods/foo/status',
    expected: {
      verb: 'update',
      resource: 'pods',
      name: 'foo',
      subresource: 'status',
      parts: ['pods', 'foo', 'status'],
    },
  },
  {
    name: 'pod log keeps extra parts',
    method: 'GET',
    url: '/api/v1/namespaces/other/pods/foo/log/extra',
    expected: { verb: 'get', subresource: 'log', parts: ['pods', 'foo', 'log', 'extra'] },
  },
  {
    name: 'proxy verb has no subresource',
    method: 'GET',
    url: '/api/v1/proxy/namespaces/other/pods/foo/some/path',
    expected: { verb: 'proxy', resource: 'pods', name: 'foo', subresource: '' },
  },
  // Namespaces themselves.
  {
    name: 'list namespaces',
    method: 'GET',
    url: '/api/v1/namespaces',
    expected: { verb: 'list', resource: 'namespaces', namespace: '', name: '' },
  },
  {
    name: 'get a namespace',
    method: 'GET',
    url: '/api/v1/namespaces/other',
    expected: {
      verb: 'get',
      resource: 'namespaces',
      namespace: 'other',
      name: 'other',
      parts: ['namespaces', 'other'],
    },
  },
  {
    name: 'namespace status',
    method: 'PUT',
    url: '/api/v1/namespaces/other/status',
    expected: { verb: 'update', resource: 'namespaces', namespace: 'other', name: 'other', subresource: 'status' },
  },
  {
    name: 'namespace finalize',
    method: 'PUT',
    url: '/api/v1/namespaces/other/finalize',
    expected: { verb: 'update', resource: 'namespaces', namespace: 'other', name: 'other', subresource: 'finalize' },
  },
  {
    name: 'delete a namespace',
    method: 'DELETE',
    url: '/api/v1/namespaces/other',
    expected: { verb: 'delete', resource: 'namespaces', name: 'other' },
  },
  {
    name: 'watch namespaces',
    method: 'GET',
    url: '/api/v1/watch/namespaces',
    expected: { verb: 'watch', resource: 'namespaces' },
  },
  // Named groups.
  {
    name: 'list deployments',
    method: 'GET',
    url: '/apis/apps/v1/namespaces/other/deployments',
    expected: {
      isResourceRequest: true,
      apiPrefix: 'apis',
      apiGroup: 'apps',
      apiVersion: 'v1',
      verb: 'list',
      resource: 'deployments',
      namespace: 'other',
    },
  },
  {
    name: 'deployment scale',
    method: 'PATCH',
    url: '/apis/apps/v1/namespaces/other/deployments/web/scale',
    expected: { verb: 'patch', resource: 'deployments', name: 'web', subresource: 'scale' },
  },
  {
    name: 'cluster-scoped custom resource',
    method: 'GET',
    url: '/apis/example.com/v1/widgets/w1',
    expected: { apiGroup: 'example.com', resource: 'widgets', name: 'w1', namespace: '', verb: 'get' },
  },
  {
    name: 'a percent-decoded name',
    method: 'GET',
    url: '/api/v1/namespaces/other/configmaps/a:b',
    expected: { name: 'a:b' },
  },
  {
    name: 'slashes around the path are trimmed, as Go trims them',
    method: 'GET',
    url: '///api/v1/namespaces/other/configmaps/c1//',
    expected: { resource: 'configmaps', name: 'c1', namespace: 'other', verb: 'get' },
  },
  // Non-resource requests.
  { name: 'root', method: 'GET', url: '/', expected: { isResourceRequest: false, verb: 'get', path: '/' } },
  { name: 'only slashes', method: 'GET', url: '///', expected: { isResourceRequest: false, verb: 'get', path: '///' } },
  {
    name: 'health',
    method: 'GET',
    url: '/livez?verbose',
    expected: { isResourceRequest: false, verb: 'get', path: '/livez' },
  },
  { name: 'discovery of the core group', method: 'GET', url: '/api', expected: { isResourceRequest: false } },
  {
    name: 'discovery of a core version',
    method: 'GET',
    url: '/api/v1',
    expected: { isResourceRequest: false, path: '/api/v1' },
  },
  { name: 'discovery of a group', method: 'GET', url: '/apis/apps', expected: { isResourceRequest: false } },
  { name: 'discovery of a group version', method: 'GET', url: '/apis/apps/v1', expected: { isResourceRequest: false } },
  {
    name: 'other prefix',
    method: 'POST',
    url: '/openapi/v3/apis/apps/v1',
    expected: { isResourceRequest: false, verb: 'post' },
  },
  {
    name: 'unknown methods lowercased',
    method: 'OPTIONS',
    url: '/version',
    expected: { isResourceRequest: false, verb: 'options' },
  },
];

function resolve(method: string, url: string): RequestInfo {
  const [path, query = ''] = url.split('?');
  return resolveRequestInfo({ method, path, query });
}

describe('resolveRequestInfo', () => {
  it.each(cases)('$name', ({ method, url, expected }) => {
    expect(resolve(method, url)).toMatchObject(expected);
  });

  it('keeps the path and leaves unset fields empty', () => {
    expect(resolve('GET', '/api/v1/namespaces/other/pods/foo')).toEqual({
      isResourceRequest: true,
      path: '/api/v1/namespaces/other/pods/foo',
      verb: 'get',
      apiPrefix: 'api',
      apiGroup: '',
      apiVersion: 'v1',
      namespace: 'other',
      resource: 'pods',
      subresource: '',
      name: 'foo',
      parts: ['pods', 'foo'],
    });
  });

  it.each(['/api/v1/watch', '/apis/apps/v1/proxy'])('rejects %s as the reference does', (path) => {
    expect(() => resolve('GET', path)).toThrow(new RequestInfoError('unable to determine kind and namespace from url'));
  });
});
