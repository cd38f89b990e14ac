/**
 * The reference's unions of authenticators and of authorizers: steps are asked in order until
 * one decides, and what the others said (an authenticator's error, an authorizer's reason) is
 * kept for the answer when none does. A step that answers at once is asked without a promise,
 * so a chain of synchronous steps (client certificates, RBAC from its caches) never waits.
 */

/** How a union reads its steps' answers. */
export interface Decider<Answer> {
  /** Whether the answer ends the chain. */
  decides(answer: Answer): boolean;
  /** What an undeciding answer leaves for the final one, if anything. */
  noteOf(answer: Answer): string | undefined;
  /** The answer when no step decided, from the notes in the steps' order. */
  undecided(notes: readonly string[]): Answer;
}

export function firstDecisive<Step, Answer>(
  steps: readonly Step[],
  ask: (step: Step) => Answer | Promise<Answer>,
  decider: Decider<Answer>,
): Answer | Promise<Answer> {
  const notes: string[] = [];
  for (let i = 0; i < steps.length; i++) {
    const answer = ask(steps[i]);
    if (answer instanceof Promise) return finishAsync(answer, steps.slice(i + 1), ask, decider, notes);
    if (decider.decides(answer)) return answer;
    const note = decider.noteOf(answer);
    if (note !== undefined) notes.push(note);
  }
  return decider.undecided(notes);
}

async function finishAsync<Step, Answer>(
  pending: Promise<Answer>,
  remaining: readonly Step[],
  ask: (step: Step) => Answer | Promise<Answer>,
  decider: Decider<Answer>,
  notes: string[],
): Promise<Answer> {
  let answer = await pending;
  for (let i = 0; ; i++) {
    if (decider.decides(answer)) return answer;
    const note = decider.noteOf(answer);
    if (note !== undefined) notes.push(note);
    if (i === remaining.length) return decider.undecided(notes);
    answer = await ask(remaining[i]);
  }
}
