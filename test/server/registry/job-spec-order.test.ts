/**
 * Jobs created with several spec fields wrong at once, as kube-apiserver 1.34.4 answered them
 * (fixtures/job-spec-order.json, a dry-run create of each): the causes list in Go's order of
 * fields (counts, deadline, backoff, TTL, per-index limits, managedBy, completion mode, the rules
 * needing indexed completion, pod replacement), and an activeDeadlineSeconds of 0 is let through.
 * A create with completionMode Indexed, a success policy and no completions was left out: it made
 * the reference panic.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

interface Case {
  readonly name: string;
  readonly object: KubeObject;
  readonly code: number;
  /** For a refused one: `<field>: <message>`, as the reference's Status listed them. */
  readonly causes?: readonly string[];
}

const CASES: readonly Case[] = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'job-spec-order.json'), 'utf8'));

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const sent = { ...c.object, metadata: { ...c.object.metadata, namespace: 'default', uid: 'u' } } as KubeObject;
  const { errors } = created(typeOf('batch', 'jobs'), sent, {});
  expect(errors).toEqual(c.code === 201 ? [] : c.causes);
});
