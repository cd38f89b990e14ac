/**
 * `$patch: replace` and its neighbours inside a strategic merge patch's values, answered as
 * kube-apiserver 1.34 answered them (fixtures/strategic-replace-directive.json, recorded with
 * dry runs against the objects of the cases module): a map (a ConfigMap's data, labels, a pod
 * template's annotations and node selector, a container's resources, a pod spec, a template)
 * and a list (containers, a container's env and ports) replaced, a map deleted; the result
 * defaulted and validated as a whole; a directive on the whole object replaces it or empties it,
 * and the result lacks the name the URL gives unless the patch names it. What the reference lets
 * through as a 500 (a directive it does not know, a directive in a list of strings) is a 400
 * BadRequest here, as every fault of a patch is, with the reference's message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { CASES, CONFIG_MAP, DEPLOYMENT, comparedAnswer } from './strategic-replace-directive-cases';

const RECORDED = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'strategic-replace-directive.json'), 'utf8')) as {
  name: string;
  answer: unknown;
}[];
const COLLECTIONS = {
  configmaps: '/api/v1/namespaces/default/configmaps',
  deployments: '/apis/apps/v1/namespaces/default/deployments',
};

// A whole replica: a dry run's answer is the object as its storage codec would write and read it.

const server = inProcessServerForSuite();

beforeAll(async () => {
  for (const [collection, object] of [
    [COLLECTIONS.configmaps, CONFIG_MAP],
    [COLLECTIONS.deployments, DEPLOYMENT],
  ] as const) {
    const created = await server.request('POST', collection, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(object),
    });
    expect(created.status).toBe(201);
  }
}, 60_000);

test.each(CASES.map((c) => [c.name, c] as const))('%s', async (name, c) => {
  const response = await server.request('PATCH', `${COLLECTIONS[c.target]}/replace-target?dryRun=All`, {
    headers: { 'content-type': 'application/strategic-merge-patch+json' },
    body: JSON.stringify(c.patch),
  });
  const recorded = RECORDED.find((answer) => answer.name === name)?.answer as { status: number; message?: string };
  expect(comparedAnswer(response.status, response.body)).toEqual(
    recorded.status === 500 ? { status: 400, reason: 'BadRequest', message: recorded.message } : recorded,
  );
});
