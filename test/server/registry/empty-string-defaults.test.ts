/**
 * Objects of many kinds sent with a defaulted field as `""` (or a defaulted list as `[]`), as
 * kube-apiserver 1.34.4 answered them (fixtures/empty-string-defaults.json, a dry-run create of
 * each): where Go's defaulting tests a plain string (or list) for emptiness, the empty value is
 * defaulted as if left out, and the write passes with the values read back here; where the Go
 * field is a pointer, `""` is kept and refused with the causes listed (a StorageClass's empty
 * reclaim policy excepted, which the reference lets through), beside unknown values of the same
 * fields and an EndpointSlice's other port rules. The containers' own strings are in
 * container-empty-defaults.test.ts. A Namespace's status phase is defaulted on every write, so a
 * status update sending it empty stores Active (fixtures/namespace-status-empty-phase.json).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Case {
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly object: KubeObject;
  readonly code: number;
  /** For a stored object: the value at each dotted path of the response body (null: absent). */
  readonly stored?: Readonly<Record<string, unknown>>;
  /** For a refused one: `<field>: <message>`, as the reference's Status listed them. */
  readonly causes?: readonly string[];
}

const CASES: readonly Case[] = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'empty-string-defaults.json'), 'utf8'),
);

const valueAt = (object: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], object) ??
  null;

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const type = typeOf(c.group, c.resource, c.version);
  const namespace = type.namespaced ? { namespace: 'default' } : {};
  const sent = { ...c.object, metadata: { ...c.object.metadata, ...namespace } } as KubeObject;
  const { object, errors } = created(type, sent, {});
  if (c.code !== 201) {
    expect(errors).toEqual(c.causes);
    return;
  }
  expect(errors).toEqual([]);
  const stored = Object.fromEntries(Object.keys(c.stored ?? {}).map((path) => [path, valueAt(object, path)]));
  expect(stored).toEqual(c.stored);
});

test('a Namespace status update with an empty phase', () => {
  const recorded = JSON.parse(
    readFileSync(join(__dirname, 'fixtures', 'namespace-status-empty-phase.json'), 'utf8'),
  ) as { readonly sentStatus: Record<string, unknown>; readonly code: number; readonly storedStatus: unknown };
  expect(recorded.code).toBe(200);
  const type = typeOf('', 'namespaces');
  const { object: old } = created(type, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } }, {});
  const { object, errors } = updated(
    type,
    old,
    (next) => void (next.status = { ...recorded.sentStatus }),
    {},
    'status',
  );
  expect(errors).toEqual([]);
  expect(object.status).toEqual(recorded.storedStatus);
});
