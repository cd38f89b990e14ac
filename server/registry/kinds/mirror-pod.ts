/**
 * A mirror pod: the API's copy of a static pod, which a kubelet runs from a file of its own.
 * Validation, the node authorizer and admission each treat it apart, by the annotation the
 * kubelet sets on it.
 */
import type { KubeObject } from '../../../api/objects';

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

export function isMirrorPod(pod: KubeObject): boolean {
  return pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
}
