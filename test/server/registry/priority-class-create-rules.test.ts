/**
 * PriorityClasses created as kube-apiserver 1.34.4 answered them
 * (fixtures/priority-class-create-rules.json, a dry-run create of each): a `system-` name is
 * refused unless it is one of the system classes with its value and not the default, a user's
 * class may not go above one billion, and the preemption policy is checked after both. The
 * answers all come from the kind's validation: the Priority admission plugin only refuses a
 * second default, and a create of a system class as it is answers 409 from storage.
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

const CASES: readonly Case[] = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'priority-class-create-rules.json'), 'utf8'),
);

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const { errors } = created(typeOf('scheduling.k8s.io', 'priorityclasses'), c.object, {});
  expect(errors).toEqual(c.code === 201 ? [] : c.causes);
});
