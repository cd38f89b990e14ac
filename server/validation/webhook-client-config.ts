/**
 * Where a webhook is called, checked as the reference's `util/webhook` does it for admission
 * webhooks: a URL (https only, with a host, and no user information, fragment or query) or an
 * in-cluster service (name, namespace, port, and a path of DNS-subdomain segments).
 */
import { parseGoURL } from '../net/go-url';
import { FieldPath, invalid, required } from '../status/field-errors';
import type { FieldError } from '../status/field-error';
import { isDNS1123Subdomain, isValidPortNum } from './names';

const URL_FORM = '; desired format: https://host[/path]';

/** The reference's ValidateWebhookURL; `forceHttps` refuses other schemes. */
export function validateWebhookURL(path: FieldPath, url: string, forceHttps: boolean): FieldError[] {
  const parsed = parseGoURL(url);
  if ('error' in parsed) return [required(path, `url must be a valid URL: ${parsed.error}${URL_FORM}`)];
  const errors: FieldError[] = [];
  if (forceHttps && parsed.scheme !== 'https')
    errors.push(invalid(path, parsed.scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (parsed.host === '') errors.push(invalid(path, parsed.host, `host must be specified${URL_FORM}`));
  if (parsed.user !== undefined)
    errors.push(invalid(path, parsed.user.toString(), 'user information is not permitted in the URL'));
  if (parsed.fragment !== '') errors.push(invalid(path, parsed.fragment, 'fragments are not permitted in the URL'));
  if (parsed.rawQuery !== '')
    errors.push(invalid(path, parsed.rawQuery, 'query parameters are not permitted in the URL'));
  return errors;
}

export interface WebhookService {
  readonly name?: string;
  readonly namespace?: string;
  readonly path?: string;
  readonly port?: number;
}

/**
 * The reference's ValidateWebhookService (the port defaulted before it runs). Its callers pass the
 * service's name where it takes the namespace and the other way round, so a missing namespace is
 * reported at `name` (first) and a missing name at `namespace`, as clients see it.
 */
export function validateWebhookService(path: FieldPath, service: WebhookService): FieldError[] {
  const errors: FieldError[] = [];
  if (!service.namespace) errors.push(required(path.child('name')));
  if (!service.name) errors.push(required(path.child('namespace')));
  const port = service.port ?? 0;
  for (const message of isValidPortNum(port))
    errors.push(invalid(path.child('port'), port, `port is not valid: ${message}`));
  const urlPath = service.path;
  if (urlPath === undefined || urlPath === null || urlPath === '' || urlPath === '/') return errors;
  const pathField = path.child('path');
  if (urlPath === '//') return [...errors, invalid(pathField, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errors.push(invalid(pathField, urlPath, "must start with a '/'"));
  const trimmed = urlPath.slice(1).replace(/\/$/, '');
  trimmed.split('/').forEach((segment, i) => {
    if (segment === '') return void errors.push(invalid(pathField, urlPath, `segment[${i}] may not be empty`));
    for (const message of isDNS1123Subdomain(segment))
      errors.push(invalid(pathField, urlPath, `segment[${i}]: ${message}`));
  });
  return errors;
}
