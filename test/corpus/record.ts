/**
 * Records the reference's answers: sends the fixtures and then every corpus case, in order, to
 * a kube-apiserver and writes each case's status code and reason into expected.json (codes
 * and reasons only). Run against a fresh reference server on its own etcd:
 *
 *   node dist/test/corpus/record.js https://127.0.0.1:6443 ca.crt admin.crt admin.key [id-prefix]
 *
 * With an id prefix only the cases under it are sent, and their answers join the file's others.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusCases, fixtures } from './cases';
import { sender } from './send';

export const EXPECTED_FILE = join(__dirname, '..', '..', '..', 'test', 'corpus', 'expected.json');

async function main(): Promise<void> {
  const [url, ca, cert, key, only] = process.argv.slice(2);
  const client = sender(url, { ca: readFileSync(ca), cert: readFileSync(cert), key: readFileSync(key) });
  for (const fixture of fixtures()) {
    const answer = await client.send(fixture);
    // A server recorded into before (an id prefix given) has them already.
    if (answer.code !== 201 && !(only !== undefined && answer.code === 409))
      throw new Error(`fixture ${fixture.path}: ${answer.code} ${answer.body}`);
  }
  const expected: Record<string, { code: number; reason: string }> =
    only === undefined ? {} : JSON.parse(readFileSync(EXPECTED_FILE, 'utf8'));
  for (const corpusCase of corpusCases().filter((c) => only === undefined || c.id.startsWith(only))) {
    const answer = await client.send(corpusCase);
    expected[corpusCase.id] = { code: answer.code, reason: answer.reason };
    if (answer.code === 0 || answer.code >= 500)
      console.log(corpusCase.id, answer.code, answer.error ?? answer.body.slice(0, 200));
  }
  client.close();
  writeFileSync(EXPECTED_FILE, JSON.stringify(expected, null, 1) + '\n');
  console.log(`${Object.keys(expected).length} cases recorded`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
