/**
 * The fields a write never owns (the store's reset fields: a Deployment's status on the main
 * resource, its spec on the status subresource) stay out of the writer's entry, and a member left
 * with nothing else goes too, without changing the stored entries they are taken out of.
 */
import { managedFieldsAfterUpdate } from '../../../server/fieldmanager/managed-fields';
import type { ManagedFieldsEntry } from '../../../server/fieldmanager/managed-fields-entry';
import { schemaData } from '../../../server/schema/definitions';
import type { Definitions } from '../../../server/validation/decode';

const definitions = schemaData().definitions as unknown as Definitions;
const schema = {
  definitions,
  schema: { node: definitions['io.k8s.api.apps.v1.Deployment'], definition: 'io.k8s.api.apps.v1.Deployment' },
};
const NOW = new Date('2025-03-01T10:00:00Z');

function deployment(spec: Record<string, unknown>, status?: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec, status };
}

function fieldsOf(entries: readonly ManagedFieldsEntry[]): unknown {
  expect(entries).toHaveLength(1);
  return entries[0].fieldsV1;
}

describe('fields a write never owns', () => {
  it('leave the writer entry of a create, and the members they emptied with them', () => {
    const next = deployment({ replicas: 2, paused: true }, { replicas: 1 });
    const write = (ignored: string[][]) =>
      fieldsOf(
        managedFieldsAfterUpdate({
          managedFields: [],
          next,
          manager: 'm',
          apiVersion: 'apps/v1',
          now: NOW,
          schema,
          ignored,
        }),
      );

    expect(write([['status']])).toEqual({ 'f:spec': { 'f:paused': {}, 'f:replicas': {} } });
    expect(write([['spec', 'replicas']])).toEqual({ 'f:spec': { 'f:paused': {} }, 'f:status': { 'f:replicas': {} } });
    expect(
      write([
        ['spec', 'replicas'],
        ['spec', 'paused'],
      ]),
    ).toEqual({ 'f:status': { 'f:replicas': {} } });
    // A path whose parent is missing changes nothing.
    expect(write([['template', 'spec']])).toEqual({
      'f:spec': { 'f:paused': {}, 'f:replicas': {} },
      'f:status': { 'f:replicas': {} },
    });
  });

  it("drop from the writer's stored entry without changing that entry", () => {
    const stored: ManagedFieldsEntry = {
      manager: 'm',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: '2025-03-01T09:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} }, 'f:status': { 'f:replicas': {}, 'f:readyReplicas': {} } },
    };
    const before = structuredClone(stored);
    const previous = deployment({ replicas: 2 }, { replicas: 1, readyReplicas: 1 });
    const entries = managedFieldsAfterUpdate({
      previous,
      managedFields: [stored],
      next: deployment({ replicas: 3 }, { replicas: 1, readyReplicas: 1 }),
      manager: 'm',
      apiVersion: 'apps/v1',
      now: NOW,
      schema,
      ignored: [['status']],
    });
    expect(fieldsOf(entries)).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(stored).toEqual(before);
  });
});
