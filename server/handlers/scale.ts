/**
 * The scale subresource over HTTP: GET answers the Scale the parent shows; PUT (a whole Scale)
 * and PATCH (a patch of the current Scale, or an apply) are read here and written by the
 * store (server/registry/store/scale.ts).
 */
import { auditAnnotationsOf } from '../audit/record/request-audit';
import type { KubeObject } from '../../api/objects';
import type { ScaleSubresource } from '../registry/types';
import { parseApplyBody } from '../apply/apply-body';
import { readBody } from '../request/body';
import { parseWriteOptions, queryOf } from '../request/query';
import { operationOptions } from '../registry/store/admission';
import { scaleOf, updateScale, type ScaleChange } from '../registry/store/scale';
import { objectKeyOf } from '../registry/store/scope';
import { requestedPatchType } from './patch-types';
import { writeResponse, type HandlerScope, type ResourceHandler } from './scope';
import { checkName, fieldManagerOf, objectBodyFormat, readObjectValue } from './object-body';

export function scaleGetHandler(scope: HandlerScope, paths: ScaleSubresource): ResourceHandler {
  return async ({ info, res }) => {
    await writeResponse(scope, res, 200, scaleOf(await scope.storage.get(objectKeyOf(scope, info)), paths));
  };
}

/** PUT (a whole Scale) and PATCH (a patch of the current Scale, or an apply) of the parent's replicas. */
export function scaleWriteHandler(
  scope: HandlerScope,
  paths: ScaleSubresource,
  method: 'update' | 'patch',
): ResourceHandler {
  return async ({ info, req, res }) => {
    const { patchType, applyFormat } = method === 'patch' ? requestedPatchType(scope, req) : {};
    const format = method === 'update' ? objectBodyFormat(scope, req) : undefined;
    const optionsKind =
      method === 'update' ? 'UpdateOptions' : applyFormat !== undefined ? 'ApplyPatchOptions' : 'PatchOptions';
    const options = parseWriteOptions(queryOf(req), optionsKind);
    let change: ScaleChange;
    if (format !== undefined) {
      const scale = (await readObjectValue(req, format, { expectedKind: 'Scale', findDuplicates: false }))
        .value as KubeObject;
      checkName({ ...scale, metadata: { ...(scale.metadata ?? {}) } }, info.name);
      change = { kind: 'replace', scale };
    } else if (applyFormat !== undefined) {
      change = {
        kind: 'apply',
        config: parseApplyBody({
          body: await readBody(req),
          format: applyFormat,
          fieldValidation: options.fieldValidation,
        }).config,
        force: options.force ?? false,
      };
    } else {
      const patch = patchType!.parse(await readBody(req), options);
      change = {
        kind: 'patch',
        apply: (current) => patchType!.apply(current, patch),
        shown: (patched) => patchType!.shown(patch, patched),
      };
    }
    const scale = await updateScale(scope, {
      user: req.user,
      key: objectKeyOf(scope, info),
      paths,
      change,
      manager: fieldManagerOf(req, options),
      options: operationOptions(method === 'update' ? 'UpdateOptions' : 'PatchOptions', options),
      dryRun: options.dryRun,
      auditAnnotations: auditAnnotationsOf(req),
      warnings: req.warnings,
    });
    await writeResponse(scope, res, 200, scale);
  };
}
