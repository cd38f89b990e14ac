/**
 * Labels and annotations whose keys are array indices ("10", "9") come out in Go's order in
 * answers to writes and reads, in every form an answer takes: sorted by their bytes in JSON,
 * compact or pretty (which ends without a newline), whole, in lists, in PartialObjectMetadata
 * and in table rows; in yaml.v2's order ("9" before "10") in YAML. A ConfigMap and a custom
 * resource alike. Replays
 * fixtures/index-key-order.json, recorded from kube-apiserver 1.34.4 (see the cases module),
 * against a whole in-process replica: byte for byte, but for a built-in object's whole JSON,
 * whose struct fields capstan does not write in Go's order (`apiVersion` before `kind`,
 * `resourceVersion` last in metadata), where the labels and annotations are compared as
 * written and the rest as values, and for tables' column descriptions other than Name's, Age's
 * and Data's, which capstan words otherwise.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { indexKeyOrderAnswers, type RecordedAnswer } from './index-key-order-cases';

const recorded = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'index-key-order.json'), 'utf8'),
) as RecordedAnswer[];

/** The built-in object's whole JSON: written, read, and listed. */
const STRUCT_ORDER_DIFFERS = new Set([
  'configmap create',
  'configmap merge patch',
  'configmap json',
  'configmap json ?pretty=true',
  'configmap json to curl',
  'configmap list json',
  'configmap list json pretty',
]);

/**
 * The answer with a table's column descriptions replaced by a placeholder, but for the Name, Age
 * and Data columns', which capstan gives as the reference does (the fields' documentation).
 */
function withoutDescriptions(answer: RecordedAnswer): RecordedAnswer {
  return {
    ...answer,
    body: answer.body.replace(
      /("name": ?"(?!Name"|Age"|Data")[^"]*",[^{}]*?"description": ?)"(?:[^"\\]|\\.)*"/g,
      '$1"<description>"',
    ),
  };
}

/** Each labels or annotations member of a JSON text, as written. */
function metadataMaps(body: string): string[] {
  return body.match(/"(?:labels|annotations)": ?\{[^{}]*\}/g) ?? [];
}

let answers: RecordedAnswer[];

const server = inProcessServerForSuite();

beforeAll(async () => {
  answers = await indexKeyOrderAnswers((method, path, options) => server.request(method, path, options));
}, 120_000);

test.each(recorded.map((answer, index) => [answer.name, index] as const))('%s', (name, index) => {
  const [answer, reference] = [answers[index], recorded[index]].map(withoutDescriptions);
  if (!STRUCT_ORDER_DIFFERS.has(name)) {
    expect(answer).toEqual(reference);
    return;
  }
  expect(metadataMaps(reference.body)).toHaveLength(2);
  expect({ ...answer, body: metadataMaps(answer.body) }).toEqual({ ...reference, body: metadataMaps(reference.body) });
  expect(JSON.parse(answer.body)).toEqual(JSON.parse(reference.body));
  expect(answer.body.endsWith('\n')).toBe(reference.body.endsWith('\n'));
});
