/**
 * The gRPC client's failure to reach a plugin whose socket is missing or refuses, worded as
 * kube-apiserver 1.34.4 (grpc-go) words it when its deadline passes; recorded from the
 * reference started with `--service-account-signing-endpoint` at a socket that did not exist:
 * `rpc error: code = DeadlineExceeded desc = latest balancer error: connection error: desc =
 * "transport: Error while dialing: dial unix <path>: connect: no such file or directory"`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GrpcStatusError, GrpcUnixClient, grpcStatusLabel } from '../../../storage/grpc/unix-client';

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'capstan-grpc-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function failure(socketPath: string): Promise<GrpcStatusError> {
  const client = new GrpcUnixClient(socketPath);
  try {
    await client.call({ method: '/v1.ExternalJWTSigner/FetchKeys', request: Buffer.alloc(0), timeoutMs: 300 });
  } catch (error) {
    return error as GrpcStatusError;
  } finally {
    client.close();
  }
  throw new Error('the call succeeded');
}

test('a socket that does not exist', async () => {
  const path = join(dir, 'none.sock');
  const error = await failure(path);
  expect(error.codeName).toBe('DeadlineExceeded');
  expect(error.message).toBe(
    `rpc error: code = DeadlineExceeded desc = latest balancer error: connection error: desc = "transport: Error while dialing: dial unix ${path}: connect: no such file or directory"`,
  );
  // The metrics label looks through errors that wrap it.
  expect(grpcStatusLabel(new Error('while fetching', { cause: error }))).toBe('DeadlineExceeded');
});

test('a file that is no socket, and an abstract name no one listens on', async () => {
  const path = join(dir, 'plain-file');
  writeFileSync(path, '');
  expect((await failure(path)).message).toContain(`dial unix ${path}: connect: connection refused`);
  expect((await failure(`\0capstan-none-${process.pid}`)).message).toContain(
    `dial unix @capstan-none-${process.pid}: connect: connection refused`,
  );
});
