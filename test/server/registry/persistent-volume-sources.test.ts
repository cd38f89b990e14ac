/**
 * A PersistentVolume's spec and each of its sources, against what kube-apiserver 1.34.4 answered
 * (fixtures/persistent-volume-sources.json: the object created, for an update the members it then
 * set, and the causes of the answer). The reference checks every source's own members, those of
 * the in-tree plugins it no longer has included (ValidatePersistentVolumeSpec); the access
 * modes, capacity (storage alone, positive), reclaim policy, class and volume mode around them; and the deprecated mount-options annotation, refused for the sources that cannot
 * mount with options, once per write. Its update runs those rules twice before its own: the
 * source and the volume mode are fixed. A few pods' inline volumes of the same kinds show the
 * pod's own rules for them (an iSCSI name's message, a secret without namespace, no capacity). A
 * VolumeAttachment's inline volume runs the same source rules with an empty volume name, and a
 * local source there lacks a node affinity even when one is given (and refused).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import type { ResourceType } from '../../../server/registry/types';
import { created, typeOf, updated } from './gated-fields/write-path';
import { changeMembers } from './recorded-update';

interface Case {
  readonly name: string;
  readonly group: string;
  readonly resource: string;
  readonly object: KubeObject;
  readonly changed?: Record<string, unknown>;
  readonly code: number;
  readonly causes?: readonly string[];
}

const CASES: readonly Case[] = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'persistent-volume-sources.json'), 'utf8'),
);

/** The causes whole: a changed source's ends with the Go diff of the two sources. */
function causesOf(
  type: ResourceType,
  object: KubeObject,
  changed: Record<string, unknown> | undefined,
): readonly string[] {
  const stored = created(type, object, {});
  if (changed === undefined) return stored.errors;
  if (stored.errors.length > 0) throw new Error(`the create was refused: ${stored.errors.join('; ')}`);
  return updated(type, stored.object, (next) => changeMembers(next, changed), {}).errors;
}

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, { group, resource, object, changed, code, causes }) => {
  expect(causesOf(typeOf(group, resource), object, changed)).toEqual(code < 300 ? [] : causes);
});
