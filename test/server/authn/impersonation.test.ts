import { impersonatedUser, impersonationRequests } from '../../../server/http/with-impersonation';

test('headers become requests in the reference order, extra keys lowercased and percent-decoded', () => {
  const requests = impersonationRequests({
    'impersonate-user': ['system:serviceaccount:ns1:builder'],
    'impersonate-group': ['g1', 'g2'],
    'impersonate-extra-example.com%2fteam': ['blue'],
    'impersonate-uid': ['u-1'],
  });
  expect(requests).toEqual([
    { kind: 'ServiceAccount', namespace: 'ns1', name: 'builder' },
    { kind: 'Group', name: 'g1' },
    { kind: 'Group', name: 'g2' },
    { kind: 'UserExtra', name: 'blue', extraKey: 'example.com/team' },
    { kind: 'UID', name: 'u-1' },
  ]);
  expect(impersonatedUser(requests, true)).toEqual({
    name: 'system:serviceaccount:ns1:builder',
    uid: 'u-1',
    groups: ['g1', 'g2', 'system:authenticated'],
    extra: { 'example.com/team': ['blue'] },
  });
});

test('a service account without groups gets its own; anonymous gets system:unauthenticated', () => {
  expect(
    impersonatedUser(impersonationRequests({ 'impersonate-user': ['system:serviceaccount:a:b'] }), false).groups,
  ).toEqual(['system:serviceaccounts', 'system:serviceaccounts:a', 'system:authenticated']);
  expect(impersonatedUser(impersonationRequests({ 'impersonate-user': ['system:anonymous'] }), false).groups).toEqual([
    'system:unauthenticated',
  ]);
  // An invalid namespace makes it a plain user name.
  expect(impersonationRequests({ 'impersonate-user': ['system:serviceaccount:Bad_NS:b'] })).toEqual([
    { kind: 'User', name: 'system:serviceaccount:Bad_NS:b' },
  ]);
});

test('groups without a user is a bad request (the reference answers a bare 500 with this text)', () => {
  let thrown: unknown;
  try {
    impersonationRequests({ 'impersonate-group': ['g'] });
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toMatchObject({
    status: { code: 400, reason: 'BadRequest', message: 'requested [{Group  g    }] without impersonating a user' },
  });
});
