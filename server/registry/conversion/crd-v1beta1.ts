/**
 * CustomResourceDefinitions as the reference stores them: apiextensions.k8s.io/v1beta1, the more
 * compact form (one schema, subresources and column list for all versions when they are the
 * same), though v1beta1 has not been served since 1.22. Through the reference's internal
 * version, v1 → v1beta1 hoists what every version shares to the spec and names the first
 * version `spec.version`; v1beta1 → v1 copies the spec's back into each version that has none.
 * The other differences are names: a printer column's `jsonPath` is `JSONPath`, and the
 * webhook conversion's `webhook.{clientConfig,conversionReviewVersions}` are
 * `webhookClientConfig` and `conversionReviewVersions` beside `strategy`.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../../api/objects';

export const CRD_V1 = 'apiextensions.k8s.io/v1';
export const CRD_V1BETA1 = 'apiextensions.k8s.io/v1beta1';

type Json = Record<string, unknown>;

/** Per-version fields v1beta1 can also hold once for all versions, with their spec names. */
const SHARED_FIELDS = [
  ['schema', 'validation'],
  ['subresources', 'subresources'],
  ['additionalPrinterColumns', 'additionalPrinterColumns'],
] as const;

/** A v1 CRD in its stored v1beta1 form. `crd` is not changed. */
export function crdToV1beta1(crd: KubeObject): KubeObject {
  const spec = { ...((crd.spec as Json | undefined) ?? {}) };
  let versions = ((spec.versions as Json[] | undefined) ?? []).map((version) =>
    renameColumns(version, 'jsonPath', 'JSONPath'),
  );
  const hoisted: Json = {};
  for (const [perVersion, specField] of SHARED_FIELDS) {
    const first = versions[0]?.[perVersion];
    if (first === undefined || !versions.every((version) => isDeepStrictEqual(version[perVersion], first))) continue;
    hoisted[specField] = first;
    versions = versions.map(({ [perVersion]: _shared, ...rest }) => rest);
  }
  const { versions: _versions, conversion, preserveUnknownFields, ...rest } = spec;
  const stored: Json = {
    group: rest.group,
    ...(versions[0] !== undefined ? { version: versions[0].name } : {}),
    names: rest.names,
    scope: rest.scope,
    ...(hoisted.validation !== undefined ? { validation: hoisted.validation } : {}),
    ...(hoisted.subresources !== undefined ? { subresources: hoisted.subresources } : {}),
    versions,
    ...(hoisted.additionalPrinterColumns !== undefined
      ? { additionalPrinterColumns: hoisted.additionalPrinterColumns }
      : {}),
    ...(conversion !== undefined ? { conversion: conversionToV1beta1(conversion as Json) } : {}),
    // A pointer in v1beta1: always written, false included.
    preserveUnknownFields: preserveUnknownFields === true,
  };
  for (const [field, value] of Object.entries(rest)) if (!(field in stored)) stored[field] = value;
  return { ...crd, apiVersion: CRD_V1BETA1, kind: 'CustomResourceDefinition', spec: stored };
}

/** A stored v1beta1 CRD as v1. `crd` is not changed. */
export function crdFromV1beta1(crd: KubeObject): KubeObject {
  const {
    version: _version,
    validation,
    subresources,
    additionalPrinterColumns,
    versions,
    conversion,
    preserveUnknownFields,
    ...rest
  } = (crd.spec as Json | undefined) ?? {};
  const shared: Json = { schema: validation, subresources, additionalPrinterColumns };
  const v1Versions = ((versions as Json[] | undefined) ?? []).map((version) => {
    const filled: Json = { ...version };
    for (const [perVersion] of SHARED_FIELDS) {
      if (filled[perVersion] === undefined && shared[perVersion] !== undefined)
        filled[perVersion] = structuredClone(shared[perVersion]);
    }
    return renameColumns(filled, 'JSONPath', 'jsonPath');
  });
  const spec: Json = {
    group: rest.group,
    names: rest.names,
    scope: rest.scope,
    versions: v1Versions,
    ...(conversion !== undefined ? { conversion: conversionFromV1beta1(conversion as Json) } : {}),
    ...(preserveUnknownFields === true ? { preserveUnknownFields: true } : {}),
  };
  for (const [field, value] of Object.entries(rest)) if (!(field in spec)) spec[field] = value;
  return { ...crd, apiVersion: CRD_V1, kind: 'CustomResourceDefinition', spec };
}

function renameColumns(version: Json, from: string, to: string): Json {
  const columns = version.additionalPrinterColumns as Json[] | undefined;
  if (columns === undefined) return version;
  return { ...version, additionalPrinterColumns: columns.map((column) => renameField(column, from, to)) };
}

function renameField(object: Json, from: string, to: string): Json {
  if (!(from in object)) return object;
  const renamed: Json = {};
  for (const [field, value] of Object.entries(object)) renamed[field === from ? to : field] = value;
  return renamed;
}

function conversionToV1beta1(conversion: Json): Json {
  const { webhook, ...rest } = conversion;
  if (webhook === undefined) return conversion;
  const { clientConfig, conversionReviewVersions } = webhook as Json;
  return {
    ...rest,
    ...(clientConfig !== undefined ? { webhookClientConfig: clientConfig } : {}),
    ...(conversionReviewVersions !== undefined ? { conversionReviewVersions } : {}),
  };
}

function conversionFromV1beta1(conversion: Json): Json {
  const { webhookClientConfig, conversionReviewVersions, ...rest } = conversion;
  if (webhookClientConfig === undefined && conversionReviewVersions === undefined) return conversion;
  return {
    ...rest,
    webhook: {
      ...(webhookClientConfig !== undefined ? { clientConfig: webhookClientConfig } : {}),
      ...(conversionReviewVersions !== undefined ? { conversionReviewVersions } : {}),
    },
  };
}
