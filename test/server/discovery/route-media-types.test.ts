/**
 * Media types as the reference's routes treat them, replayed from kube-apiserver 1.34.4's
 * answers (fixtures/route-media-types.json, recorded from a fresh server with the flags below):
 * discovery documents in YAML and protobuf, aggregated or not, byte for byte; and the refusals
 * of its go-restful router (406 and 415 in its own words, before any handler), of its
 * negotiation (case counts in `Accept`), and of its OpenAPI handlers (a bare 406).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TestServer } from '../../helpers/server';

interface RecordedBody {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly code: number;
  readonly contentType: string;
  /** Base64 for protobuf, text otherwise. */
  readonly body: string;
}

interface RecordedRefusal {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly code: number;
  readonly contentType: string;
  /** The Status, or its YAML text; absent when the body was empty (`bodyLength`). */
  readonly status?: unknown;
  readonly bodyLength?: number;
}

const RECORDED = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'route-media-types.json'), 'utf8')) as {
  bodies: RecordedBody[];
  statuses: RecordedRefusal[];
};

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    flags: [
      '--service-account-issuer',
      'https://kubernetes.default.svc',
      '--disable-admission-plugins',
      'ServiceAccount',
    ],
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const label = ({ path, headers }: { path: string; headers: Record<string, string> }) =>
  `${path} ${JSON.stringify(headers)}`;

test.each(RECORDED.bodies.map((recorded) => [label(recorded), recorded] as const))(
  'discovery %s',
  async (_label, recorded) => {
    const answer = await server.request('GET', recorded.path, { headers: recorded.headers });
    expect(answer.status).toBe(recorded.code);
    expect(answer.headers['content-type']).toBe(recorded.contentType);
    if (recorded.contentType.includes('protobuf')) {
      expect(answer.bytes.toString('base64')).toBe(recorded.body);
    } else {
      expect(answer.body).toBe(recorded.body);
    }
  },
);

test.each(RECORDED.statuses.map((recorded) => [label(recorded), recorded] as const))(
  'refused: %s',
  async (_label, recorded) => {
    const answer = await server.request('GET', recorded.path, { headers: recorded.headers });
    expect(answer.status).toBe(recorded.code);
    expect(answer.headers['content-type'] ?? '').toBe(recorded.contentType);
    if (recorded.status === undefined) expect(answer.bytes.length).toBe(recorded.bodyLength);
    else if (typeof recorded.status === 'string') expect(answer.body).toBe(recorded.status);
    else expect(answer.json()).toEqual(recorded.status);
  },
);
