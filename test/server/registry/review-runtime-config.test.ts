/**
 * The reviews (authorization.k8s.io's four access reviews, authentication.k8s.io's TokenReview
 * and SelfSubjectReview) are served only where `--runtime-config` turns them on, as
 * kube-apiserver 1.34.4 serves them: a group-version turned off leaves discovery and answers Go's
 * plain 404 for its paths; a resource turned off leaves its group's discovery and answers the
 * Status 404 of an unknown resource. ServiceAccounts' `token` subresource, a core resource, stays.
 * Recorded from the reference on 2026-11-29 under the same flags.
 */
import { startServer, type TestServer } from '../../helpers/server';

// A whole process: authentication's reviews are registered by the server's assembly (main.ts).
let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    flags: ['--runtime-config=authorization.k8s.io/v1=false,authentication.k8s.io/v1/tokenreviews=false'],
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

type Json = Record<string, any>;
const post = (path: string, body: Json) =>
  server.request('POST', path, { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });

it('leaves a group-version turned off out of discovery and its paths to the plain 404', async () => {
  const groups = (await server.request('GET', '/apis')).json<Json>().groups.map((group: Json) => group.name);
  expect(groups).toContain('authentication.k8s.io');
  expect(groups).not.toContain('authorization.k8s.io');
  for (const answer of [
    await server.request('GET', '/apis/authorization.k8s.io'),
    await server.request('GET', '/apis/authorization.k8s.io/v1'),
    await post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'get', resource: 'pods' } },
    }),
  ]) {
    expect([answer.status, answer.headers['content-type'], answer.body]).toEqual([
      404,
      'text/plain; charset=utf-8',
      '404 page not found\n',
    ]);
  }
});

it("serves a group's other reviews when one resource is turned off", async () => {
  const resources = (await server.request('GET', '/apis/authentication.k8s.io/v1')).json<Json>().resources;
  expect(resources.map((resource: Json) => resource.name)).toEqual(['selfsubjectreviews']);
  const refused = await post('/apis/authentication.k8s.io/v1/tokenreviews', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec: { token: 'x' },
  });
  expect(refused.status).toBe(404);
  expect(refused.json()).toMatchObject({
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
  });
  const review = await post('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  });
  expect(review.status).toBe(201);
  const core = (await server.request('GET', '/api/v1')).json<Json>().resources.map((resource: Json) => resource.name);
  expect(core).toContain('serviceaccounts/token');
});
