import { goTimeParseError, RFC3339_LAYOUT, RFC3339_MICRO_LAYOUT } from '../../../server/validation/go-time';

// Go's time.Parse as metav1.Time and metav1.MicroTime call it; the texts as kube-apiserver
// v1.34.4 returns them in its "cannot be handled as" 400s.
describe('metav1.Time and MicroTime parsing', () => {
  it.each([
    '2024-01-01T00:00:00Z',
    '2024-01-01T00:00:00+02:00',
    '2024-01-01T00:00:00.123Z',
    '2024-01-01T1:00:00Z',
    '2024-02-29T23:59:59-07:30',
  ])('Time takes %s', (value) => {
    expect(goTimeParseError(value, RFC3339_LAYOUT)).toBeUndefined();
  });

  it.each([
    ['notatime', 'parsing time "notatime" as "2006-01-02T15:04:05Z07:00": cannot parse "notatime" as "2006"'],
    ['', 'parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"'],
    ['2024-01-01', 'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'],
    [
      '2024-01-01T00:00:00',
      'parsing time "2024-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"',
    ],
    [
      '2024-1-01T00:00:00Z',
      'parsing time "2024-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01"',
    ],
    ['2024-13-01T00:00:00Z', 'parsing time "2024-13-01T00:00:00Z": month out of range'],
    ['2023-02-29T00:00:00Z', 'parsing time "2023-02-29T00:00:00Z": day out of range'],
    ['2024-01-01T24:00:00Z', 'parsing time "2024-01-01T24:00:00Z": hour out of range'],
    ['2024-01-01T00:00:00Zx', 'parsing time "2024-01-01T00:00:00Zx": extra text: "x"'],
  ])('Time refuses %j: %s', (value, message) => {
    expect(goTimeParseError(value, RFC3339_LAYOUT)).toBe(message);
  });

  it('MicroTime wants exactly six fraction digits', () => {
    expect(goTimeParseError('2024-01-01T00:00:00.123456Z', RFC3339_MICRO_LAYOUT)).toBeUndefined();
    expect(goTimeParseError('2024-01-01T00:00:00.123Z', RFC3339_MICRO_LAYOUT)).toBe(
      'parsing time "2024-01-01T00:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
    );
    expect(goTimeParseError('2024-01-01T00:00:00Z', RFC3339_MICRO_LAYOUT)).toBe(
      'parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
  });
});
