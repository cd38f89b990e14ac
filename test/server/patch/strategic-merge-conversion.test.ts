/**
 * A strategic merge's result is converted into the kind's Go type from its map, as the
 * reference's unstructured converter converts it, not decoded as JSON: integers convert as Go
 * converts them (int32 keeps the low 32 bits; a whole float64 goes through int64), a fraction
 * into an integer or a number into a string cannot convert, other kinds are unrecognized,
 * containers cannot be restored from what is none, the types with their own decoding
 * (IntOrString, Quantity, Time) name no field, and a struct's first error is in Go's field
 * order. A patch holding a number past float64 is no patch (400). The Deployment and its Scale
 * alike; fixtures/strategic-merge-conversion.json was recorded from kube-apiserver 1.34.4 with
 * dry runs on one Deployment of one replica (`replicas`: the count answered).
 */
import { join } from 'node:path';
import { replayRecordedPatches } from '../../helpers/recorded-patches';

interface Case {
  readonly name: string;
  readonly subresource: '' | 'scale';
  readonly patch: string;
  readonly status: number;
  readonly reason: string;
  readonly message?: string;
  readonly causes?: readonly string[];
  readonly replicas?: number;
}

replayRecordedPatches<{ metadata: { name: string } }, Case>({
  fixture: join(__dirname, 'fixtures', 'strategic-merge-conversion.json'),
  collection: '/apis/apps/v1/namespaces/default/deployments',
  replay: async (c, target) => {
    const response = await target.patch({
      suffix: `${c.subresource === '' ? '' : `/${c.subresource}`}?dryRun=All`,
      contentType: 'application/strategic-merge-patch+json',
      body: c.patch,
    });
    const answer = (await response.json()) as {
      kind?: string;
      reason?: string;
      message?: string;
      details?: { causes?: { field: string; message: string }[] };
      spec?: { replicas?: number };
    };
    const isStatus = answer.kind === 'Status';
    const causes = answer.details?.causes?.map(({ field, message }) => `${field}: ${message}`);
    expect({
      status: response.status,
      reason: isStatus ? (answer.reason ?? '') : '',
      message: isStatus ? answer.message : undefined,
      causes: causes?.length ? causes : undefined,
      replicas: isStatus ? undefined : (answer.spec?.replicas ?? 0),
    }).toEqual({ status: c.status, reason: c.reason, message: c.message, causes: c.causes, replicas: c.replicas });
  },
});
