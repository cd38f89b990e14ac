/**
 * Updates that the reference refuses with a diff of the internal Go structs appended to the
 * message (fixtures/update-diff-messages.json, recorded from kube-apiserver 1.34.4 by sending
 * update-diff-scenarios.ts's writes): pod specs changed beside their images, deep in containers,
 * in quantities the parser rewrites, tolerations, host namespaces and users, the service account
 * and its deprecated alias, long specs of four and five containers with several hunks, empty
 * lists and maps sent, gated pods; ephemeral containers changed and removed through their
 * subresource; volume sources and claim specs; a node's status write to its claim that changes
 * more than NodeRestriction lets it. capstan answers each write with the same code and the same
 * message, byte for byte.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import {
  makeDefaultServiceAccount,
  nodeSender,
  runUpdateDiffCase,
  type Senders,
  type StepAnswer,
  type UpdateDiffCase,
} from './update-diff-scenarios';

const recorded: readonly (UpdateDiffCase & { readonly answers: readonly StepAnswer[] })[] = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'update-diff-messages.json'), 'utf8'),
);

// As the reference was started: a node's writes are judged by the Node authorizer and NodeRestriction.
let senders: Senders;
const server = inProcessServerForSuite([
  '--controllers=',
  '--authorization-mode=RBAC,Node',
  '--enable-admission-plugins=NodeRestriction',
]);

beforeAll(async () => {
  senders = {
    admin: server.request.bind(server),
    node: nodeSender(server.url, server.credentials.ca, join(server.dataDir, 'pki')),
  };
  await makeDefaultServiceAccount(senders.admin);
}, 60_000);
test.each(recorded.map((testCase) => [testCase.name, testCase] as const))('%s', async (_name, testCase) => {
  expect(await runUpdateDiffCase(senders, testCase)).toEqual(testCase.answers);
});
