/**
 * The tests of a fixture of the reference's answers (test/helpers/recorded-answers.ts): its steps
 * sent to an in-process capstan (with the flags they were recorded with) in order, each setup step's code and each other step's answer
 * compared with what the reference answered (times and uids masked in a step marked volatile).
 */
import { readFileSync } from 'node:fs';
import { startInProcessServer } from './in-process-server';
import { startServer } from './server';
import { comparable, RECORDING_FLAGS, sendSteps, withoutVolatile, type Answer, type Step } from './recorded-answers';

/**
 * `process`: a capstan process instead, for the endpoints only the whole server wires (the
 * authentication ones: TokenRequest, TokenReview, SelfSubjectReview).
 */
export function testRecordedAnswers(fixture: string, options: { readonly process?: boolean } = {}): void {
  const steps = JSON.parse(readFileSync(fixture, 'utf8')) as Step[];
  let server: { request: Parameters<typeof sendSteps>[0]; stop: () => Promise<void> };
  let answers = new Map<string, Answer>();

  beforeAll(async () => {
    server = options.process
      ? await startServer({ flags: RECORDING_FLAGS })
      : await startInProcessServer(RECORDING_FLAGS);
    answers = await sendSteps(server.request, steps);
  }, 180_000);
  afterAll(() => server?.stop());

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
