/**
 * A PersistentVolume's CSI source and a VolumeAttachment's inline volume, against what
 * kube-apiserver 1.34.4 answered (fixtures/persistent-volume-csi-source.json: the object created,
 * for an update the CSI members it then set, and the causes of the answer). Every secret
 * reference of a CSI source but nodeStageSecretRef names a secret and its namespace
 * (validatePVSecretReference); an update adding one is checked twice, as the update runs the
 * create rules twice, and refused as a changed source unless it is the controllerExpandSecretRef
 * the stored source lacked. An inline volume is a CSI volume with none of a PersistentVolume's
 * binding, capacity, class, node affinity, reclaim (but Retain) or block mode.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';
import { recordedUpdateCauses } from './recorded-update';

interface Case {
  readonly name: string;
  readonly group: string;
  readonly resource: string;
  readonly object: KubeObject;
  readonly changed?: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
}

const CASES: readonly Case[] = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'persistent-volume-csi-source.json'), 'utf8'),
);

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, { group, resource, object, changed, code, causes }) => {
  const type = typeOf(group, resource);
  const answered =
    changed === undefined
      ? created(type, object, {}).errors.map((error) => error.split('\n')[0])
      : recordedUpdateCauses(type, object, { changed });
  expect(answered).toEqual(code < 300 ? [] : causes);
});
