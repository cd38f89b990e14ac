/**
 * `pods/log`'s query as the reference reads it into PodLogOptions (a parameter that does not
 * convert is 400 with Go's parse error) and validates it (422 Invalid on `PodLogOptions`), and
 * the query it sends the kubelet's `/containerLogs/<namespace>/<pod>/<container>`: the set
 * options only, keys in order, `sinceTime` in RFC 3339 at whole seconds in UTC.
 */
import { badRequest, invalid } from '../status/catalogue';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, invalid as invalidField, notSupported } from '../status/field-errors';
import { parseBool, parseInteger, type QueryParameters } from '../request/query';
import { goTimeParseError, RFC3339_LAYOUT } from '../validation/go-time';
import { metaTime } from '../../api/objects';

export interface PodLogOptions {
  readonly container: string;
  readonly follow: boolean;
  readonly previous: boolean;
  readonly timestamps: boolean;
  readonly insecureSkipTLSVerifyBackend: boolean;
  readonly sinceSeconds?: number;
  /** Seconds since the epoch. */
  readonly sinceTime?: number;
  readonly tailLines?: number;
  readonly limitBytes?: number;
  /** Which of the container's streams (PodLogsQuerySplitStreams): `All`, `Stdout` or `Stderr`. */
  readonly stream?: string;
}

/** The streams a log may be read from, in the reference's declaration order. */
const LOG_STREAMS = ['Stdout', 'Stderr', 'All'];

/**
 * The first value of each parameter, converted as the reference's query decoding converts it;
 * with PodLogsQuerySplitStreams on (`splitStreams`) a log without a stream reads them `All`.
 */
export function parsePodLogOptions(query: QueryParameters, splitStreams: boolean): PodLogOptions {
  const flag = (name: string) => {
    const text = query.get(name);
    return text !== null && parseBool(text);
  };
  const integer = (name: string) => {
    const text = query.get(name);
    return text === null ? undefined : parseInteger(text);
  };
  const sinceText = query.get('sinceTime');
  return {
    container: query.get('container') ?? '',
    follow: flag('follow'),
    previous: flag('previous'),
    timestamps: flag('timestamps'),
    insecureSkipTLSVerifyBackend: flag('insecureSkipTLSVerifyBackend'),
    sinceSeconds: integer('sinceSeconds'),
    sinceTime: sinceText === null || sinceText === '' ? undefined : parseRfc3339(sinceText),
    tailLines: integer('tailLines'),
    limitBytes: integer('limitBytes'),
    stream: query.get('stream') ?? (splitStreams ? 'All' : undefined),
  };
}

/** The reference's ValidatePodLogOptions; a stream may be chosen only with PodLogsQuerySplitStreams (`splitStreams`). */
export function validatePodLogOptions(name: string, options: PodLogOptions, splitStreams: boolean): void {
  const errors: FieldError[] = [];
  if (options.tailLines !== undefined && options.tailLines < 0)
    errors.push(invalidField(FieldPath.root('tailLines'), options.tailLines, 'must be greater than or equal to 0'));
  if (options.limitBytes !== undefined && options.limitBytes < 1)
    errors.push(invalidField(FieldPath.root('limitBytes'), options.limitBytes, 'must be greater than 0'));
  if (options.sinceSeconds !== undefined && options.sinceTime !== undefined) {
    // Go prints the empty root path as `[]`.
    errors.push(forbidden(FieldPath.root('[]'), 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (options.sinceSeconds !== undefined && options.sinceSeconds < 1) {
    errors.push(invalidField(FieldPath.root('sinceSeconds'), options.sinceSeconds, 'must be greater than 0'));
  }
  if (!splitStreams) {
    if (options.stream !== undefined) errors.push(forbidden(FieldPath.root('stream'), 'may not be specified'));
  } else if (options.stream !== undefined) {
    if (!LOG_STREAMS.includes(options.stream))
      errors.push(notSupported(FieldPath.root('stream'), options.stream, LOG_STREAMS));
    if (options.stream !== 'All' && options.tailLines !== undefined)
      errors.push(forbidden(FieldPath.root('[]'), '`tailLines` and specific `stream` are mutually exclusive for now'));
  }
  if (errors.length > 0) throw invalid({ group: '', kind: 'PodLogOptions' }, name, errors);
}

/** The kubelet's query: the options set, in key order, as the reference's url.Values encodes them. */
export function kubeletLogQuery(options: PodLogOptions): string {
  const params = new URLSearchParams();
  if (options.follow) params.set('follow', 'true');
  if (options.limitBytes !== undefined) params.set('limitBytes', String(options.limitBytes));
  if (options.previous) params.set('previous', 'true');
  if (options.sinceSeconds !== undefined) params.set('sinceSeconds', String(options.sinceSeconds));
  if (options.sinceTime !== undefined) params.set('sinceTime', metaTime(new Date(options.sinceTime * 1000)));
  if (options.stream !== undefined) params.set('stream', options.stream);
  if (options.tailLines !== undefined) params.set('tailLines', String(options.tailLines));
  if (options.timestamps) params.set('timestamps', 'true');
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The fields of a time Go's RFC 3339 layout takes (goTimeParseError has checked it). */
const RFC3339_FIELDS = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,]\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Seconds since the epoch of an RFC 3339 time (fractions dropped, as the reference's metav1.Time keeps seconds). */
function parseRfc3339(text: string): number {
  const error = goTimeParseError(text, RFC3339_LAYOUT);
  if (error !== undefined) throw badRequest(error);
  const [, year, month, day, hour, minute, second, zone] = RFC3339_FIELDS.exec(text)!;
  const offsetMinutes =
    zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const utc = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  return Math.floor(utc / 1000) - offsetMinutes * 60;
}
