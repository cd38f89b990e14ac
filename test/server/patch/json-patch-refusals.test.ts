/**
 * JSON Patches a ConfigMap refuses, answered as kube-apiserver 1.34.4 answered them
 * (fixtures/json-patch-refusals.json, recorded from it against the object in the fixture): the
 * handler's own checks first (400 where an operation's `op`, `path` or `from` is no string,
 * unless fields go unvalidated; 413 past 10000 operations), then each failure of its JSON Patch
 * library (json-patch v4) as a 422 whose message names no detail. The object is unchanged after
 * every case, as it was on the reference.
 */
import { join } from 'node:path';
import { expectRecordedStatus, replayRecordedPatches } from '../../helpers/recorded-patches';

interface Case {
  readonly name: string;
  readonly query: string;
  readonly body: string;
  readonly status: number;
  readonly reason: string;
  readonly message: string;
}

interface ConfigMap {
  metadata: { name: string; finalizers: string[] };
  data: Record<string, string>;
}

const FIXTURE = replayRecordedPatches<ConfigMap, Case>({
  fixture: join(__dirname, 'fixtures', 'json-patch-refusals.json'),
  collection: '/api/v1/namespaces/default/configmaps',
  replay: async (c, target) => {
    const response = await target.patch({ suffix: c.query, contentType: 'application/json-patch+json', body: c.body });
    await expectRecordedStatus(response, c);
    const current = (await (await fetch(target.url)).json()) as ConfigMap;
    expect({ data: current.data, finalizers: current.metadata.finalizers }).toEqual({
      data: FIXTURE.object.data,
      finalizers: FIXTURE.object.metadata.finalizers,
    });
  },
});
