/**
 * The metadata the server sets on writes: generated names, uid, creation time, deletion marks.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { metaTime, type KubeObject } from '../../../api/objects';
import type { WarningRecorder } from '../../request/warning-recorder';
import type { ResourceType } from '../types';

/** The reference's alphabet for generated suffixes: no vowels, no confusable characters. */
const GENERATED_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const GENERATED_SUFFIX_LENGTH = 5;
const MAX_NAME_LENGTH = 63;

/** `base` and a random suffix of the reference's alphabet (its SimpleNameGenerator). */
export function generateName(base: string): string {
  const prefix =
    base.length > MAX_NAME_LENGTH - GENERATED_SUFFIX_LENGTH
      ? base.slice(0, MAX_NAME_LENGTH - GENERATED_SUFFIX_LENGTH)
      : base;
  let suffix = '';
  for (let i = 0; i < GENERATED_SUFFIX_LENGTH; i++)
    suffix += GENERATED_NAME_ALPHABET[randomInt(GENERATED_NAME_ALPHABET.length)];
  return prefix + suffix;
}

/** Create: the system fields the client may not choose (the reference's FillObjectMetaSystemFields and BeforeCreate). */
export function fillCreateMetadata(object: KubeObject, now: Date): void {
  const meta = object.metadata;
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  meta.uid = randomUUID();
  meta.creationTimestamp = metaTime(now);
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
}

/**
 * What a create's handler clears of what the client sent, before admission or the field manager
 * reads it (the reference's WipeObjectMetaSystemFields): a deletionTimestamp sent is in no
 * managedFields, and a kind stored nowhere, which fillCreateMetadata never sees, answers without it.
 */
export function wipeSystemMetadata(object: KubeObject): void {
  const meta = object.metadata;
  delete meta.creationTimestamp;
  delete meta.uid;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
}

/**
 * Update: what the stored object keeps whatever the client sent (the reference's BeforeUpdate).
 * An absent uid is the stored one; a different one stays, for validation to refuse it (the uid
 * is immutable): taking the stored one would let a write meant for another object land. So do
 * deletion marks the stored object lacks, and a grace period other than the stored one: only a
 * delete sets them.
 */
export function keepSystemMetadata(object: KubeObject, old: KubeObject): void {
  const meta = object.metadata;
  if (!meta.uid) meta.uid = old.metadata.uid;
  meta.creationTimestamp = old.metadata.creationTimestamp;
  if (old.metadata.deletionTimestamp !== undefined) meta.deletionTimestamp = old.metadata.deletionTimestamp;
  if (old.metadata.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined)
    meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
  if (!meta.generateName && old.metadata.generateName) meta.generateName = old.metadata.generateName;
  delete meta.selfLink;
}

/** The first delete of an object something still holds (the reference's markAsDeleting). */
export function markAsDeleting(object: KubeObject, now: Date): void {
  const meta = object.metadata;
  if (meta.deletionTimestamp === undefined && typeof meta.generation === 'number' && meta.generation > 0)
    meta.generation += 1;
  meta.deletionTimestamp = metaTime(now);
  meta.deletionGracePeriodSeconds = 0;
}

/**
 * What still holds an object being deleted: its metadata.finalizers, plus spec.finalizers for
 * kinds with a `finalize` subresource (namespaces).
 */
export function pendingFinalizers(type: ResourceType, object: KubeObject): string[] {
  const own = object.metadata.finalizers ?? [];
  if (!type.subresources.finalize) return [...own];
  const spec = object.spec as { finalizers?: string[] } | undefined;
  return [...own, ...(spec?.finalizers ?? [])];
}

/**
 * Drops each owner reference equal to an earlier one, as the reference's handlers do, and warns
 * with the UIDs dropped; a reference of a UID already seen with other content stays (validation
 * judges it). The handlers of a create and a PUT do this before the field manager sees the
 * object, and every write again after mutating admission, which the warning then names.
 */
export function dedupOwnerReferences(
  object: KubeObject,
  warnings: WarningRecorder | undefined,
  afterMutatingAdmission: boolean,
): void {
  const references = object.metadata.ownerReferences;
  if (!Array.isArray(references) || references.length < 2) return;
  const kept: unknown[] = [];
  const duplicates: string[] = [];
  for (const reference of references) {
    if (kept.some((earlier) => isDeepStrictEqual(earlier, reference)))
      duplicates.push(String((reference as { uid?: unknown }).uid ?? ''));
    else kept.push(reference);
  }
  if (duplicates.length === 0) return;
  const where = afterMutatingAdmission ? 'duplicate entries after mutating admission happens' : 'duplicate entries';
  warnings?.add(
    `.metadata.ownerReferences contains ${where}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${duplicates.join(', ')}`,
  );
  object.metadata.ownerReferences = kept as typeof references;
}
