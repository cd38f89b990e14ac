/**
 * The reference's SetDefaults_ResourceList: its generated defaulters call it on every
 * ResourceList of the core/v1 types below, wherever a kind embeds them (pods and pod templates
 * of every workload, limit ranges, quotas, volumes and claims, nodes, a VolumeAttachment's
 * inline volume), and it rounds each quantity finer than a milli up to one (`cpu: 1n` is stored
 * as `1m`). Other quantities (a ResourceClaim's capacity, say) keep their nanos.
 *
 * Where the lists sit is found once per kind from its schema, on its first write, so kinds
 * without any cost nothing but a map lookup.
 */
import { isObject } from '../../json/value';
import { roundedUpToMilli } from '../../quantity/quantity';
import { schemaData } from '../../schema/definitions';
import { resolveSchema, type Definitions, type SchemaNode } from '../../validation/decode';

/** The ResourceList members SetDefaults_ResourceList is called on, by the type that holds them. */
const ROUNDED_LISTS: Readonly<Record<string, readonly string[]>> = {
  'io.k8s.api.core.v1.ResourceRequirements': ['limits', 'requests'],
  'io.k8s.api.core.v1.VolumeResourceRequirements': ['limits', 'requests'],
  'io.k8s.api.core.v1.PodSpec': ['overhead'],
  'io.k8s.api.core.v1.ContainerStatus': ['allocatedResources'],
  'io.k8s.api.core.v1.LimitRangeItem': ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'],
  'io.k8s.api.core.v1.ResourceQuotaSpec': ['hard'],
  'io.k8s.api.core.v1.ResourceQuotaStatus': ['hard', 'used'],
  'io.k8s.api.core.v1.PersistentVolumeSpec': ['capacity'],
  'io.k8s.api.core.v1.PersistentVolumeClaimStatus': ['capacity', 'allocatedResources'],
  'io.k8s.api.core.v1.NodeStatus': ['capacity', 'allocatable'],
};

/** Where the rounded lists are below a value: a list itself, some of its members, or its items. */
type Plan =
  | { readonly kind: 'list' }
  | { readonly kind: 'members'; readonly members: ReadonlyMap<string, Plan> }
  | { readonly kind: 'items'; readonly items: Plan };

const LIST: Plan = { kind: 'list' };

/** Each kind definition's plan; undefined where nothing below it is rounded. */
const plans = new Map<string, Plan | undefined>();

function planOf(
  definitions: Definitions,
  node: SchemaNode,
  definition: string | undefined,
  visiting: Set<string>,
): Plan | undefined {
  const resolved = resolveSchema(definitions, node, definition);
  const name = resolved.definition;
  // A named type (not an inline object below one) is entered once per path: a type that holds
  // itself (a CRD's JSONSchemaProps) ends the search on its second visit.
  const isDefinition = name !== undefined && resolved.node === definitions[name];
  if (isDefinition) {
    if (visiting.has(name)) return undefined;
    visiting.add(name);
  }
  try {
    const { properties, items } = resolved.node;
    if (items !== undefined) {
      const itemPlan = planOf(definitions, items, name, visiting);
      return itemPlan && { kind: 'items', items: itemPlan };
    }
    if (properties === undefined) return undefined;
    // Only a definition's own members (not an inline object's below it) are its lists.
    const rounded = isDefinition ? ROUNDED_LISTS[name] : undefined;
    const members = new Map<string, Plan>();
    for (const [member, schema] of Object.entries(properties)) {
      const plan = rounded?.includes(member) ? LIST : planOf(definitions, schema, name, visiting);
      if (plan !== undefined) members.set(member, plan);
    }
    return members.size === 0 ? undefined : { kind: 'members', members };
  } finally {
    if (isDefinition) visiting.delete(name);
  }
}

function round(value: unknown, plan: Plan): void {
  switch (plan.kind) {
    case 'list':
      if (isObject(value))
        for (const [name, quantity] of Object.entries(value))
          if (typeof quantity === 'string') value[name] = roundedUpToMilli(quantity);
      return;
    case 'items':
      if (Array.isArray(value)) for (const item of value) round(item, plan.items);
      return;
    case 'members':
      if (isObject(value)) for (const [member, below] of plan.members) round(value[member], below);
  }
}

/** Rounds the ResourceLists of an object of the kind `definition` names (its schema definition). */
export function roundResourceLists(object: object, definition: string): void {
  let plan = plans.get(definition);
  if (plan === undefined && !plans.has(definition)) {
    const definitions = schemaData().definitions;
    const node = definitions[definition];
    plan = node === undefined ? undefined : planOf(definitions, node, definition, new Set());
    plans.set(definition, plan);
  }
  if (plan !== undefined) round(object, plan);
}
