/**
 * A collection's kept item texts (ListedTexts) last while lists keep coming within the idle
 * window of one another, and are let go once none has come for that long.
 */
import { ListedTexts } from '../../../server/handlers/listed-texts';

const IDLE_MS = 5_000;

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

test('texts stay while lists keep coming, and go after a quiet idle window', () => {
  const listed = new ListedTexts(IDLE_MS);
  const source = {};
  listed.forList().set(source, '{"a":1}');

  // Lists 4 s apart: each keeps the texts for another window.
  for (let list = 0; list < 5; list++) {
    jest.advanceTimersByTime(4_000);
    expect(listed.forList().get(source)).toBe('{"a":1}');
  }

  jest.advanceTimersByTime(IDLE_MS - 1);
  expect(listed.forList().get(source)).toBe('{"a":1}');
  jest.advanceTimersByTime(IDLE_MS);
  expect(listed.forList().get(source)).toBeUndefined();
});

test('no timer is left once the texts are let go', () => {
  const listed = new ListedTexts(IDLE_MS);
  listed.forList();
  expect(jest.getTimerCount()).toBe(1);
  jest.advanceTimersByTime(IDLE_MS);
  expect(jest.getTimerCount()).toBe(0);
});
