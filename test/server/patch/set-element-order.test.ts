/**
 * Strategic merge patches with `$setElementOrder` (and their neighbours, `$deleteFromPrimitiveList`
 * and mixed list items) against a Deployment, answered as kube-apiserver 1.34.4 answered them
 * (fixtures/set-element-order.json, recorded from it with dryRun=All against the object in the
 * fixture). Its library's 400s are matched as they are; where it passes the library's error
 * through as a 500, capstan answers 400 with the same message; where the library panics (it
 * compares maps as scalars) and the reference drops the connection (recorded as status 0),
 * capstan answers 400. Patches it takes leave lists in the order it gave them. Directive keys
 * in a value the object lacks (or in a map a `$patch: replace` replaces) stay in it, as the
 * library leaves them, and are refused as the unknown fields or map keys they then are.
 */
import { join } from 'node:path';
import { replayRecordedPatches } from '../../helpers/recorded-patches';

interface Lists {
  readonly finalizers: string[];
  readonly containers: string[];
  readonly ports: number[];
}

interface Case {
  readonly name: string;
  /** More of the query after `dryRun=All`. */
  readonly query: string;
  readonly body: string;
  readonly status: number;
  readonly reason: string;
  readonly message: string;
  readonly patched?: Lists;
}

interface Deployment {
  metadata: { name: string; finalizers: string[] };
  spec: { template: { spec: { containers: { name: string; ports?: { containerPort: number }[] }[] } } };
}

function listsOf(deployment: Deployment): Lists {
  const { containers } = deployment.spec.template.spec;
  return {
    finalizers: deployment.metadata.finalizers,
    containers: containers.map((container) => container.name),
    ports: (containers.find((container) => container.name === 'c1')?.ports ?? []).map((port) => port.containerPort),
  };
}

/** What capstan answers for the reference's answer: its client errors as they are, its failures as 400. */
function expectedOf(c: Case): { status: number; reason?: string; message?: string } {
  if (c.status === 0) return { status: 400, reason: 'BadRequest' };
  if (c.status >= 500) return { status: 400, reason: 'BadRequest', message: c.message };
  if (c.status >= 400) return { status: c.status, reason: c.reason, message: c.message };
  return { status: c.status };
}

const FIXTURE = replayRecordedPatches<Deployment, Case>({
  fixture: join(__dirname, 'fixtures', 'set-element-order.json'),
  collection: '/apis/apps/v1/namespaces/default/deployments',
  replay: async (c, target) => {
    const response = await target.patch({
      suffix: `?dryRun=All${c.query}`,
      contentType: 'application/strategic-merge-patch+json',
      body: c.body,
    });
    const answer = (await response.json()) as { reason?: string; message?: string } & Deployment;
    const expected = expectedOf(c);
    expect({
      status: response.status,
      ...(expected.reason !== undefined && { reason: answer.reason }),
      ...(expected.message !== undefined && { message: answer.message }),
    }).toEqual(expected);
    if (c.patched !== undefined) expect(listsOf(answer)).toEqual(c.patched);
    const current = (await (await fetch(target.url)).json()) as Deployment;
    expect(listsOf(current)).toEqual(listsOf(FIXTURE.object));
  },
});
