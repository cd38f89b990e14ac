/**
 * The OpenAPIEnums gate. Off, the reference takes back what its OpenAPI generator added for the
 * enum-typed fields of the built-in kinds' definitions: each schema's `enum`, and the "Possible
 * enum values:" section at the end of its description (tools/descriptions adds those sections
 * as the generator does). Custom resources' schemas are their authors' and keep their enums. The
 * walk follows schema positions only, so a property that is itself named `enum` (JSONSchemaProps
 * has one) stays.
 */
import type { Definitions } from './component-schemas';

const ENUM_SECTION_HEADER = 'Possible enum values:';
/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions'];
/** Keywords whose value is a schema, or a list of schemas. */
const SCHEMA_VALUES = ['items', 'additionalProperties', 'additionalItems', 'not', 'allOf', 'anyOf', 'oneOf'];

/** The definitions as the reference serves them with OpenAPIEnums off; `definitions` is left as it is. */
export function withoutEnums(definitions: Definitions): Definitions {
  return Object.fromEntries(
    Object.entries(definitions).map(([name, schema]) => [name, schemaWithoutEnums(schema) as object]),
  );
}

function schemaWithoutEnums(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(schemaWithoutEnums);
  if (schema === null || typeof schema !== 'object') return schema;
  const result: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema as Record<string, unknown>)) {
    if (keyword === 'enum') continue;
    if (keyword === 'description' && typeof value === 'string') {
      result[keyword] = withoutEnumSection(value);
    } else if (SCHEMA_MAPS.includes(keyword) && value !== null && typeof value === 'object') {
      result[keyword] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, child]) => [name, schemaWithoutEnums(child)]),
      );
    } else {
      result[keyword] = SCHEMA_VALUES.includes(keyword) ? schemaWithoutEnums(value) : value;
    }
  }
  return result;
}

/** The description up to its enum section, without the blank line before it. */
function withoutEnumSection(description: string): string {
  const header = description.indexOf(ENUM_SECTION_HEADER);
  return header < 0 ? description : description.slice(0, header).trim();
}
