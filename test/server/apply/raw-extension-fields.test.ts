/**
 * An embedded object (runtime.RawExtension) is one field to the field manager, as the
 * reference's schema converter hard-codes it: a writer owns a ControllerRevision's `data` or a
 * device's status `data` whole, never the fields inside.
 */
import { managedFieldsAfterUpdate } from '../../../server/fieldmanager/managed-fields';
import { schemaData } from '../../../server/schema/definitions';
import type { Definitions } from '../../../server/validation/decode';

const definitions = schemaData().definitions as unknown as Definitions;

function createdFields(definition: string, object: Record<string, unknown>): unknown {
  const [entry] = managedFieldsAfterUpdate({
    previous: undefined,
    managedFields: [],
    next: object,
    manager: 'controller',
    apiVersion: 'v1',
    now: new Date('2025-03-01T10:00:00Z'),
    schema: { definitions, schema: { node: definitions[definition], definition } },
  });
  return entry.fieldsV1;
}

test('a ControllerRevision’s data is owned whole', () => {
  const revision = {
    metadata: { name: 'web-1', namespace: 'default' },
    data: { spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } },
    revision: 1,
  };
  expect(createdFields('io.k8s.api.apps.v1.ControllerRevision', revision)).toEqual({
    'f:data': {},
    'f:revision': {},
  });
});

test('a device’s status data is owned whole, its network data field by field', () => {
  const claim = {
    metadata: { name: 'c', namespace: 'default' },
    status: {
      devices: [
        { driver: 'd', pool: 'p', device: 'x', data: { temperature: 40 }, networkData: { interfaceName: 'e' } },
      ],
    },
  };
  expect(createdFields('io.k8s.api.resource.v1.ResourceClaim', claim)).toEqual({
    'f:status': {
      'f:devices': {
        '.': {},
        'k:{"device":"x","driver":"d","pool":"p"}': {
          '.': {},
          'f:data': {},
          'f:device': {},
          'f:driver': {},
          'f:networkData': { '.': {}, 'f:interfaceName': {} },
          'f:pool': {},
        },
      },
    },
  });
});
