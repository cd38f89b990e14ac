/**
 * JSON merge patch as kube-apiserver 1.34.4 applied these very patches to a custom resource
 * (asked 2026-12-03, a Widget whose schema preserves unknown fields): besides RFC 7386's
 * removals, a value put where there was no object loses its null members at any depth, in
 * lists too; a list replacing an object is kept as sent (evanphx/json-patch v4's merge).
 */
import { applyMergePatch } from '../../../server/patch/merge-patch';

test('null members go from the values a patch puts where no object was, null list items stay', () => {
  let spec: unknown = { keep: 1 };
  spec = applyMergePatch(spec, { list: [{ a: null, b: 1 }, null], obj: { c: null, d: { e: null, f: 2 } } });
  expect(spec).toEqual({ keep: 1, list: [{ b: 1 }, null], obj: { d: { f: 2 } } });
  spec = applyMergePatch(spec, { keep: { x: null } });
  expect(spec).toEqual({ keep: {}, list: [{ b: 1 }, null], obj: { d: { f: 2 } } });
  spec = applyMergePatch(spec, { nested: [[null, { g: null }]] });
  expect(spec).toEqual({ keep: {}, list: [{ b: 1 }, null], nested: [[null, {}]], obj: { d: { f: 2 } } });
});

test('a list that replaces an object, or a list, is kept or pruned as the reference does', () => {
  expect(applyMergePatch({ a: { b: 1 } }, { a: [{ c: null }] })).toEqual({ a: [{ c: null }] });
  expect(applyMergePatch({ a: [1] }, { a: [{ c: null }] })).toEqual({ a: [{}] });
  expect(applyMergePatch({ a: 'x' }, { a: [{ c: null, d: [null] }] })).toEqual({ a: [{ d: [null] }] });
});

test('neither input is changed', () => {
  const target = { a: { b: 1 }, list: [1] };
  const patch = { a: { b: null }, list: [{ c: null }] };
  const before = structuredClone({ target, patch });
  applyMergePatch(target, patch);
  expect({ target, patch }).toEqual(before);
});
