/**
 * Resource amounts on update, as kube-apiserver 1.34.4 answered the same writes
 * (fixtures/resource-amounts-on-update.json, recorded from it): a pod's resized containers are
 * held to the amounts' rules (and a plain update to them besides the immutable spec); a quota's
 * spec update to its hard amounts and scopes, its status write to the status lists alone; a
 * LimitRange's update to its amounts after defaults; an ephemeral container's amounts, before
 * the rule that it may set no resources at all. Each write is a dry-run patch (strategic
 * for pods, as kubectl sends resizes; a merge patch otherwise) of an object created first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

interface Case {
  readonly name: string;
  readonly resource: string;
  readonly stored: { metadata: { name: string } };
  /** '' for the object itself, else `status` or `resize`. */
  readonly subresource: string;
  readonly patch: unknown;
  readonly code: number;
  /** `<field>: <message>`, as the reference's Status listed them. */
  readonly causes: readonly string[];
}

const CASES = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'resource-amounts-on-update.json'), 'utf8'),
) as readonly Case[];
const NS = '/api/v1/namespaces/default';
const JSON_TYPE = { 'Content-Type': 'application/json' };

describe('resource amounts on update', () => {
  // No service-account controller runs here, so no `default` account: the pods' own volumes are not the point.
  const server = inProcessServerForSuite(['--disable-admission-plugins', 'ServiceAccount']);

  beforeAll(async () => {
    // Pods first: a quota among the cases (pods: 1) would refuse those made after it.
    for (const c of CASES) {
      const made = await server.request('POST', `${NS}/${c.resource}`, {
        body: JSON.stringify(c.stored),
        headers: JSON_TYPE,
      });
      expect(made.status).toBe(201);
    }
  }, 60_000);

  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const path = `${NS}/${c.resource}/${c.stored.metadata.name}${c.subresource ? `/${c.subresource}` : ''}`;
    const answer = await server.request('PATCH', `${path}?dryRun=All`, {
      body: JSON.stringify(c.patch),
      headers: {
        'Content-Type':
          c.resource === 'pods' ? 'application/strategic-merge-patch+json' : 'application/merge-patch+json',
      },
    });
    const body = answer.json<{ details?: { causes?: { field?: string; message: string }[] } }>();
    expect({
      code: answer.status,
      causes: answer.status >= 400 ? (body.details?.causes ?? []).map((x) => `${x.field}: ${x.message}`) : [],
    }).toEqual({ code: c.code, causes: c.causes });
  });
});
