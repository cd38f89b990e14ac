/**
 * The built-in definitions with their descriptions (server/schema/descriptions.ts, taken from the
 * API's Go modules at install time), as the reference's generated definitions carry them: a
 * type's own, and each property's. Done once, before anything else changes the definitions (the
 * OpenAPIEnums gate takes its sections back out of them, as the reference does).
 */
import type { Descriptions } from '../schema/descriptions';
import type { Definitions } from './component-schemas';

export function describedDefinitions(definitions: Definitions, descriptions: Descriptions): Definitions {
  return Object.fromEntries(
    Object.entries(definitions).map(([name, definition]) => [name, withDescriptions(definition, descriptions[name])]),
  );
}

/** The definition with its own and its properties' descriptions, when there are any. */
function withDescriptions(source: object, texts: Readonly<Record<string, string>> | undefined): object {
  if (texts === undefined) return source;
  const described: Record<string, unknown> = { ...source };
  if (texts[''] !== undefined) described.description = texts[''];
  const properties = (source as { properties?: Record<string, object> }).properties;
  if (properties !== undefined) {
    described.properties = Object.fromEntries(
      Object.entries(properties).map(([field, schema]) => [
        field,
        texts[field] === undefined ? schema : { ...schema, description: texts[field] },
      ]),
    );
  }
  return described;
}
