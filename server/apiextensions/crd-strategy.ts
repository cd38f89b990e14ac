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
import { shapeObject } from '../schema/go-json-shape';
import { validateCRD, validateCRDStatus, validateCRDUpdate } from './crd-validation';

const CRD_DEFINITION = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition';

export function defaultCRD(object: KubeObject): void {
  // What Go's decoding makes of the body (a missing spec is its zero spec: validation names
  // what it lacks), then its defaults.
  shapeObject(CRD_DEFINITION, object);
  const crd = asCRD(object);
  const spec = crd.spec;
  const names = spec.names;
  if (names !== undefined) {
    if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
    if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service !== undefined) service.port ??= 443;
  // An empty storedVersions is given the storage version, on every write: a status write that
  // empties it keeps the storage version.
  const storage = storageVersionOf(crd);
  if (storage !== undefined && !crd.status?.storedVersions?.length) {
    crd.status = { ...crd.status, storedVersions: [storage.name] };
  }
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
  // As the reference writes a new CRD's status: no conditions yet (`null`, Go's nil list), and a
  // nil storedVersions when no version is the storage one (validation refuses that CRD).
  initialStatus: (object) => {
    const storage = storageVersionOf(asCRD(object));
    return {
      conditions: null,
      acceptedNames: { plural: '', kind: '' },
      ...(storage === undefined ? {} : { storedVersions: [storage.name] }),
    };
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
  // A status write is judged on its accepted names only: storedVersions is the status writer's
  // to set, as a storage migration removes the versions it has rewritten.
  validateStatusUpdate: validateCRDStatus,
  warnings: formatWarnings,
};
