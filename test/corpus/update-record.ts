/**
 * Records the reference's answers to the update corpus (update-cases.ts): for each case, creates
 * its object, sends the PUT and writes the update's code, reason and causes into
 * update-expected.json. Run against a fresh reference server (reference.sh):
 *
 *   node dist/test/corpus/update-record.js https://127.0.0.1:6443 ca.crt admin.crt admin.key
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sender } from './send';
import { causesOf, createRequest, namespaceRequest, sendUpdate, updateCases, type UpdateAnswer } from './update-cases';

export const UPDATE_EXPECTED_FILE = join(__dirname, '..', '..', '..', 'test', 'corpus', 'update-expected.json');

async function main(): Promise<void> {
  const [url, ca, cert, key] = process.argv.slice(2);
  const client = sender(url, { ca: readFileSync(ca), cert: readFileSync(cert), key: readFileSync(key) });
  const namespace = await client.send(namespaceRequest());
  if (namespace.code !== 201 && namespace.code !== 409) throw new Error(`namespace: ${namespace.code}`);
  const expected: Record<string, UpdateAnswer> = {};
  const failedCreates: string[] = [];
  for (const updateCase of updateCases()) {
    const created = await client.send(createRequest(updateCase));
    if (created.code !== 201) {
      failedCreates.push(`${updateCase.id}: ${created.code} ${created.body.slice(0, 400)}`);
      continue;
    }
    const answer = await sendUpdate(client, updateCase);
    expected[updateCase.id] = { code: answer.code, reason: answer.reason, causes: causesOf(answer.body) };
    if (answer.code === 0 || answer.code >= 500)
      console.log(updateCase.id, answer.code, answer.error ?? answer.body.slice(0, 200));
  }
  client.close();
  if (failedCreates.length > 0) throw new Error(`creates refused:\n${failedCreates.join('\n')}`);
  writeFileSync(UPDATE_EXPECTED_FILE, JSON.stringify(expected, null, 1) + '\n');
  console.log(`${Object.keys(expected).length} cases recorded`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
