/**
 * The CEL environment (environment.ts), loaded on first use: the engine, its libraries and the
 * base environment are about 1.5 MiB of heap and a few hundred milliseconds of start-up that a
 * server with no admission policy, webhook match condition, CRD validation rule or CEL in its
 * authentication/authorization configuration never needs. Everything outside server/cel/ reaches
 * the environment's values (classes, functions) through here; types are imported as types.
 */
type CelEnvironment = typeof import('./environment');

let environment: CelEnvironment | undefined;

export function celEnvironment(): CelEnvironment {
  environment ??= require('./environment') as CelEnvironment;
  return environment;
}
