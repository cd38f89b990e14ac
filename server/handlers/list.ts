/** GET on a collection: a `<Kind>List` of one namespace or all, paged and filtered. */
import type { Predicate } from '../../storage/objects/types';
import { parseListQuery, queryOf, type ListQuery } from '../request/query';
import { compilePredicate, SelectorParseError } from '../selectors/predicate';
import { badRequest } from '../status/catalogue';
import { writeList } from '../codec/respond';
import { apiVersionOf, toServedVersions } from '../registry/store/scope';
import { addWarnings, deprecationWarnings, endpointOf, type HandlerScope, type ResourceHandler } from './scope';

/** Selectors of a list or watch as the storage predicate; a bad selector is a 400 with the parser's text. */
export function predicateOf(scope: HandlerScope, query: ListQuery): Predicate {
  try {
    return compilePredicate({
      labelSelector: query.labelSelector,
      fieldSelector: query.fieldSelector,
      selectableFields: scope.type.selectableFields,
    });
  } catch (error) {
    if (error instanceof SelectorParseError) throw badRequest(error.message);
    throw error;
  }
}

export function namespaceScopeOf(scope: HandlerScope, namespace: string): { namespace?: string } {
  return scope.type.namespaced && namespace !== '' ? { namespace } : {};
}

export function listHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    const query = parseListQuery(queryOf(req), false);
    const result = await scope.storage.list(namespaceScopeOf(scope, info.namespace), {
      resourceVersion: query.resourceVersion,
      resourceVersionMatch: query.resourceVersionMatch,
      limit: query.limit,
      continue: query.continue,
      predicate: predicateOf(scope, query),
    });
    const served = toServedVersions(scope, result.items);
    const items = served instanceof Promise ? await served : served;
    addWarnings(res, deprecationWarnings(scope));
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
          ...(result.remainingItemCount !== undefined && result.continue ? { remainingItemCount: result.remainingItemCount } : {}),
        },
      },
      items,
    });
  };
}
