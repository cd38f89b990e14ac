/**
 * `-v=3` logs every request as the reference's httplog does; below 3 nothing is logged.
 */
import express from 'express';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withAuditId } from '../../../server/audit/with-audit-id';
import { goDuration } from '../../../server/config/duration';
import { withRequestLog } from '../../../server/http/with-request-log';
import { retryUntil } from '../../helpers/wait-for';

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { 'User-Agent': 'kubectl/v1.33.0', 'Audit-ID': 'abc-123' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('a line for every request, in klog and httplog form', async () => {
  const lines: string[] = [];
  const app = express();
  app.use(withAuditId(), withRequestLog({ write: (line) => lines.push(line) }));
  app.get('/api/v1/namespaces', (_req, res) => res.status(200).json({}));
  app.use((_req, res) => res.status(404).end());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    expect(await get(port, '/api/v1/namespaces?limit=5')).toBe(200);
    expect(await get(port, '/nowhere')).toBe(404);
    // The line is written once the answer closed, which may follow the client's end by a tick.
    await retryUntil(
      () => lines.length,
      (count) => count >= 2,
      500,
      10,
    );
  } finally {
    server.close();
  }
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(
    /^I\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ httplog\.go:134\] "HTTP" verb="GET" URI="\/api\/v1\/namespaces\?limit=5" latency="[\d.]+(ns|µs|ms|s)" userAgent="kubectl\/v1\.33\.0" audit-ID="abc-123" srcIP="127\.0\.0\.1:\d+" resp=200\n$/,
  );
  expect(lines[1]).toContain('URI="/nowhere"');
  expect(lines[1]).toMatch(/resp=404\n$/);
});

test.each([
  [999, '999ns'],
  [1_500, '1.5µs'],
  [2_345_678, '2.345678ms'],
  [1_500_000_000, '1.5s'],
  [61_000_000_000, '1m1s'],
  [3_600_000_000_000, '1h0m0s'],
])('%d ns prints as Go prints it: %s', (nanoseconds, printed) => {
  expect(goDuration(nanoseconds)).toBe(printed);
});
