/**
 * The subresources a resource type serves, as discovery and OpenAPI describe them: which kind
 * each answers with, its schema definition and which verbs it accepts. Status and finalize
 * answer with the parent's kind; scale answers with autoscaling/v1 Scale for every built-in
 * kind, as the reference does; the type's own subresources (its handler slots) say theirs.
 */
import { typeAtVersion, type ResourceType, type Verb } from '../registry/types';

import type { GroupVersion, GroupVersionKind } from '../../api/identity';
export interface ServedSubresource {
  readonly name: string;
  readonly responseKind: GroupVersionKind;
  /** OpenAPI definition name of `responseKind`. */
  readonly definition: string;
  /** Sorted, as discovery lists verbs. */
  readonly verbs: readonly Verb[];
  /**
   * A handler-slot subresource's own declarations (server/handlers/slots.ts), which the OpenAPI
   * documents follow: a connection streamed from a backend, what its answers are, whether the URL
   * past it is a path it proxies.
   */
  readonly endpoint?: {
    readonly connection?: true;
    readonly produces?: 'anything' | readonly string[];
    readonly takesPath?: true;
    readonly optionsDefinition?: string;
  };
}

export const SCALE_KIND: GroupVersionKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';

/** The subresources of `type` served in `groupVersion`, in the reference's discovery order. */
export function servedSubresources(servedType: ResourceType, groupVersion: GroupVersion): ServedSubresource[] {
  const parentKind: GroupVersionKind = {
    group: groupVersion.group,
    version: groupVersion.version,
    kind: servedType.kind,
  };
  const served = servedType.versions.find(({ version }) => version === groupVersion.version);
  const type = typeAtVersion(servedType, served);
  const parentDefinition = served?.definition ?? '';
  const readWrite: readonly Verb[] = ['get', 'patch', 'update'];
  const subresources: ServedSubresource[] = [];
  if (type.subresources.finalize)
    subresources.push({ name: 'finalize', responseKind: parentKind, definition: parentDefinition, verbs: ['update'] });
  if (type.subresources.status)
    subresources.push({ name: 'status', responseKind: parentKind, definition: parentDefinition, verbs: readWrite });
  if (type.subresources.scale)
    subresources.push({ name: 'scale', responseKind: SCALE_KIND, definition: SCALE_DEFINITION, verbs: readWrite });
  for (const [name, endpoint] of Object.entries(type.handlers?.subresources ?? {})) {
    const verbs = (Object.keys(endpoint.handlers) as Verb[]).sort();
    subresources.push({ name, responseKind: endpoint.kind, definition: endpoint.definition, verbs, endpoint });
  }
  // The reference's custom resource discovery lists status, then scale; its installer sorts a
  // built-in kind's by name.
  if (type.custom) return subresources;
  return subresources.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The verbs discovery lists for a kind, in the reference's order. */
export function discoveryVerbs(type: ResourceType): Verb[] {
  return type.discoveryVerbs ? [...type.discoveryVerbs] : [...type.verbs].sort();
}
