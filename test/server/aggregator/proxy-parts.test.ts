/** The proxy's small decisions: which APIService a path belongs to, what an upgrade is, how the user is told to the extension server. */
import { identityHeaders } from '../../../server/aggregator/extension-transport';
import { apiServiceNameOfPath } from '../../../server/aggregator/proxy';
import { asksUpgrade, forwardedHeaders } from '../../../server/proxy/forwarding';

test.each([
  ['/apis/metrics.k8s.io/v1beta1', 'v1beta1.metrics.k8s.io'],
  ['/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', 'v1beta1.metrics.k8s.io'],
  ['/apis/metrics.k8s.io', undefined],
  ['/apis', undefined],
  ['/api/v1/pods', undefined],
])('%s belongs to %s', (path, name) => {
  expect(apiServiceNameOfPath(path)).toBe(name);
});

test('an upgrade names the protocol and says Upgrade among the connection options', () => {
  expect(asksUpgrade({ connection: 'Upgrade', upgrade: 'websocket' })).toBe(true);
  expect(asksUpgrade({ connection: 'keep-alive, Upgrade', upgrade: 'SPDY/3.1' })).toBe(true);
  expect(asksUpgrade({ connection: 'keep-alive', upgrade: 'websocket' })).toBe(false);
  expect(asksUpgrade({ connection: 'Upgrade' })).toBe(false);
});

test('the user in request headers: one group header per group, extra keys percent-encoded', () => {
  expect(
    identityHeaders({
      name: 'alice',
      uid: 'u-1',
      groups: ['dev', 'system:authenticated'],
      extra: { 'example.com/team': ['blue', 'green'], scopes: [] },
    }),
  ).toEqual({
    'X-Remote-User': 'alice',
    'X-Remote-Uid': 'u-1',
    'X-Remote-Group': ['dev', 'system:authenticated'],
    'X-Remote-Extra-example.com%2Fteam': ['blue', 'green'],
  });
  expect(identityHeaders({ name: 'system:anonymous', groups: [] })).toEqual({ 'X-Remote-User': 'system:anonymous' });
});

test("the client's credentials, connection headers and claimed identities stay here; its address is appended to X-Forwarded-For", () => {
  expect(
    forwardedHeaders(
      {
        authorization: 'Bearer secret',
        'impersonate-user': 'bob',
        'x-remote-user': 'mallory',
        connection: 'keep-alive',
        host: 'capstan:6443',
        accept: 'application/json',
        'x-forwarded-for': '10.0.0.7',
      },
      '::ffff:127.0.0.1',
    ),
  ).toEqual({ accept: 'application/json', 'x-forwarded-for': '10.0.0.7, 127.0.0.1' });
});
