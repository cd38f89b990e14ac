/**
 * Negotiation of media types, as the reference's endpoint negotiation does it: the `Accept`
 * header's clauses are tried best first, each against the serializers in the server's order
 * (JSON, YAML, Protobuf, then CBOR when enabled); the first clause a serializer matches *and*
 * whose parameters (`as`/`g`/`v` transforms, `stream`) the endpoint allows wins. Nothing
 * fitting is a 406 listing the media types the endpoint serves. Request bodies are chosen by
 * `Content-Type`, with 415 for anything else.
 *
 * Written here rather than taken from `negotiator`/`accepts`: those pick among offered strings
 * by wildcard matching, while the API server decides by parameters (a clause asks for a Table
 * only by naming `as`, `g` and `v`, and `*\/*` means the plain form).
 */
import { notAcceptable, unsupportedMediaType } from '../status/catalogue';
import { goMediaType } from './go-media-type';
import type { QueryParameters } from '../request/query';

export interface MediaRange {
  /** `*` allowed; lowercased in a `Content-Type`, as sent in an `Accept` range. */
  readonly type: string;
  /** `*` allowed; lowercased in a `Content-Type`, as sent in an `Accept` range. */
  readonly subtype: string;
  /** Parameters other than `q`, values as sent (unquoted); names cased as the type is. */
  readonly parameters: Readonly<Record<string, string>>;
  /** Weight from `q`, 1 when absent. */
  readonly quality: number;
}

/**
 * The ranges of an `Accept` header, best first: by weight, then concrete types before
 * wildcards, then more parameters first, then the client's order (the reference's ordering).
 * Ranges with `q=0` and malformed entries are dropped. An absent or empty header yields `*\/*`.
 */
/**
 * Parsed `Accept` headers by their text. A client sends the same header on every request, and
 * parsing it was a visible share of a small request's CPU; the map is emptied when full, so a
 * client sending ever-new headers costs the parse and no memory.
 */
const parsedAccepts = new Map<string, readonly MediaRange[]>();
const PARSED_ACCEPTS_KEPT = 64;

/** The header's media ranges, heaviest first; the answer is shared, so it must not be changed. */
export function parseAccept(header: string | undefined): readonly MediaRange[] {
  if (header === undefined || header.trim() === '') return ANY_MEDIA_RANGE;
  let ranges = parsedAccepts.get(header);
  if (ranges === undefined) {
    if (parsedAccepts.size >= PARSED_ACCEPTS_KEPT) parsedAccepts.clear();
    ranges = parseAcceptRanges(header);
    parsedAccepts.set(header, ranges);
  }
  return ranges;
}

const ANY_MEDIA_RANGE: readonly MediaRange[] = [{ type: '*', subtype: '*', parameters: {}, quality: 1 }];

function parseAcceptRanges(header: string): MediaRange[] {
  // The reference's Accept parser (goautoneg) keeps the client's case, and its negotiation
  // compares types exactly: `APPLICATION/JSON` is a 406 there, unlike a Content-Type of that
  // spelling, which Go's mime package lowercases.
  const ranges = splitOutsideQuotes(header, ',')
    .map((text) => parseMediaRange(text, { lowercase: false }))
    // The reference orders by weight but drops no range, not even `q=0`.
    .filter((range): range is MediaRange => range !== undefined);
  // Array.prototype.sort is stable: equal ranges keep the client's order.
  return ranges.sort(compareRanges);
}

function compareRanges(a: MediaRange, b: MediaRange): number {
  if (a.quality !== b.quality) return b.quality - a.quality;
  const wildcardType = Number(a.type === '*') - Number(b.type === '*');
  if (wildcardType !== 0) return wildcardType;
  const wildcardSubtype = Number(a.subtype === '*') - Number(b.subtype === '*');
  if (wildcardSubtype !== 0) return wildcardSubtype;
  return Object.keys(b.parameters).length - Object.keys(a.parameters).length;
}

/** Whether `range` admits the concrete type `type/subtype` (wildcards allowed in the range). */
export function rangeMatchesType(range: MediaRange, type: string, subtype: string): boolean {
  if (range.type === '*') return range.subtype === '*';
  return range.type === type && (range.subtype === '*' || range.subtype === subtype);
}

/** The media type of a `Content-Type` header with its parameters; undefined when malformed. */
export function parseMediaType(header: string): MediaRange | undefined {
  return parseMediaRange(header, { lowercase: true });
}

function parseMediaRange(text: string, options: { lowercase: boolean }): MediaRange | undefined {
  const cased = (value: string) => (options.lowercase ? value.toLowerCase() : value);
  const [fullType, ...parameterTexts] = splitOutsideQuotes(text, ';');
  if (fullType === undefined) return undefined;
  const slash = fullType.indexOf('/');
  if (slash <= 0 || slash === fullType.length - 1) return undefined;
  const type = cased(fullType.slice(0, slash).trim());
  const subtype = cased(fullType.slice(slash + 1).trim());
  if (type === '' || subtype === '' || (type === '*' && subtype !== '*')) return undefined;

  const parameters: Record<string, string> = {};
  let quality = 1;
  for (const parameterText of parameterTexts) {
    const equals = parameterText.indexOf('=');
    if (equals <= 0) continue;
    const name = cased(parameterText.slice(0, equals).trim());
    const value = unquote(parameterText.slice(equals + 1).trim());
    if (name === 'q') {
      // A weight that does not parse counts as 0, as the reference's parser takes it.
      const weight = Number(value);
      quality = Number.isFinite(weight) && value !== '' ? weight : 0;
    } else {
      parameters[name] = value;
    }
  }
  return { type, subtype, parameters, quality };
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return value;
}

/** Split on `separator` except inside double-quoted strings; pieces are trimmed, empty ones dropped. */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const pieces: string[] = [];
  let current = '';
  let inQuotes = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (inQuotes && character === '\\' && index + 1 < text.length) {
      current += character + text[index + 1];
      index++;
      continue;
    }
    if (character === '"') inQuotes = !inQuotes;
    if (character === separator && !inQuotes) {
      pieces.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  pieces.push(current);
  return pieces.map((piece) => piece.trim()).filter((piece) => piece !== '');
}

// ---------------------------------------------------------------------------------------------
// Serializers and the negotiation proper

export type Format = 'json' | 'yaml' | 'protobuf' | 'cbor';

export const JSON_MEDIA_TYPE = 'application/json';
export const YAML_MEDIA_TYPE = 'application/yaml';
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
export const CBOR_MEDIA_TYPE = 'application/cbor';

export interface SerializerInfo {
  readonly format: Format;
  readonly mediaType: string;
  readonly type: string;
  readonly subtype: string;
  /** The Content-Type of a watch stream in this format; absent: the format cannot stream (YAML). */
  readonly streamMediaType?: string;
}

const SERIALIZERS: Readonly<Record<Format, SerializerInfo>> = {
  json: {
    format: 'json',
    mediaType: JSON_MEDIA_TYPE,
    type: 'application',
    subtype: 'json',
    streamMediaType: JSON_MEDIA_TYPE,
  },
  yaml: { format: 'yaml', mediaType: YAML_MEDIA_TYPE, type: 'application', subtype: 'yaml' },
  protobuf: {
    format: 'protobuf',
    mediaType: PROTOBUF_MEDIA_TYPE,
    type: 'application',
    subtype: 'vnd.kubernetes.protobuf',
    streamMediaType: `${PROTOBUF_MEDIA_TYPE};stream=watch`,
  },
  cbor: {
    format: 'cbor',
    mediaType: CBOR_MEDIA_TYPE,
    type: 'application',
    subtype: 'cbor',
    streamMediaType: 'application/cbor-seq',
  },
};

/** The four lists `serializersFor` answers, made once (every negotiated request asks for two), by `listIndex`. */
const SERIALIZER_LISTS: readonly (readonly SerializerInfo[])[] = [false, true].flatMap((protobuf) =>
  [false, true].map((cbor) => {
    const formats: Format[] = ['json', 'yaml'];
    if (protobuf) formats.push('protobuf');
    if (cbor) formats.push('cbor');
    return Object.freeze(formats.map((format) => SERIALIZERS[format]));
  }),
);

function listIndex(protobuf: boolean, cbor: boolean): number {
  return (protobuf ? 2 : 0) + (cbor ? 1 : 0);
}

/**
 * The serializers an endpoint offers, in the reference's order. Custom resources have no
 * protobuf form; CBOR exists only with the `CBORServingAndStorage` gate.
 */
export function serializersFor(options: { protobuf: boolean; cbor: boolean }): readonly SerializerInfo[] {
  return SERIALIZER_LISTS[listIndex(options.protobuf, options.cbor)];
}

/**
 * The media types a route of the reference declares it produces, in its order: each
 * serializer's, then (for the routes that also watch) each stream's.
 */
export function producedMediaTypes(serializers: readonly SerializerInfo[], options: { streams: boolean }): string[] {
  const mediaTypes = serializers.map((serializer) => serializer.mediaType);
  return options.streams ? [...mediaTypes, ...streamMediaTypes(serializers)] : mediaTypes;
}

/** The watch streams' media types as the reference names them; CBOR's is `application/cbor-seq`. */
function streamMediaTypes(serializers: readonly SerializerInfo[]): string[] {
  return serializers
    .filter((serializer) => serializer.streamMediaType !== undefined)
    .map((serializer) =>
      serializer.format === 'cbor' ? serializer.streamMediaType! : `${serializer.mediaType};stream=watch`,
    );
}

/** A kind the client asked the answer to be converted to (`as`, `g`, `v`). */
export interface Transform {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export type TransformKind = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

const META_GROUP = 'meta.k8s.io';
const META_VERSIONS = ['v1', 'v1beta1'];

/** What an endpoint can answer with besides its own kind. */
export interface EndpointRestrictions {
  /** The kind can be printed as a Table (every stored kind; not reviews). */
  readonly table: boolean;
  /** PartialObjectMetadata(List) are offered (resource endpoints, not errors or discovery). */
  readonly metadata: boolean;
}

/** Errors and other plain answers: no transforms. */
export const NO_TRANSFORMS: EndpointRestrictions = { table: false, metadata: false };

function allowsTransform(
  restrictions: EndpointRestrictions,
  serializer: SerializerInfo,
  transform: Transform | undefined,
): boolean {
  if (transform === undefined) return true;
  if (transform.group !== META_GROUP || !META_VERSIONS.includes(transform.version)) return false;
  switch (transform.kind) {
    case 'Table':
      // The reference prints tables only in text forms (and CBOR, its binary twin of JSON).
      return restrictions.table && serializer.format !== 'protobuf';
    case 'PartialObjectMetadata':
    case 'PartialObjectMetadataList':
      return restrictions.metadata;
    default:
      return false;
  }
}

export interface Negotiated {
  readonly serializer: SerializerInfo;
  /** Set when the chosen clause asked for a Table or metadata. */
  readonly transform?: Transform & { readonly kind: TransformKind };
  /** The clause's `stream` parameter (`watch`), if any. */
  readonly stream?: string;
  /** `pretty=1` in the clause (query `pretty` and user agents are applied by `wantsPretty`). */
  readonly pretty: boolean;
}

export interface NegotiateOptions {
  readonly accept: string | undefined;
  readonly serializers: readonly SerializerInfo[];
  readonly restrictions: EndpointRestrictions;
  /** A watch: only formats with a stream form qualify. */
  readonly watch?: boolean;
  /**
   * The serializers a 406 names; absent: `serializers`. The reference's custom resource handler
   * names protobuf, which it refuses for want of a protobuf form.
   */
  readonly named?: readonly SerializerInfo[];
}

/**
 * The first clause a serializer and the endpoint accept; throws the reference's 406 otherwise.
 * A watch is agreed on as the reference agrees on it: the object's form first (refused naming
 * every form), then that form's stream (refused naming every stream).
 */
export function negotiateOutput(options: NegotiateOptions): Negotiated {
  const named = options.named ?? options.serializers;
  const chosen = chooseOutput(options);
  if (chosen === undefined) throw notAcceptable(named.map((serializer) => serializer.mediaType));
  if (options.watch && chosen.serializer.streamMediaType === undefined) throw notAcceptable(streamMediaTypes(named));
  return chosen;
}

function chooseOutput(options: NegotiateOptions): Negotiated | undefined {
  if (options.accept === undefined || options.accept.trim() === '') {
    return { serializer: options.serializers[0], pretty: false };
  }
  for (const range of parseAccept(options.accept)) {
    for (const serializer of options.serializers) {
      if (!rangeMatchesType(range, serializer.type, serializer.subtype)) continue;
      const accepted = acceptParameters(range.parameters, serializer, options.restrictions);
      if (accepted !== undefined) return accepted;
    }
  }
  return undefined;
}

function acceptParameters(
  parameters: Readonly<Record<string, string>>,
  serializer: SerializerInfo,
  restrictions: EndpointRestrictions,
): Negotiated | undefined {
  const { as, g, v, stream, pretty } = parameters;
  if (stream !== undefined && stream !== '' && (stream !== 'watch' || serializer.streamMediaType === undefined))
    return undefined;
  const asked =
    as !== undefined || g !== undefined || v !== undefined
      ? { group: g ?? '', version: v ?? '', kind: as ?? '' }
      : undefined;
  if (!allowsTransform(restrictions, serializer, asked)) return undefined;
  return {
    serializer,
    ...(asked === undefined ? {} : { transform: { ...asked, kind: asked.kind as TransformKind } }),
    ...(stream ? { stream } : {}),
    pretty: pretty === '1',
  };
}

/**
 * Whether JSON is indented: the clause's `pretty=1`, else the query's `pretty` (a Go boolean),
 * else user agents of browsers and command-line tools (curl, Wget), as the reference does.
 */
export function wantsPretty(options: {
  negotiated: Negotiated;
  query: QueryParameters;
  userAgent: string | undefined;
}): boolean {
  if (options.negotiated.pretty) return true;
  const value = options.query.get('pretty');
  if (value !== null && value !== '') return parseGoBool(value) ?? false;
  const agent = options.userAgent ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('Mozilla/5.0');
}

/** Go's strconv.ParseBool. */
export function parseGoBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Request bodies

/** The format of a full-object request body (POST, PUT) by its `Content-Type`; 415 otherwise. */
export function requestBodyFormat(options: {
  contentType: string | undefined;
  serializers: readonly SerializerInfo[];
  /** The serializers a 415 names; absent: `serializers` (as `NegotiateOptions.named`). */
  named?: readonly SerializerInfo[];
}): Format {
  const header = options.contentType?.trim() ?? '';
  // An absent Content-Type is read as JSON, as the reference's default serializer does.
  if (header === '') return options.serializers[0].format;
  const mediaType = goMediaType(header);
  const found =
    mediaType === undefined ? undefined : options.serializers.find((serializer) => serializer.mediaType === mediaType);
  if (found === undefined)
    throw unsupportedMediaType((options.named ?? options.serializers).map((serializer) => serializer.mediaType));
  return found.format;
}
