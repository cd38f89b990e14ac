/**
 * YAML bodies read as the reference reads them (yaml-body-cases.ts): each case is sent to
 * capstan and its answer compared with kube-apiserver 1.34.4's, recorded in
 * fixtures/yaml-bodies.reference.json. Where the reference fails with a 500 (an apply whose
 * typing fails), capstan answers the same message as a 400, as everywhere else.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { answerOf, caseName, caseRequest, YAML_BODY_CASES } from './yaml-body-cases';

jest.setTimeout(60_000);

type Answer = ReturnType<typeof answerOf>;
const RECORDED = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'yaml-bodies.reference.json'), 'utf8')) as Record<
  string,
  Answer
>;

const server = inProcessServerForSuite();

test.each(YAML_BODY_CASES.map((yamlCase) => [yamlCase.id, yamlCase] as const))('%s', async (id, yamlCase) => {
  const { method, path, contentType } = caseRequest(yamlCase);
  const result = await server.request(method, path, {
    body: yamlCase.body(caseName(id)),
    headers: { 'Content-Type': contentType },
  });
  const recorded = RECORDED[id];
  expect(recorded).toBeDefined();
  const expected = recorded.code >= 500 ? { ...recorded, code: 400 } : recorded;
  expect(answerOf(result.status, result.body)).toEqual(expected);
});
