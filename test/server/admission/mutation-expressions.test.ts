/**
 * A MutatingAdmissionPolicy's mutations compiled and evaluated as the reference does it (texts
 * recorded from a 1.34.4 kube-apiserver: creating policies, and creating ConfigMaps they
 * mutate): the result type each patch type needs, the policy's variables, the type-name check
 * of constructions, and the JSON the plugin applies.
 */
import { compileMutation, type CompiledMutation, type PatchType } from '../../../server/admission/policy/mutation';
import { CelAuthorizer } from '../../../server/cel/libraries/authorizer';
import { policyCompilers } from '../../../server/validation/admission-cel/declarations';

const CONFIG_MAP = { metadata: { name: 'cm', namespace: 'ns', labels: { keep: 'yes' } }, data: { x: 'orig' } };

const variables = [{ name: 'suffix', expression: "'-' + object.metadata.name" }];

// One policy's compilers: values are converted for the compiler that compiled the expressions.
const policy = policyCompilers({}, variables);

function compile(patchType: PatchType, expression: string): CompiledMutation {
  const result = compileMutation(policy.mutations, patchType, expression);
  if (!result.ok) throw new Error(result.error);
  return result.mutation;
}

function compileError(patchType: PatchType, expression: string): string {
  const result = compileMutation(policy.mutations, patchType, expression);
  if (result.ok) throw new Error(`${expression} compiled`);
  return result.error;
}

function evaluate(mutation: CompiledMutation, extra: Record<string, unknown> = {}) {
  const context = policy.mutations.celValues({
    object: CONFIG_MAP,
    oldObject: null,
    request: { operation: 'CREATE', name: 'cm', namespace: 'ns' },
    namespaceObject: null,
    variables: { suffix: '-cm' },
    ...extra,
  });
  return mutation.evaluate(context);
}

describe('compiling', () => {
  test.each<[PatchType, string, string]>([
    ['ApplyConfiguration', 'Object.spec{replicas: 3}', 'must evaluate to Object but got Object.spec'],
    ['ApplyConfiguration', "{'a': 1}", 'must evaluate to Object but got map(string, int)'],
    ['ApplyConfiguration', 'Object{}.spec', 'must evaluate to Object but got dyn'],
    ['ApplyConfiguration', 'dyn(Object{})', 'must evaluate to Object but got dyn'],
    ['JSONPatch', 'JSONPatch{op: "add"}', 'must evaluate to list(JSONPatch) but got JSONPatch'],
    ['JSONPatch', '[]', 'must evaluate to list(JSONPatch) but got list(dyn)'],
    ['JSONPatch', '[Object{}]', 'must evaluate to list(JSONPatch) but got list(Object)'],
    [
      'ApplyConfiguration',
      'Foo{a: 1}',
      "compilation failed: ERROR: <input>:1:4: undeclared reference to 'Foo' (in container '')\n | Foo{a: 1}\n | ...^",
    ],
  ])('%s %s: %s', (patchType, expression, error) => {
    expect(compileError(patchType, expression)).toBe(error);
  });

  test('variables and match conditions cannot construct types, as in the reference', () => {
    const results: boolean[] = [];
    policyCompilers({}, [{ name: 'o', expression: 'Object{}' }], {
      onVariable: (_index, result) => results.push(result.ok),
    });
    expect(results).toEqual([false]);
    expect(policy.expressions.compile('Object{} == Object{}')).toMatchObject({ ok: false });
  });
});

describe('evaluating', () => {
  test('an apply configuration from the object, the request and a variable', async () => {
    const mutation = compile(
      'ApplyConfiguration',
      "Object{metadata: Object.metadata{labels: {'name': object.metadata.name + variables.suffix, 'op': request.operation}}}",
    );
    expect(await evaluate(mutation)).toEqual({
      ok: true,
      patchType: 'ApplyConfiguration',
      applyConfiguration: { metadata: { labels: { name: 'cm-cm', op: 'CREATE' } } },
    });
  });

  test('constructions named off their field path are refused', async () => {
    expect(await evaluate(compile('ApplyConfiguration', "Object{metadata: Object.spec{labels: {'a': 'b'}}}"))).toEqual({
      ok: false,
      error:
        'type mismatch: unexpected type name "Object.spec", expected "Object.metadata", which matches field name path from root Object type',
      costExceeded: false,
    });
  });

  test('JSON patch operations: from and value only when set', async () => {
    const mutation = compile(
      'JSONPatch',
      '[JSONPatch{op: "add", path: "/data/y", value: "1"}, JSONPatch{op: "remove", path: "/data/x"}, ' +
        'JSONPatch{op: "move", from: "/data/a", path: "/data/b"}, JSONPatch{op: "replace", path: "/data/c", value: null}, ' +
        'JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/x"), value: "v"}]',
    );
    expect(await evaluate(mutation)).toEqual({
      ok: true,
      patchType: 'JSONPatch',
      operations: [
        { op: 'add', path: '/data/y', value: '1' },
        { op: 'remove', path: '/data/x' },
        { op: 'move', from: '/data/a', path: '/data/b' },
        { op: 'replace', path: '/data/c', value: null },
        { op: 'add', path: '/metadata/labels/example.com~1x', value: 'v' },
      ],
    });
  });

  test('an object value of a patch is checked from its own type name', async () => {
    expect(
      await evaluate(
        compile('JSONPatch', '[JSONPatch{op: "add", path: "/metadata/labels", value: Object.metadata{a: "b"}}]'),
      ),
    ).toMatchObject({ ok: true, operations: [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }] });
    expect(
      await evaluate(
        compile(
          'JSONPatch',
          '[JSONPatch{op: "add", path: "/metadata", value: Object.metadata{labels: Object.spec{}}}]',
        ),
      ),
    ).toMatchObject({
      ok: false,
      error:
        'type mismatch: unexpected type name "Object.spec", expected "Object.metadata.labels", which matches field name path from root Object type',
    });
  });

  test('an evaluation error names the expression, as the reference', async () => {
    expect(await evaluate(compile('JSONPatch', '[JSONPatch{op: dyn(1), path: "/x"}]'))).toEqual({
      ok: false,
      error: `expression '[JSONPatch{op: dyn(1), path: "/x"}]' resulted in error: unexpected type int64 for JSONPatchType 'op' field`,
      costExceeded: false,
    });
  });

  test('an authorization check answered later is waited for', async () => {
    const authorizer = new CelAuthorizer({ name: 'alice', groups: [] }, async (check) => ({
      decision: check.verb === 'update' ? 'allow' : 'deny',
      reason: '',
    }));
    const mutation = compile(
      'ApplyConfiguration',
      "authorizer.group('').resource('configmaps').check('update').allowed() ? Object{data: {'checked': 'yes'}} : Object{}",
    );
    const context = { ...policy.mutations.celValues({ object: CONFIG_MAP }), authorizer };
    expect(await mutation.evaluate(context)).toEqual({
      ok: true,
      patchType: 'ApplyConfiguration',
      applyConfiguration: { data: { checked: 'yes' } },
    });
  });
});
