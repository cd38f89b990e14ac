/**
 * Tables (`meta.k8s.io/v1` or `v1beta1`) of one object, a list page, or a watch event, with each
 * row's object per `includeObject` (default `Metadata`: a PartialObjectMetadata).
 */
import type { KubeObject } from '../../storage/objects/types';
import { asPartialObjectMetadata, metaApiVersion, type ListMetadata } from '../codec/partial-metadata';
import { badRequest } from '../status/catalogue';
import type { ColumnDefinition } from './columns';
import { printerFor, type Printer, type RowCondition } from './printers';

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
  readonly columnDefinitions?: readonly ColumnDefinition[];
  readonly rows: TableRow[];
}

export interface TableOptions {
  /** The table's version: `v1` or `v1beta1`. */
  readonly version: string;
  readonly includeObject: IncludeObject;
  readonly now: Date;
  /** Leave the column definitions out (watch events after the first). */
  readonly omitColumns?: boolean;
}

/** `includeObject` from the query; anything but the three values is the reference's 400. */
export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const value = query.get('includeObject');
  if (value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw badRequest(`unrecognized includeObject value: "${value}"`);
}

function row(printer: Printer, object: KubeObject, options: TableOptions): TableRow {
  const printed = printer.print(object, options.now);
  const embedded =
    options.includeObject === 'None' ? undefined : options.includeObject === 'Object' ? object : asPartialObjectMetadata(object, options.version);
  return { ...printed, ...(embedded === undefined ? {} : { object: embedded }) };
}

export function tableOf(options: TableOptions & { resource: { group: string; resource: string }; objects: readonly KubeObject[]; metadata: ListMetadata }): Table {
  const printer = printerFor(options.resource);
  return {
    kind: 'Table',
    apiVersion: metaApiVersion(options.version),
    metadata: options.metadata,
    ...(options.omitColumns ? {} : { columnDefinitions: printer.columns }),
    rows: options.objects.map((object) => row(printer, object, options)),
  };
}
