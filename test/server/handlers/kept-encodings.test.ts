/**
 * A collection's kept item encodings (KeptEncodings) last while lists keep coming within the
 * idle window of one another, and are let go once none has come for that long.
 */
import { KeptEncodings } from '../../../server/handlers/kept-encodings';

const IDLE_MS = 5_000;

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

test('encodings stay while lists keep coming, and go after a quiet idle window', () => {
  const listed = new KeptEncodings(IDLE_MS);
  const source = {};
  listed.forAnswer().texts.set(source, '{"a":1}');
  listed.forAnswer().messages.set(source, Buffer.from('a'));

  // Lists 4 s apart: each keeps the texts for another window.
  for (let list = 0; list < 5; list++) {
    jest.advanceTimersByTime(4_000);
    expect(listed.forAnswer().texts.get(source)).toBe('{"a":1}');
  }

  jest.advanceTimersByTime(IDLE_MS - 1);
  expect(listed.forAnswer().texts.get(source)).toBe('{"a":1}');
  jest.advanceTimersByTime(IDLE_MS);
  expect(listed.forAnswer().texts.get(source)).toBeUndefined();
  expect(listed.forAnswer().messages.get(source)).toBeUndefined();
});

test('no timer is left once the encodings are let go', () => {
  const listed = new KeptEncodings(IDLE_MS);
  listed.forAnswer();
  expect(jest.getTimerCount()).toBe(1);
  jest.advanceTimersByTime(IDLE_MS);
  expect(jest.getTimerCount()).toBe(0);
});
