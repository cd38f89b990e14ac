/**
 * A bad label value and a bad annotation key in updates of a CustomResourceDefinition, an
 * APIService and a custom resource get kube-apiserver 1.34.4's answers
 * (fixtures/extension-metadata-update.json, recorded from it with extension-metadata-cases.ts):
 * each update checks the metadata as often as the reference's does (a CRD's and a custom
 * resource's three times, an APIService's four), an APIService's and a custom resource's status
 * write keeps the stored metadata (200), and a custom resource's Scale is not checked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { badMetadataAnswer, CASE_PATHS, makeObjects, type Answer } from './extension-metadata-cases';

const RECORDED: Readonly<Record<string, Answer>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'extension-metadata-update.json'), 'utf8'),
);

let server: InProcessServer;

beforeAll(async () => {
  server = await startInProcessServer(['--service-cluster-ip-range=10.96.0.0/12']);
  await makeObjects(server.request);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

test('every case has a recorded answer', () => {
  expect(Object.keys(RECORDED)).toEqual(CASE_PATHS);
});

test.each(CASE_PATHS.map((path) => [path] as const))('%s', async (path) => {
  expect(await badMetadataAnswer(server.request, path)).toEqual(RECORDED[path]);
});
