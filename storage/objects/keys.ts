/**
 * Where objects live in the key space: `<prefix>/<namespace>/<name>` for namespaced resources,
 * `<prefix>/<name>` for cluster-scoped ones. Shared by the object store and the watch cache so
 * both agree on keys and on the ranges lists read.
 */
import { ObjectError } from '../errors';
import type { ObjectKey, Scope } from './types';

/** Segment values the reference server refuses in paths (a `.`/`..` segment would escape the prefix). */
const FORBIDDEN_SEGMENTS = ['.', '..'];
const FORBIDDEN_SEGMENT_CONTENT = ['/', '%'];

/** The reasons a name or namespace cannot be a key segment, in the reference's wording. */
export function pathSegmentProblems(segment: string): string[] {
  if (FORBIDDEN_SEGMENTS.includes(segment)) return [`may not be '${segment}'`];
  return FORBIDDEN_SEGMENT_CONTENT.filter((content) => segment.includes(content)).map(
    (content) => `may not contain '${content}'`,
  );
}

function checkSegment(segment: string, parameter: 'Name' | 'Namespace'): void {
  if (segment.length === 0) throw new ObjectError('BadRequest', `${parameter} parameter required.`);
  const problems = pathSegmentProblems(segment);
  if (problems.length > 0) {
    throw new ObjectError(
      'BadRequest',
      `${parameter} parameter invalid: ${JSON.stringify(segment)}: ${problems.join(';')}`,
      { name: parameter === 'Name' ? segment : undefined },
    );
  }
}

/** Where one resource's objects live: its key prefix (no trailing "/") and its scope. */
export interface ResourceKeySpace {
  readonly keyPrefix: string;
  readonly namespaced: boolean;
}

/**
 * The store key of one object; throws BadRequest for names or namespaces that cannot be keys,
 * and for a namespaced object without a namespace. A cluster-scoped resource ignores a
 * namespace, as the reference's key function does.
 */
export function objectKey(space: ResourceKeySpace, key: ObjectKey): string {
  checkSegment(key.name, 'Name');
  if (!space.namespaced) return `${space.keyPrefix}/${key.name}`;
  if (key.namespace === undefined) throw new ObjectError('BadRequest', 'Namespace parameter required.');
  checkSegment(key.namespace, 'Namespace');
  return `${space.keyPrefix}/${key.namespace}/${key.name}`;
}

/**
 * The range a list or watch of `scope` covers, with a trailing "/" so "/a" never matches "/ab";
 * every namespace for a cluster-scoped resource.
 */
export function scopePrefix(space: ResourceKeySpace, scope: Scope): string {
  if (!space.namespaced || scope.namespace === undefined) return `${space.keyPrefix}/`;
  checkSegment(scope.namespace, 'Namespace');
  return `${space.keyPrefix}/${scope.namespace}/`;
}

/** "deployments.apps", or "pods" for the core group: how the reference names a resource in messages. */
export function qualifiedResourceName(resource: { group: string; resource: string }): string {
  return resource.group === '' ? resource.resource : `${resource.resource}.${resource.group}`;
}
