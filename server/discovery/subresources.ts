/**
 * The subresources a resource type serves, as discovery and OpenAPI describe them: which kind
 * each answers with and which verbs it accepts. Status and finalize answer with the parent's
 * kind; scale answers with autoscaling/v1 Scale for every built-in kind, as the reference does.
 */
import type { GroupVersion, GroupVersionKind, ResourceType, Verb } from '../registry/types';

export type SubresourceName = 'finalize' | 'scale' | 'status';

export interface ServedSubresource {
  readonly name: SubresourceName;
  readonly responseKind: GroupVersionKind;
  /** Sorted, as discovery lists verbs. */
  readonly verbs: readonly Verb[];
}

export const SCALE_KIND: GroupVersionKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/** The subresources of `type` served in `groupVersion`, sorted by name. */
export function servedSubresources(type: ResourceType, groupVersion: GroupVersion): ServedSubresource[] {
  const parentKind: GroupVersionKind = { group: groupVersion.group, version: groupVersion.version, kind: type.kind };
  const readWrite: readonly Verb[] = ['get', 'patch', 'update'];
  const subresources: ServedSubresource[] = [];
  if (type.subresources.finalize) subresources.push({ name: 'finalize', responseKind: parentKind, verbs: ['update'] });
  if (type.subresources.scale) subresources.push({ name: 'scale', responseKind: SCALE_KIND, verbs: readWrite });
  if (type.subresources.status) subresources.push({ name: 'status', responseKind: parentKind, verbs: readWrite });
  return subresources;
}
