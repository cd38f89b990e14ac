import { firstDecisive, type Decider } from '../../server/first-decisive';

/** Answers are strings: "yes" decides, anything else is a note. */
const YES: Decider<string> = {
  decides: (answer) => answer === 'yes',
  noteOf: (answer) => answer,
  undecided: (notes) => `none: ${notes.join(', ')}`,
};

test('a chain of synchronous steps answers without a promise, at the first that decides', () => {
  const asked: string[] = [];
  const ask = (step: string) => (asked.push(step), step);
  expect(firstDecisive(['a', 'yes', 'b'], ask, YES)).toBe('yes');
  expect(asked).toEqual(['a', 'yes']);
  expect(firstDecisive(['a', 'b'], ask, YES)).toBe('none: a, b');
});

test('after an asynchronous step the rest are asked in order, notes kept in order', async () => {
  const ask = (step: string) => (step.startsWith('async ') ? Promise.resolve(step.slice(6)) : step);
  const decided = firstDecisive(['a', 'async b', 'c', 'async yes', 'd'], ask, YES);
  expect(decided).toBeInstanceOf(Promise);
  expect(await decided).toBe('yes');
  expect(await firstDecisive(['a', 'async b', 'async c', 'd'], ask, YES)).toBe('none: a, b, c, d');
  expect(await firstDecisive(['async yes'], ask, YES)).toBe('yes');
});
