/**
 * `componentstatuses` (core v1, deprecated since 1.19 and still served): get and list only,
 * nothing stored, each answer probed when asked (probes.ts). Lists honour label and field
 * selectors but not paging, as the reference's.
 */
import { EVERYTHING } from '../../storage/objects/types';
import { writeList } from '../responsewriters/respond';
import {
  addWarnings,
  deprecationWarnings,
  endpointOf,
  listQueryOf,
  writeResponse,
  type HandlerScope,
  type ResourceRequest,
} from '../handlers/scope';
import '../request/request-context';
import { defineKind } from '../registry/kinds/define';
import type { ResourceType } from '../registry/types';
import { queryOf } from '../request/query';
import { compilePredicate, SelectorParseError } from '../selectors/predicate';
import { badRequest, notFound } from '../status/catalogue';
import { componentStatus, type ProbedComponent } from './probes';

import type { KubeObject } from '../../api/objects';
import { componentStatusPrinter } from '../table/printers';
export function componentStatusKind(components: readonly ProbedComponent[]): ResourceType {
  const type = defineKind({
    group: '',
    resource: 'componentstatuses',
    printer: componentStatusPrinter,
    kind: 'ComponentStatus',
    namespaced: false,
    shortNames: ['cs'],
    verbs: ['get', 'list'],
    deprecatedVersions: { v1: 'v1 ComponentStatus is deprecated in v1.19+' },
  });
  const get =
    (scope: HandlerScope) =>
    async ({ info, req, res }: ResourceRequest) => {
      addWarnings(req, deprecationWarnings(scope));
      const component = components.find((candidate) => candidate.name === info.name);
      if (component === undefined) throw notFound({ group: '', resource: 'componentstatus' }, info.name);
      await writeResponse(scope, res, 200, await componentStatus(component));
    };
  const list =
    (scope: HandlerScope) =>
    async ({ req, res }: ResourceRequest) => {
      addWarnings(req, deprecationWarnings(scope));
      const query = listQueryOf(scope, queryOf(req));
      let predicate = EVERYTHING;
      try {
        predicate = compilePredicate({
          labelSelector: query.labelSelector,
          fieldSelector: query.fieldSelector,
          selectableFields: scope.type.selectableFields,
        });
      } catch (error) {
        if (error instanceof SelectorParseError) throw badRequest(error.message);
        throw error;
      }
      const items: KubeObject[] = (await Promise.all(components.map(componentStatus))).filter((item) =>
        predicate.matches(item),
      );
      await writeList({
        req,
        res,
        settings: scope.context.representations,
        endpoint: endpointOf(scope),
        head: { kind: type.listKind, apiVersion: 'v1', metadata: {} },
        items,
      });
    };
  return { ...type, virtual: true, handlers: { verbs: { get, list } } };
}
