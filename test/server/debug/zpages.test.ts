/**
 * `/flagz` and `/statusz` behind ComponentFlagz and ComponentStatusz, in the format, negotiation
 * and access kube-apiserver v1.34.4 answers with (recorded with both gates off and on): off,
 * 404 `404 page not found`; on, text only for a client taking `text/plain` (else 406 in Go's
 * words), a banner, then one `name<delimiter>value` line per flag, or the process's facts, the
 * delimiter drawn from `:`, `: `, `=` and a space; and nobody outside `system:monitoring` (or
 * the masters) may read them.
 */
import { forbidden, kubectlAs } from '../../client/auth-can-i-identities';
import { startServer, type TestServer } from '../../helpers/server';

jest.setTimeout(120_000);

const BANNER =
  'Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.';
const TEXT = { accept: 'text/plain' };

/** The page's lines after its banner, each split at the page's one delimiter. */
function entries(body: string, title: string): { delimiter: string; values: Map<string, string> } {
  const [blank, heading, banner, gap, ...lines] = body.split('\n');
  expect([blank, heading, banner, gap]).toEqual(['', title, BANNER, '']);
  const delimiter = [': ', ':', '=', ' '].find((candidate) => lines[0].includes(candidate))!;
  const values = new Map<string, string>();
  for (const line of lines.filter((text) => text !== '')) {
    const at = line.indexOf(delimiter);
    values.set(line.slice(0, at), line.slice(at + delimiter.length));
  }
  return { delimiter, values };
}

describe('with ComponentFlagz and ComponentStatusz on', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      flags: [
        '--feature-gates=ComponentFlagz=true,ComponentStatusz=true',
        '--max-requests-inflight=333',
        '--event-ttl=30m',
        '--cors-allowed-origins=//a$,//b$',
        '--enable-admission-plugins=NodeRestriction,AlwaysPullImages',
        '--runtime-config=batch/v1=true,apps/v1=true',
        '-v=2',
        '--goaway-chance=0.001',
        '--service-node-port-range=30000-30100',
      ],
    });
  });
  afterAll(() => server?.stop());

  it('/flagz lists every flag, sorted, with its value as the reference prints it', async () => {
    const answer = await server.request('GET', '/flagz', { headers: TEXT });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
    const { values } = entries(answer.body, 'capstan flags');
    const names = [...values.keys()];
    expect(names).toEqual([...names].sort());
    expect(names.length).toBeGreaterThan(170);
    expect(Object.fromEntries([...values].filter(([name]) => EXPECTED[name] !== undefined))).toEqual(EXPECTED);
    // Made once: the same delimiter every time.
    expect((await server.request('GET', '/flagz', { headers: TEXT })).body).toBe(answer.body);
  });

  it('/statusz tells when the process started, its versions and its top-level paths', async () => {
    const answer = await server.request('GET', '/statusz', { headers: TEXT });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
    const [blank, heading, banner, ...facts] = answer.body.split('\n');
    expect([blank, heading, banner]).toEqual(['', 'apiserver statusz', BANNER]);
    const delimiter = /^Started(:|: |=| ) [A-Z]/.exec(facts[1])?.[1];
    expect(delimiter).toBeDefined();
    const line = (name: string, value: string) => `${name}${delimiter} ${value}`;
    expect(facts[0]).toBe('');
    expect(facts[1]).toMatch(/ [A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \S+ \d{4}$/);
    expect(facts[2]).toMatch(new RegExp(`^Up${delimiter} \\d+ hr \\d{2} min \\d{2} sec$`));
    expect(facts.slice(3)).toEqual([
      line('Go version', `node${process.versions.node}`),
      line('Binary version', '1.34.0+capstan'),
      line('Emulation version', '1.34'),
      line('Paths', ' /flagz /healthz /livez /metrics /readyz /statusz /version'),
      '',
    ]);
  });

  it.each([
    ['no Accept header', undefined, 406],
    ['application/json', 'application/json', 406],
    ['text/plain;charset=utf-8', 'text/plain;charset=utf-8', 200],
    ['text/*', 'text/*', 200],
    ['a weight alone', 'text/plain;q=0.5', 200],
    ['another charset', 'text/plain;charset=latin1', 406],
    ['a wildcard with a parameter', '*/*;x=1', 406],
    ["kubectl's", 'application/json, */*', 200],
  ])('negotiates as the reference: %s', async (_name, accept, status) => {
    for (const path of ['/flagz', '/statusz']) {
      const answer = await server.request('GET', path, { headers: accept === undefined ? {} : { accept } });
      expect(answer.status).toBe(status);
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
      if (status === 406) {
        expect(answer.body).toBe('media type not acceptable, must be: text/plain\n');
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
      }
    }
  });

  it('is listed at /, serves no path below it, and is forbidden to a plain user', async () => {
    const paths = (await server.request('GET', '/')).json<{ paths: string[] }>().paths;
    expect(paths).toEqual(expect.arrayContaining(['/flagz', '/statusz']));
    expect((await server.request('GET', '/flagz/x', { headers: TEXT })).status).toBe(404);
    const alice = await kubectlAs(server, 'alice');
    const refused = await alice(['get', '--raw', '/statusz']);
    expect(forbidden(refused)).toBe(true);
    expect(refused.stderr).toContain(
      'Error from server (Forbidden): forbidden: User "alice" cannot get path "/statusz"',
    );
  });
});

it('off (the default): both are 404 and unlisted', async () => {
  const server = await startServer();
  try {
    for (const path of ['/flagz', '/statusz']) {
      const answer = await server.request('GET', path, { headers: TEXT });
      expect([answer.status, answer.headers['content-type'], answer.body]).toEqual([
        404,
        'text/plain; charset=utf-8',
        '404 page not found\n',
      ]);
    }
    expect((await server.request('GET', '/')).json<{ paths: string[] }>().paths).not.toContain('/flagz');
  } finally {
    await server.stop();
  }
});

/** Values kube-apiserver v1.34.4 printed for the same flags (and defaults where capstan has the reference's). */
const EXPECTED: Record<string, string> = {
  'admission-control': '[]',
  'max-requests-inflight': '333',
  'event-ttl': '30m0s',
  'cors-allowed-origins': '[//a$,//b$]',
  'enable-admission-plugins': '[NodeRestriction,AlwaysPullImages]',
  'feature-gates': ':ComponentFlagz=true,:ComponentStatusz=true',
  'runtime-config': 'apps/v1=true,batch/v1=true',
  v: '2',
  'goaway-chance': '0.001',
  'service-node-port-range': '30000-30100',
  'authentication-token-webhook-cache-ttl': '2m0s',
  'etcd-compaction-interval': '5m0s',
  'kubelet-preferred-address-types': '[Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP]',
  'log-flush-frequency': '5s',
  'request-timeout': '1m0s',
  'storage-media-type': 'application/vnd.kubernetes.protobuf',
  help: 'false',
  version: 'false',
  vmodule: '',
  'bind-address': '127.0.0.1',
};
