/**
 * Updates held to pod rules that keep what a stored object already has, as kube-apiserver
 * 1.34.4 answered them (each fixture: the object stored, the one the update sent, and the
 * answer), for pods and Deployments:
 *
 * - fixtures/pod-host-sysctls-on-update.json: sysctls of a namespace the pod shares with its
 *   node. An object that already sets one may keep any, even add others; one stored without may
 *   not gain one, by a new sysctl or by a host namespace turned on.
 * - fixtures/pod-user-namespace-on-update.json: a pod with its own user namespace (hostUsers
 *   false). An object whose containers already have volume devices may keep them, even add
 *   more, but still joins no host namespace; one stored without may not gain them, by a device
 *   added or by leaving the host's users.
 * - fixtures/pod-security-options-on-update.json: rules that keep nothing of the stored object,
 *   for contrast: a container's or the pod's Windows options and a container's privileges it may
 *   not gain yet is given are judged on an update as on a create (a pod's besides its immutable
 *   spec).
 *
 * An object the rule now refuses was stored through a server without it (`storedThrough:
 * capstan`, before it had the rule).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Case {
  readonly group: string;
  readonly resource: string;
  readonly object: KubeObject;
  /** Which server stored `object`: capstan (without the rule) for objects the rule now refuses. */
  readonly storedThrough: 'reference' | 'capstan';
  /** The object as the update sent it: its annotations and spec replace the stored ones. */
  readonly update: KubeObject;
  readonly code: number;
  readonly causes: readonly string[];
}

const FIXTURES = [
  'pod-host-sysctls-on-update.json',
  'pod-user-namespace-on-update.json',
  'pod-security-options-on-update.json',
];

describe.each(FIXTURES)('%s', (fixture) => {
  const recorded = Object.entries(
    JSON.parse(readFileSync(join(__dirname, 'fixtures', fixture), 'utf8')) as Record<string, Case>,
  );

  test.each(recorded)('%s', (_name, { group, resource, object, storedThrough, update, code, causes }) => {
    const type = typeOf(group, resource);
    const stored = created(type, { ...object, metadata: { ...object.metadata, namespace: 'default' } }, {});
    // What the reference would not have stored is refused on create now, and kept as it was written.
    if (storedThrough === 'reference') expect(stored.errors).toEqual([]);
    else expect(stored.errors).not.toEqual([]);
    const written = updated(
      type,
      stored.object,
      (next) => {
        next.metadata.annotations = structuredClone(update.metadata.annotations);
        next.spec = structuredClone(update.spec);
      },
      {},
    );
    expect(written.errors.map((error) => error.split('\n')[0])).toEqual(code < 300 ? [] : causes);
  });
});
