/**
 * Records the reference's answers to the update corpus (update-cases.ts): for each case, creates
 * its object, sends the PUT and writes the update's code, reason and causes into
 * update-expected.json. Run against a fresh reference server (reference.sh):
 *
 *   node dist/test/corpus/update-record.js https://127.0.0.1:6443 ca.crt admin.crt admin.key [id-part]
 *
 * With `id-part`, only the cases whose id contains it are sent, and their answers replace those
 * of the same ids in the file, the others kept as recorded (a fresh recording of all would change
 * the generated uids some causes show).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sender } from './send';
import { causesOf, createRequest, namespaceRequest, sendUpdate, updateCases, type UpdateAnswer } from './update-cases';

export const UPDATE_EXPECTED_FILE = join(__dirname, '..', '..', '..', 'test', 'corpus', 'update-expected.json');

async function main(): Promise<void> {
  const [url, ca, cert, key, idPart] = process.argv.slice(2);
  const client = sender(url, { ca: readFileSync(ca), cert: readFileSync(cert), key: readFileSync(key) });
  const namespace = await client.send(namespaceRequest());
  if (namespace.code !== 201 && namespace.code !== 409) throw new Error(`namespace: ${namespace.code}`);
  const recorded: Record<string, UpdateAnswer> =
    idPart === undefined ? {} : JSON.parse(readFileSync(UPDATE_EXPECTED_FILE, 'utf8'));
  const expected: Record<string, UpdateAnswer> = {};
  const failedCreates: string[] = [];
  for (const updateCase of updateCases()) {
    if (idPart !== undefined && !updateCase.id.includes(idPart)) {
      if (recorded[updateCase.id] !== undefined) expected[updateCase.id] = recorded[updateCase.id];
      continue;
    }
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
