/**
 * `--service-account-signing-endpoint` at start-up, checked as kube-apiserver 1.34.4 checks it
 * (messages recorded from it with the same test signer): first the lifetime bounds and the
 * signing-key conflict, then the signer is dialled and its keys and limits read, and only then
 * the key-file conflict and the ExternalServiceAccountTokenSigner gate, reported together. The
 * server refuses to start with one line, exit code 2.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, failingStart } from '../../helpers/capstan-process';
import { startJwtSigner, type TestJwtSigner } from '../../helpers/jwt-signer';

jest.setTimeout(60_000);

let dir: string;
let signer: TestJwtSigner;
let keyFile: string;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'capstan-signer-startup-'));
  signer = await startJwtSigner(join(dir, 'signer.sock'), { maxTokenExpirationSeconds: 7200 });
  keyFile = join(dir, 'sa.key');
  writeFileSync(
    keyFile,
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  );
});
afterAll(async () => {
  await signer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const start = (...flags: string[]) =>
  failingStart([
    '--data-dir',
    join(dir, 'data'),
    '--secure-port',
    '0',
    `--service-account-signing-endpoint=${signer.socketPath}`,
    ...flags,
  ]);

async function expectRefused(flags: string[], message: string): Promise<void> {
  const result = await start(...flags);
  expect(result.code).toBe(2);
  expect(result.lastLine).toContain(`setting up authentication: ${message}`);
}

it('a signing key file and a signer exclude each other, before the signer is dialled', async () => {
  const fetched = signer.calls.FetchKeys;
  await expectRefused(
    [`--service-account-signing-key-file=${keyFile}`],
    'service-account-signing-key-file and service-account-signing-endpoint are mutually exclusive and cannot be set at the same time',
  );
  expect(signer.calls.FetchKeys).toBe(fetched);
});

it('a lifetime cap outside an hour to 2^32 seconds is refused first', async () => {
  await expectRefused(
    ['--service-account-max-token-expiration=30m'],
    'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds',
  );
});

it('a lifetime cap longer than the signer signs is refused', async () => {
  await expectRefused(
    ['--service-account-max-token-expiration=3h'],
    'service-account-max-token-expiration cannot be set longer than the token expiration supported by service-account-signing-endpoint: 3h0m0s > 2h0m0s',
  );
});

it('public key files and the gate are checked once the signer has answered, and reported together', async () => {
  const fetched = signer.calls.FetchKeys;
  await expectRefused(
    [`--service-account-key-file=${keyFile}`],
    "can't set `--service-account-signing-key-file` and/or `--service-account-key-file` with `--service-account-signing-endpoint` (They are mutually exclusive)",
  );
  await expectRefused(
    ['--feature-gates=ExternalServiceAccountTokenSigner=false'],
    'setting `--service-account-signing-endpoint` requires enabling ExternalServiceAccountTokenSigner feature gate',
  );
  await expectRefused(
    [`--service-account-key-file=${keyFile}`, '--feature-gates=ExternalServiceAccountTokenSigner=false'],
    "[can't set `--service-account-signing-key-file` and/or `--service-account-key-file` with `--service-account-signing-endpoint` (They are mutually exclusive), setting `--service-account-signing-endpoint` requires enabling ExternalServiceAccountTokenSigner feature gate]",
  );
  // As the reference, each of those starts dialled the signer and read its keys first.
  expect(signer.calls.FetchKeys).toBe(fetched + 3);
});

it("a signer whose limits or keys are unusable stops the start with the reference's words", async () => {
  signer.maxTokenExpirationSeconds = 300;
  await expectRefused([], 'max token life supported by external-jwt-signer (300s) is less than acceptable (min 600s)');
  signer.maxTokenExpirationSeconds = 7200;
  signer.refreshHintSeconds = 0;
  await expectRefused(
    [],
    'while setting up external-jwt-signer: while initially filling key cache: while performing initial cache fill: while fetching token verification keys: found invalid refresh hint (0s)',
  );
  signer.refreshHintSeconds = 3600;
});

it('an @ endpoint is an abstract socket, whose name must be a valid one', async () => {
  // The signer is reached under an abstract name through a relay to its socket file.
  const relay = createServer((client) => {
    const upstream = createConnection(signer.socketPath);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(`\0bad name ${process.pid}`, resolve));
  try {
    const fetched = signer.calls.FetchKeys;
    const result = await failingStart([
      '--data-dir',
      join(dir, 'data'),
      '--secure-port',
      '0',
      `--service-account-signing-endpoint=@bad name ${process.pid}`,
    ]);
    expect(result.code).toBe(2);
    expect(result.lastLine).toContain(
      `setting up authentication: invalid value "@bad name ${process.pid}" passed for \`--service-account-signing-endpoint\`, when prefixed with @ must be a valid abstract socket name`,
    );
    expect(signer.calls.FetchKeys).toBe(fetched + 1);
  } finally {
    relay.close();
  }
});
