/**
 * metaTime formats a time as metav1.Time is written, and keeps recent seconds' texts for the
 * timestamps that share them: a kept text must never stand for another second.
 */
import { metaTime, metaTimeAt } from '../../api/objects';

describe('metaTime', () => {
  it('writes RFC 3339 to the second, in UTC, dropping the milliseconds', () => {
    expect(metaTime(new Date('2026-12-02T06:05:07.123Z'))).toBe('2026-12-02T06:05:07Z');
    expect(metaTime(new Date('1969-12-31T23:59:59.500Z'))).toBe('1969-12-31T23:59:59Z');
  });

  it('gives each second its own text, whatever order the times come in', () => {
    const second = Date.parse('2026-12-02T06:05:07Z');
    const times = [0, 999, 1000, 999, -1, 0, 60_000, 1].map((offset) => second + offset);
    expect(times.map((time) => metaTime(new Date(time)))).toEqual([
      '2026-12-02T06:05:07Z',
      '2026-12-02T06:05:07Z',
      '2026-12-02T06:05:08Z',
      '2026-12-02T06:05:07Z',
      '2026-12-02T06:05:06Z',
      '2026-12-02T06:05:07Z',
      '2026-12-02T06:06:07Z',
      '2026-12-02T06:05:07Z',
    ]);
  });

  it('writes a whole number of seconds since the epoch as the same text', () => {
    const second = Date.parse('2026-12-02T06:05:07Z') / 1000;
    expect([metaTimeAt(second), metaTimeAt(second + 1), metaTimeAt(-1)]).toEqual([
      '2026-12-02T06:05:07Z',
      '2026-12-02T06:05:08Z',
      '1969-12-31T23:59:59Z',
    ]);
  });

  it('keeps seconds that share a kept slot apart (a whole multiple of 256 s, or of 2^32 s, between them)', () => {
    const second = Date.parse('2026-12-02T06:05:07Z') / 1000;
    const seconds = [second, second + 256, second, second - 256 * 1000, second + 2 ** 32, second];
    expect(seconds.map(metaTimeAt)).toEqual(
      seconds.map((at) => new Date(at * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')),
    );
    expect(new Set(seconds.map(metaTimeAt)).size).toBe(4);
  });

  it('refuses an invalid date, even right after a valid one', () => {
    metaTime(new Date(0));
    expect(() => metaTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
