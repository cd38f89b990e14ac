/**
 * A claim's selector may not match on values no label can have, as kube-apiserver 1.34.4 checks
 * a new claim (the create is among the recorded causes); a claim stored with such values, by a
 * server that let them through, stays writable, as the reference then leaves them unchecked
 * (ValidationOptionsForPersistentVolumeClaim).
 */
import type { KubeObject } from '../../../api/objects';
import { typeOf } from './gated-fields/write-path';
import { recordedUpdateCauses } from './recorded-update';

const claims = typeOf('', 'persistentvolumeclaims');
const selecting = (value: string) => ({ matchExpressions: [{ key: 'a', operator: 'In', values: [value] }] });

const claim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'default' },
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '1Gi' } },
    selector: selecting('good'),
  },
} as KubeObject;

test('a claim stored selecting by a value no label can have is updated without that value checked', () => {
  const changes = {
    storedAs: { 'spec.selector': selecting('bad value!') },
    changed: { 'metadata.labels': { x: 'y' } },
  };
  expect(recordedUpdateCauses(claims, claim, changes)).toEqual([]);
});

test('a stored claim with a valid selector gets no such leave', () => {
  const changes = { changed: { 'spec.selector': selecting('bad value!') } };
  expect(recordedUpdateCauses(claims, claim, changes)).toContainEqual(
    expect.stringMatching(
      /^spec\.selector\.matchExpressions\[0\]\.values\[0\]: Invalid value: "bad value!": a valid label/,
    ),
  );
});
