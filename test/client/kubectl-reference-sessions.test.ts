/**
 * What a kubectl 1.33 user sees, as the reference kube-apiserver 1.34.4 showed it: each session
 * in fixtures/kubectl-reference/ was run against the reference (on its own etcd, no controllers,
 * the ServiceAccount admission plugin off) and its normalised answers recorded; here the same
 * invocations run against capstan, set up the same way, one fresh server per session, and must
 * print the same.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { replayKubectlSession, type KubectlSession } from '../helpers/kubectl-session';
import { startServer } from '../helpers/server';

const FIXTURES = join(__dirname, 'fixtures', 'kubectl-reference');
const SESSIONS = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as KubectlSession);

describe('kubectl sessions as the reference answered them', () => {
  test.each(SESSIONS.map((session) => [session.title, session] as const))(
    '%s',
    async (_title, session) => {
      const server = await startServer({ flags: ['--controllers=', '--disable-admission-plugins=ServiceAccount'] });
      try {
        expect(await replayKubectlSession(session, (args) => server.kubectl(args))).toEqual(session.steps);
      } finally {
        await server.stop();
      }
    },
    120_000,
  );
});
