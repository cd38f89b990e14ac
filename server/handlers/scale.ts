/**
 * The scale subresource: an autoscaling/v1 Scale read from, and written through, the parent's
 * replica count (kubectl scale PATCHes it).
 */
import type { KubeObject } from '../../storage/objects/types';
import type { ScaleSubresource } from '../registry/types';
import { readBody } from '../http/body';
import { mediaTypeOf, objectBodyFormat, OBJECT_MEDIA_TYPES } from '../request/content-type';
import { parseWriteOptions, queryOf } from '../request/query';
import { badRequest, unsupportedMediaType } from '../status/catalogue';
import { StatusError } from '../status/status-error';
import { parseBody } from '../validation/decode';
import { guardedWrite } from './guarded-write';
import { PATCH_TYPES } from './patch-types';
import { objectKeyOf, writeResponse, type HandlerScope, type ResourceHandler } from './scope';
import { checkName, fieldManagerOf } from './write-steps';

function readPath(object: unknown, path: string): unknown {
  let current = object;
  for (const segment of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function writePath(object: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split('.');
  let current = object;
  for (const segment of segments.slice(0, -1)) {
    if (typeof current[segment] !== 'object' || current[segment] === null) current[segment] = {};
    current = current[segment] as Record<string, unknown>;
  }
  current[segments[segments.length - 1]] = value;
}

interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** A LabelSelector in its string form, requirements sorted by key as the reference prints them. */
export function formatLabelSelector(selector: LabelSelectorObject): string {
  const requirements: Array<{ key: string; text: string }> = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) requirements.push({ key, text: `${key}=${value}` });
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const set = `(${[...values].sort().join(',')})`;
    const text = operator === 'In' ? `${key} in ${set}` : operator === 'NotIn' ? `${key} notin ${set}` : operator === 'Exists' ? key : `!${key}`;
    requirements.push({ key, text });
  }
  return requirements
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(',');
}

function scaleOf(parent: KubeObject, paths: ScaleSubresource): KubeObject {
  // Built-in workloads keep their selector in spec.selector (an object); the path names where
  // custom resources keep theirs, so an absent value there falls back to spec.selector.
  const declared = paths.labelSelectorPath ? readPath(parent, paths.labelSelectorPath) : undefined;
  const selector = declared ?? readPath(parent, 'spec.selector');
  const { name, namespace, uid, resourceVersion, creationTimestamp } = parent.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, ...(namespace ? { namespace } : {}), uid, resourceVersion, creationTimestamp },
    spec: { replicas: (readPath(parent, paths.specReplicasPath) as number | undefined) ?? 0 },
    status: {
      replicas: (readPath(parent, paths.statusReplicasPath) as number | undefined) ?? 0,
      ...(typeof selector === 'string' && selector !== '' ? { selector } : {}),
      ...(typeof selector === 'object' && selector !== null ? { selector: formatLabelSelector(selector as LabelSelectorObject) } : {}),
    },
  };
}

function replicasOf(scale: unknown, name: string): number {
  const replicas = readPath(scale, 'spec.replicas') ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    throw badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
  }
  if (replicas < 0) {
    throw new StatusError({
      code: 422,
      reason: 'Invalid',
      message: `Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${replicas}: must be greater than or equal to 0`,
      details: {
        name,
        group: 'autoscaling',
        kind: 'Scale',
        causes: [{ type: 'FieldValueInvalid', message: `Invalid value: ${replicas}: must be greater than or equal to 0`, field: 'spec.replicas' }],
      },
    });
  }
  return replicas;
}

export function scaleGetHandler(scope: HandlerScope, paths: ScaleSubresource): ResourceHandler {
  return async ({ info, res }) => {
    await writeResponse(scope, res, 200, scaleOf(await scope.storage.get(objectKeyOf(scope, info)), paths));
  };
}

/** PUT (a whole Scale) and PATCH (a patch of the current Scale) of the parent's replicas. */
export function scaleWriteHandler(scope: HandlerScope, paths: ScaleSubresource, method: 'update' | 'patch'): ResourceHandler {
  return async ({ info, req, res }) => {
    const options = parseWriteOptions(queryOf(req), method === 'update' ? 'UpdateOptions' : 'PatchOptions');
    const mediaType = mediaTypeOf(req);
    const patchType = method === 'patch' ? PATCH_TYPES.get(mediaType) : undefined;
    const format = method === 'update' ? objectBodyFormat(mediaType) : undefined;
    if (method === 'patch' && patchType === undefined) throw unsupportedMediaType([...PATCH_TYPES.keys()]);
    if (method === 'update' && format === undefined) throw unsupportedMediaType(OBJECT_MEDIA_TYPES);
    const body = await readBody(req);
    const sent = format ? (parseBody({ body, format, expectedKind: 'Scale', findDuplicates: false }).value as KubeObject) : undefined;
    if (sent) checkName({ ...sent, metadata: { ...(sent.metadata ?? {}) } }, info.name);
    const patch = patchType?.parse(body);
    const resourceVersion = sent?.metadata?.resourceVersion || undefined;
    const result = await guardedWrite({
      scope,
      user: req.user,
      key: objectKeyOf(scope, info),
      compute: (current) => {
        const parent = current!;
        const scale = sent ?? patchType!.apply(scaleOf(parent, paths), patch);
        writePath(parent, paths.specReplicasPath, replicasOf(scale, info.name));
        return parent;
      },
      target: 'main',
      manager: fieldManagerOf(req, options),
      subresource: 'scale',
      preconditions: resourceVersion === undefined ? undefined : { resourceVersion },
      dryRun: options.dryRun,
    });
    await writeResponse(scope, res, 200, scaleOf(result.object, paths));
  };
}
