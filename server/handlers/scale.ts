/**
 * The scale subresource: an autoscaling/v1 Scale read from, and written through, the parent's
 * replica count (kubectl scale PATCHes it; autoscalers may server-side apply it). Field
 * ownership of such writes is tracked on the Scale and mapped back onto the parent's
 * managedFields, as the reference's scale handler does.
 */
import type { KubeObject } from '../../storage/objects/types';
import { groupVersionString, type ScaleSubresource } from '../registry/types';
import { parseApplyBody } from '../apply/apply-body';
import { serverSideApply } from '../apply/apply';
import { rootSchemaNode } from '../apply/schema-node';
import { DEFAULT_REPRESENTATION_SETTINGS } from '../codec/respond';
import { managedFieldsAfterUpdate, type ManagedFieldsEntry } from '../fieldmanager/managed-fields';
import { SCALE_API_VERSION, toParentManagedFields, toScaleManagedFields, type ReplicasMapping } from '../fieldmanager/scale-fields';
import { readBody } from '../http/body';
import { mediaTypeOf, objectBodyFormat, OBJECT_MEDIA_TYPES } from '../request/content-type';
import { parseWriteOptions, queryOf } from '../request/query';
import { badRequest, unsupportedMediaType } from '../status/catalogue';
import { StatusError } from '../status/status-error';
import { parseBody, resolveDefinition } from '../validation/decode';
import { guardedWrite } from './guarded-write';
import { acceptedPatchTypes, applyBodyFormatOf, PATCH_TYPES, type PatchType } from './patch-types';
import { apiVersionOf, objectKeyOf, writeResponse, type HandlerScope, type ResourceHandler } from './scope';
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
        causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${replicas}: must be greater than or equal to 0`, field: 'spec.replicas' }],
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

/** The parent's replicas field in every version it is served in, for the managedFields mapping. */
function replicasMapping(scope: HandlerScope, paths: ScaleSubresource): ReplicasMapping {
  const path = paths.specReplicasPath.split('.').map((segment) => `f:${segment}`);
  return { replicasPaths: new Map(scope.type.versions.map((served) => [groupVersionString({ group: scope.type.group, version: served.version }), path])) };
}

/** How the new Scale is made from the current one: a whole Scale (PUT), a patch, or a server-side apply. */
type ScaleChange =
  | { readonly kind: 'replace'; readonly scale: KubeObject }
  | { readonly kind: 'patch'; readonly patchType: PatchType; readonly patch: unknown }
  | { readonly kind: 'apply'; readonly config: Record<string, unknown>; readonly force: boolean };

const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';

function withoutManagedFields(object: KubeObject): KubeObject {
  return { ...object, metadata: { ...object.metadata, managedFields: undefined } };
}

/**
 * The new Scale and its managedFields: ownership is tracked on the Scale (see scale-fields.ts),
 * an apply through the apply engine, any other write as an Update of the Scale.
 */
function changedScale(scope: HandlerScope, options: { current: KubeObject; change: ScaleChange; manager: string }): KubeObject {
  const { current, change, manager } = options;
  const definitions = scope.context.definitions;
  const now = scope.context.now();
  if (change.kind === 'apply') {
    return serverSideApply({
      live: current,
      config: change.config,
      manager,
      apiVersion: SCALE_API_VERSION,
      kind: 'Scale',
      subresource: 'scale',
      force: change.force,
      now,
      schema: rootSchemaNode(definitions, SCALE_DEFINITION),
    }).object;
  }
  const next = change.kind === 'replace' ? structuredClone(change.scale) : (change.patchType.apply(current, change.patch) as KubeObject);
  const entries = managedFieldsAfterUpdate({
    previous: withoutManagedFields(current),
    // A subresource's request cannot set managedFields: the current ones count.
    managedFields: (current.metadata.managedFields ?? []) as ManagedFieldsEntry[],
    next: withoutManagedFields(next),
    manager,
    apiVersion: SCALE_API_VERSION,
    subresource: 'scale',
    now,
    schema: definitions === undefined ? {} : { definitions, schema: resolveDefinition(definitions, SCALE_DEFINITION) },
  });
  return { ...next, metadata: { ...(next.metadata ?? {}), managedFields: entries } };
}

/** PUT (a whole Scale) and PATCH (a patch of the current Scale, or an apply) of the parent's replicas. */
export function scaleWriteHandler(scope: HandlerScope, paths: ScaleSubresource, method: 'update' | 'patch'): ResourceHandler {
  const mapping = replicasMapping(scope, paths);
  return async ({ info, req, res }) => {
    const mediaType = mediaTypeOf(req);
    const gates = scope.context.representations ?? DEFAULT_REPRESENTATION_SETTINGS;
    const patchType = method === 'patch' ? PATCH_TYPES.get(mediaType) : undefined;
    const applyFormat = method === 'patch' ? applyBodyFormatOf(mediaType, gates) : undefined;
    const format = method === 'update' ? objectBodyFormat(mediaType) : undefined;
    if (method === 'patch' && patchType === undefined && applyFormat === undefined) {
      req.resume();
      throw unsupportedMediaType(acceptedPatchTypes(gates));
    }
    if (method === 'update' && format === undefined) {
      req.resume();
      throw unsupportedMediaType(OBJECT_MEDIA_TYPES);
    }
    const optionsKind = method === 'update' ? 'UpdateOptions' : applyFormat !== undefined ? 'ApplyPatchOptions' : 'PatchOptions';
    const options = parseWriteOptions(queryOf(req), optionsKind);
    const body = await readBody(req);
    let change: ScaleChange;
    if (format !== undefined) {
      const scale = parseBody({ body, format, expectedKind: 'Scale', findDuplicates: false }).value as KubeObject;
      checkName({ ...scale, metadata: { ...(scale.metadata ?? {}) } }, info.name);
      change = { kind: 'replace', scale };
    } else if (applyFormat !== undefined) {
      change = { kind: 'apply', config: parseApplyBody({ body, format: applyFormat, fieldValidation: options.fieldValidation }).config, force: options.force ?? false };
    } else {
      change = { kind: 'patch', patchType: patchType!, patch: patchType!.parse(body) };
    }
    const resourceVersion = change.kind === 'replace' ? change.scale.metadata?.resourceVersion || undefined : undefined;
    const manager = fieldManagerOf(req, options);
    const result = await guardedWrite({
      scope,
      user: req.user,
      key: objectKeyOf(scope, info),
      compute: (current) => {
        const parent = current!;
        const parentEntries = parent.metadata.managedFields as ManagedFieldsEntry[] | undefined;
        const before = scaleOf(parent, paths);
        before.metadata.managedFields = toScaleManagedFields(parentEntries, mapping);
        const scale = changedScale(scope, { current: before, change, manager });
        writePath(parent, paths.specReplicasPath, replicasOf(scale, info.name));
        const entries = toParentManagedFields({ parentEntries, scaleEntries: scale.metadata.managedFields as ManagedFieldsEntry[], mapping, apiVersion: apiVersionOf(scope) });
        if (entries.length > 0) parent.metadata.managedFields = entries;
        else delete parent.metadata.managedFields;
        return parent;
      },
      target: 'main',
      manager,
      subresource: 'scale',
      preconditions: resourceVersion === undefined ? undefined : { resourceVersion },
      managedFieldsComputed: true,
      dryRun: options.dryRun,
    });
    await writeResponse(scope, res, 200, scaleOf(result.object, paths));
  };
}
