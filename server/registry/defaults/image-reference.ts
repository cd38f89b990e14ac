/**
 * An image reference's tag and digest as the reference's default pull policy reads them
 * (pkg/util/parsers.ParseImageName over github.com/distribution/reference's ParseNormalizedNamed
 * and go-digest's checks), or nothing for a reference those refuse: an uppercase repository, a
 * bare 64-hex identifier, a name over 255 characters, a digest of an algorithm the server does
 * not know or of the wrong length. Written by hand: the npm parsers of docker references follow
 * other normalisations and know nothing of which digests Go accepts.
 */

const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const LOCALHOST = 'localhost';
const OFFICIAL_REPO_PREFIX = 'library/';
const REPOSITORY_NAME_TOTAL_LENGTH_MAX = 255;

const ALPHANUMERIC = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const DOMAIN_NAME_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_NAME = `${DOMAIN_NAME_COMPONENT}(?:\\.${DOMAIN_NAME_COMPONENT})*`;
const HOST = `(?:${DOMAIN_NAME}|\\[(?:[a-fA-F0-9:]+)\\])`;
const DOMAIN_AND_PORT = `${HOST}(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}';
const PATH_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const NAME = `(?:${DOMAIN_AND_PORT}/)?${REMOTE_NAME}`;

const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const ANCHORED_NAME = new RegExp(`^(?:(${DOMAIN_AND_PORT})/)?(${REMOTE_NAME})$`);
const IDENTIFIER = /^[a-f0-9]{64}$/;
/** The digests the reference's server can check: their hex lengths (crypto/sha256 and sha512 are linked in). */
const DIGEST_HEX_LENGTHS: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

export interface ImageReference {
  /** Empty when the reference names none. */
  readonly tag: string;
  readonly digest: string;
}

/** The reference's tag and digest, or undefined where the reference's parser refuses it. */
export function parseImageReference(image: string): ImageReference | undefined {
  if (IDENTIFIER.test(image)) return undefined;
  const { domain, remainder } = splitDockerDomain(image);
  const remote = remainder.includes(':') ? remainder.slice(0, remainder.indexOf(':')) : remainder;
  if (remote.toLowerCase() !== remote) return undefined;
  const match = REFERENCE.exec(`${domain}/${remainder}`);
  if (match === null) return undefined;
  const path = ANCHORED_NAME.exec(match[1])?.[2] ?? match[1];
  if (path.length > REPOSITORY_NAME_TOTAL_LENGTH_MAX) return undefined;
  const digest = match[3] ?? '';
  if (digest !== '' && !isCheckableDigest(digest)) return undefined;
  return { tag: match[2] ?? '', digest };
}

/** go-digest's Validate for the algorithms the server has: lowercase hex of the hash's length. */
function isCheckableDigest(digest: string): boolean {
  const [algorithm, encoded] = [digest.slice(0, digest.indexOf(':')), digest.slice(digest.indexOf(':') + 1)];
  const length = Object.hasOwn(DIGEST_HEX_LENGTHS, algorithm) ? DIGEST_HEX_LENGTHS[algorithm] : undefined;
  return length !== undefined && encoded.length === length && /^[a-f0-9]+$/.test(encoded);
}

/** Which part of a name is a registry: Docker Hub's names are familiar ones, under `library/` when bare. */
function splitDockerDomain(name: string): { domain: string; remainder: string } {
  const slash = name.indexOf('/');
  if (slash < 0) return { domain: DEFAULT_DOMAIN, remainder: OFFICIAL_REPO_PREFIX + name };
  const [maybeDomain, maybeRemainder] = [name.slice(0, slash), name.slice(slash + 1)];
  let domain = DEFAULT_DOMAIN;
  let remainder = name;
  if (maybeDomain === LEGACY_DEFAULT_DOMAIN) remainder = maybeRemainder;
  else if (maybeDomain === LOCALHOST || /[.:]/.test(maybeDomain) || maybeDomain.toLowerCase() !== maybeDomain)
    [domain, remainder] = [maybeDomain, maybeRemainder];
  if (domain === DEFAULT_DOMAIN && !remainder.includes('/')) remainder = OFFICIAL_REPO_PREFIX + remainder;
  return { domain, remainder };
}
