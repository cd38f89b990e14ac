/** GET on a collection: a `<Kind>List` of one namespace or all, paged and filtered. */
import { queryOf, type ListQuery } from '../request/query';
import { compileSelection, SelectorParseError, type Selection } from '../selectors/predicate';
import { badRequest } from '../status/catalogue';
import { writeList } from '../responsewriters/respond';
import { apiVersionOf, toServedVersions } from '../registry/store/scope';
import {
  addWarnings,
  deprecationWarnings,
  endpointOf,
  listQueryOf,
  type HandlerScope,
  type ResourceHandler,
} from './scope';
import { KeptEncodings } from './kept-encodings';

/**
 * The selectors of a list, watch or deletecollection; a bad selector is a 400 with the parser's
 * text. A kind that converts between versions, asked for in another version than it stores,
 * has its own fields checked on each object as served (`servedFields`): they may exist only
 * there, as a custom resource's selectable fields of a webhook-converted version do.
 */
export function selectionOf(scope: HandlerScope, query: ListQuery): Selection {
  try {
    const onServed = scope.type.convert !== undefined && scope.version.version !== scope.type.storageVersion;
    return compileSelection(
      {
        labelSelector: query.labelSelector,
        fieldSelector: query.fieldSelector,
        selectableFields: scope.type.selectableFields,
        fieldLabels: scope.type.fieldLabels,
        version: scope.version.version,
      },
      onServed,
    );
  } catch (error) {
    if (error instanceof SelectorParseError) throw badRequest(error.message);
    throw error;
  }
}

export function namespaceScopeOf(scope: HandlerScope, namespace: string): { namespace?: string } {
  return scope.type.namespaced && namespace !== '' ? { namespace } : {};
}

export function listHandler(scope: HandlerScope): ResourceHandler {
  // Each stored object encoded as this handler serves it, kept for the lists that follow (SharedItemEncodings).
  const listedEncodings = new KeptEncodings();
  return async ({ info, req, res }) => {
    addWarnings(req, deprecationWarnings(scope));
    const query = listQueryOf(scope, queryOf(req));
    const selection = selectionOf(scope, query);
    const result = await scope.storage.list(namespaceScopeOf(scope, info.namespace), {
      resourceVersion: query.resourceVersion,
      resourceVersionMatch: query.resourceVersionMatch,
      limit: query.limit,
      continue: query.continue,
      predicate: selection.predicate,
    });
    const served = toServedVersions(scope, result.items);
    // An asynchronous conversion (a webhook) may answer differently next time: its items are not kept.
    const sharable = !(served instanceof Promise);
    const convertedItems = sharable ? served : await served;
    // A page may then hold fewer items than its limit, as the API allows.
    const { servedFields } = selection;
    const kept = servedFields
      ? convertedItems.flatMap((item, index) => (servedFields(item) ? [index] : []))
      : undefined;
    const items = kept ? kept.map((index) => convertedItems[index]) : convertedItems;
    const sources = kept ? kept.map((index) => result.items[index]) : result.items;
    await writeList({
      req,
      res,
      settings: scope.context.representations,
      endpoint: endpointOf(scope),
      head: {
        kind: scope.type.listKind,
        apiVersion: apiVersionOf(scope),
        metadata: {
          resourceVersion: result.resourceVersion,
          ...(result.continue ? { continue: result.continue } : {}),
          ...(result.remainingItemCount !== undefined && result.continue
            ? { remainingItemCount: result.remainingItemCount }
            : {}),
        },
      },
      items,
      ...(sharable ? { shared: { sources, ...listedEncodings.forAnswer() } } : {}),
    });
  };
}
