/**
 * Job updates against what kube-apiserver 1.34.4 answered (fixtures/job-spec-update.json: the
 * Job created, the status written to it first where a case has one, the members the update
 * changed, null where it removed one, and the causes of the answer). completionMode,
 * podFailurePolicy, backoffLimitPerIndex, managedBy and successPolicy are fixed at creation
 * (each printed as the reference prints its Go value); an Indexed Job's completions change
 * only with parallelism, and the spec's rules hold for the new counts; the pod template is fixed
 * except, while the Job is suspended and has never started, where its pods may be placed: node
 * affinity, node selector, tolerations, scheduling gates, labels and annotations. The cases
 * named (control) are what stays refused around that exception.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { typeOf } from './gated-fields/write-path';
import { recordedUpdateCauses } from './recorded-update';

interface Case {
  readonly name: string;
  readonly object: KubeObject;
  /** Status members written through the status subresource before the update. */
  readonly status?: Record<string, unknown>;
  readonly changed: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
}

const CASES: readonly Case[] = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'job-spec-update.json'), 'utf8'));

/** The reference prints a template in its internal form, which capstan does not copy. */
const withoutTemplateValue = (cause: string) =>
  cause.replace(
    /^(spec\.template): Invalid value: .*: field is immutable$/,
    '$1: Invalid value: …: field is immutable',
  );

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, { object, status = {}, changed, code, causes }) => {
  const sent = { ...object, metadata: { ...object.metadata, namespace: 'default' } } as KubeObject;
  const storedAs = Object.fromEntries(Object.entries(status).map(([name, value]) => [`status.${name}`, value]));
  const answered = recordedUpdateCauses(typeOf('batch', 'jobs'), sent, { storedAs, changed });
  expect(answered.map(withoutTemplateValue)).toEqual(code < 300 ? [] : causes.map(withoutTemplateValue));
});
