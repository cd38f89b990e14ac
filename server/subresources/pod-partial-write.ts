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

/**
 * The stored generation, one more when the spec changed, as Go compares it (`100m` and `0.1`
 * alike). Never the body's: the reference's every update starts from the stored generation, a
 * write its preparation keeps whole (a resize that adds a container) included.
 */
export function countPodGeneration(object: KubeObject, old: KubeObject): void {
  const stored = old.metadata.generation;
  if (!semanticEqual('core.PodSpec', object.spec, old.spec)) object.metadata.generation = (stored ?? 0) + 1;
  else if (stored === undefined) delete object.metadata.generation;
  else object.metadata.generation = stored;
}
