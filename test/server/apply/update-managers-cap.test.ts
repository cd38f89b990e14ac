/**
 * At most ten Update entries: older updaters merge, per apiVersion, into `ancient-changes`, as
 * the reference's capManagersManager does after every non-apply write.
 */
import { capUpdateManagers } from '../../../server/fieldmanager/cap-updaters';
import { managedFieldsAfterUpdate } from '../../../server/fieldmanager/managed-fields';

import type { ManagedFieldsEntry } from '../../../server/fieldmanager/managed-fields-entry';
const second = (n: number): string => `2025-03-01T10:00:${String(n).padStart(2, '0')}Z`;

function updater(name: string, n: number, field: string, apiVersion = 'v1'): ManagedFieldsEntry {
  return {
    manager: name,
    operation: 'Update',
    apiVersion,
    time: second(n),
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { [`f:${field}`]: {} } },
  };
}

/** A ConfigMap whose data key `kN` was written by manager `mN` at second N. */
function writtenBy(count: number): { data: Record<string, string>; entries: ManagedFieldsEntry[] } {
  const data: Record<string, string> = {};
  const entries: ManagedFieldsEntry[] = [];
  for (let n = 1; n <= count; n++) {
    data[`k${n}`] = String(n);
    entries.push(updater(`m${n}`, n, `k${n}`));
  }
  return { data, entries };
}

function writeBy(
  manager: string,
  n: number,
  before: { data: Record<string, string>; entries: ManagedFieldsEntry[] },
): ManagedFieldsEntry[] {
  return managedFieldsAfterUpdate({
    previous: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: before.data },
    managedFields: before.entries,
    next: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { ...before.data, [`k${n}`]: String(n) },
    },
    manager,
    apiVersion: 'v1',
    now: new Date(second(n)),
    schema: {},
  });
}

test('the eleventh updater merges the two oldest into ancient-changes with the later time', () => {
  const entries = writeBy('m11', 11, writtenBy(10));
  expect(entries.map((entry) => entry.manager)).toEqual([
    'ancient-changes',
    'm3',
    'm4',
    'm5',
    'm6',
    'm7',
    'm8',
    'm9',
    'm10',
    'm11',
  ]);
  expect(entries[0]).toEqual({
    manager: 'ancient-changes',
    operation: 'Update',
    apiVersion: 'v1',
    time: second(2),
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { 'f:k1': {}, 'f:k2': {} } },
  });
});

test('a later updater merges the next oldest into the existing bucket', () => {
  const before = writtenBy(10);
  const afterEleven = writeBy('m11', 11, before);
  const afterTwelve = writeBy('m12', 12, { data: { ...before.data, k11: '11' }, entries: afterEleven });
  expect(afterTwelve.map((entry) => entry.manager)).toEqual([
    'ancient-changes',
    'm4',
    'm5',
    'm6',
    'm7',
    'm8',
    'm9',
    'm10',
    'm11',
    'm12',
  ]);
  expect(afterTwelve[0]).toMatchObject({
    time: second(3),
    fieldsV1: { 'f:data': { 'f:k1': {}, 'f:k2': {}, 'f:k3': {} } },
  });
});

test('Apply entries are not counted or merged; buckets are per apiVersion', () => {
  const appliers: ManagedFieldsEntry[] = [1, 2, 3].map((n) => ({
    ...updater(`a${n}`, n, `a${n}`),
    operation: 'Apply',
  }));
  const ten = writtenBy(10).entries;
  expect(capUpdateManagers([...appliers, ...ten])).toHaveLength(13);

  // Eleven updaters: the oldest is the only one of its version, so it stays; the next two of v1 merge.
  const mixed = [updater('old', 0, 'x', 'v1beta1'), ...ten];
  const capped = capUpdateManagers([...appliers, ...mixed]);
  const names = capped.map((entry) => `${entry.manager}@${entry.apiVersion}`);
  expect(names).toHaveLength(13);
  expect(names).toContain('old@v1beta1');
  expect(names).toContain('ancient-changes@v1');
  expect(names).not.toContain('m1@v1');
  expect(names).not.toContain('m2@v1');
  expect(capped.filter((entry) => entry.operation === 'Apply')).toEqual(appliers);
});

test('ties in time are broken by the manager identity', () => {
  const sameSecond = Array.from({ length: 11 }, (_, index) =>
    updater(`z${String(index).padStart(2, '0')}`, 5, `k${index}`),
  );
  const capped = capUpdateManagers(sameSecond);
  expect(capped.map((entry) => entry.manager).sort()).toEqual(
    ['ancient-changes', ...sameSecond.slice(2).map((entry) => entry.manager!)].sort(),
  );
  expect(capped.find((entry) => entry.manager === 'ancient-changes')!.fieldsV1).toEqual({
    'f:data': { 'f:k0': {}, 'f:k1': {} },
  });
});

test('ten updaters in eleven entries (one identity twice) and ten exactly are kept as they are', () => {
  const ten = writtenBy(10).entries;
  expect(capUpdateManagers(ten)).toEqual(ten);
  const repeated = [...ten, updater('m1', 12, 'k12')];
  const kept = capUpdateManagers(repeated);
  expect(kept).toEqual(repeated);
  expect(kept).not.toBe(repeated);
});
