/**
 * What a kind's table (`kubectl get`) is made from: its columns and how one object fills a row.
 * Each kind is given its printer where it is defined (server/registry/kinds/); a kind without
 * one prints the default Name / Created At table.
 */
import type { KubeObject } from '../../api/objects';
import { CREATED_AT_COLUMN, NAME_COLUMN, text, type ColumnDefinition } from './columns';

/** metav1.TableRowCondition: only Completed is defined, with why (the phase) and words. */
export interface RowCondition {
  readonly type: 'Completed';
  readonly status: 'True';
  readonly reason?: string;
  readonly message?: string;
}

export interface PrintedRow {
  readonly cells: unknown[];
  readonly conditions?: RowCondition[];
}

export interface Printer {
  readonly columns: readonly ColumnDefinition[];
  print(object: KubeObject, now: Date): PrintedRow;
  /** The rows' order in a list's table when the reference's printer sorts them (FlowSchemas); absent: the list's order. */
  order?(objects: readonly KubeObject[]): readonly KubeObject[];
}

/** The default table of kinds without a printer: Name and Created At. */
export const DEFAULT_PRINTER: Printer = {
  columns: [NAME_COLUMN, CREATED_AT_COLUMN],
  print: (object) => ({ cells: [object.metadata.name, text(object.metadata.creationTimestamp)] }),
};
