/**
 * A custom resource's JSON has every object's keys sorted by their bytes wherever it is written
 * (answers to writes, reads, lists, watch events, the stored value, an invalid value quoted in
 * a message), as kube-apiserver 1.34 writes the unstructured maps it holds custom resources in,
 * while the metadata of a Table row stays in ObjectMeta's field order. Replays
 * fixtures/custom-resource-key-order.json, recorded from the reference (see the cases module),
 * byte for byte against a whole in-process replica.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { keyOrderAnswers, type RecordedAnswer } from './custom-resource-key-order-cases';

const recorded = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'custom-resource-key-order.json'), 'utf8'),
) as RecordedAnswer[];

let answers: RecordedAnswer[];

const server = inProcessServerForSuite();

beforeAll(async () => {
  answers = await keyOrderAnswers(
    (method, path, options) => server.request(method, path, options),
    async (key) => (await server.plane.store.get(key)).kv?.value.toString('utf8'),
  );
}, 120_000);

test.each(recorded.map((answer, index) => [answer.name, index] as const))('%s', (_name, index) => {
  expect(answers[index]).toEqual(recorded[index]);
});
