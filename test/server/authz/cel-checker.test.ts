/**
 * The CEL authorizer library's checks as the server's authorizer sees them: a resource check
 * with selectors carries their parsed requirements; a selector that does not parse is left out
 * (the reference asks without it and records the parse error).
 */
import { celAuthorizationChecker } from '../../../server/authz/cel-checker';
import type { Attributes, Authorizer } from '../../../server/authz/types';
import { ExpressionCompiler } from '../../../server/cel/environment';
import { CelAuthorizer } from '../../../server/cel/libraries/authorizer';

const asked: Attributes[] = [];
// Allows listing pods only on one node, as the Node authorizer does for a kubelet.
const nodeScoped: Authorizer = {
  authorize(attributes) {
    asked.push(attributes);
    const onNode = (attributes.fieldSelector ?? []).some(
      ({ field, operator, value }) => field === 'spec.nodeName' && operator === '=' && value === 'node-1',
    );
    return onNode ? { decision: 'allow', reason: '' } : { decision: 'no-opinion', reason: 'needs spec.nodeName' };
  },
};

function allowed(expression: string): unknown {
  const compiled = new ExpressionCompiler({ authorizer: 'kubernetes.authorization.Authorizer' }).compile(expression);
  if (!compiled.ok) throw new Error(compiled.error);
  const authorizer = new CelAuthorizer({ name: 'system:node:node-1', groups: [] }, celAuthorizationChecker(nodeScoped));
  const result = compiled.compiled.evaluate({ authorizer });
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

beforeEach(() => asked.splice(0));

test('a field selector reaches the authorizer as requirements', () => {
  expect(
    allowed("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=node-1').check('list').allowed()"),
  ).toBe(true);
  expect(asked[0]).toMatchObject({
    verb: 'list',
    apiGroup: '',
    apiVersion: '*',
    resource: 'pods',
    fieldSelector: [{ field: 'spec.nodeName', operator: '=', value: 'node-1' }],
  });
  expect(asked[0].labelSelector).toBeUndefined();
});

test('a label selector reaches the authorizer as requirements', () => {
  expect(
    allowed("authorizer.group('').resource('pods').labelSelector('app in (a,b),!beta').check('list').allowed()"),
  ).toBe(false);
  expect(asked[0].labelSelector).toEqual([
    { key: 'app', operator: 'in', values: ['a', 'b'] },
    { key: 'beta', operator: '!', values: [] },
  ]);
  expect(asked[0].fieldSelector).toBeUndefined();
});

test('a selector that does not parse is left out of the check', () => {
  expect(allowed("authorizer.group('').resource('pods').fieldSelector('spec.nodeName').check('list').allowed()")).toBe(
    false,
  );
  expect(asked[0].fieldSelector).toBeUndefined();
});
