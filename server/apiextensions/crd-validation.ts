/**
 * Validation of CustomResourceDefinitions on create and update, after the reference's
 * apiextensions validation: the name (`<plural>.<group>`), group, scope, names, versions
 * (unique, exactly one storage version, DNS-1035 names, deprecation warnings), each version's
 * schema (crd-schema-rules.ts), subresources, printer columns, selectable fields, conversion
 * and stored versions, a protected group's API approval; on update, what may not change.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../registry/types';
import {
  duplicate,
  FieldPath,
  forbidden,
  GoValue,
  immutable,
  invalid,
  notSupported,
  required,
  tooMany,
} from '../status/field-errors';
import { internalCompactJson } from '../validation/internal-json';
import { isDNS1035Label, isDNS1123Subdomain } from '../validation/names';
import { isInvalidCABundle, validateCABundle } from '../validation/ca-bundle';
import { ACCEPTED_REVIEW_VERSIONS, validateReviewVersions } from '../validation/review-versions';
import { validateWebhookService, validateWebhookURL, type WebhookService } from '../validation/webhook-client-config';
import { validateAPIApproval } from './api-approval';
import { validateCRDSchema } from './crd-schema-rules';
import { schemaFieldPath } from './schema-field-path';
import {
  NO_PREEXISTING_EXPRESSIONS,
  preexistingExpressions,
  validationRuleErrors,
  type PreexistingExpressions,
} from './validation-rules';
import {
  asCRD,
  isConditionTrue,
  type CustomResourceColumnDefinition,
  type CustomResourceConversion,
  type CustomResourceDefinition,
  type CustomResourceDefinitionNames,
  type CustomResourceDefinitionVersion,
  type CustomResourceSubresources,
  type JSONSchemaProps,
} from './crd-types';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const MAX_SELECTABLE_FIELDS = 8;

const spec = FieldPath.root('spec');

function dns1035(path: FieldPath, value: string, prefix = ''): FieldError[] {
  const problems = isDNS1035Label(prefix === '' ? value : value.toLowerCase());
  return problems.length > 0 ? [invalid(path, value, prefix + problems.join(','))] : [];
}

export function validateNames(names: CustomResourceDefinitionNames | undefined, path: FieldPath): FieldError[] {
  if (names === undefined) return [];
  const errors: FieldError[] = [];
  if (names.plural) errors.push(...dns1035(path.child('plural'), names.plural));
  if (names.singular) errors.push(...dns1035(path.child('singular'), names.singular));
  const mixedCase = 'may have mixed case, but should otherwise match: ';
  if (names.kind) errors.push(...dns1035(path.child('kind'), names.kind, mixedCase));
  if (names.listKind) errors.push(...dns1035(path.child('listKind'), names.listKind, mixedCase));
  (names.shortNames ?? []).forEach((name, index) =>
    errors.push(...dns1035(path.child('shortNames').index(index), name)),
  );
  if (names.kind && names.kind === names.listKind)
    errors.push(invalid(path.child('listKind'), names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((name, index) =>
    errors.push(...dns1035(path.child('categories').index(index), name)),
  );
  return errors;
}

function simpleJSONPath(path: FieldPath, value: string): FieldError[] {
  if (value.length === 0) return [invalid(path, value, 'must not be empty')];
  if (!value.startsWith('.')) return [invalid(path, value, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(subresources: CustomResourceSubresources | undefined, path: FieldPath): FieldError[] {
  const scale = subresources?.scale;
  if (scale === undefined) return [];
  const errors: FieldError[] = [];
  const check = (name: string, value: string | undefined, prefixes: string[], detail: string, mandatory: boolean) => {
    const at = path.child(`scale.${name}`);
    if (value === undefined || value === '') {
      if (mandatory) errors.push(required(at));
      return;
    }
    const pathErrors = simpleJSONPath(at, value);
    if (pathErrors.length > 0) errors.push(...pathErrors);
    else if (!prefixes.some((prefix) => value.startsWith(prefix))) errors.push(invalid(at, value, detail));
  };
  check('specReplicasPath', scale.specReplicasPath, ['.spec.'], 'should be a json path under .spec', true);
  check('statusReplicasPath', scale.statusReplicasPath, ['.status.'], 'should be a json path under .status', true);
  check(
    'labelSelectorPath',
    scale.labelSelectorPath,
    ['.spec.', '.status.'],
    'should be a json path under either .spec or .status',
    false,
  );
  return errors;
}

function validateColumn(column: CustomResourceColumnDefinition, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!column.name) errors.push(required(path.child('name')));
  const types = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (!column.type) errors.push(required(path.child('type'), types));
  else if (!PRINTER_COLUMN_TYPES.includes(column.type)) errors.push(invalid(path.child('type'), column.type, types));
  if (column.format && !PRINTER_COLUMN_FORMATS.includes(column.format)) {
    errors.push(invalid(path.child('format'), column.format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  }
  if (!column.jsonPath) errors.push(required(path.child('JSONPath')));
  else errors.push(...simpleJSONPath(path.child('JSONPath'), column.jsonPath));
  return errors;
}

function validateSelectableFields(version: CustomResourceDefinitionVersion, path: FieldPath): FieldError[] {
  const fields = version.selectableFields ?? [];
  if (fields.length === 0) return [];
  const schema = version.schema?.openAPIV3Schema;
  if (schema === undefined)
    return [invalid(path, '', 'may only be set when `version.schema.openAPIV3Schema` is not included')];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  fields.forEach(({ jsonPath }, index) => {
    const at = path.index(index).child('jsonPath');
    if (!jsonPath) {
      errors.push(required(at));
      return;
    }
    const found = schemaFieldPath(jsonPath, schema, { allowArrayNotation: false });
    if ('error' in found) {
      errors.push(invalid(at, jsonPath, `is an invalid path: ${found.error}`));
      return;
    }
    if (found.steps[0]?.name === 'metadata') errors.push(invalid(at, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(found.schema?.type ?? '')) {
      errors.push(
        invalid(
          at,
          jsonPath,
          'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        ),
      );
    }
    if (seen.has(jsonPath)) errors.push(duplicate(at, jsonPath));
    seen.add(jsonPath);
  });
  if (seen.size > MAX_SELECTABLE_FIELDS) {
    errors.push(tooMany(path, seen.size, MAX_SELECTABLE_FIELDS));
  }
  return errors;
}

function validateDeprecationWarning(version: CustomResourceDefinitionVersion, path: FieldPath): FieldError[] {
  const warning = version.deprecationWarning;
  if (warning === undefined) return [];
  const at = path.child('deprecationWarning');
  if (!version.deprecated) return [invalid(at, warning, 'can only be set for deprecated versions')];
  const errors: FieldError[] = [];
  if (Buffer.byteLength(warning) > 256) errors.push(invalid(at, warning, 'must be <= 256 characters long'));
  if (warning.length === 0) errors.push(invalid(at, warning, 'must not be an empty string'));
  const control = [...warning].findIndex((char) => /\p{Cc}/u.test(char));
  if (control >= 0)
    errors.push(
      invalid(at, warning, `must only contain printable UTF-8 characters; control character found at index ${control}`),
    );
  return errors;
}

/**
 * The per-version fields the reference checks once, at the top of the spec, because every
 * version has the same value: it reads a v1 CRD whose versions agree on schema, subresources,
 * printer columns or selectable fields as one with a top-level `validation`, `subresources`,
 * ... and reports their problems at those paths (`spec.validation.openAPIV3Schema...`).
 */
interface SharedFields {
  readonly schema: boolean;
  readonly subresources: boolean;
  readonly columns: boolean;
  readonly selectableFields: boolean;
}

/** Go's semantic equality for these fields: an absent list is an empty one. */
function sameInEveryVersion(
  versions: readonly CustomResourceDefinitionVersion[],
  value: (version: CustomResourceDefinitionVersion) => unknown,
): boolean {
  const first = versions[0] === undefined ? undefined : value(versions[0]);
  return versions.every((version) => isDeepStrictEqual(value(version), first));
}

/**
 * The versions as the reference prints them: its internal structs, written with Go's field names,
 * with the fields every version shares moved to the spec (null in each version), as the
 * conversion from v1 moves them.
 */
function internalVersions(versions: readonly CustomResourceDefinitionVersion[], shared: SharedFields): GoValue {
  const perVersion = versions.map((version) => ({
    ...version,
    schema: shared.schema ? undefined : version.schema,
    subresources: shared.subresources ? undefined : version.subresources,
    additionalPrinterColumns: shared.columns ? undefined : version.additionalPrinterColumns,
    selectableFields: shared.selectableFields ? undefined : version.selectableFields,
  }));
  return new GoValue(internalCompactJson('[]apiextensions.CustomResourceDefinitionVersion', perVersion));
}

function sharedFields(versions: readonly CustomResourceDefinitionVersion[]): SharedFields {
  return {
    schema: sameInEveryVersion(versions, (version) => version.schema),
    subresources: sameInEveryVersion(versions, (version) => version.subresources),
    columns: sameInEveryVersion(versions, (version) => version.additionalPrinterColumns ?? []),
    selectableFields: sameInEveryVersion(versions, (version) => version.selectableFields ?? []),
  };
}

/** A version's schema (with its rules), at `path`; `statusEnabled` limits its root. */
function validateSchema(
  schema: JSONSchemaProps,
  path: FieldPath,
  statusEnabled: boolean,
  preexisting: PreexistingExpressions,
): FieldError[] {
  const schemaErrors = validateCRDSchema(schema, path, statusEnabled);
  // Rules are compiled against the schema's types, so only a valid schema has them checked.
  return schemaErrors.length === 0 ? validationRuleErrors(schema, path, preexisting) : schemaErrors;
}

function validateVersion(
  version: CustomResourceDefinitionVersion,
  path: FieldPath,
  shared: SharedFields,
  preexisting: PreexistingExpressions,
): FieldError[] {
  const errors = [...dns1035(path.child('name'), version.name ?? '')];
  errors.push(...validateDeprecationWarning(version, path));
  const schema = version.schema?.openAPIV3Schema;
  if (schema === undefined) errors.push(required(path.child('schema').child('openAPIV3Schema')));
  else if (!shared.schema)
    errors.push(
      ...validateSchema(
        schema,
        path.child('schema').child('openAPIV3Schema'),
        version.subresources?.status !== undefined,
        preexisting,
      ),
    );
  if (!shared.subresources) errors.push(...validateSubresources(version.subresources, path.child('subresources')));
  if (!shared.columns)
    (version.additionalPrinterColumns ?? []).forEach((column, index) =>
      errors.push(...validateColumn(column, path.child('additionalPrinterColumns').index(index))),
    );
  if (!shared.selectableFields) errors.push(...validateSelectableFields(version, path.child('selectableFields')));
  return errors;
}

/** The shared fields, once, at the top-level paths (after the names, where the reference checks them). */
function validateSharedFields(
  versions: readonly CustomResourceDefinitionVersion[],
  shared: SharedFields,
  preexisting: PreexistingExpressions,
): FieldError[] {
  const first = versions[0];
  if (first === undefined) return [];
  const errors: FieldError[] = [];
  const schema = first.schema?.openAPIV3Schema;
  const anyStatus = versions.some((version) => version.subresources?.status !== undefined);
  if (shared.schema && schema !== undefined)
    errors.push(...validateSchema(schema, spec.child('validation').child('openAPIV3Schema'), anyStatus, preexisting));
  if (shared.subresources) errors.push(...validateSubresources(first.subresources, spec.child('subresources')));
  if (shared.columns)
    (first.additionalPrinterColumns ?? []).forEach((column, index) =>
      errors.push(...validateColumn(column, spec.child('additionalPrinterColumns').index(index))),
    );
  if (shared.selectableFields && (first.selectableFields ?? []).length > 0) {
    errors.push(
      ...(schema === undefined
        ? [invalid(spec.child('selectableFields'), '', 'may only be set when validations.schema is included')]
        : validateSelectableFields(first, spec.child('selectableFields'))),
    );
  }
  return errors;
}

/**
 * The conversion strategy and, for a webhook, where it is called and the ConversionReview
 * versions it takes. Paths name the reference's internal fields (`webhookClientConfig`,
 * `conversionReviewVersions` directly under `conversion`), since that is where it reports them.
 */
function validateConversion(
  conversion: CustomResourceConversion | undefined,
  path: FieldPath,
  { requireAcceptedReviewVersion, allowInvalidCABundle }: CRDRules,
): FieldError[] {
  if (conversion === undefined) return [];
  const errors: FieldError[] = [];
  if (!conversion.strategy) errors.push(required(path.child('strategy')));
  else if (conversion.strategy !== 'None' && conversion.strategy !== 'Webhook')
    errors.push(notSupported(path.child('strategy'), conversion.strategy, ['None', 'Webhook']));
  const config = conversion.webhook?.clientConfig;
  const configPath = path.child('webhookClientConfig');
  const versions = conversion.webhook?.conversionReviewVersions;
  const versionsPath = path.child('conversionReviewVersions');
  if (conversion.strategy === 'Webhook') {
    if (config === undefined || config === null)
      errors.push(required(configPath, 'required when strategy is set to Webhook'));
    else if (
      (config.url === undefined || config.url === null) === (config.service === undefined || config.service === null)
    )
      errors.push(required(configPath, 'exactly one of url or service is required'));
    else if (config.url !== undefined && config.url !== null)
      errors.push(...validateWebhookURL(configPath.child('url'), config.url, true));
    else errors.push(...validateWebhookService(configPath.child('service'), config.service as WebhookService));
    if (config !== undefined && config !== null && !allowInvalidCABundle)
      errors.push(...validateCABundle(configPath.child('caBundle'), config.caBundle));
    errors.push(
      ...validateReviewVersions(versions, versionsPath, {
        requireAccepted: requireAcceptedReviewVersion,
        requiredDetail: '',
      }),
    );
  } else {
    const forbiddenText = 'should not be set when strategy is not set to Webhook';
    if (config !== undefined && config !== null) errors.push(forbidden(configPath, forbiddenText));
    if ((versions ?? []).length > 0) errors.push(forbidden(versionsPath, forbiddenText));
  }
  return errors;
}

function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const path = FieldPath.root('status', 'storedVersions');
  const stored = crd.status?.storedVersions ?? [];
  if (stored.length === 0) return [invalid(path, crd.status?.storedVersions, 'must have at least one stored version')];
  const errors: FieldError[] = [];
  const remaining = new Map(stored.map((version, index) => [version, index]));
  for (const version of crd.spec.versions ?? []) {
    if (version.storage && !remaining.has(version.name))
      errors.push(invalid(path, stored, `must have the storage version ${version.name}`));
    remaining.delete(version.name);
  }
  for (const [version, index] of remaining) {
    errors.push(
      invalid(
        path.index(index),
        version,
        `missing from spec.versions; ${version} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${version} and removes ${version} from status.storedVersions`,
      ),
    );
  }
  return errors;
}

function validateSpec(crd: CustomResourceDefinition, rules: CRDRules): FieldError[] {
  const { preexisting } = rules;
  const errors: FieldError[] = [];
  const { group, scope, names } = crd.spec;
  // Go's nil list, which a spec without versions is written as, holds nothing.
  const versions = crd.spec.versions ?? [];
  if (!group) errors.push(required(spec.child('group')));
  else {
    const problems = isDNS1123Subdomain(group);
    if (problems.length > 0) errors.push(invalid(spec.child('group'), group, problems.join(',')));
    else if (group.split('.').length < 2)
      errors.push(invalid(spec.child('group'), group, 'should be a domain with at least one dot'));
  }
  if (!scope) errors.push(required(spec.child('scope')));
  else if (scope !== 'Cluster' && scope !== 'Namespaced')
    errors.push(notSupported(spec.child('scope'), scope, ['Cluster', 'Namespaced']));
  const hasDefaults = versions.some(
    (version) => version.schema?.openAPIV3Schema !== undefined && schemaHasDefaults(version.schema.openAPIV3Schema),
  );
  if (hasDefaults && crd.spec.preserveUnknownFields === true) {
    errors.push(
      invalid(spec.child('preserveUnknownFields'), true, 'must be false in order to use defaults in the schema'),
    );
  }
  const shared = sharedFields(versions);
  versions.forEach((version, index) =>
    errors.push(...validateVersion(version, spec.child('versions').index(index), shared, preexisting)),
  );
  const versionNames = new Set(versions.map((version) => version.name));
  // Written only for a refusal: it is the whole of every schema.
  const shownVersions = () => internalVersions(versions, shared);
  if (versionNames.size !== versions.length)
    errors.push(invalid(spec.child('versions'), shownVersions(), 'must contain unique version names'));
  if (versions.filter((version) => version.storage).length !== 1) {
    errors.push(
      invalid(spec.child('versions'), shownVersions(), 'must have exactly one version marked as storage version'),
    );
  }
  // The internal spec's `version`, which the conversion from v1 sets to the first version's name.
  const firstName = versions[0]?.name;
  const firstNameProblems = firstName ? isDNS1035Label(firstName) : [];
  if (firstNameProblems.length > 0) errors.push(invalid(spec.child('version'), firstName, firstNameProblems.join(',')));
  for (const field of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (!names?.[field]) errors.push(required(spec.child('names', field)));
  }
  errors.push(...validateNames(names, spec.child('names')));
  errors.push(...validateSharedFields(versions, shared, preexisting));
  if (
    crd.spec.conversion !== undefined &&
    crd.spec.conversion.strategy !== 'None' &&
    crd.spec.preserveUnknownFields === true
  ) {
    errors.push(
      invalid(
        spec.child('conversion').child('strategy'),
        crd.spec.conversion.strategy,
        'must be None if spec.preserveUnknownFields is true',
      ),
    );
  }
  errors.push(...validateConversion(crd.spec.conversion, spec.child('conversion'), rules));
  return errors;
}

function schemaHasDefaults(schema: JSONSchemaProps): boolean {
  if (schema.default !== undefined) return true;
  const children = [
    ...Object.values(schema.properties ?? {}),
    ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
    ...(schema.items === undefined ? [] : Array.isArray(schema.items) ? schema.items : [schema.items]),
  ];
  return children.some(schemaHasDefaults);
}

/** The name rule of CRDs beyond DNS subdomain: exactly `<plural>.<group>`. */
function validateName(crd: CustomResourceDefinition): FieldError[] {
  const name = crd.metadata.name ?? '';
  const expected = `${crd.spec.names?.plural ?? ''}.${crd.spec.group ?? ''}`;
  return name === expected
    ? []
    : [invalid(FieldPath.root('metadata', 'name'), name, 'must be spec.names.plural+"."+spec.group')];
}

/** What an update keeps from the stored definition; a create keeps nothing. */
interface CRDRules {
  /** Rule expressions the stored definition had, compiled in the stored environment. */
  readonly preexisting: PreexistingExpressions;
  /** A known ConversionReview version is required unless the stored definition named only unknown ones. */
  readonly requireAcceptedReviewVersion: boolean;
  /**
   * A conversion webhook's caBundle goes unchecked on create and while the stored definition is
   * not established, and an update may keep a bundle that was already invalid.
   */
  readonly allowInvalidCABundle: boolean;
  /** The stored definition, on update. */
  readonly previous?: CustomResourceDefinition;
}

const CREATE_RULES: CRDRules = {
  preexisting: NO_PREEXISTING_EXPRESSIONS,
  requireAcceptedReviewVersion: true,
  allowInvalidCABundle: true,
};

export function validateCRD(object: KubeObject, rules: CRDRules = CREATE_RULES): FieldError[] {
  const crd = asCRD(object);
  return [
    ...validateName(crd),
    ...validateSpec(crd, rules),
    ...validateNames(crd.status?.acceptedNames, FieldPath.root('status', 'acceptedNames')),
    ...validateStoredVersions(crd),
    ...validateAPIApproval(crd, rules.previous),
  ];
}

export function validateCRDUpdate(object: KubeObject, old: KubeObject): FieldError[] {
  const crd = asCRD(object);
  const previous = asCRD(old);
  const oldSchemas = (previous.spec.versions ?? []).flatMap((version) =>
    version.schema?.openAPIV3Schema === undefined ? [] : [version.schema.openAPIV3Schema],
  );
  const oldReviewVersions = previous.spec.conversion?.webhook?.conversionReviewVersions ?? [];
  const errors = validateCRD(object, {
    preexisting: preexistingExpressions(oldSchemas),
    requireAcceptedReviewVersion:
      oldReviewVersions.length === 0 || oldReviewVersions.some((version) => ACCEPTED_REVIEW_VERSIONS.includes(version)),
    allowInvalidCABundle:
      !isConditionTrue(previous, 'Established') ||
      isInvalidCABundle(previous.spec.conversion?.webhook?.clientConfig?.caBundle),
    previous,
  }).filter((error) => error.field !== 'metadata.name');
  if (isConditionTrue(previous, 'Established')) {
    errors.push(...immutable(spec.child('scope'), crd.spec.scope, previous.spec.scope));
    errors.push(...immutable(spec.child('names', 'kind'), crd.spec.names?.kind, previous.spec.names?.kind));
  }
  errors.push(...immutable(spec.child('group'), crd.spec.group, previous.spec.group));
  errors.push(...immutable(spec.child('names', 'plural'), crd.spec.names?.plural, previous.spec.names?.plural));
  return errors;
}

/** On the status subresource: the accepted names must still be valid names. */
export function validateCRDStatus(object: KubeObject): FieldError[] {
  return validateNames(asCRD(object).status?.acceptedNames, FieldPath.root('status', 'acceptedNames'));
}
