/**
 * A CRD whose versions have schemas of their own (strategy None): a write is defaulted and
 * validated by the schema of the version it is sent in, and what one version holds that another
 * does not declare is not served in the other (in-process, real SQLite). The reference's answers
 * are in fixtures/multi-version-answers.json; here, what capstan does deliberately otherwise.
 */
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import type { JSONSchemaProps } from '../../../server/apiextensions/crd-types';
import { callJson, type ServedApi, serveTypesOnTestStore } from '../../helpers/in-process-api';
import { widgetCRD } from './fixtures';

const specOf = (properties: Record<string, JSONSchemaProps>): { openAPIV3Schema: JSONSchemaProps } => ({
  openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } },
});

const crd = widgetCRD({
  versions: [
    {
      name: 'v1',
      served: true,
      storage: true,
      schema: specOf({ shared: { type: 'integer', maximum: 10 }, added: { type: 'string', default: 'v1-default' } }),
    },
    {
      name: 'v1beta1',
      served: true,
      storage: false,
      schema: specOf({ shared: { type: 'integer' }, old: { type: 'string', maxLength: 3 } }),
    },
  ],
});
const type = customResourceType(crd);
let api: ServedApi;
const path = (version: string, rest = '') => `/apis/example.com/${version}/namespaces/default/widgets${rest}`;
const widget = (version: string, name: string, spec: object) => ({
  apiVersion: `example.com/${version}`,
  kind: 'Widget',
  metadata: { name },
  spec,
});

beforeAll(async () => {
  api = await serveTypesOnTestStore([type]);
});

afterAll(() => api.close());

const call = (method: string, path: string, body?: unknown, contentType?: string) =>
  callJson(api, method, path, body, contentType);

test("a write is validated by its own version's schema, not the storage version's", async () => {
  const tooLong = await call('POST', path('v1beta1'), widget('v1beta1', 'w0', { old: 'abcd' }));
  expect(tooLong).toMatchObject({ status: 422, body: { details: { causes: [{ field: 'spec.old' }] } } });
  // Over v1's maximum, which v1beta1 does not have.
  const taken = await call('POST', path('v1beta1'), widget('v1beta1', 'w1', { shared: 20, old: 'ab' }));
  expect(taken).toMatchObject({ status: 201, body: { spec: { shared: 20 } } });
  const refused = await call('PATCH', path('v1', '/w1'), { spec: { shared: 21 } }, 'application/merge-patch+json');
  expect(refused.status).toBe(422);
});

test('a field only another version declares is not served, and its default only in its version', async () => {
  await call('POST', path('v1'), widget('v1', 'w2', { shared: 1 }));
  expect((await call('GET', path('v1', '/w2'))).body.spec).toEqual({ shared: 1, added: 'v1-default' });
  expect((await call('GET', path('v1beta1', '/w2'))).body.spec).toEqual({ shared: 1 });
  expect((await call('GET', path('v1', '/w1'))).body.spec).toEqual({ shared: 20, added: 'v1-default' });
  expect((await call('GET', path('v1beta1', '/w1'))).body.spec).toEqual({ shared: 20 });
});

test('deliberately unlike the reference, a write in another version than a manager entry keeps managedFields', async () => {
  // The reference's field manager converts the objects to each entry's version without pruning
  // and types them by that version's schema; `spec.added` (v1's default) is not declared in
  // v1beta1, so it fails: an update then stores no managedFields at all and an apply is a 500
  // (`.spec.added: field not declared in schema`; recorded with kube-apiserver 1.34.4, which
  // logs it as "[SHOULD NOT HAPPEN] failed to update managedFields"). capstan keeps every
  // entry and answers the apply.
  const labelled = await call(
    'PATCH',
    path('v1', '/w1'),
    { metadata: { labels: { x: '1' } } },
    'application/merge-patch+json',
  );
  expect(labelled.status).toBe(200);
  expect(labelled.body.metadata.managedFields.map((entry: any) => entry.apiVersion).sort()).toEqual([
    'example.com/v1',
    'example.com/v1beta1',
  ]);
  const applied = await call(
    'PATCH',
    path('v1', '/w1?fieldManager=tester&force=true'),
    { ...widget('v1', 'w1', { shared: 5 }) },
    'application/apply-patch+yaml',
  );
  expect(applied).toMatchObject({ status: 200, body: { spec: { shared: 5 } } });
  expect(applied.body.metadata.managedFields.map((entry: any) => entry.manager)).toContain('tester');
});
