/**
 * A projected volume, as the reference's validateProjectedVolumeSource checks it: a file mode,
 * and each source entry of one kind only (every kind it sets is checked nonetheless), the files
 * of all its sources at distinct paths. A service account token's path is not among those
 * paths, as the reference does not count it.
 */
import type { FieldError } from '../status/field-error';
import {
  forbidden,
  GoValue,
  invalid,
  jsonLabelSelector,
  notSupported,
  required,
  FieldPath,
} from '../status/field-errors';
import { clusterTrustBundleNameOf, validateSignerName } from './cluster-trust-bundle';
import { downwardAPIVolumeFileErrors } from './downward-api';
import { validateLabelSelector, type LabelSelectorShape } from './object-meta';
import { longestMaxExpirationSeconds, MIN_MAX_EXPIRATION_SECONDS } from './pod-certificate-request';
import { fileModeErrors, keyToPathErrors, localNonReservedPathErrors } from './volume-file-paths';

type Json = Record<string, unknown>;

export interface ProjectionOptions {
  /** A token may be written outside the volume: the stored pod already writes one there. */
  readonly allowNonLocalTokenPath: boolean;
}

const MIN_TOKEN_SECONDS = 10 * 60;
const MAX_TOKEN_SECONDS = 2 ** 32;
const KEY_TYPES = ['RSA3072', 'RSA4096', 'ECDSAP256', 'ECDSAP384', 'ECDSAP521', 'ED25519'];
const DUPLICATE_PATHS = 'conflicting duplicate paths';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const isSet = (value: unknown): boolean => value !== undefined && value !== null;
const listOf = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/** The paths the sources write so far; a repeat is reported at the projection with `shown` as its value. */
class WrittenPaths {
  private readonly paths = new Set<string>();

  constructor(private readonly projectionPath: FieldPath) {}

  claim(path: string, shown: string): FieldError[] {
    if (!this.paths.has(path)) {
      this.paths.add(path);
      return [];
    }
    return [invalid(this.projectionPath, shown, DUPLICATE_PATHS)];
  }
}

/** A secret's or config map's keys; a repeated path is reported with the object's name. */
function objectFilesErrors(source: Json, path: FieldPath, written: WrittenPaths): FieldError[] {
  const errors: FieldError[] = [];
  if (text(source.name) === '') errors.push(required(path.child('name')));
  listOf(source.items).forEach((item, i) => {
    errors.push(...keyToPathErrors(item, path.child('items').index(i)));
    if (text(item.path) !== '') errors.push(...written.claim(text(item.path), text(source.name)));
  });
  return errors;
}

function downwardAPIErrors(source: Json, path: FieldPath, written: WrittenPaths): FieldError[] {
  return listOf(source.items).flatMap((file) => [
    ...downwardAPIVolumeFileErrors(file, path),
    ...(text(file.path) !== '' ? written.claim(text(file.path), text(file.path)) : []),
  ]);
}

/** The token's path is reported at the projection's `path`, not the source's, as the reference does. */
function serviceAccountTokenErrors(
  source: Json,
  path: FieldPath,
  projectionPath: FieldPath,
  options: ProjectionOptions,
): FieldError[] {
  const errors: FieldError[] = [];
  const seconds = typeof source.expirationSeconds === 'number' ? source.expirationSeconds : 0;
  if (seconds < MIN_TOKEN_SECONDS)
    errors.push(invalid(path.child('expirationSeconds'), seconds, 'may not specify a duration less than 10 minutes'));
  if (seconds > MAX_TOKEN_SECONDS)
    errors.push(
      invalid(path.child('expirationSeconds'), seconds, 'may not specify a duration larger than 2^32 seconds'),
    );
  const tokenPath = text(source.path);
  if (tokenPath === '') errors.push(required(projectionPath.child('path')));
  else if (!options.allowNonLocalTokenPath)
    errors.push(...localNonReservedPathErrors(tokenPath, projectionPath.child('path')));
  return errors;
}

/** The projection as the reference prints its internal struct: Go's field names, unset pointers null. */
function shownTrustBundleProjection(source: Json): GoValue {
  const selector = source.labelSelector as LabelSelectorShape | null | undefined;
  return new GoValue(
    `{"Name":${JSON.stringify(source.name ?? null)},"SignerName":${JSON.stringify(source.signerName ?? null)},` +
      `"LabelSelector":${isSet(selector) ? jsonLabelSelector(selector ?? undefined).text : 'null'},` +
      `"Optional":${JSON.stringify(source.optional ?? null)},"Path":${JSON.stringify(text(source.path))}}`,
  );
}

/** A bundle named outright, or chosen by signer and labels: one of the two ways, never both. */
function clusterTrustBundleErrors(source: Json, path: FieldPath, written: WrittenPaths): FieldError[] {
  const errors: FieldError[] = [];
  const byName = isSet(source.name);
  const bySigner = isSet(source.signerName);
  if (byName && bySigner)
    errors.push(invalid(path, shownTrustBundleProjection(source), 'only one of name and signerName may be used'));
  else if (byName) {
    const name = text(source.name);
    if (name === '') errors.push(required(path.child('name'), 'must be a valid object name'));
    // A name with a ':' names a signer's bundle: the signer is what comes before the last one.
    const colon = name.lastIndexOf(':');
    const signerName = colon < 0 ? '' : name.slice(0, colon).replaceAll(':', '/');
    for (const message of clusterTrustBundleNameOf(signerName)(name, false))
      errors.push(invalid(path.child('name'), name, `not a valid clustertrustbundlename: ${message}`));
    if (isSet(source.labelSelector))
      errors.push(
        invalid(
          path.child('labelSelector'),
          jsonLabelSelector(source.labelSelector as LabelSelectorShape),
          'labelSelector must be unset if name is specified',
        ),
      );
  } else if (bySigner) {
    const signerName = text(source.signerName);
    if (signerName === '') errors.push(required(path.child('signerName'), 'must be a valid signer name'));
    errors.push(...validateSignerName(path.child('signerName'), signerName));
    errors.push(
      ...validateLabelSelector(
        (source.labelSelector as LabelSelectorShape | null | undefined) ?? undefined,
        path.child('labelSelector'),
        { allowInvalidLabelValues: false },
      ),
    );
  } else errors.push(required(path, 'either name or signerName must be specified'));
  const bundlePath = text(source.path);
  if (bundlePath === '') errors.push(required(path.child('path')));
  errors.push(...localNonReservedPathErrors(bundlePath, path.child('path')));
  errors.push(...written.claim(bundlePath, bundlePath));
  return errors;
}

const POD_CERTIFICATE_FILES = ['credentialBundlePath', 'keyPath', 'certificateChainPath'] as const;

function podCertificateErrors(source: Json, path: FieldPath, written: WrittenPaths): FieldError[] {
  const signerName = text(source.signerName);
  const errors = validateSignerName(path.child('signerName'), signerName);
  if (!KEY_TYPES.includes(text(source.keyType)))
    errors.push(notSupported(path.child('keyType'), text(source.keyType), KEY_TYPES));
  const maxSeconds = source.maxExpirationSeconds;
  if (typeof maxSeconds === 'number') {
    const at = path.child('maxExpirationSeconds');
    if (maxSeconds < MIN_MAX_EXPIRATION_SECONDS)
      errors.push(
        invalid(at, maxSeconds, `if provided, maxExpirationSeconds must be >= ${MIN_MAX_EXPIRATION_SECONDS}`),
      );
    const longest = longestMaxExpirationSeconds(signerName);
    if (maxSeconds > longest)
      errors.push(invalid(at, maxSeconds, `if provided, maxExpirationSeconds must be <= ${longest}`));
  }
  let files = 0;
  for (const member of POD_CERTIFICATE_FILES) {
    const filePath = text(source[member]);
    if (filePath === '') continue;
    files++;
    errors.push(...localNonReservedPathErrors(filePath, path.child(member)));
    errors.push(...written.claim(filePath, filePath));
  }
  if (files === 0)
    errors.push(required(path, 'specify at least one of credentialBundlePath, keyPath, and certificateChainPath'));
  return errors;
}

export function projectedVolumeErrors(projection: Json, path: FieldPath, options: ProjectionOptions): FieldError[] {
  const errors = fileModeErrors(projection.defaultMode, path.child('defaultMode'));
  const written = new WrittenPaths(path);
  listOf(projection.sources).forEach((entry, i) => {
    const at = path.child('sources').index(i);
    const set = (member: string): Json | undefined => (isSet(entry[member]) ? (entry[member] as Json) : undefined);
    let kinds = 0;
    const check = (member: string, rule: (source: Json, sourcePath: FieldPath) => FieldError[]) => {
      const source = set(member);
      if (source === undefined) return;
      kinds++;
      errors.push(...rule(source, at.child(member)));
    };
    check('secret', (source, sourcePath) => objectFilesErrors(source, sourcePath, written));
    check('configMap', (source, sourcePath) => objectFilesErrors(source, sourcePath, written));
    check('downwardAPI', (source, sourcePath) => downwardAPIErrors(source, sourcePath, written));
    check('serviceAccountToken', (source, sourcePath) => serviceAccountTokenErrors(source, sourcePath, path, options));
    check('clusterTrustBundle', (source, sourcePath) => clusterTrustBundleErrors(source, sourcePath, written));
    check('podCertificate', (source, sourcePath) => podCertificateErrors(source, sourcePath, written));
    if (kinds > 1) errors.push(forbidden(at, 'may not specify more than 1 volume type per source'));
  });
  return errors;
}

/** Whether a projected token is written outside its volume, which the stored spec of an update may keep doing. */
export function writesTokenOutsideVolume(volumes: readonly Json[]): boolean {
  return volumes.some((volume) =>
    listOf((volume.projected as Json | null | undefined)?.sources).some((source) => {
      const token = source.serviceAccountToken as Json | null | undefined;
      return isSet(token) && localNonReservedPathErrors(text(token?.path), FieldPath.root()).length > 0;
    }),
  );
}

/**
 * A Pod (not a template) may project a service account token only with a service account
 * named: checked on every volume, whatever else it holds.
 */
export function tokenWithoutServiceAccountErrors(
  volumes: readonly Json[],
  serviceAccountName: string,
  path: FieldPath,
): FieldError[] {
  if (serviceAccountName !== '') return [];
  return volumes.flatMap((volume, i) =>
    listOf((volume.projected as Json | null | undefined)?.sources).flatMap((source, j) =>
      isSet(source.serviceAccountToken)
        ? [
            forbidden(
              path.index(i).child('projected', 'sources').index(j).child('serviceAccountToken'),
              'must not be specified when serviceAccountName is not set',
            ),
          ]
        : [],
    ),
  );
}
