/**
 * What the reference's pod subresources that write part of the spec (pods/resize,
 * pods/ephemeralcontainers) do around their own part: the status and the metadata a status write
 * may not change stay as stored, and generation rises when the spec changed.
 */
import type { KubeObject } from '../../api/objects';
import { copyJson } from '../json/value';
import { RESET_OBJECT_META_FOR_STATUS } from '../registry/strategy';
import { semanticEqual } from '../validation/semantic-equality';

/** The stored status, and the metadata the reference's ResetObjectMetaForStatus puts back. */
export function keepStoredStatusAndMetadata(object: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete object.status;
  else object.status = copyJson(old.status);
  for (const key of RESET_OBJECT_META_FOR_STATUS) {
    if (old.metadata[key] === undefined) delete object.metadata[key];
    else object.metadata[key] = copyJson(old.metadata[key]);
  }
}

/** One more generation when the spec changed, as Go compares it (`100m` and `0.1` alike). */
export function countPodGeneration(object: KubeObject, old: KubeObject): void {
  if (!semanticEqual('core.PodSpec', object.spec, old.spec))
    object.metadata.generation = (object.metadata.generation ?? 0) + 1;
}
