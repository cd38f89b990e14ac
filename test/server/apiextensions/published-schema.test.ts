/**
 * A CRD's versions as the OpenAPI documents publish them: the same definitions, in both the v2
 * and v3 forms, as kube-apiserver v1.34.4 publishes for the CRDs of fixtures/published-schemas.json
 * (only structural keywords, root and embedded type meta with their descriptions, int-or-string unfolded, embedded
 * resources, selectable fields, list kinds; in v2 a bare object for a root that preserves unknown
 * fields, no junctors, defaults or nullable types).
 */
import { customResourceDefinitions } from '../../../server/apiextensions/custom-resource-type';
import type { CustomResourceDefinition } from '../../../server/apiextensions/crd-types';
import { renderSchemas } from '../../../server/openapi/component-schemas';
import published from './fixtures/published-schemas.json';

const crds = published.crds as unknown as CustomResourceDefinition[];

describe.each(['v2', 'v3'] as const)('OpenAPI %s', (flavour) => {
  const expected = published[flavour] as Record<string, unknown>;
  const rendered = renderSchemas({
    definitions: Object.assign({}, ...crds.map(customResourceDefinitions)),
    names: Object.keys(expected),
    flavour,
    kinds: new Map(),
  });
  test.each(Object.keys(expected))('%s', (name) => {
    expect(rendered[name]).toEqual(expected[name]);
  });
});
