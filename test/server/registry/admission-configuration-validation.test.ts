/**
 * Admission configuration against what kube-apiserver 1.34.4 answered
 * (fixtures/admission-configuration-validation.json; each update's stored object was written
 * straight into the reference's etcd, and the update sent `changes` in its first webhook or its
 * policy's matchConstraints, or its spec when `into` says so, with a new label).
 *
 * - A policy's matchConstraints, a binding's matchResources and paramRef selector (both policy
 *   kinds) are checked strictly, values included, on create and update alike.
 * - A webhook's namespaceSelector and objectSelector are checked strictly on create; an update
 *   of a configuration whose stored selectors are invalid leaves their values unchecked.
 * - A webhook's admissionReviewVersions: unique DNS-1035 labels, one of them a version the
 *   server sends, unless a stored webhook already named none such.
 * - A webhook's failure, match and reinvocation policies and its timeout.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { admissionRegistrationKinds } from '../../../server/registry/kinds/admissionregistration';
import { created, updated } from './gated-fields/write-path';

interface Answer {
  readonly code: number;
  readonly causes: readonly string[];
}

interface Recorded {
  readonly creates: Readonly<Record<string, Answer & { readonly object: KubeObject }>>;
  readonly updates: Readonly<
    Record<string, Answer & { readonly stored: KubeObject; readonly changes: object; readonly into?: 'spec' }>
  >;
}

const recorded: Recorded = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'admission-configuration-validation.json'), 'utf8'),
);

/** The kind's type, MutatingAdmissionPolicy's included (served only when its beta is switched on). */
function typeFor(object: KubeObject) {
  const type = admissionRegistrationKinds.find((candidate) => candidate.kind === object.kind);
  if (type === undefined) throw new Error(`no kind ${object.kind} in admissionregistration.k8s.io`);
  return type;
}

/** Where an update's changes go: the spec when `into` says so, else the first webhook or a policy's matchConstraints. */
function changedPart(object: KubeObject, into: 'spec' | undefined): Record<string, unknown> {
  if (into === 'spec') return object.spec as Record<string, unknown>;
  const webhooks = object.webhooks as Record<string, unknown>[] | undefined;
  return webhooks?.[0] ?? (object.spec as Record<string, Record<string, unknown>>).matchConstraints ?? {};
}

const causesOf = ({ code, causes }: Answer) => (code < 300 ? [] : causes);

test.each(Object.entries(recorded.creates))('create %s', (_id, answer) => {
  expect(created(typeFor(answer.object), answer.object, {}).errors).toEqual(causesOf(answer));
});

test.each(Object.entries(recorded.updates))('update %s', (_id, answer) => {
  const type = typeFor(answer.stored);
  const stored = created(type, answer.stored, {}).object;
  const update = updated(
    type,
    stored,
    (next) => {
      Object.assign(changedPart(next, answer.into), structuredClone(answer.changes));
      next.metadata.labels = { changed: 'yes' };
    },
    {},
  );
  expect(update.errors).toEqual(causesOf(answer));
});
