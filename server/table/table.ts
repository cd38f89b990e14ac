/**
 * Tables (`meta.k8s.io/v1` or `v1beta1`) of one object, a list page, or a watch event, with each
 * row's object per `includeObject` (default `Metadata`: a PartialObjectMetadata).
 */
import type { KubeObject } from '../../api/objects';
import { asPartialObjectMetadata, metaApiVersion, type ListMetadata } from './partial-metadata';
import { markedAs } from '../json/go-map-order';
import { badRequest } from '../status/catalogue';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../storage/objects/store-watch';
import type { ColumnDefinition } from './columns';
import type { QueryParameters } from '../request/query';
import { DEFAULT_PRINTER, type Printer, type RowCondition } from './printer';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableRow {
  readonly cells: unknown[];
  readonly conditions?: RowCondition[];
  readonly object?: unknown;
}

export interface Table {
  readonly kind: 'Table';
  readonly apiVersion: string;
  readonly metadata: ListMetadata;
  /** `null` in watch events after the first, as the reference writes it (a nil slice). */
  readonly columnDefinitions: readonly ColumnDefinition[] | null;
  readonly rows: TableRow[];
}

export interface TableOptions {
  /** The table's version: `v1` or `v1beta1`. */
  readonly version: string;
  readonly includeObject: IncludeObject;
  readonly now: Date;
  /** Column definitions `null` (watch events after the first). */
  readonly omitColumns?: boolean;
}

/** `includeObject` from the query; anything but the three values is the reference's 400. */
export function includeObjectOf(query: QueryParameters): IncludeObject {
  const value = query.get('includeObject');
  if (value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw badRequest(`unrecognized includeObject value: "${value}"`);
}

/** The initial-events-end bookmark keeps its metadata even with `includeObject=None`: its annotation is what the client waits for. */
function includeObjectFor(object: KubeObject, includeObject: IncludeObject): IncludeObject {
  return includeObject === 'None' && object.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true'
    ? 'Metadata'
    : includeObject;
}

function row(printer: Printer, object: KubeObject, options: TableOptions): TableRow {
  // A watch's bookmark has no name: Go's printers read its zero value, "".
  const named = object.metadata.name === undefined ? { ...object, metadata: { ...object.metadata, name: '' } } : object;
  const printed = printer.print(named, options.now);
  const includeObject = includeObjectFor(object, options.includeObject);
  // Without the object the row still has the member, null: Go's RawExtension is no pointer.
  const embedded =
    includeObject === 'None'
      ? null
      : includeObject === 'Object'
        ? object
        : asPartialObjectMetadata(object, options.version);
  // Marked as its object is: the row carries the object's maps to the JSON writers.
  return markedAs({ ...printed, object: embedded }, object);
}

export type TableOfOptions = TableOptions & {
  /** The kind's printer, or its served version's own (a custom resource's columns); absent: Name and Created At. */
  printer?: Printer;
  objects: readonly KubeObject[];
  metadata: ListMetadata;
};

export function tableOf(options: TableOfOptions): Table {
  const { head, rows } = tableInParts(options);
  const table: Table = { ...head, rows: [...rows] };
  return table.rows.reduce((marked, row) => markedAs(marked, row), table);
}

/**
 * A table as its head (everything but the rows, in the table's member order) and its rows made
 * one at a time as they are taken, so that a long list's table can be written row by row
 * without all its rows existing at once.
 */
export function tableInParts(options: TableOfOptions): { head: Omit<Table, 'rows'>; rows: Iterable<TableRow> } {
  const printer = options.printer ?? DEFAULT_PRINTER;
  return {
    head: {
      kind: 'Table',
      apiVersion: metaApiVersion(options.version),
      metadata: options.metadata,
      columnDefinitions: options.omitColumns ? null : printer.columns,
    },
    rows: rowsOf(printer, options),
  };
}

function* rowsOf(printer: Printer, options: TableOfOptions): Iterable<TableRow> {
  for (const object of printer.order?.(options.objects) ?? options.objects) yield row(printer, object, options);
}
