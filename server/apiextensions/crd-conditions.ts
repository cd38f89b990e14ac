/**
 * The status conditions of a CRD as the reference's naming and establishing controllers set
 * them: each requested name (plural, singular, short names, kind, list kind) is accepted when
 * it is already this CRD's accepted name or no other CRD of the group has accepted it; a
 * conflict keeps the old accepted name and says so in `NamesAccepted` (PluralConflict,
 * SingularConflict, ShortNamesConflict, KindConflict, ListKindConflict). A CRD whose names are
 * accepted becomes `Established`, and stays so.
 */
import {
  conditionOf,
  type CustomResourceDefinition,
  type CustomResourceDefinitionCondition,
  type CustomResourceDefinitionNames,
} from './crd-types';
import { deepEqual } from '../status/field-errors';
import { metaTime } from '../../api/objects';
import { goAggregate } from '../../api/go-json-syntax';

export const NAMES_ACCEPTED = 'NamesAccepted';
export const ESTABLISHED = 'Established';
export const TERMINATING = 'Terminating';

interface UsedNames {
  readonly resources: ReadonlySet<string>;
  readonly kinds: ReadonlySet<string>;
}

/** The names other CRDs of the same group have accepted (the CRD's own accepted names are equal to themselves anyway). */
function usedNames(group: string, all: readonly CustomResourceDefinition[], self: string | undefined): UsedNames {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const crd of all) {
    if (crd.spec.group !== group || crd.metadata.name === self) continue;
    const accepted = crd.status?.acceptedNames;
    if (accepted === undefined) continue;
    for (const name of [accepted.plural, accepted.singular ?? '', ...(accepted.shortNames ?? [])]) resources.add(name);
    kinds.add(accepted.kind);
    kinds.add(accepted.listKind ?? '');
  }
  return { resources, kinds };
}

/** The reference's equalToAcceptedOrFresh: the conflict text, or undefined when the name may be taken. */
function conflict(requested: string, accepted: string, used: ReadonlySet<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `${JSON.stringify(requested)} is already in use`;
}

export interface NamingResult {
  readonly acceptedNames: CustomResourceDefinitionNames;
  readonly namesAccepted: CustomResourceDefinitionCondition;
  readonly established: CustomResourceDefinitionCondition;
}

/**
 * `installing`: an Established condition not yet True stays False, `Installing`, as the
 * reference's naming controller writes it when its establishing controller is to wait (the
 * HA guard of `--apiserver-count` over 1); otherwise it becomes True at once.
 */
export function calculateNamesAndConditions(
  crd: CustomResourceDefinition,
  all: readonly CustomResourceDefinition[],
  installing = false,
): NamingResult {
  const used = usedNames(crd.spec.group, all, crd.metadata.name);
  const requested = crd.spec.names;
  const accepted: CustomResourceDefinitionNames = crd.status?.acceptedNames ?? { plural: '', kind: '' };
  const next: CustomResourceDefinitionNames = { ...accepted };
  let failure: { reason: string; message: string } | undefined;
  const check = (reason: string, message: string | undefined, accept: () => void) => {
    if (message === undefined) accept();
    else failure = { reason, message };
  };
  check(
    'PluralConflict',
    conflict(requested.plural, accepted.plural, used.resources),
    () => (next.plural = requested.plural),
  );
  check('SingularConflict', conflict(requested.singular ?? '', accepted.singular ?? '', used.resources), () => {
    if (requested.singular) next.singular = requested.singular;
    else delete next.singular;
  });
  if (!deepEqual(requested.shortNames ?? [], accepted.shortNames ?? [])) {
    const mine = new Set(accepted.shortNames ?? []);
    const problems = (requested.shortNames ?? [])
      .filter((name) => !mine.has(name))
      .map((name) => conflict(name, '', used.resources))
      .filter((message): message is string => message !== undefined);
    const message = problems.length === 0 ? undefined : goAggregate(problems);
    check('ShortNamesConflict', message, () => {
      if (requested.shortNames && requested.shortNames.length > 0) next.shortNames = requested.shortNames;
      else delete next.shortNames;
    });
  }
  check('KindConflict', conflict(requested.kind, accepted.kind, used.kinds), () => (next.kind = requested.kind));
  check('ListKindConflict', conflict(requested.listKind ?? '', accepted.listKind ?? '', used.kinds), () => {
    if (requested.listKind) next.listKind = requested.listKind;
  });
  if (requested.categories && requested.categories.length > 0) next.categories = requested.categories;
  else delete next.categories;

  const namesAccepted: CustomResourceDefinitionCondition =
    failure === undefined
      ? { type: NAMES_ACCEPTED, status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }
      : { type: NAMES_ACCEPTED, status: 'False', ...failure };
  const previous = conditionOf(crd, ESTABLISHED);
  let established: CustomResourceDefinitionCondition = previous ?? {
    type: ESTABLISHED,
    status: 'False',
    reason: 'NotAccepted',
    message: 'not all names are accepted',
  };
  // The reference sets Installing here and True a moment later in its establishing
  // controller; unless the HA guard holds it, both happen in this one step, since the type
  // is served as soon as it is.
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = installing
      ? {
          type: ESTABLISHED,
          status: 'False',
          reason: 'Installing',
          message: 'the initial names have been accepted',
        }
      : {
          type: ESTABLISHED,
          status: 'True',
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        };
  }
  return { acceptedNames: next, namesAccepted, established };
}

/**
 * Sets a condition as the reference's SetCRDCondition does: a changed status moves
 * lastTransitionTime; same status keeps it and takes the new reason and message. Mutates `crd`.
 */
export function setCondition(
  crd: CustomResourceDefinition,
  condition: CustomResourceDefinitionCondition,
  now: Date,
): void {
  const status = (crd.status ??= {});
  const conditions = (status.conditions ??= []);
  const index = conditions.findIndex((existing) => existing.type === condition.type);
  const stamp = metaTime(now);
  const existing = index < 0 ? undefined : conditions[index];
  const lastTransitionTime =
    existing !== undefined && existing.status === condition.status ? (existing.lastTransitionTime ?? stamp) : stamp;
  // Members in the order the reference writes them.
  const next = {
    type: condition.type,
    status: condition.status,
    lastTransitionTime,
    reason: condition.reason,
    message: condition.message,
  };
  if (index < 0) conditions.push(next);
  else conditions[index] = next;
}
