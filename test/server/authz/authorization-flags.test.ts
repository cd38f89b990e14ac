/** The authorization flags and the startup errors of combinations that cannot work. */
import { authorizationFlagErrors } from '../../../server/authz/authorization-chain';
import { parseFlags, type ServerOptions } from '../../../server/config/flags';

function options(argv: string[]): ServerOptions {
  const parsed = parseFlags(argv);
  if (!('options' in parsed)) throw new Error('unexpected help');
  return parsed.options;
}

describe('authorization flags', () => {
  it('parse, with RBAC as the default mode', () => {
    expect(options([]).authorizationModes).toBeUndefined();
    expect(authorizationFlagErrors(options([]))).toEqual([]);
    expect(
      options([
        '--authorization-mode=Node,RBAC,Webhook',
        '--authorization-webhook-config-file=/w',
        '--authorization-webhook-version=v1',
        '--authorization-webhook-cache-authorized-ttl=1m',
        '--authorization-webhook-cache-unauthorized-ttl=5s',
      ]),
    ).toMatchObject({
      authorizationModes: ['Node', 'RBAC', 'Webhook'],
      authorizationWebhookConfigFile: '/w',
      authorizationWebhookVersion: 'v1',
      authorizationWebhookAuthorizedTtlMs: 60_000,
      authorizationWebhookUnauthorizedTtlMs: 5_000,
    });
    expect(() => options(['--authorization-webhook-version=v2'])).toThrow(
      'invalid argument "v2" for "--authorization-webhook-version" flag: must be v1 or v1beta1',
    );
  });

  it.each([
    {
      argv: ['--authorization-config=/c', '--authorization-mode=RBAC'],
      error:
        '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
    },
    {
      argv: ['--authorization-config=/c', '--authorization-webhook-config-file=/w'],
      error:
        '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
    },
    { argv: ['--authorization-mode=RBAC,Magic'], error: 'authorization-mode "Magic" is not a valid mode' },
    { argv: ['--authorization-mode=RBAC,RBAC'], error: 'authorization-mode "RBAC" has mode specified more than once' },
    { argv: ['--authorization-mode=ABAC'], error: "authorization-mode ABAC's authorization policy file not passed" },
    {
      argv: ['--authorization-mode=Webhook'],
      error: "authorization-mode Webhook's authorization config file not passed",
    },
    { argv: ['--authorization-policy-file=/p'], error: 'cannot specify --authorization-policy-file without mode ABAC' },
  ])('refuse $argv', ({ argv, error }) => {
    expect(authorizationFlagErrors(options(argv))).toContain(error);
  });
});
