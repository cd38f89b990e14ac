/**
 * The scheduling a pod update may change, after the reference's ValidatePodUpdate: tolerations
 * may be added (and an existing one's tolerationSeconds changed), scheduling gates may only be
 * removed, and while the stored pod still waits on a gate its nodeSelector may gain entries and
 * its required node affinity may gain requirements (or be set where it had none), so that a
 * controller can narrow where the pod goes before releasing it. Pod (anti-)affinity stays
 * fixed: its labelSelector holds what matchLabelKeys made on create.
 */
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, invalid } from '../status/field-errors';
import { semanticEqual } from './semantic-equality';
import { goNodeSelectorTerm, goNodeSelectorTerms, type NodeSelectorTerm } from './node-selector';
import type { Affinity } from './pod-affinity';
import { tolerationIdentity, validateTolerations, type Toleration } from './pod-scheduling';

type NodeAffinity = NonNullable<Affinity['nodeAffinity']>;

/** The scheduling members of a pod spec this module reads and, in the masked copy, rewrites. */
export interface GatedSchedulingSpec {
  tolerations?: Toleration[] | null;
  schedulingGates?: { name?: string }[] | null;
  nodeSelector?: Record<string, string> | null;
  affinity?: Affinity | null;
}

/**
 * Every stored toleration is still there (its tolerationSeconds may change); then the new list is
 * checked again, so its causes appear twice, as in the reference (which checked the spec before).
 */
export function validateOnlyAddedTolerations(
  next: GatedSchedulingSpec['tolerations'],
  old: GatedSchedulingSpec['tolerations'],
  path: FieldPath,
): FieldError[] {
  const kept = new Set((next ?? []).map(tolerationIdentity));
  if (!(old ?? []).every((toleration) => kept.has(tolerationIdentity(toleration))))
    return [forbidden(path, 'existing toleration can not be modified except its tolerationSeconds')];
  return validateTolerations(next ?? [], path);
}

/**
 * New gates are refused, each at the (last) index it has; among several, the reference's order
 * is a Go map's, so capstan names them in list order.
 */
export function validateOnlyDeletedSchedulingGates(
  next: GatedSchedulingSpec['schedulingGates'],
  old: GatedSchedulingSpec['schedulingGates'],
  path: FieldPath,
): FieldError[] {
  const oldNames = new Set((old ?? []).map((gate) => gate.name ?? ''));
  const added = new Map<string, number>();
  (next ?? []).forEach((gate, i) => {
    const name = gate.name ?? '';
    if (!oldNames.has(name)) added.set(name, i);
  });
  return [...added].map(([name, i]) =>
    forbidden(path.index(i).child('name'), `only deletion is allowed, but found new scheduling gate '${name}'`),
  );
}

/** Go's JSON of a map: keys sorted. */
function sortedKeys(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function nodeSelectorMutationErrors(
  next: Record<string, string> | null | undefined,
  old: Record<string, string>,
  path: FieldPath,
): FieldError[] {
  const kept = Object.entries(old).every(([key, value]) => next?.[key] === value);
  if (kept) return [];
  return [
    invalid(
      path,
      next == null ? null : sortedKeys(next),
      'only additions to spec.nodeSelector are allowed (no mutations or deletions)',
    ),
  ];
}

/** Whether `next` starts with the requirements of `old`, each semantically the same. */
function isPrefixOf(old: readonly unknown[] | null | undefined, next: readonly unknown[] | null | undefined): boolean {
  const oldItems = old ?? [];
  return (
    (next ?? []).length >= oldItems.length &&
    semanticEqual('[]core.NodeSelectorRequirement', (next ?? []).slice(0, oldItems.length), oldItems)
  );
}

/** A term keeps every requirement it had, in place; a term that had none stays empty. */
function onlyAdditions(next: NodeSelectorTerm | null | undefined, old: NodeSelectorTerm | null | undefined): boolean {
  const oldExpressions = old?.matchExpressions ?? [];
  const oldFields = old?.matchFields ?? [];
  if (oldExpressions.length === 0 && oldFields.length === 0)
    return (next?.matchExpressions ?? []).length === 0 && (next?.matchFields ?? []).length === 0;
  return isPrefixOf(oldExpressions, next?.matchExpressions) && isPrefixOf(oldFields, next?.matchFields);
}

function nodeAffinityMutationErrors(
  next: NodeAffinity | null | undefined,
  old: NodeAffinity | null | undefined,
  path: FieldPath,
): FieldError[] {
  const oldRequired = old?.requiredDuringSchedulingIgnoredDuringExecution;
  if (oldRequired == null) return [];
  const oldTerms = oldRequired.nodeSelectorTerms ?? [];
  const nextTerms = next?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? null;
  const termsPath = path.child('requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
  if (oldTerms.length > 0 && oldTerms.length !== (nextTerms?.length ?? 0))
    return [
      invalid(
        termsPath,
        nextTerms === null ? null : goNodeSelectorTerms(nextTerms),
        'no additions/deletions to non-empty NodeSelectorTerms list are allowed',
      ),
    ];
  return oldTerms.flatMap((oldTerm, i) =>
    onlyAdditions(nextTerms?.[i], oldTerm)
      ? []
      : [
          invalid(
            termsPath.index(i),
            goNodeSelectorTerm(nextTerms?.[i]),
            'only additions are allowed (no mutations or deletions)',
          ),
        ],
  );
}

/**
 * For a pod the stored spec of which has scheduling gates: checks the changes of `masked` (the
 * new spec, already a copy) to its nodeSelector and node affinity, then puts the stored ones back
 * in it, so that comparing the rest finds only what may not change at all.
 */
export function maskGatedSchedulingChanges(
  masked: GatedSchedulingSpec,
  old: GatedSchedulingSpec,
  specPath: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  if (!semanticEqual('map[string]string', masked.nodeSelector, old.nodeSelector)) {
    errors.push(
      ...nodeSelectorMutationErrors(masked.nodeSelector, old.nodeSelector ?? {}, specPath.child('nodeSelector')),
    );
    if (old.nodeSelector == null) delete masked.nodeSelector;
    else masked.nodeSelector = old.nodeSelector;
  }
  const oldNodeAffinity = old.affinity?.nodeAffinity ?? undefined;
  const nodeAffinity = masked.affinity?.nodeAffinity ?? undefined;
  if (!semanticEqual('*core.NodeAffinity', nodeAffinity, oldNodeAffinity)) {
    errors.push(
      ...nodeAffinityMutationErrors(nodeAffinity, oldNodeAffinity, specPath.child('affinity', 'nodeAffinity')),
    );
    const affinity = masked.affinity;
    if (affinity == null) {
      if (oldNodeAffinity !== undefined) masked.affinity = { nodeAffinity: oldNodeAffinity };
    } else if (old.affinity == null && affinity.podAffinity == null && affinity.podAntiAffinity == null) {
      delete masked.affinity;
    } else if (oldNodeAffinity === undefined) {
      delete affinity.nodeAffinity;
    } else {
      affinity.nodeAffinity = oldNodeAffinity;
    }
  }
  return errors;
}
