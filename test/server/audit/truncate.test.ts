/** Truncation in front of a backend, as the reference's truncate plugin: objects cut first, then the event dropped; batches split by size. */
import type { AuditBackend } from '../../../server/audit/audit-backend';
import type { AuditEvent } from '../../../server/audit/record/event';
import { truncatingBackend } from '../../../server/audit/truncate';
import { parseFlags } from '../../../server/config/flags';

const base: AuditEvent = {
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'RequestResponse',
  auditID: 'a',
  stage: 'ResponseComplete',
  requestURI: '/api/v1/configmaps',
  verb: 'create',
  user: { username: 'alice' },
  sourceIPs: ['127.0.0.1'],
  requestReceivedTimestamp: '2026-11-24T00:00:00.000000Z',
  stageTimestamp: '2026-11-24T00:00:00.000001Z',
};

function recording() {
  const batches: AuditEvent[][] = [];
  const backend: AuditBackend = {
    name: 'log',
    send: async (events) => void batches.push([...events]),
    close: async () => {},
  };
  return { backend, batches };
}

test('an event too large loses its objects and says so; one still too large is dropped and counted', async () => {
  const { backend, batches } = recording();
  let dropped = 0;
  const truncating = truncatingBackend(
    backend,
    { maxEventSize: 1024, maxBatchSize: 1 << 20 },
    (count) => (dropped += count),
  );
  const big = { ...base, requestObject: { data: 'x'.repeat(2000) }, responseObject: { data: 'y' } };
  const hopeless = { ...base, auditID: 'b', level: 'Metadata' as const, requestURI: `/${'z'.repeat(2000)}` };
  await truncating.send([big, hopeless, base]);
  expect(dropped).toBe(1);
  expect(batches).toHaveLength(1);
  const [cut, whole] = batches[0];
  expect(cut).not.toHaveProperty('requestObject');
  expect(cut).not.toHaveProperty('responseObject');
  expect(cut.annotations).toEqual({ 'audit.k8s.io/truncated': 'true' });
  expect(whole).toEqual(base);
});

test('batches are split so that none passes the maximum batch size', async () => {
  const { backend, batches } = recording();
  const size = Buffer.byteLength(JSON.stringify(base));
  const truncating = truncatingBackend(backend, { maxEventSize: 10_000, maxBatchSize: size * 2 }, () => {});
  await truncating.send([base, base, base, base, base]);
  expect(batches.map((batch) => batch.length)).toEqual([2, 2, 1]);
});

test('the flags: off by default, the reference`s sizes, each size on its own', () => {
  const parsed = parseFlags(['--audit-webhook-truncate-max-event-size=2048', '--audit-webhook-truncate-enabled']);
  if (!('options' in parsed)) throw new Error('help');
  expect(parsed.options.audit.logTruncate).toEqual({ enabled: false, maxEventSize: 102_400, maxBatchSize: 10_485_760 });
  expect(parsed.options.audit.webhookTruncate).toEqual({ enabled: true, maxEventSize: 2048, maxBatchSize: 10_485_760 });
});
