/**
 * `--cors-allowed-origins` as the reference answers it (checked against kube-apiserver 1.34.4):
 * an allowed origin's preflight is 204 before authentication, with the CORS headers, and its
 * other requests carry them too; any other origin gets nothing of CORS.
 */
import { request } from 'node:https';
import { FlagError, parseFlags } from '../../../server/config/flags';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const server = inProcessServerForSuite(['--cors-allowed-origins=//example\\.com(:|$),^https://other\\.org$']);

/** A request without any credential, as a browser's preflight is. */
function anonymous(
  method: string,
  path: string,
  origin: string,
): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.url);
    const req = request(url, { method, headers: { Origin: origin }, ca: server.credentials.ca }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const CORS_HEADERS = {
  'access-control-allow-credentials': 'true',
  'access-control-allow-headers':
    'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since',
  'access-control-allow-methods': 'POST, GET, OPTIONS, PUT, DELETE, PATCH',
  'access-control-expose-headers': 'Date',
};

test('the preflight of an allowed origin is 204 with the CORS headers, before authentication', async () => {
  const answer = await anonymous('OPTIONS', '/api/v1/namespaces', 'https://example.com');
  expect(answer.status).toBe(204);
  expect(answer.headers).toMatchObject({ ...CORS_HEADERS, 'access-control-allow-origin': 'https://example.com' });
  expect((await anonymous('OPTIONS', '/api/v1/namespaces', 'https://other.org')).status).toBe(204);
});

test("an allowed origin's request goes on to authorization, with the headers", async () => {
  const answer = await anonymous('GET', '/api/v1/namespaces', 'https://example.com:8443');
  expect(answer.status).toBe(403);
  expect(answer.headers).toMatchObject({ ...CORS_HEADERS, 'access-control-allow-origin': 'https://example.com:8443' });
  expect(
    (await server.request('GET', '/api/v1/namespaces', { headers: { Origin: 'https://example.com' } })).status,
  ).toBe(200);
});

test('another origin gets no CORS header, and its preflight is authorized like any request', async () => {
  for (const origin of ['https://evil.com', 'https://example.com.evil.com', 'https://other.org.evil.com']) {
    const answer = await anonymous('OPTIONS', '/api/v1/namespaces', origin);
    expect({ origin, status: answer.status, allowOrigin: answer.headers['access-control-allow-origin'] }).toEqual({
      origin,
      status: 403,
      allowOrigin: undefined,
    });
  }
});

test.each([
  ['https://example.com', true],
  ['//example\\.com:', true],
  ['^.*$', true],
  ['//example.com', false],
  ['^example.com', false],
  ['example.com$', false],
  ['*', false],
  ['a,,b', false],
])('the origin list %s is accepted: %s', (origins, accepted) => {
  const parse = () => parseFlags([`--cors-allowed-origins=${origins}`]);
  if (accepted) expect(parse).not.toThrow();
  else expect(parse).toThrow(FlagError);
});
