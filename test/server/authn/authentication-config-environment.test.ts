/**
 * The CEL of an --authentication-config file compiles in the stored-expression environment, as
 * the reference's authentication CEL compiler does: a file may use what the server knows, even
 * what came after its compatibility version (the 1.34 list extension, for one).
 */
import { parseAuthenticationConfig } from '../../../server/authn/authentication-config';

const config = (groups: string) =>
  JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthenticationConfiguration',
    jwt: [
      {
        issuer: { url: 'https://issuer.example.com', audiences: ['capstan'] },
        claimMappings: { username: { claim: 'sub', prefix: '' }, groups: { expression: groups } },
      },
    ],
  });

test('claim mappings may use the 1.34 list extension', () => {
  expect(() =>
    parseAuthenticationConfig(config('claims.roles.map(r, string(r)).sort()'), {
      path: 'authn.yaml',
      serviceAccountIssuers: [],
    }),
  ).not.toThrow();
});

test('what no environment has is still refused', () => {
  expect(() =>
    parseAuthenticationConfig(config('claims.roles.shuffle()'), { path: 'authn.yaml', serviceAccountIssuers: [] }),
  ).toThrow(/compilation failed/);
});
