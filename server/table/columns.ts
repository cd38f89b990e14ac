/** The shape of a Table's column definitions, and helpers the printers share. */
import type { KubeObject } from '../../api/objects';
import { definitionDescriptions, wantDefinitionDescriptions } from '../schema/descriptions';
import { formatLabelSelector } from '../selectors/label-selector';
import { ageOf } from './human-duration';

export interface ColumnDefinition {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** A column; `wide` columns (priority 1) show with `kubectl get -o wide`. */
export function column(
  name: string,
  type: ColumnDefinition['type'],
  description: string,
  options: { format?: string; wide?: boolean } = {},
): ColumnDefinition {
  return { name, type, format: options.format ?? '', description, priority: options.wide ? 1 : 0 };
}

/**
 * A column described by a field's documentation, as the reference describes many columns (its
 * printers read the Go types' `SwaggerDoc()`). The text is the generated field descriptions' (the
 * same Go comments), read once, on the first table written: a start reads no descriptions.
 */
export function documentedColumn(
  name: string,
  type: ColumnDefinition['type'],
  documented: { definition: string; field: string },
  options: { format?: string; wide?: boolean } = {},
): ColumnDefinition {
  wantDefinitionDescriptions(documented.definition);
  let description: string | undefined;
  return {
    name,
    type,
    format: options.format ?? '',
    get description() {
      description ??= withoutEnumValues(definitionDescriptions(documented.definition)[documented.field] ?? '');
      return description;
    },
    priority: options.wide ? 1 : 0,
  };
}

/**
 * A field's documentation as the Go type's SwaggerDoc has it: the OpenAPI descriptions list an
 * enum's values after it, which the reference's column descriptions do not carry.
 */
function withoutEnumValues(description: string): string {
  const at = description.indexOf('\n\nPossible enum values:');
  return at === -1 ? description : description.slice(0, at);
}

/** A column described by ObjectMeta's documentation of `field`, as every Name, Age and Created At column is. */
export function objectMetaColumn(
  name: string,
  type: ColumnDefinition['type'],
  field: 'name' | 'creationTimestamp',
  options: { format?: string; wide?: boolean } = {},
): ColumnDefinition {
  return documentedColumn(
    name,
    type,
    { definition: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', field },
    options,
  );
}

export const NAME_COLUMN = objectMetaColumn('Name', 'string', 'name', { format: 'name' });
export const AGE_COLUMN = objectMetaColumn('Age', 'string', 'creationTimestamp');
/** The creation time itself, where the reference prints it rather than an age (the default table). */
export const CREATED_AT_COLUMN = objectMetaColumn('Created At', 'date', 'creationTimestamp');

export type Fields = Record<string, unknown>;

export function record(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function integer(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

export function orNone(value: string): string {
  return value === '' ? '<none>' : value;
}

/** A label selector as the reference prints it (`app=web,tier in (a,b)`), `<none>` when empty. */
export function selectorString(selector: unknown): string {
  return orNone(formatLabelSelector(selector));
}

/** A plain map selector (`app=web`), sorted by key, `<none>` when empty. */
export function mapSelectorString(selector: unknown): string {
  const entries = Object.entries(record(selector)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? '<none>' : entries.map(([key, value]) => `${key}=${text(value)}`).join(',');
}

/** The containers' names and images of a pod template, comma-joined. */
export function containersAndImages(podSpec: unknown): { names: string; images: string } {
  const containers = list(record(podSpec).containers).map(record);
  return {
    names: containers.map((container) => text(container.name)).join(','),
    images: containers.map((container) => text(container.image)).join(','),
  };
}

export const CONTAINERS_COLUMN = column('Containers', 'string', 'Names of each container in the template.', {
  wide: true,
});
export const IMAGES_COLUMN = column('Images', 'string', 'Images referenced by each container in the template.', {
  wide: true,
});
/** Age, then the pod template's containers and images (wide): where a workload's table ends, before its selector. */
export const AGE_AND_TEMPLATE_COLUMNS = [AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN];

/** The cells of AGE_AND_TEMPLATE_COLUMNS for an object whose pod template has `podSpec`. */
export function ageAndTemplateCells(object: KubeObject, now: Date, podSpec: unknown): unknown[] {
  const { names, images } = containersAndImages(podSpec);
  return [ageOf(object, now), names, images];
}
