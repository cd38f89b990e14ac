/**
 * Fields of an apply configuration that the kind's schema does not declare. The reference's
 * typed conversion refuses them whatever `fieldValidation` says, and answers a 500 with no
 * reason (its error is not classified) naming each field by its structured-merge path
 * (`.spec.template.spec.containers[name="web"].foo`).
 */
import { unclassified } from '../status/catalogue';
import type { StatusError } from '../status/status-error';
import { isObject } from './json-value';
import { isGranularList, itemElement } from './list-items';
import { formatPath, type FieldPath } from './path-set';
import { fieldNode, itemNode, type TypedNode } from './schema-node';

export function undeclaredFields(config: unknown, schema: TypedNode | undefined): FieldPath[] {
  const found: FieldPath[] = [];
  walk(config, schema, [], found);
  return found;
}

function walk(value: unknown, schema: TypedNode | undefined, path: FieldPath, found: FieldPath[]): void {
  if (schema === undefined || value === null) return;
  if (isObject(value)) {
    const { node } = schema;
    if (node['x-kubernetes-preserve-unknown-fields'] === true) return;
    const struct = node.properties !== undefined && typeof node.additionalProperties !== 'object';
    for (const [key, member] of Object.entries(value)) {
      const memberPath = [...path, `f:${key}`];
      if (struct && node.properties?.[key] === undefined) found.push(memberPath);
      else walk(member, fieldNode(schema, key), memberPath, found);
    }
    return;
  }
  if (Array.isArray(value)) {
    const items = itemNode(schema);
    const granular = isGranularList(value, schema);
    value.forEach((item, index) => walk(item, items, [...path, granular ? itemElement(item, schema) : `i:${index}`], found));
  }
}

/** The reference's `failed to create typed patch object (<ns>/<name>; <group>/<version>, Kind=<kind>): ...`. */
export function undeclaredFieldsError(config: Record<string, unknown>, paths: readonly FieldPath[]): StatusError {
  const metadata = isObject(config.metadata) ? config.metadata : {};
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const groupVersion = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  const object = `${String(metadata.namespace ?? '')}/${String(metadata.name ?? '')}; ${groupVersion}, Kind=${String(config.kind ?? '')}`;
  const errors = paths.map((path) => `${formatPath(path)}: field not declared in schema`);
  const text = errors.length === 1 ? errors[0] : ['errors:', ...errors.map((error) => `  ${error}`)].join('\n');
  return unclassified(`failed to create typed patch object (${object}): ${text}`);
}
