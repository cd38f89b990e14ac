/**
 * RemoteRequestHeaderUID at start-up: `--requestheader-uid-headers` needs the gate (on by
 * default in 1.34), and then must name X-Remote-Uid, as the reference's request-header options
 * check it. The server refuses to start with one line, exit code 2.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, failingStart } from '../../helpers/capstan-process';

jest.setTimeout(60_000);

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'capstan-uid-headers-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const start = (...flags: string[]) => failingStart(['--data-dir', join(dir, 'data'), '--secure-port', '0', ...flags]);

it('with the gate off, the flag is refused', async () => {
  const result = await start(
    '--feature-gates=RemoteRequestHeaderUID=false',
    '--requestheader-uid-headers=X-Remote-Uid',
  );
  expect(result.code).toBe(2);
  expect(result.lastLine).toContain(
    '--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled',
  );
});

it('with the gate on, the standard header must be among them', async () => {
  const result = await start('--requestheader-uid-headers=X-Proxy-Uid');
  expect(result.code).toBe(2);
  expect(result.lastLine).toContain(
    '--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header - API aggregation will not work',
  );
});
