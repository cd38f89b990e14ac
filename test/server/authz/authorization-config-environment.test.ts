/**
 * The match conditions of an --authorization-config webhook compile in the stored-expression
 * environment, as the reference's authorization CEL compiler does: a file may use what the
 * server knows, even what came after its compatibility version (the 1.34 list extension).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAuthorizationConfig } from '../../../server/authz/authorization-config';
import { chainFromConfig } from '../../../server/authz/configured-authorization';
import type { Authorizer } from '../../../server/authz/types';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-authz-env-'));
  writeFileSync(
    join(dir, 'webhook.kubeconfig'),
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'w', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'w', user: {} }],
      contexts: [{ name: 'w', context: { cluster: 'w', user: 'w' } }],
      'current-context': 'w',
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const chain = (expression: string) =>
  chainFromConfig(
    parseAuthorizationConfig(
      JSON.stringify({
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'AuthorizationConfiguration',
        authorizers: [
          {
            type: 'Webhook',
            name: 'w',
            webhook: {
              timeout: '3s',
              subjectAccessReviewVersion: 'v1',
              matchConditionSubjectAccessReviewVersion: 'v1',
              failurePolicy: 'NoOpinion',
              connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'webhook.kubeconfig') },
              matchConditions: [{ expression }],
            },
          },
        ],
      }),
    ),
    { rbac: () => ({}) as Authorizer, node: () => ({}) as Authorizer },
  );

test('match conditions may use the 1.34 list extension', () => {
  expect(() => chain("request.groups.sort().exists(g, g == 'admins')")).not.toThrow();
});

test('what no environment has is still refused', () => {
  expect(() => chain('request.groups.shuffle().size() > 0')).toThrow(/matchConditions\[0\]\.expression/);
});
