/**
 * One entry of an object's `metadata.managedFields`: who manages which fields, by which kind of
 * write, at which version. Its own module because the entries' readers (managers.ts,
 * cap-updaters.ts) and the write that records them (managed-fields.ts) all speak it.
 */
import type { FieldSet } from './field-set';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: FieldSet;
  subresource?: string;
}
