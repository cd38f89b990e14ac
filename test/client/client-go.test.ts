/**
 * client-go, the reference client, against a real capstan process: the Go program under
 * test/go writes and reads every served built-in kind through the typed clientset in protobuf,
 * runs a protobuf watch and syncs a protobuf informer; then, with the server's
 * CBORServingAndStorage gate and client-go's ClientsAllowCBOR/ClientsPreferCBOR, does it all
 * again in CBOR. Skipped, saying so, only where no Go toolchain exists.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGoProgram, findGo } from '../helpers/go-programs';
import { startServer, type TestServer } from '../helpers/server';

const go = findGo();
if (go === undefined) {
  console.warn('client-go test skipped: no Go toolchain (looked in /usr/local/go/bin and PATH)');
}
const describeWithGo = go === undefined ? describe.skip : describe;

interface ProgramResult {
  readonly code: number;
  readonly output: string;
}

function runProgram(binary: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ProgramResult> {
  return new Promise((resolve) => {
    execFile(
      binary,
      args,
      { env: { ...process.env, ...env }, timeout: 100_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** Fails with the program's whole output, so a wire mismatch reads as client-go reported it. */
function expectSuccess(result: ProgramResult): void {
  if (result.code !== 0) throw new Error(`client-go program exited ${result.code}:\n${result.output}`);
}

describeWithGo('client-go (the reference client)', () => {
  let buildDir: string;
  let binary: string;
  let server: TestServer;

  beforeAll(async () => {
    buildDir = mkdtempSync(join(tmpdir(), 'capstan-client-go-'));
    binary = join(buildDir, 'clientgo');
    buildGoProgram(go as string, '.', binary);
    server = await startServer({ flags: ['--feature-gates=CBORServingAndStorage=true'] });
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(buildDir, { recursive: true, force: true });
  });

  test('every built-in kind, a watch and an informer in protobuf', async () => {
    expectSuccess(await runProgram(binary, ['-kubeconfig', server.kubeconfig, '-mode', 'protobuf'], {}));
  }, 120_000);

  test('every built-in kind, a watch and an informer in CBOR', async () => {
    const env = { KUBE_FEATURE_ClientsAllowCBOR: 'true', KUBE_FEATURE_ClientsPreferCBOR: 'true' };
    expectSuccess(await runProgram(binary, ['-kubeconfig', server.kubeconfig, '-mode', 'cbor'], env));
  }, 120_000);
});
