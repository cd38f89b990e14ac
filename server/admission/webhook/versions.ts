/**
 * The version in which a webhook sees a request, as the reference's matchPolicy: the request's
 * own group-version first; under `Equivalent` (the default), when the webhook's rules name
 * another version the registry serves the same resource in, that version (the type's versions
 * in preference order), with the objects converted to it. The webhook's patch is applied to
 * that view and converted back to the version the chain holds.
 */
import type { KubeObject } from '../../../api/objects';
import { type ResourceType } from '../../registry/types';
import type { AdmissionAttributes } from '../types';

import {
  groupVersionString,
  type GroupVersion,
  type GroupVersionKind,
  type GroupVersionResource,
} from '../../../api/identity';
/** The served type of a group-version-resource; undefined when it is not served. */
export type ServedTypeLookup = (resource: GroupVersionResource) => ResourceType | undefined;

/** The request as one version shows it: `kind`/`resource` in that version, objects converted. */
export interface VersionedView {
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
}

/** `object` as `to` serves it (converted when the type converts between versions). */
export async function convertObject(
  type: ResourceType | undefined,
  object: KubeObject,
  to: GroupVersion,
): Promise<KubeObject> {
  const converted = type?.convert ? await type.convert(object, to) : object;
  return { ...converted, apiVersion: groupVersionString(to), kind: String(object.kind ?? type?.kind) };
}

/**
 * The group-versions of the request a webhook may be matched against, in the order the
 * reference tries them: the request's, then (Equivalent) the type's other served versions.
 */
export function candidateVersions(
  attributes: AdmissionAttributes,
  matchPolicy: string | undefined,
  servedType: ServedTypeLookup,
): GroupVersion[] {
  const requested = { group: attributes.requestResource.group, version: attributes.requestResource.version };
  if (matchPolicy === 'Exact') return [requested];
  const type = servedType(attributes.requestResource);
  const others = (type?.versions ?? [])
    .map(({ version }) => ({ group: type!.group, version }))
    .filter(({ version }) => version !== requested.version);
  return [requested, ...others];
}

/** The request's kind, resource and objects in `version` (objects converted from the chain's version). */
export async function viewIn(
  attributes: AdmissionAttributes,
  version: GroupVersion,
  servedType: ServedTypeLookup,
): Promise<VersionedView> {
  const resource = { ...version, resource: attributes.resource.resource };
  const kind = { ...version, kind: attributes.kind.kind };
  const held = attributes.kind.group === version.group && attributes.kind.version === version.version;
  if (held) return { kind, resource, object: attributes.object, oldObject: attributes.oldObject };
  const type = servedType(resource);
  return {
    kind,
    resource,
    object: attributes.object && (await convertObject(type, attributes.object, version)),
    oldObject: attributes.oldObject && (await convertObject(type, attributes.oldObject, version)),
  };
}
