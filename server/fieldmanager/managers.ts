/**
 * managedFields entries as the reference keys, prints and orders them. A manager is identified
 * by name, operation and subresource, and, for Update entries only, the apiVersion (an applier
 * keeps one entry whatever version it applies in).
 */
import { goQuote } from '../../api/go-quote';
import type { ManagedFieldsEntry } from './managed-fields-entry';

/** The reference's manager identifier: the entry's JSON without fields, time and (for Apply) apiVersion. */
export function managerIdentity(
  entry: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
): string {
  const identity: Record<string, string> = {};
  if (entry.manager) identity.manager = entry.manager;
  if (entry.operation) identity.operation = entry.operation;
  if (entry.operation !== 'Apply' && entry.apiVersion) identity.apiVersion = entry.apiVersion;
  if (entry.subresource) identity.subresource = entry.subresource;
  return JSON.stringify(identity);
}

/** How conflict messages name a manager: `"kubectl"`, `"ctl" with subresource "status"`, `"ctl" using apps/v1`. */
export function printManager(identity: string): string {
  const entry = JSON.parse(identity) as ManagedFieldsEntry;
  let printed = goQuote(entry.manager ?? '');
  if (entry.subresource) printed += ` with subresource ${goQuote(entry.subresource)}`;
  if (entry.operation === 'Update') printed += ` using ${entry.apiVersion ?? ''}`;
  return printed;
}

function seconds(time: string | undefined): number {
  return time === undefined ? 0 : Math.floor(Date.parse(time) / 1000);
}

function compareText(a: string | undefined, b: string | undefined): number {
  const left = a ?? '';
  const right = b ?? '';
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The reference's order: Apply before Update, then by time, manager, apiVersion, subresource. */
export function sortManagedFields(entries: readonly ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  return [...entries].sort(
    (p, q) =>
      compareText(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      compareText(p.manager, q.manager) ||
      compareText(p.apiVersion, q.apiVersion) ||
      compareText(p.subresource, q.subresource),
  );
}
