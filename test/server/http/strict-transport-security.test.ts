/**
 * `--strict-transport-security-directives` puts the reference's header on every answer, and the
 * directives are checked as the reference checks them.
 */
import { FlagError, parseFlags } from '../../../server/config/flags';
import { startInProcessServer, inProcessServerForSuite } from '../../helpers/in-process-server';

const server = inProcessServerForSuite([
  '--strict-transport-security-directives=max-age=31536000,includeSubDomains,preload',
]);

test('every answer carries the header, errors and health checks included', async () => {
  for (const path of ['/api/v1/namespaces', '/healthz', '/api/v1/namespaces/nowhere/pods/none']) {
    const answer = await server.request('GET', path);
    expect({ path, hsts: answer.headers['strict-transport-security'] }).toEqual({
      path,
      hsts: 'max-age=31536000; includeSubDomains; preload',
    });
  }
});

test.each([
  ['max-age=5', true],
  ['includeSubDomains', true],
  ['max-age=x,preload', true],
  ['foo,includeSubDomains', false],
  ['max-age', false],
  ['max-age=1,,preload', false],
])('%s is accepted: %s', (directives, accepted) => {
  const parse = () => parseFlags([`--strict-transport-security-directives=${directives}`]);
  if (accepted) expect(parse).not.toThrow();
  else expect(parse).toThrow(FlagError);
});

test('none given: no header', async () => {
  const plain = await startInProcessServer();
  try {
    expect((await plain.request('GET', '/healthz')).headers['strict-transport-security']).toBeUndefined();
  } finally {
    await plain.stop();
  }
});
