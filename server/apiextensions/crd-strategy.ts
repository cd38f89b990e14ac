/**
 * The CustomResourceDefinition kind's own behaviour: the reference's defaults (singular and
 * list kind from the kind, conversion strategy None, webhook service port 443), the status a
 * new CRD starts with (its storage version recorded in storedVersions, names not yet
 * accepted), and on every spec update the new storage version added to storedVersions.
 *
 * The cleanup finalizer is set at create: the reference's CRD storage adds it in its own
 * DELETE, and here the generic DELETE then only has to honour it, as it honours any finalizer.
 */
import { metaTime, type KubeObject } from '../../api/objects';
import type { KindBehaviour } from '../registry/strategy';
import { isDeepStrictEqual } from 'node:util';
import { setCondition, TERMINATING } from './crd-conditions';
import { asCRD, storageVersionOf, type CustomResourceDefinition, type JSONSchemaProps } from './crd-types';
import { isRecognizedFormat } from './string-formats';
import { validateCRD, validateCRDUpdate } from './crd-validation';

export function defaultCRD(object: KubeObject): void {
  const crd = asCRD(object);
  // A body without a spec is Go's zero spec: validation names what it lacks.
  if (crd.spec === undefined || crd.spec === null) (crd as { spec: unknown }).spec = {};
  const spec = crd.spec;
  const names = spec.names;
  if (names !== undefined) {
    if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
    if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service !== undefined) service.port ??= 443;
}

/** Adds the storage version to status.storedVersions when it is not there yet (may mutate). */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = storageVersionOf(crd);
  if (storage === undefined) return;
  const status = (crd.status ??= {});
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(storage.name)) stored.push(storage.name);
}

/** The formats of string nodes in `schema` that the server does not recognize, in walk order. */
function unrecognizedFormats(schema: JSONSchemaProps | undefined): string[] {
  if (schema === undefined) return [];
  const own = schema.format && schema.type === 'string' && !isRecognizedFormat(schema.format) ? [schema.format] : [];
  const children = [
    ...(Array.isArray(schema.items) ? schema.items : schema.items ? [schema.items] : []),
    ...(schema.allOf ?? []),
    ...(schema.anyOf ?? []),
    ...(schema.oneOf ?? []),
    ...(schema.not ? [schema.not] : []),
    ...Object.values(schema.properties ?? {}),
    ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
  ];
  return [...own, ...children.flatMap(unrecognizedFormats)];
}

/** Every version's unrecognized formats; a schema all versions share counts once (the reference reads it as the top-level one). */
function crdUnrecognizedFormats(crd: CustomResourceDefinition): string[] {
  const versions = crd.spec?.versions ?? [];
  const schemas = versions.map((version) => version.schema?.openAPIV3Schema);
  const shared = schemas.every((schema) => isDeepStrictEqual(schema, schemas[0]));
  return (shared ? schemas.slice(0, 1) : schemas).flatMap(unrecognizedFormats);
}

/** `unrecognized format "x"` for each format the CRD names and the server does not know; on update, only those it newly names. */
function formatWarnings(object: KubeObject, old: KubeObject | undefined): string[] {
  const known = new Set(old === undefined ? [] : crdUnrecognizedFormats(asCRD(old)));
  return crdUnrecognizedFormats(asCRD(object))
    .filter((format) => !known.has(format))
    .map((format) => `unrecognized format ${JSON.stringify(format)}`);
}

/** Deleting a CRD first deletes its custom resources (server/apiextensions/crd-controller.ts). */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export const CRD_BEHAVIOUR: KindBehaviour = {
  defaults: defaultCRD,
  initialStatus: (object) => {
    const storage = storageVersionOf(asCRD(object));
    return { acceptedNames: { plural: '', kind: '' }, storedVersions: storage === undefined ? [] : [storage.name] };
  },
  tracksGeneration: true,
  // As the reference's CRD storage, the first deletion writes its marks straight to storage: no
  // grace period, no new generation, and the cleanup finalizer only now (a live CRD has none).
  markForDeletion: (object, now) => {
    object.metadata.deletionTimestamp = metaTime(now);
    const finalizers = (object.metadata.finalizers = [...(object.metadata.finalizers ?? [])]);
    if (!finalizers.includes(CLEANUP_FINALIZER)) finalizers.push(CLEANUP_FINALIZER);
    const crd = asCRD(object);
    // The object's status is shared with the stored one: the condition goes into copies.
    crd.status = { ...crd.status, conditions: [...(crd.status?.conditions ?? [])] };
    setCondition(
      crd,
      {
        type: TERMINATING,
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      },
      now,
    );
  },
  prepareForUpdate: (object) => recordStorageVersion(asCRD(object)),
  validate: (object) => validateCRD(object),
  validateUpdate: validateCRDUpdate,
  warnings: formatWarnings,
};
