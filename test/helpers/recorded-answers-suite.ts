/**
 * The tests of a fixture of the reference's answers (test/helpers/recorded-answers.ts): its steps
 * sent to an in-process capstan (with the flags they were recorded with) in order, each setup step's code and each other step's answer
 * compared with what the reference answered (times and uids masked in a step marked volatile).
 */
import type { HttpsFixture } from '../server/authn/https-fixture';
import { startAnsweringWebhook, webhookSubstitutions } from './answering-webhook';
import { startInProcessServer } from './in-process-server';
import { startServer } from './server';
import { comparable, fixtureFlags, readFixture, sendSteps, withoutVolatile, type Answer } from './recorded-answers';

/**
 * `process`: a capstan process instead, for the endpoints only the whole server wires (the
 * authentication ones: TokenRequest, TokenReview, SelfSubjectReview).
 */
export function testRecordedAnswers(fixture: string, options: { readonly process?: boolean } = {}): void {
  const read = readFixture(fixture);
  const { steps } = read;
  const flags = fixtureFlags(read);
  let server: { request: Parameters<typeof sendSteps>[0]; stop: () => Promise<void> };
  let webhook: HttpsFixture | undefined;
  let answers = new Map<string, Answer>();

  beforeAll(async () => {
    webhook = read.webhook ? await startAnsweringWebhook() : undefined;
    server = options.process ? await startServer({ flags }) : await startInProcessServer(flags);
    answers = await sendSteps(server.request, steps, webhook === undefined ? {} : webhookSubstitutions(webhook));
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await webhook?.close();
  });

  const setup = steps.filter((step) => step.setup);
  if (setup.length > 0)
    test.each(setup.map((step) => [step.name, step] as const))('%s', (name, step) => {
      expect(answers.get(name)?.code).toBe(step.code);
    });

  test.each(steps.filter((step) => !step.setup).map((step) => [step.name, step] as const))('%s', (name, step) => {
    const answer = answers.get(name);
    const compared = (value: unknown) => (step.volatile ? withoutVolatile(comparable(value)) : comparable(value));
    expect({ code: answer?.code, answer: compared(answer?.answer) }).toEqual({
      code: step.code,
      answer: compared(step.answer),
    });
  });
}
