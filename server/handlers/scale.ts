/**
 * The scale subresource over HTTP: GET answers the Scale the parent shows; PUT (a whole Scale)
 * and PATCH (a patch of the current Scale, or an apply) are read here and written by the
 * store (server/registry/store/scale.ts).
 */
import { writeOriginOf } from './write-origin';
import { finishRequest } from './post-timeout';
import type { Request, Response } from 'express';
import type { KubeObject } from '../../api/objects';
import type { ScaleSubresource } from '../registry/types';
import { parseApplyBody, repeatedKeyWarnings } from '../apply/apply-body';
import { readBody } from '../request/body';
import { parseWriteOptions, queryOf, type WriteOptions } from '../request/query';
import { badRequest } from '../status/catalogue';
import { StatusError } from '../status/status-error';
import type { Format } from '../codec/media-type';
import { NO_REPEATED_KEYS } from '../validation/decode';
import { operationOptions } from '../registry/store/admission';
import { SCALE_DEFINITION, scaleOf, updateScale, type ScaleChange } from '../registry/store/scale';
import { objectKeyOf } from '../registry/store/scope';
import { patchDocumentOf, requestedPatchType } from './patch-types';
import { addWarnings, endpointOf, type HandlerScope, type ResourceHandler } from './scope';
import { writeObject } from '../responsewriters/respond';
import { SCALE_PRINTER } from '../table/scale-printer';
import {
  checkName,
  checkNamespace,
  decodeBodyOfKind,
  decodeParsedOfKind,
  fieldManagerOf,
  objectBodyFormat,
  subresourceBodyKind,
  type BodyKind,
} from './object-body';

/** The Scale a scale endpoint reads, whatever its parent: an autoscaling/v1 Scale, the scheme's older ones refused. */
function scaleBodyKind(scope: HandlerScope): BodyKind {
  return subresourceBodyKind(scope, {
    definition: SCALE_DEFINITION,
    group: 'autoscaling',
    version: 'v1',
    kind: 'Scale',
    refused: ['extensions/v1beta1', 'apps/v1beta1', 'apps/v1beta2'],
  });
}

/**
 * A PUT's Scale (protobuf too: Scale is a built-in kind). Under a custom resource the reference
 * decodes it with a scheme that lacks the Scale type, and every failure to decode it reads so.
 */
async function decodeScaleBody(
  scope: HandlerScope,
  req: Request,
  input: { format: Format; options: WriteOptions },
): Promise<KubeObject> {
  try {
    return (await decodeBodyOfKind(req, input.format, scaleBodyKind(scope), input.options)).object;
  } catch (error) {
    if (scope.type.definitions === undefined || !(error instanceof StatusError) || error.status.code !== 400)
      throw error;
    throw badRequest('no kind is registered for the type v1.Scale in scheme "pkg/runtime/scheme.go:110"');
  }
}

/**
 * A Scale in the negotiated representation. As a Table, a built-in kind's prints with the Scale
 * printer; a custom resource's keeps its endpoint's table.
 */
async function writeScale(scope: HandlerScope, res: Response, scale: KubeObject): Promise<void> {
  const endpoint = endpointOf(scope);
  await writeObject({
    req: res.req,
    res,
    settings: scope.context.representations,
    endpoint: scope.type.custom ? endpoint : { ...endpoint, printer: SCALE_PRINTER },
    code: 200,
    object: scale,
  });
}

export function scaleGetHandler(scope: HandlerScope, paths: ScaleSubresource): ResourceHandler {
  return async ({ info, req, res }) => {
    // The parent is read as a GET of it reads it: at the resourceVersion asked for.
    const resourceVersion = queryOf(req).get('resourceVersion') ?? undefined;
    const parent = await scope.storage.get(objectKeyOf(scope, info), { resourceVersion });
    await writeScale(scope, res, scaleOf(parent, paths));
  };
}

/** PUT (a whole Scale) and PATCH (a patch of the current Scale, or an apply) of the parent's replicas. */
export function scaleWriteHandler(
  scope: HandlerScope,
  paths: ScaleSubresource,
  method: 'update' | 'patch',
): ResourceHandler {
  return async ({ info, req, res }) => {
    // Custom kinds' endpoints, their Scale's too, take no strategic merge (a 415 before all else).
    const { patchType, applyFormat } = method === 'patch' ? requestedPatchType(scope, req) : {};
    const format = method === 'update' ? objectBodyFormat(scope, req, true) : undefined;
    const optionsKind =
      method === 'update' ? 'UpdateOptions' : applyFormat !== undefined ? 'ApplyPatchOptions' : 'PatchOptions';
    const options = parseWriteOptions(queryOf(req), optionsKind);
    const expected = scaleBodyKind(scope);
    let change: ScaleChange;
    let uid: string | undefined;
    if (format !== undefined) {
      const scale = await decodeScaleBody(scope, req, { format, options });
      checkNamespace(scope, scale, info.namespace);
      checkName(scale, info.name);
      // A body's uid is the update's precondition, as for a PUT of the parent.
      uid = scale.metadata.uid || undefined;
      change = { kind: 'replace', scale };
    } else if (applyFormat !== undefined) {
      const body = parseApplyBody(await readBody(req), applyFormat);
      change = {
        kind: 'apply',
        config: body.config,
        force: options.force ?? false,
        afterApply: () => addWarnings(req, repeatedKeyWarnings(body, options.fieldValidation)),
      };
    } else {
      const patchDocument = patchDocumentOf(patchType!, await readBody(req), options);
      change = {
        kind: 'patch',
        shown: (patched) => patchType!.shown(patchDocument().document, patched),
        apply: (current) => {
          const { document, strictProblems } = patchDocument();
          const patched = patchType!.apply(current, document);
          const shownPatch = () => patchType!.shown(document, patched);
          const { object } = decodeParsedOfKind(expected, {
            value: patched,
            duplicates: patchType!.resultRepeatedKeys?.(document, patched) ?? NO_REPEATED_KEYS,
            patchProblems: strictProblems,
            options,
            shownPatch,
            fromMap: patchType!.resultFromMap,
          });
          checkNamespace(scope, object, info.namespace);
          checkName(object, info.name);
          return object;
        },
      };
    }
    const scale = await finishRequest(
      req,
      updateScale(scope, {
        ...writeOriginOf(req),
        key: objectKeyOf(scope, info),
        paths,
        change,
        preconditions: uid === undefined ? undefined : { uid },
        manager: fieldManagerOf(req, options),
        options: operationOptions(method === 'update' ? 'UpdateOptions' : 'PatchOptions', options),
        dryRun: options.dryRun,
      }),
    );
    await writeScale(scope, res, scale);
  };
}
