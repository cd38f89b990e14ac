/**
 * A domain-prefixed path, `acme.io/foo`: how a Job's `managedBy` and an IngressClass's
 * controller name the controller they are left to. The reference's IsDomainPrefixedPath: the
 * host's errors and the path's are both reported.
 */
import { FieldPath, invalid, required } from '../status/field-errors';
import type { FieldError } from '../status/field-error';
import { isDNS1123Subdomain, regexError } from './names';

const HTTP_PATH_PATTERN = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH = new RegExp(`^${HTTP_PATH_PATTERN}$`);

export function domainPrefixedPathErrors(value: string, path: FieldPath): FieldError[] {
  if (value === '') return [required(path)];
  const slash = value.indexOf('/');
  const host = value.slice(0, Math.max(slash, 0));
  const rest = value.slice(slash + 1);
  if (slash <= 0 || rest === '')
    return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errors = isDNS1123Subdomain(host).map((message) => invalid(path, host, message));
  if (!HTTP_PATH.test(rest)) errors.push(invalid(path, rest, regexError('Invalid path', HTTP_PATH_PATTERN)));
  return errors;
}
