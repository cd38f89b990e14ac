/**
 * A new Pod's container AppArmor annotations, copied to the containers' `appArmorProfile` fields
 * as the reference's PrepareForCreate does (its applyAppArmorVersionSkew), so that a pod written
 * with the pre-1.30 annotations is enforced through the fields. It warns of each annotation it
 * copies, and of one that stands for no valid profile; an annotation the pod-level profile
 * already covers is left alone, silently. Windows pods have no AppArmor and are skipped.
 */
import type { KubeObject } from '../../../api/objects';
import {
  APPARMOR_CONTAINER_ANNOTATION_PREFIX,
  appArmorAnnotationWarning,
  appArmorProfileOf,
  sameProfile,
  type AppArmorProfile,
} from '../../validation/apparmor-annotations';
import { containersOf, type ContainerLists } from '../../validation/pod-containers';
import { FieldPath } from '../../status/field-errors';
import type { WriteContext } from '../types';

/** The longest localhost profile name the reference's field validation accepts (PATH_MAX - 1). */
const MAX_LOCALHOST_PROFILE_LENGTH = 4095;

/** The annotation's profile if it would pass the field's validation, else undefined. */
function validProfileOf(annotation: string): AppArmorProfile | undefined {
  const profile = appArmorProfileOf(annotation);
  const name = profile?.localhostProfile;
  if (name !== undefined && (name.trim() !== name || name.length > MAX_LOCALHOST_PROFILE_LENGTH)) return undefined;
  return profile;
}

interface Container {
  name?: string;
  securityContext?: { appArmorProfile?: unknown };
}

export function copyAppArmorAnnotations(pod: KubeObject, context: WriteContext): void {
  const spec = (pod.spec ?? {}) as ContainerLists<Container> & {
    os?: { name?: string };
    securityContext?: { appArmorProfile?: unknown };
  };
  if (spec.os?.name === 'windows') return;
  const annotations = pod.metadata.annotations ?? {};
  const podProfile = spec.securityContext?.appArmorProfile;
  for (const [container] of containersOf(spec, FieldPath.root('spec'))) {
    const key = APPARMOR_CONTAINER_ANNOTATION_PREFIX + (container.name ?? '');
    const fieldSet =
      container.securityContext?.appArmorProfile !== undefined && container.securityContext.appArmorProfile !== null;
    if (!Object.hasOwn(annotations, key) || fieldSet) continue;
    const profile = validProfileOf(annotations[key]);
    const copied = profile !== undefined && !sameProfile(podProfile, profile);
    if (copied) container.securityContext = { ...container.securityContext, appArmorProfile: { ...profile } };
    if (profile === undefined || copied)
      context.warnings?.add(appArmorAnnotationWarning(key, FieldPath.root('metadata', 'annotations')));
  }
}
