/**
 * The scale subresource: an autoscaling/v1 Scale read from, and written through, the parent's
 * replica count (kubectl scale PATCHes it; autoscalers may server-side apply it). Field
 * ownership of such writes is tracked on the Scale and mapped back onto the parent's
 * managedFields, as the reference's scale storage does.
 */
import type { ObjectKey, Preconditions } from '../../../storage/objects/types';
import { serverSideApply } from '../../apply/apply';
import { rootSchemaNode } from '../../apply/schema-node';
import { managedFieldsAfterUpdate } from '../../fieldmanager/managed-fields';
import {
  SCALE_API_VERSION,
  toParentManagedFields,
  toScaleManagedFields,
  type ReplicasMapping,
} from '../../fieldmanager/scale-fields';
import { valueAtPath } from '../../json/value';
import { formatLabelSelector } from '../../selectors/label-selector';
import { badRequest, internalError, invalid, unclassified } from '../../status/catalogue';
import { CustomScaleReadError, readCustomScale } from './custom-scale';
import { FieldPath, invalid as invalidField } from '../../status/field-errors';
import { nameIsDNSSubdomain } from '../../validation/names';
import { validateNonnegative, validateObjectMeta, type ObjectMetaRules } from '../../validation/object-meta';
import { resolveDefinition, typeAgainstSchema } from '../../validation/decode';
import { type ScaleSubresource } from '../types';
import type { WriteRequest } from './admission';
import { apiVersionOf, type StoreScope } from './scope';
import { updateObject } from './update';

import { groupVersionString } from '../../../api/identity';
import type { KubeObject } from '../../../api/objects';
import type { ManagedFieldsEntry } from '../../fieldmanager/managed-fields-entry';
function writePath(object: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split('.');
  let current = object;
  for (const segment of segments.slice(0, -1)) {
    if (typeof current[segment] !== 'object' || current[segment] === null) current[segment] = {};
    current = current[segment] as Record<string, unknown>;
  }
  current[segments[segments.length - 1]] = value;
}

/** The Scale of a parent with these replicas and selector. */
function scaleWith(parent: KubeObject, replicas: { spec: number; status: number; selector: string }): KubeObject {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = parent.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, ...(namespace ? { namespace } : {}), uid, resourceVersion, creationTimestamp },
    // Go leaves out spec.replicas when it is 0 (omitempty), and a JSON patch sees it so.
    spec: replicas.spec === 0 ? {} : { replicas: replicas.spec },
    status: { replicas: replicas.status, ...(replicas.selector !== '' ? { selector: replicas.selector } : {}) },
  };
}

/** Where a custom resource's spec replicas are absent, the Scale a write starts from holds the least int32. */
const ABSENT_SPEC_REPLICAS = -(2 ** 31);

/**
 * A custom resource's Scale (store/custom-scale.ts): a parent that does not read as one fails
 * with the reader's text, unclassified (500), as the reference passes it on. Its spec replicas
 * must be there to be shown, but not to be written: a write starts from the marker above.
 */
function customScaleOf(parent: KubeObject, paths: ScaleSubresource, purpose: 'show' | 'write'): KubeObject {
  let reading;
  try {
    reading = readCustomScale(parent, paths);
  } catch (error) {
    if (error instanceof CustomScaleReadError) throw unclassified(error.message);
    throw error;
  }
  const { specReplicas, specReplicasFound, statusReplicas, selector } = reading;
  if (!specReplicasFound && purpose === 'show')
    throw internalError(`the spec replicas field "${dotted(paths.specReplicasPath)}" does not exist`);
  return scaleWith(parent, {
    spec: specReplicasFound ? specReplicas : ABSENT_SPEC_REPLICAS,
    status: statusReplicas,
    selector,
  });
}

/** A path as the CRD wrote it, with its leading dot. */
function dotted(path: string): string {
  return `.${path}`;
}

/** The Scale a parent object shows: its replicas (spec and status) and selector. */
export function scaleOf(parent: KubeObject, paths: ScaleSubresource): KubeObject {
  if (paths.unstructuredParent) return customScaleOf(parent, paths, 'show');
  // Built-in workloads keep their selector in spec.selector (an object); where the path names
  // a value, it is taken instead.
  const declared = paths.labelSelectorPath ? valueAtPath(parent, paths.labelSelectorPath) : undefined;
  const found = declared ?? valueAtPath(parent, 'spec.selector');
  const selector = paths.labelSelectorIsSet ? { matchLabels: found } : found;
  return scaleWith(parent, {
    spec: (valueAtPath(parent, paths.specReplicasPath) as number | undefined) ?? 0,
    status: (valueAtPath(parent, paths.statusReplicasPath) as number | undefined) ?? 0,
    selector:
      typeof selector === 'string'
        ? selector
        : typeof selector === 'object' && selector !== null
          ? formatLabelSelector(selector)
          : '',
  });
}

/**
 * The Scale's replicas, checked with the Scale as the reference's ValidateScale checks a built-in
 * kind's (`paths.checksMetadata`): its metadata as a namespaced object's, then replicas not below
 * zero. What the Scale's metadata holds is not written to the parent, but a bad label in it is
 * refused all the same. A custom resource's Scale has only its replicas' type checked here: the
 * parent's validation judges the count it writes (custom-scale.ts), as the reference's does.
 */
function checkedReplicas(
  scale: KubeObject,
  options: { key: ObjectKey; paths: ScaleSubresource; shownPatched?: () => string },
): number {
  const { key, paths } = options;
  const replicas = valueAtPath(scale, 'spec.replicas') ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    const detail = `json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`;
    // A patch's result that does not decode is the patch's fault, as for any patched object.
    if (options.shownPatched !== undefined)
      throw invalid({ group: '', kind: '' }, '', [
        invalidField(FieldPath.root('patch'), options.shownPatched(), detail),
      ]);
    throw badRequest(`Scale in version "v1" cannot be handled as a Scale: ${detail}`);
  }
  // A Scale sent without a namespace is in the request's, as the reference's handler fills it in.
  const metadata = { ...scale.metadata, namespace: scale.metadata?.namespace || key.namespace };
  const errors = paths.checksMetadata
    ? [
        ...validateObjectMeta(metadata, SCALE_METADATA_RULES),
        ...validateNonnegative(replicas, FieldPath.root('spec').child('replicas')),
      ]
    : [];
  if (errors.length > 0) throw invalid({ group: 'autoscaling', kind: 'Scale' }, key.name, errors);
  return replicas;
}

/** The parent's replicas field in every version it is served in, for the managedFields mapping. */
function replicasMapping(scope: StoreScope, paths: ScaleSubresource): ReplicasMapping {
  const path = paths.specReplicasPath.split('.').map((segment) => `f:${segment}`);
  return {
    replicasPaths: new Map(
      scope.type.versions.map((served) => [
        groupVersionString({ group: scope.type.group, version: served.version }),
        path,
      ]),
    ),
  };
}

/** How the new Scale is made from the current one: a whole Scale (PUT), a patch, or a server-side apply. */
export type ScaleChange =
  | { readonly kind: 'replace'; readonly scale: KubeObject }
  /** A patch of the current Scale (the request's patch type and document, applied). */
  | {
      readonly kind: 'patch';
      readonly apply: (current: KubeObject) => unknown;
      /** The patched Scale as the reference shows it when refusing it. */
      readonly shown: (patched: unknown) => string;
    }
  | {
      readonly kind: 'apply';
      readonly config: Record<string, unknown>;
      readonly force: boolean;
      /** What the request checks once the apply has succeeded (the body's repeated keys). */
      readonly afterApply: () => void;
    };

export const SCALE_DEFINITION = 'io.k8s.api.autoscaling.v1.Scale';
/** A Scale's metadata as the reference's ValidateScale checks it: a namespaced object named by a DNS subdomain. */
const SCALE_METADATA_RULES: ObjectMetaRules = { namespaced: true, validateName: nameIsDNSSubdomain };

function withoutManagedFields(object: KubeObject): KubeObject {
  return { ...object, metadata: { ...object.metadata, managedFields: undefined } };
}

/**
 * The new Scale and its managedFields: ownership is tracked on the Scale (see scale-fields.ts),
 * an apply through the apply engine, any other write as an Update of the Scale.
 */
function changedScale(
  scope: StoreScope,
  options: { current: KubeObject; change: ScaleChange; manager: string },
): KubeObject {
  const { current, change, manager } = options;
  const definitions = scope.context.definitions;
  const now = scope.context.now();
  if (change.kind === 'apply') {
    const applied = serverSideApply({
      live: current,
      config: change.config,
      manager,
      apiVersion: SCALE_API_VERSION,
      kind: 'Scale',
      subresource: 'scale',
      force: change.force,
      now,
      schema: rootSchemaNode(definitions, SCALE_DEFINITION),
    });
    change.afterApply();
    // The nulls the configuration set, read as the Scale type reads them.
    return typeAgainstSchema(definitions, SCALE_DEFINITION, applied.object).object as KubeObject;
  }
  const next = change.kind === 'replace' ? structuredClone(change.scale) : (change.apply(current) as KubeObject);
  const entries = managedFieldsAfterUpdate({
    previous: withoutManagedFields(current),
    // A subresource's request cannot set managedFields: the current ones count.
    managedFields: (current.metadata.managedFields ?? []) as ManagedFieldsEntry[],
    next: withoutManagedFields(next),
    manager,
    apiVersion: SCALE_API_VERSION,
    subresource: 'scale',
    now,
    schema: definitions === undefined ? {} : { definitions, schema: resolveDefinition(definitions, SCALE_DEFINITION) },
  });
  return { ...next, metadata: { ...(next.metadata ?? {}), managedFields: entries } };
}

export interface ScaleUpdateRequest extends WriteRequest {
  readonly key: ObjectKey;
  /** A PUT's Scale's uid: the parent's must be it. */
  readonly preconditions?: Preconditions;
  readonly paths: ScaleSubresource;
  readonly change: ScaleChange;
  readonly manager: string;
}

/**
 * A write of the Scale: an update of the parent (see update.ts for its steps) whose new state is
 * the parent with the Scale's replicas, the Scale's field ownership mapped onto the parent's
 * managedFields. Answers the Scale the stored parent shows.
 */
export async function updateScale(scope: StoreScope, request: ScaleUpdateRequest): Promise<KubeObject> {
  const { paths, change, ...write } = request;
  const mapping = replicasMapping(scope, paths);
  const result = await updateObject(scope, {
    ...write,
    updatedObject: (current) => {
      const parent = current!;
      const parentEntries = parent.metadata.managedFields as ManagedFieldsEntry[] | undefined;
      const before = paths.unstructuredParent ? customScaleOf(parent, paths, 'write') : scaleOf(parent, paths);
      // A Scale whose parent has no replicas owner has no managedFields at all (a patch shows it
      // so, and an apply then meets the reference's before-first-apply owner).
      const scaleEntries = toScaleManagedFields(parentEntries, mapping);
      if (scaleEntries.length > 0) before.metadata.managedFields = scaleEntries;
      const scale = changedScale(scope, { current: before, change, manager: write.manager });
      // A resourceVersion the Scale carries (sent, or kept by a patch) is the parent's
      // update precondition, as the reference's scale storage makes it.
      if (scale.metadata?.resourceVersion) parent.metadata.resourceVersion = scale.metadata.resourceVersion;
      if (paths.unstructuredParent && valueAtPath(scale, 'spec.replicas') === ABSENT_SPEC_REPLICAS)
        throw badRequest(`the spec replicas field "${dotted(paths.specReplicasPath)}" cannot be empty`);
      const shownPatched = change.kind === 'patch' ? () => change.shown(withoutManagedFields(scale)) : undefined;
      writePath(parent, paths.specReplicasPath, checkedReplicas(scale, { key: request.key, paths, shownPatched }));
      const entries = toParentManagedFields({
        parentEntries,
        scaleEntries: scale.metadata.managedFields as ManagedFieldsEntry[],
        mapping,
        apiVersion: apiVersionOf(scope),
      });
      if (entries.length > 0) parent.metadata.managedFields = entries;
      else delete parent.metadata.managedFields;
      return parent;
    },
    target: 'main',
    subresource: 'scale',
    managedFieldsComputed: true,
  });
  return scaleOf(result.object, paths);
}
