/**
 * Workload specs as kube-apiserver 1.34.4 stored them (fixtures/workload-defaults.json: the
 * object sent, a StatefulSet with the empty service name the reference answers with either way,
 * and the spec it answered, its template left out). Go defaults a string field it
 * finds empty as one left out (a strategy type, a StatefulSet's pod management policy and
 * claim retention), and gives a StatefulSet's rolling update its parameters only when it
 * chose the type itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

interface Case {
  readonly name: string;
  readonly resource: string;
  readonly object: KubeObject;
  readonly storedSpec: Record<string, unknown>;
}

const CASES: readonly Case[] = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'workload-defaults.json'), 'utf8'));

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, { resource, object, storedSpec }) => {
  const sent = { ...object, metadata: { ...object.metadata, namespace: 'default' } } as KubeObject;
  const stored = created(typeOf('apps', resource), sent, {});
  expect(stored.errors).toEqual([]);
  const { template: _template, ...spec } = stored.object.spec as Record<string, unknown>;
  expect(spec).toEqual(storedSpec);
});
