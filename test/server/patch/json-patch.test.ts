/**
 * JSON Patch as the reference's library (json-patch v4) applies a request's patch: operations
 * one after another, and a `replace` of a member its object lacks sets it, where a missing
 * parent or list item is still the "doc is missing path" failure.
 */
import { applyJsonPatch, PatchApplyError } from '../../../server/patch/json-patch';

test('a replace of a member the object lacks sets it', () => {
  expect(applyJsonPatch({ spec: {} }, [{ op: 'replace', path: '/spec/replicas', value: 1 }])).toEqual({
    spec: { replicas: 1 },
  });
});

test('a replace reads the document the operations before it left', () => {
  const patched = applyJsonPatch({ spec: { replicas: 2 } }, [
    { op: 'remove', path: '/spec/replicas' },
    { op: 'replace', path: '/spec/replicas', value: 3 },
  ]);
  expect(patched).toEqual({ spec: { replicas: 3 } });
});

test('a replace under a missing parent, or of a list item past the end, still fails', () => {
  expect(() => applyJsonPatch({}, [{ op: 'replace', path: '/spec/replicas', value: 1 }])).toThrow(
    // json-patch v4.12 (the reference's) quotes the path in add and remove failures, not here.
    new PatchApplyError('replace operation does not apply: doc is missing path: /spec/replicas: missing value'),
  );
  expect(() => applyJsonPatch({ items: [] }, [{ op: 'replace', path: '/items/0', value: 1 }])).toThrow(PatchApplyError);
});

test('the input document is left as it was', () => {
  const document = { spec: {} };
  applyJsonPatch(document, [{ op: 'replace', path: '/spec/replicas', value: 1 }]);
  expect(document).toEqual({ spec: {} });
});
