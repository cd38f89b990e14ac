/**
 * Pod updates of `activeDeadlineSeconds` and `terminationGracePeriodSeconds` against what
 * kube-apiserver 1.34.4 answered (fixtures/pod-deadline-update.json: the members the pod was
 * created with, the members the update changed, null where it removed one, and the answer's
 * causes, each cut at its first line). A deadline may be set or lowered, never raised or
 * removed; a grace period may change only from a negative value to 1. A deadline out of range
 * or raised ends the update's checks there, as the reference's do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { podUpdateCauses } from './recorded-pod-update';

interface Case {
  readonly stored: Record<string, unknown>;
  readonly changed: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded: Readonly<Record<string, Case>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'pod-deadline-update.json'), 'utf8'),
);

test.each(Object.entries(recorded))('%s', (_id, { stored, changed, code, causes }) => {
  expect(podUpdateCauses(stored, changed)).toEqual(code < 300 ? [] : causes);
});
