/**
 * `@peculiar/x509`, loaded on first need: issuing certificates (server/pki/) and validating
 * certificate signing requests both parse with it, and an ordinary start needs neither.
 */
import { webcrypto } from 'node:crypto';

export type X509Module = typeof import('@peculiar/x509');

export function loadX509(): X509Module {
  // tsyringe, used inside @peculiar/x509, needs the Reflect metadata polyfill first.
  require('reflect-metadata');
  const x509 = require('@peculiar/x509') as X509Module;
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<X509Module['cryptoProvider']['set']>[0]);
  return x509;
}
