/**
 * A StatefulSet's claim templates name their own kind: the reference's apps/v1 conversion drops
 * whatever `apiVersion` and `kind` a claim template was sent with on the way in (so they never
 * count as a change of the templates, which are fixed) and writes `v1` and
 * `PersistentVolumeClaim` on every way out (protobuf, which carries no kind for an embedded
 * claim, stores neither). capstan keeps apps/v1 objects as they are served, so both ways become
 * one: each template is given the served kind, whatever it held.
 */
import type { KubeObject } from '../../../api/objects';

type Json = Record<string, unknown>;

export function typeClaimTemplates(statefulSet: KubeObject): void {
  const spec = statefulSet.spec as { volumeClaimTemplates?: unknown } | undefined;
  const templates = spec?.volumeClaimTemplates;
  if (!Array.isArray(templates)) return;
  spec!.volumeClaimTemplates = templates.map((template: unknown) => {
    if (template === null || typeof template !== 'object') return template;
    const { apiVersion: _apiVersion, kind: _kind, ...rest } = template as Json;
    return { kind: 'PersistentVolumeClaim', apiVersion: 'v1', ...rest };
  });
}
