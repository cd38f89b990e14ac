/**
 * The Table printer of a custom resource version: Name, then the version's
 * `additionalPrinterColumns` (an Age column of the creation time when it declares none), each
 * cell read by its JSONPath and typed as the reference's table convertor types it. JSONPath
 * is evaluated by jsonpath-plus, whose syntax covers what printer columns use (dotted paths,
 * indexes, filters such as `[?(@.type=="Ready")]`).
 */
import type { JSONPath as JSONPathFunction } from 'jsonpath-plus';
import type { KubeObject } from '../../api/objects';
import { goValue } from '../apply/go-print';
import { isObject } from '../json/value';
import { NAME_COLUMN, objectMetaColumn, type ColumnDefinition } from '../table/columns';
import { ageSince } from '../table/human-duration';
import type { Printer } from '../table/printer';
import type { CustomResourceColumnDefinition } from './crd-types';

const AGE: CustomResourceColumnDefinition = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
/** AGE's definition: described as the reference describes a version that declares no columns. */
const AGE_DEFINITION = objectMetaColumn('Age', 'date', 'creationTimestamp');

// Loaded on the first table of a custom resource, not at start: idle memory counts.
let jsonPathEngine: typeof JSONPathFunction | undefined;

function firstResult(object: KubeObject, jsonPath: string): unknown {
  jsonPathEngine ??= (require('jsonpath-plus') as typeof import('jsonpath-plus')).JSONPath;
  const results = jsonPathEngine({ path: `$${jsonPath}`, json: object, wrap: true, eval: 'safe' }) as unknown[];
  return results.length === 0 ? undefined : results[0];
}

/** A string column prints any value as the reference's JSONPath printer does: structures as JSON. */
function asText(value: unknown): string {
  return Array.isArray(value) || isObject(value) ? JSON.stringify(value) : goValue(value);
}

function cell(type: string, value: unknown, now: Date): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'string':
      return asText(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : ageSince(value, now);
    default:
      return null;
  }
}

export function customResourcePrinter(columns: readonly CustomResourceColumnDefinition[] | undefined): Printer {
  const declares = columns !== undefined && columns.length > 0;
  const declared = declares ? columns : [AGE];
  const definitions: ColumnDefinition[] = declares
    ? columns.map((column) => ({
        name: column.name,
        type: column.type as ColumnDefinition['type'],
        format: column.format ?? '',
        description: column.description || `Custom resource definition column (in JSONPath format): ${column.jsonPath}`,
        priority: column.priority ?? 0,
      }))
    : [AGE_DEFINITION];
  return {
    columns: [NAME_COLUMN, ...definitions],
    print: (object, now) => ({
      cells: [
        object.metadata.name,
        ...declared.map((column) => cell(column.type, firstResult(object, column.jsonPath), now)),
      ],
    }),
  };
}
