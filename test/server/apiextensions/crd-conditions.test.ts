import { calculateNamesAndConditions, setCondition } from '../../../server/apiextensions/crd-conditions';
import type { CustomResourceDefinition } from '../../../server/apiextensions/crd-types';
import { widgetCRD } from './fixtures';

function accepted(crd: CustomResourceDefinition): CustomResourceDefinition {
  return {
    ...crd,
    status: { acceptedNames: { ...crd.spec.names, listKind: `${crd.spec.names.kind}List` }, storedVersions: ['v1'] },
  };
}

function gadget(names: Partial<CustomResourceDefinition['spec']['names']>): CustomResourceDefinition {
  const crd = widgetCRD();
  crd.metadata.name = 'gadgets.example.com';
  crd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList', ...names };
  return crd;
}

test('fresh names are accepted and the CRD is established', () => {
  const crd = widgetCRD();
  crd.spec.names.listKind = 'WidgetList';
  const result = calculateNamesAndConditions(crd, [crd]);
  expect(result.acceptedNames).toEqual({
    plural: 'widgets',
    singular: 'widget',
    shortNames: ['wd'],
    kind: 'Widget',
    listKind: 'WidgetList',
    categories: ['all'],
  });
  expect(result.namesAccepted).toEqual({
    type: 'NamesAccepted',
    status: 'True',
    reason: 'NoConflicts',
    message: 'no conflicts found',
  });
  expect(result.established).toEqual({
    type: 'Established',
    status: 'True',
    reason: 'InitialNamesAccepted',
    message: 'the initial names have been accepted',
  });
});

test.each<[string, Partial<CustomResourceDefinition['spec']['names']>, string, string]>([
  ['a plural taken as a short name', { plural: 'wd' }, 'PluralConflict', '"wd" is already in use'],
  ['a kind taken', { kind: 'Widget' }, 'KindConflict', '"Widget" is already in use'],
  [
    'short names taken',
    { shortNames: ['widget', 'widgets'] },
    'ShortNamesConflict',
    '["widget" is already in use, "widgets" is already in use]',
  ],
])('%s is reported in NamesAccepted and keeps the CRD from being established', (_name, names, reason, message) => {
  const taken = accepted(widgetCRD());
  const crd = gadget(names);
  const result = calculateNamesAndConditions(crd, [taken, crd]);
  expect(result.namesAccepted).toEqual({ type: 'NamesAccepted', status: 'False', reason, message });
  expect(result.established).toEqual({
    type: 'Established',
    status: 'False',
    reason: 'NotAccepted',
    message: 'not all names are accepted',
  });
});

test('another group may use the same names', () => {
  const taken = accepted(widgetCRD());
  const crd = gadget({ plural: 'widgets', kind: 'Widget' });
  crd.spec.group = 'other.example.com';
  expect(calculateNamesAndConditions(crd, [taken, crd]).namesAccepted.status).toBe('True');
});

test('setCondition moves lastTransitionTime only when the status changes', () => {
  const crd = widgetCRD();
  setCondition(
    crd,
    { type: 'Established', status: 'False', reason: 'A', message: 'a' },
    new Date('2026-01-01T00:00:00.123Z'),
  );
  setCondition(
    crd,
    { type: 'Established', status: 'False', reason: 'B', message: 'b' },
    new Date('2026-01-01T00:01:00Z'),
  );
  expect(crd.status?.conditions).toEqual([
    { type: 'Established', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'B', message: 'b' },
  ]);
  setCondition(
    crd,
    { type: 'Established', status: 'True', reason: 'C', message: 'c' },
    new Date('2026-01-01T00:02:00Z'),
  );
  expect(crd.status?.conditions?.[0].lastTransitionTime).toBe('2026-01-01T00:02:00Z');
});

test('held by the HA guard, accepted names leave the CRD Installing, in the reference’s words', () => {
  const crd = widgetCRD();
  expect(calculateNamesAndConditions(crd, [crd], true).established).toEqual({
    type: 'Established',
    status: 'False',
    reason: 'Installing',
    message: 'the initial names have been accepted',
  });
  // Once Established, it stays so.
  const established = {
    ...crd,
    status: { ...crd.status, conditions: [calculateNamesAndConditions(crd, [crd]).established] },
  };
  expect(calculateNamesAndConditions(established as CustomResourceDefinition, [crd], true).established.status).toBe(
    'True',
  );
});
