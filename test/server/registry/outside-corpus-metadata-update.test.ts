/**
 * A bad label value and a bad annotation key in updates of the kinds the update corpus leaves
 * out get kube-apiserver 1.34.4's answers (fixtures/outside-corpus-metadata-update.json, recorded
 * from it with outside-corpus-metadata-cases.ts): each update checks the metadata as often as the
 * reference's does (a CRD's, a custom resource's, a LeaseCandidate's, a MutatingAdmissionPolicy's
 * and its binding's and a DeviceTaintRule's three times; an APIService's, a ClusterTrustBundle's
 * and a StorageVersionMigration's four; a StorageVersion's twice), the status writes of
 * APIServices, custom resources, StorageVersionMigrations and StorageVersions keep the stored
 * metadata (200), and a custom resource's Scale is not checked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { badMetadataAnswer, CASE_SETS, makeObjects, type Answer } from './outside-corpus-metadata-cases';

const RECORDED: Readonly<Record<string, Readonly<Record<string, Answer>>>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'outside-corpus-metadata-update.json'), 'utf8'),
);

describe.each(Object.entries(CASE_SETS))('%s', (setName, { flags, objects, paths }) => {
  const server = inProcessServerForSuite(['--service-cluster-ip-range=10.96.0.0/12', ...flags]);

  beforeAll(async () => {
    await makeObjects(server.request, objects);
  }, 120_000);
  test('every case has a recorded answer', () => {
    expect(Object.keys(RECORDED[setName])).toEqual(paths);
  });

  test.each(paths.map((path) => [path] as const))('%s', async (path) => {
    expect(await badMetadataAnswer(server.request, path)).toEqual(RECORDED[setName][path]);
  });
});
