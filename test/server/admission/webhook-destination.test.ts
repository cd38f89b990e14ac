/**
 * The path a webhook is called at, as the reference's REST client makes it from the
 * configuration: envtest writes `https://127.0.0.1:<port>/` + a path that starts with `/`,
 * and a Go webhook server redirects `//path` rather than serving it.
 */
import { requestPath, webhookDestination } from '../../../server/admission/webhook/client';

test.each([
  ['//failing', '/failing'],
  ['/validate-v1/', '/validate-v1'],
  ['/a/./b/../c', '/a/c'],
  ['/../x', '/x'],
  ['', '/'],
  ['/', '/'],
  ['mutate', '/mutate'],
])('the configured path %j is requested as %j', (configured, requested) => {
  expect(requestPath(configured)).toBe(requested);
});

test('a URL webhook keeps its host and port, and is called at the cleaned path', async () => {
  const destination = await webhookDestination({ url: 'https://127.0.0.1:9443//failing' }, undefined);
  expect(destination.url.href).toBe('https://127.0.0.1:9443/failing');
});
