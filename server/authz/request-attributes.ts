/**
 * The attributes of an HTTP request for authorization: its request info, its user, and for a
 * collection read or delete the requirements of its field and label selectors, which
 * authorizers may take into account (the reference's AuthorizeWithSelectors, on by default in
 * 1.34). A selector that does not parse is left out: the request fails on it later anyway.
 */
import type { UserInfo } from '../../api/user-info';
import type { RequestInfo } from '../request/request-info';
import { parseFieldSelector, type FieldRequirement } from '../selectors/field-selector';
import { parseLabelSelector, type LabelRequirement } from '../selectors/label-selector';
import { attributesFrom, type Attributes } from './types';

const SELECTOR_VERBS: ReadonlySet<string> = new Set(['list', 'watch', 'deletecollection']);

export function requestAttributes(info: RequestInfo, user: UserInfo, rawQuery: string): Attributes {
  if (!info.isResourceRequest || !SELECTOR_VERBS.has(info.verb) || rawQuery === '') return attributesFrom(info, user);
  const params = new URLSearchParams(rawQuery);
  return attributesFrom(info, user, selectorAttributes(params.get('fieldSelector'), params.get('labelSelector')));
}

/** The requirements of selectors as written; a selector that is empty or does not parse is left out. */
export function selectorAttributes(
  fieldSelector: string | null | undefined,
  labelSelector: string | null | undefined,
): Pick<Attributes, 'fieldSelector' | 'labelSelector'> {
  return {
    fieldSelector: parsedOrAbsent(fieldSelector, parseFieldSelector),
    labelSelector: parsedOrAbsent(labelSelector, parseLabelSelector),
  };
}

function parsedOrAbsent<T extends FieldRequirement | LabelRequirement>(
  text: string | null | undefined,
  parse: (input: string) => T[],
): readonly T[] | undefined {
  if (text === null || text === undefined || text === '') return undefined;
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}
