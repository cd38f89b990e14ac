/**
 * The `Warning` headers of writes that are refused: what was gathered before the refusal goes
 * out with it (a Pod's AppArmor annotations as it is prepared, a body's unknown and duplicate
 * fields, a Job deletion's note on its pods, admission webhooks' warnings), what the strategy
 * would add after validation does not, and a request that runs past its timeout is answered 504
 * without any. Each answer is kube-apiserver 1.34.4's to the same
 * requests (fixtures/refused-write-warnings.json), with the same webhook served by the test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { startHttpsFixture, type HttpsFixture } from '../authn/https-fixture';
import { retryUntil } from '../../helpers/wait-for';
import {
  refusedWriteCases,
  warningsOf,
  warningWebhook,
  type RecordedAnswer,
  type RefusedWriteCase,
} from './refused-write-cases';

const RECORDED: Readonly<Record<string, RecordedAnswer>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'refused-write-warnings.json'), 'utf8'),
);
/** How long a webhook configuration may take to be taken up. */
const TAKE_UP_ATTEMPTS = 50;
const TAKE_UP_PAUSE_MS = 100;

let server: InProcessServer;
let webhook: HttpsFixture;

beforeAll(async () => {
  webhook = await startHttpsFixture(warningWebhook);
  server = await startInProcessServer([
    '--service-cluster-ip-range=10.96.0.0/12',
    '--disable-admission-plugins=ServiceAccount',
  ]);
});
afterAll(async () => {
  if (server) await untilSlowCreateEnded();
  await server?.stop();
  await webhook?.close();
});

/**
 * The create answered 504 at its timeout still runs in the server, as in the reference, until the
 * slow webhook answers and the ConfigMap is stored: waited for here, so that it does not fail on
 * the webhook's closed connection (and log it) after this file's tests are over.
 */
async function untilSlowCreateEnded(): Promise<void> {
  await retryUntil(
    () => server.request('GET', '/api/v1/namespaces/default/configmaps?labelSelector=webhook%3Dslow'),
    (listed) => (JSON.parse(listed.body) as { items: unknown[] }).items.length > 0,
    TAKE_UP_ATTEMPTS * TAKE_UP_PAUSE_MS,
    TAKE_UP_PAUSE_MS,
  );
}

async function send(c: RefusedWriteCase): Promise<RecordedAnswer> {
  for (let attempt = 1; ; attempt++) {
    const result = await server.request(c.method, c.path, {
      body: c.rawBody ?? (c.body === undefined ? undefined : JSON.stringify(c.body)),
      headers: { 'content-type': c.contentType ?? 'application/json' },
    });
    const answer = { status: result.status, warnings: warningsOf(result) };
    const takenUp =
      !(c.untilWarned && answer.warnings.length === 0) &&
      (c.untilStatus === undefined || answer.status === c.untilStatus);
    if (takenUp || attempt >= TAKE_UP_ATTEMPTS) return answer;
    await new Promise((resolve) => setTimeout(resolve, TAKE_UP_PAUSE_MS));
  }
}

// In order: later cases act on what earlier ones created.
test.each(refusedWriteCases({ url: '', caBundle: '' }).map((c) => [c.name] as const))('%s', async (name) => {
  const c = refusedWriteCases({ url: webhook.url, caBundle: webhook.caPem }).find((each) => each.name === name)!;
  expect(await send(c)).toEqual(RECORDED[name]);
});
