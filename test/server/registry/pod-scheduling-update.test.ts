/**
 * Pod updates of scheduling fields against what kube-apiserver 1.34.4 answered
 * (fixtures/pod-scheduling-update.json: the extra members the pod was created with, its scheduling
 * members as the update sent them, null where absent, and the answer, each message cut at its first line as the reference appends a Go
 * diff to the forbidden one). Tolerations may only be added (or their tolerationSeconds
 * changed); gates may only be removed; while the stored pod has one, its nodeSelector may gain
 * entries and its required node affinity requirements.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { podUpdateCauses } from './recorded-pod-update';

interface Case {
  readonly stored: Record<string, unknown>;
  readonly scheduling: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded: Readonly<Record<string, Case>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'pod-scheduling-update.json'), 'utf8'),
);

test.each(Object.entries(recorded))('%s', (_id, { stored, scheduling, code, causes }) => {
  expect(podUpdateCauses(stored, scheduling)).toEqual(code < 300 ? [] : causes);
});
