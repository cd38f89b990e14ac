/**
 * The reference's typed conversion of an apply configuration, which refuses the configuration
 * before any merging, whatever `fieldValidation` says, when it sets a field the schema does not
 * declare or a value of the wrong type. It answers a 500 with no reason (its error is not
 * classified); the fault is the request's, so this answers 400 BadRequest with the same text,
 * each problem named by its structured-merge path
 * (`.spec.template.spec.containers[name="web"].foo: field not declared in schema`,
 * `.spec.replicas: expected numeric (int or float), got string`). The texts print the offending
 * value as Go prints the reference's unstructured values (see go-print.ts).
 *
 * Like the reference's walk, a map stops at its first undeclared member; the reference visits
 * a map's members in Go's random order, this in the body's order.
 */
import { badRequest } from '../status/catalogue';
import type { StatusError } from '../status/status-error';
import { goSharpValue, goTypeName, goValue } from './go-print';
import { isObject } from '../json/value';
import { isGranularList, itemElement } from './list-items';
import { formatPath, type FieldPath } from '../fieldmanager/path-set';
import { fieldNode, itemNode, listMapKeysOf, listTypeOf, type TypedNode } from './schema-node';

export interface TypingError {
  readonly path: FieldPath;
  readonly message: string;
}

/** What the structured-merge schema makes of a node: a scalar kind, a map, a list, or anything (deduced). */
type StructuralType = 'string' | 'numeric' | 'boolean' | 'any-scalar' | 'map' | 'list' | 'deduced';

function structuralType(schema: TypedNode | undefined): StructuralType {
  if (schema === undefined) return 'deduced';
  const { node } = schema;
  if (
    node['x-kubernetes-int-or-string'] ||
    node.format === 'int-or-string' ||
    node['x-capstan-openapi-v3-one-of'] !== undefined
  )
    return 'any-scalar';
  switch (node.type) {
    case 'object':
      if (node['x-kubernetes-preserve-unknown-fields'] === true && node.properties === undefined) return 'deduced';
      return node.properties !== undefined || typeof node.additionalProperties === 'object' ? 'map' : 'deduced';
    case 'array':
      return 'list';
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'numeric';
    case 'boolean':
      return 'boolean';
    default:
      return 'deduced';
  }
}

function scalarError(type: StructuralType, value: unknown): string | undefined {
  const isScalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  switch (type) {
    case 'numeric':
      return typeof value === 'number' ? undefined : `expected numeric (int or float), got ${goTypeName(value)}`;
    case 'string':
      return typeof value === 'string'
        ? undefined
        : `expected string, got &value.valueUnstructured{Value:${goSharpValue(value)}}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected boolean, got &{${goValue(value)}}`;
    case 'any-scalar':
      return isScalar ? undefined : `expected any scalar, got &{${goValue(value)}}`;
    default:
      return undefined;
  }
}

export function typingErrors(config: unknown, schema: TypedNode | undefined): TypingError[] {
  const found: TypingError[] = [];
  walk(config, schema, [], found);
  return found;
}

function walk(value: unknown, schema: TypedNode | undefined, path: FieldPath, found: TypingError[]): void {
  // null is a valid value of every type.
  if (value === null || value === undefined) return;
  const type = structuralType(schema);
  if (type === 'deduced') return;
  if (type === 'map') {
    if (!isObject(value)) {
      found.push({ path, message: `expected map, got &{${goValue(value)}}` });
      return;
    }
    const { node } = schema!;
    const declaresFieldsOnly =
      node.properties !== undefined &&
      typeof node.additionalProperties !== 'object' &&
      node['x-kubernetes-preserve-unknown-fields'] !== true;
    for (const [key, member] of Object.entries(value)) {
      const memberPath = [...path, `f:${key}`];
      if (declaresFieldsOnly && node.properties?.[key] === undefined) {
        found.push({ path: memberPath, message: 'field not declared in schema' });
        return;
      }
      walk(member, fieldNode(schema, key), memberPath, found);
    }
    return;
  }
  if (type === 'list') {
    if (!Array.isArray(value)) {
      found.push({ path, message: `expected list, got &{${goValue(value)}}` });
      return;
    }
    const items = itemNode(schema);
    const granular = isGranularList(value, schema);
    const keys = listTypeOf(schema) === 'map' ? listMapKeysOf(schema) : [];
    // An associative list names each element once: two with one key (or one value, in a set)
    // are refused, after the errors of the elements before the second.
    const seen = new Set<string>();
    for (const [index, item] of value.entries()) {
      // A null item of a keyed list names no element (the reference refuses it; it would be a TypeError here).
      if ((item === null || item === undefined) && keys.length > 0) {
        found.push({
          path,
          message: `element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(keys[0])} (and doesn't have default value)`,
        });
        return;
      }
      const element = granular ? itemElement(item, schema) : `i:${index}`;
      if (granular) {
        if (seen.has(element)) found.push({ path, message: `duplicate entries for key ${formatPath([element])}` });
        seen.add(element);
      }
      walk(item, items, [...path, element], found);
    }
    return;
  }
  const message = scalarError(type, value);
  if (message !== undefined) found.push({ path, message });
}

/** The reference's `failed to create typed patch object (<ns>/<name>; <group>/<version>, Kind=<kind>): ...`. */
export function typedPatchError(config: Record<string, unknown>, errors: readonly TypingError[]): StatusError {
  const metadata = isObject(config.metadata) ? config.metadata : {};
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const groupVersion = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  const object = `${String(metadata.namespace ?? '')}/${String(metadata.name ?? '')}; ${groupVersion}, Kind=${String(config.kind ?? '')}`;
  return badRequest(`failed to create typed patch object (${object}): ${typingErrorsText(errors)}`);
}

/** The errors as the reference's typed conversion words them: one alone, several under `errors:`. */
export function typingErrorsText(errors: readonly TypingError[]): string {
  const texts = errors.map((error) => `${formatPath(error.path)}: ${error.message}`);
  return texts.length === 1 ? texts[0] : ['errors:', ...texts.map((error) => `  ${error}`)].join('\n');
}
