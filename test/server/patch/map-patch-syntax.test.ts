/**
 * Merge and strategic merge patches that are no JSON object, answered as kube-apiserver 1.34.4
 * answered them (fixtures/map-patch-syntax.json, recorded from it against the object in the
 * fixture): Go's words for the syntax error or the wrong type, prefixed `error decoding patch:`
 * where the handler decodes a merge patch itself (fields validated), `Invalid JSON Patch` alone
 * where only the merge library reads it, and bare for a strategic merge.
 */
import { join } from 'node:path';
import { expectRecordedStatus, replayRecordedPatches } from '../../helpers/recorded-patches';

interface Case {
  readonly name: string;
  readonly contentType: string;
  readonly query: string;
  readonly body: string;
  readonly status: number;
  readonly reason: string;
  readonly message: string;
}

replayRecordedPatches<{ metadata: { name: string }; data: Record<string, string> }, Case>({
  fixture: join(__dirname, 'fixtures', 'map-patch-syntax.json'),
  collection: '/api/v1/namespaces/default/configmaps',
  replay: async (c, target) =>
    expectRecordedStatus(await target.patch({ suffix: c.query, contentType: c.contentType, body: c.body }), c),
});
