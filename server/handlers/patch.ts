/**
 * PATCH on an object or its status. A patch (JSON, merge, strategic) is applied to the current
 * object inside the guaranteed update; a server-side apply body goes through the apply engine
 * there instead, which may create the object and writes the managedFields itself.
 */
import type { KubeObject } from '../../api/objects';
import { finishRequest } from './post-timeout';
import { parseApplyBody, repeatedKeyWarnings, type ApplyBodyFormat } from '../apply/apply-body';
import { serverSideApply, type OwnershipScope } from '../apply/apply';
import { rootSchemaNode } from '../apply/schema-node';
import { readBody } from '../request/body';
import { parseWriteOptions, queryOf } from '../request/query';
import { attributesFrom } from '../authz/types';
import { badRequest, conflict, forbidden, internalError } from '../status/catalogue';
import type { UserInfo } from '../../api/user-info';
import type { RequestInfo } from '../request/request-info';
import { operationOptions } from '../registry/store/admission';
import { auditRequestPatch } from '../audit/record/request-audit';
import { writeOriginOf } from './write-origin';
import { apiVersionOf, groupResourceOf, objectKeyOf } from '../registry/store/scope';
import { updateObject, type UpdateResult, type WriteTarget } from '../registry/store/update';
import { patchDocumentOf, requestedPatchType, type PatchType } from './patch-types';
import {
  addWarnings,
  deprecationWarnings,
  writeResponse,
  type HandlerScope,
  type ResourceHandler,
  type ResourceRequest,
} from './scope';
import {
  checkName,
  checkNamespace,
  checkPatchedTypeMeta,
  decodeParsed,
  fieldManagerOf,
  requireNameInUrl,
} from './object-body';
import { NO_REPEATED_KEYS, resolveDefinition } from '../validation/decode';
import { typedForKind } from '../registry/type-definitions';
import { emptyObjectOf } from '../fieldmanager/managed-fields';
import { mainResetFieldsOf, statusResetFieldsOf } from '../registry/reset-fields';

/**
 * `applyOwns`: what an apply through this endpoint may own, where it is not what the target's
 * strategy resets (a subresource whose store keeps the main resource's reset fields).
 */
export function patchHandler(
  scope: HandlerScope,
  target: WriteTarget = 'main',
  applyOwns: OwnershipScope = ownershipScopeOf(scope, target),
): ResourceHandler {
  return async (request) => {
    const { req, res } = request;
    addWarnings(req, deprecationWarnings(scope));
    const { patchType, applyFormat } = requestedPatchType(scope, req);
    requireNameInUrl(request.info);
    const result = await finishRequest(
      req,
      patchType !== undefined
        ? patchObject(scope, target, request, patchType)
        : applyObject(scope, { target, applyOwns }, request, applyFormat!),
    );
    await writeResponse(scope, res, result.created ? 201 : 200, result.object);
  };
}

async function patchObject(
  scope: HandlerScope,
  target: WriteTarget,
  { info, req }: ResourceRequest,
  patchType: PatchType,
): Promise<UpdateResult> {
  const options = parseWriteOptions(queryOf(req), 'PatchOptions');
  const body = await readBody(req);
  auditRequestPatch(req, body);
  const patchDocument = patchDocumentOf(patchType, body, options);
  return await updateObject(scope, {
    ...writeOriginOf(req),
    patch: true,
    key: objectKeyOf(scope, info),
    // The patched object keeps the current resourceVersion unless the patch names another: then
    // it is the update's precondition, as for a PUT.
    updatedObject: (current) => {
      const { document, strictProblems } = patchDocument();
      // Absent objects never reach here: only apply creates through PATCH.
      const patched = patchType.apply(current!, document);
      const shownPatch = () => patchType.shown(document, patched);
      checkPatchedTypeMeta(scope, patched, { name: info.name, shownPatch });
      const decoded = decodeParsed(
        scope,
        {
          value: patched,
          duplicates: patchType.resultRepeatedKeys?.(document, patched) ?? NO_REPEATED_KEYS,
          patchProblems: strictProblems,
          options,
          shownPatch,
          warnings: req.warnings,
          fromMap: patchType.resultFromMap,
        },
        target,
      );
      addWarnings(req, decoded.warnings);
      checkNamespace(scope, decoded.object, info.namespace);
      checkName(decoded.object, info.name);
      return decoded.object;
    },
    target,
    manager: fieldManagerOf(req, options),
    subresource: info.subresource || undefined,
    options: operationOptions('PatchOptions', options),
    dryRun: options.dryRun,
  });
}

/** What the write may own: all but the reset fields of the endpoint's strategy. */
function ownershipScopeOf(scope: HandlerScope, target: WriteTarget): OwnershipScope {
  return { allBut: target === 'status' ? statusResetFieldsOf(scope.type) : mainResetFieldsOf(scope.type) };
}

async function applyObject(
  scope: HandlerScope,
  { target, applyOwns }: { readonly target: WriteTarget; readonly applyOwns: OwnershipScope },
  { info, req }: ResourceRequest,
  format: ApplyBodyFormat,
): Promise<UpdateResult> {
  const options = parseWriteOptions(queryOf(req), 'ApplyPatchOptions');
  const body = await readBody(req);
  auditRequestPatch(req, body);
  const applyBody = parseApplyBody(body, format);
  const { config } = applyBody;
  const { definitions } = scope.context;
  const schema = rootSchemaNode(definitions, scope.version.definition);
  const emptyObject = emptyObjectOf({
    definitions,
    schema: definitions && resolveDefinition(definitions, scope.version.definition),
  });
  const manager = options.fieldManager!;
  const subresource = info.subresource || undefined;
  return await updateObject(scope, {
    ...writeOriginOf(req),
    patch: true,
    key: objectKeyOf(scope, info),
    // A resourceVersion in the configuration is the update's precondition, as for a PUT.
    updatedObject: (current) => {
      if (current === undefined) rejectUidOnCreate(scope, config, info.name);
      const applied = serverSideApply({
        live: current,
        config,
        manager,
        apiVersion: apiVersionOf(scope),
        kind: scope.type.kind,
        subresource,
        force: options.force ?? false,
        now: scope.context.now(),
        schema,
        scope: applyOwns,
        emptyObject,
      });
      const object = typedAppliedObject(scope, config, applied.object);
      addWarnings(req, repeatedKeyWarnings(applyBody, options.fieldValidation));
      checkNamespace(scope, object, info.namespace);
      checkName(object, info.name);
      return object;
    },
    target,
    manager,
    subresource,
    // Apply creates what is absent (the status subresource never does), with create permission.
    allowCreate: target === 'main',
    authorizeCreate: once(() => authorizeCreate(scope, info, req.user)),
    managedFieldsComputed: true,
    options: operationOptions('PatchOptions', options),
    dryRun: options.dryRun,
  });
}

/**
 * Apply on a missing object is a create: the request was authorized for `patch`, so the user
 * must also be allowed `create` on it, as the reference asks its authorizer.
 */
async function authorizeCreate(scope: HandlerScope, info: RequestInfo, user: UserInfo): Promise<void> {
  const { authorizer } = scope.context;
  if (authorizer === undefined) throw internalError('no authorizer provided, unable to authorize a create on update');
  const result = await authorizer.authorize(attributesFrom(info, user, { verb: 'create' }));
  if (result.decision !== 'allow') throw forbidden(groupResourceOf(scope.type), info.name, result.reason);
}

/** The reference asks its authorizer once per request, however often the write is retried. */
function once(run: () => Promise<void>): () => Promise<void> {
  let asked: Promise<void> | undefined;
  return () => (asked ??= run());
}

/**
 * The applied object in its typed form, as the reference converts it: a null the configuration
 * set is no member, or in a map the zero value (`labels: {a: null}` holds `a: ""`). A value the
 * type cannot hold though the schema's type allows it (a time that is no RFC 3339 time, a
 * quantity that is no quantity) fails there, naming the configuration. The reference answers
 * that with a bare 500; a client error is what the request deserves. Custom resources stay
 * unstructured: their schema's defaulting decides their nulls.
 */
function typedAppliedObject(scope: HandlerScope, config: Record<string, unknown>, object: KubeObject): KubeObject {
  const typed = typedForKind(scope.context.definitions, scope.type, scope.version.definition, object);
  const { typeError } = typed;
  if (typeError === undefined) return typed.object;
  const metadata = (config.metadata ?? {}) as { namespace?: unknown; name?: unknown };
  const gvk = `${apiVersionOf(scope).includes('/') ? '' : '/'}${apiVersionOf(scope)}, Kind=${scope.type.kind}`;
  const named = `${String(metadata.namespace ?? '')}/${String(metadata.name ?? '')}; ${gvk}`;
  throw badRequest(
    `failed to convert new object (${named}) to proper version: unable to convert unstructured object to ${gvk}: ${typeError}`,
  );
}

/** The reference refuses to create through apply an object whose configuration names a uid. */
function rejectUidOnCreate(scope: HandlerScope, config: Record<string, unknown>, name: string): void {
  const uid = (config.metadata as { uid?: unknown } | undefined)?.uid;
  if (typeof uid === 'string' && uid !== '') {
    throw conflict(
      groupResourceOf(scope.type),
      name,
      `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`,
    );
  }
}
