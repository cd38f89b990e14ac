/** The batch throttle: a burst at once, then batches at the rate; the webhook's is on by default, as the reference's. */
import { throttled } from '../../../server/audit/throttle';
import { parseFlags } from '../../../server/config/flags';

test('a burst goes at once, the rest at qps', async () => {
  const sentAt: number[] = [];
  const started = performance.now();
  const send = throttled<number>(async () => void sentAt.push(performance.now() - started), { qps: 20, burst: 2 });
  for (let i = 0; i < 5; i++) await send([i]);
  expect(sentAt[1]).toBeLessThan(30);
  // Three more at 50 ms each.
  expect(sentAt[4]).toBeGreaterThanOrEqual(140);
  expect(sentAt[4]).toBeLessThan(1000);
});

test('the flags: the webhook throttled at 10 a second, 15 at once; the log not', () => {
  const parsed = parseFlags([
    '--audit-log-batch-throttle-enable',
    '--audit-log-batch-throttle-qps=2.5',
    '--audit-log-batch-throttle-burst=3',
  ]);
  if (!('options' in parsed)) throw new Error('help');
  expect(parsed.options.audit.webhookThrottle).toEqual({ enabled: true, qps: 10, burst: 15 });
  expect(parsed.options.audit.logThrottle).toEqual({ enabled: true, qps: 2.5, burst: 3 });
  expect(() => parseFlags(['--audit-webhook-batch-throttle-qps=fast'])).toThrow(
    'invalid argument "fast" for "--audit-webhook-batch-throttle-qps" flag: not a non-negative number',
  );
});
