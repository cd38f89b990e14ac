/**
 * A PodCertificateRequest's update that breaks its metadata (and its spec) is answered as
 * kube-apiserver 1.34.4 answered it (fixtures/pod-certificate-request-updates.json, recorded
 * with the PodCertificateRequest gate on): each bad label or annotation once per metadata pass
 * of the update, the spec's immutability after them; a status write keeps the stored metadata
 * and is judged on its status alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TestServer } from '../../helpers/server';
import { PCR_FLAGS, PCR_UPDATE_CASES, updateAnswer, type UpdateAnswer } from './pod-certificate-request-updates';

jest.setTimeout(120_000);

const RECORDED: Readonly<Record<string, UpdateAnswer>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'pod-certificate-request-updates.json'), 'utf8'),
);

/** A struct shown as a value is the reference's internal type in Go's names: compared elided. */
const comparable = (answer: UpdateAnswer) => ({
  ...answer,
  causes: answer.causes.map((cause) => ({
    ...cause,
    message: cause.message.replace(/^Invalid value: \{.*\}: (?=[^{}]*$)/, 'Invalid value: {…}: '),
  })),
});

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ flags: PCR_FLAGS });
});
afterAll(() => server?.stop());

test('every case has a recorded answer', () => {
  expect(Object.keys(RECORDED).sort()).toEqual(Object.keys(PCR_UPDATE_CASES).sort());
});

test.each(Object.keys(PCR_UPDATE_CASES))('%s', async (name) => {
  expect(comparable(await updateAnswer(server, name))).toEqual(comparable(RECORDED[name]));
});
