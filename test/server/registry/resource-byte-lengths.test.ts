/**
 * The resource.k8s.io kinds' length limits count UTF-8 bytes, as Go's len does, and a map key
 * too long to print whole is cut in the middle at a byte offset, even inside a character, whose
 * stray bytes the reference's JSON shows as one U+FFFD each. fixtures/resource-byte-lengths.json
 * holds what kube-apiserver 1.34.4 answered to slices, classes and claims (and a claim's status)
 * with multi-byte characters on either side of each limit: pool names, driver names (also
 * refused above 63 bytes, and accepted in capitals as the reference lowercases them first),
 * attribute values, attribute, capacity and counter names, a device's network data; and a pod's
 * CSI volume driver, whose rule the resource kinds share.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Create {
  readonly name: string;
  readonly group: string;
  readonly resource: string;
  /** The feature gates the reference ran with, where they differ from its defaults. */
  readonly gates?: Readonly<Record<string, boolean>>;
  readonly object: KubeObject;
  /** `<field>: <message>`, as the reference's Status listed them; empty when it accepted the object. */
  readonly causes: readonly string[];
}

interface StatusWrite {
  readonly name: string;
  readonly group: string;
  readonly resource: string;
  readonly old: KubeObject;
  readonly status: KubeObject['status'];
  readonly causes: readonly string[];
}

const FIXTURE = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'resource-byte-lengths.json'), 'utf8')) as {
  creates: Create[];
  statusWrites: StatusWrite[];
};

test.each(FIXTURE.creates.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const type = typeOf(c.group, c.resource);
  const namespace = type.namespaced ? { namespace: 'default' } : {};
  const object = { ...c.object, metadata: { ...c.object.metadata, ...namespace } } as KubeObject;
  expect(created(type, object, c.gates ?? {}).errors).toEqual(c.causes);
});

test.each(FIXTURE.statusWrites.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const { errors } = updated(typeOf(c.group, c.resource), c.old, (next) => (next.status = c.status), {}, 'status');
  expect(errors).toEqual(c.causes);
});
