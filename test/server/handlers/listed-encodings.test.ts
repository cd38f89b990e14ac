/**
 * A collection's kept item encodings (ListedEncodings) last while lists keep coming within the
 * idle window of one another, and are let go once none has come for that long.
 */
import { ListedEncodings } from '../../../server/handlers/listed-encodings';

const IDLE_MS = 5_000;

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

test('encodings stay while lists keep coming, and go after a quiet idle window', () => {
  const listed = new ListedEncodings(IDLE_MS);
  const source = {};
  listed.forList().texts.set(source, '{"a":1}');
  listed.forList().messages.set(source, Buffer.from('a'));

  // Lists 4 s apart: each keeps the texts for another window.
  for (let list = 0; list < 5; list++) {
    jest.advanceTimersByTime(4_000);
    expect(listed.forList().texts.get(source)).toBe('{"a":1}');
  }

  jest.advanceTimersByTime(IDLE_MS - 1);
  expect(listed.forList().texts.get(source)).toBe('{"a":1}');
  jest.advanceTimersByTime(IDLE_MS);
  expect(listed.forList().texts.get(source)).toBeUndefined();
  expect(listed.forList().messages.get(source)).toBeUndefined();
});

test('no timer is left once the encodings are let go', () => {
  const listed = new ListedEncodings(IDLE_MS);
  listed.forList();
  expect(jest.getTimerCount()).toBe(1);
  jest.advanceTimersByTime(IDLE_MS);
  expect(jest.getTimerCount()).toBe(0);
});
