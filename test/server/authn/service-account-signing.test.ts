/**
 * The start-up warnings of the reference's service-account options: with
 * `--service-account-extend-token-expiration` on (the default), a lifetime cap that cuts the
 * kubelet's year-long tokens short is reported, and one under the kubelet's 3607 s breaks its
 * safe transition.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { parseFlags } from '../../../server/config/flags';
import { serviceAccountSigningOf } from '../../../server/service-account-signing';

let dir: string;
let keyFile: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-sa-signing-'));
  keyFile = join(dir, 'sa.key');
  writeFileSync(
    keyFile,
    generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function warningsOf(...flags: string[]): Promise<string[]> {
  const parsed = parseFlags(['--data-dir', dir, `--service-account-signing-key-file=${keyFile}`, ...flags]);
  if (!('options' in parsed)) throw new Error('unexpected --help or --version');
  const warnings: string[] = [];
  await serviceAccountSigningOf(parsed.options, new Registry(), (message) => warnings.push(message));
  return warnings;
}

test('a cap under a year, with the extension on, is warned of', async () => {
  expect(await warningsOf('--service-account-max-token-expiration=2h')).toEqual([
    'service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to 2h0m0s',
  ]);
  expect(await warningsOf('--service-account-max-token-expiration=1h')).toEqual([
    'service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than 3607 seconds (currently 1h0m0s)',
    'service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to 1h0m0s',
  ]);
});

test('no cap, a cap of a year or more, or no extension: nothing to warn of', async () => {
  expect(await warningsOf()).toEqual([]);
  expect(await warningsOf('--service-account-max-token-expiration=8760h')).toEqual([]);
  expect(
    await warningsOf('--service-account-max-token-expiration=2h', '--service-account-extend-token-expiration=false'),
  ).toEqual([]);
});
