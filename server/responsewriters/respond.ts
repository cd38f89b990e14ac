/**
 * Writing answers in the representation the client negotiated: the one place handlers hand an
 * object, a list or a watch event to, and the one place a Status error is encoded (in the
 * client's type when it can be, in JSON otherwise, as the reference does).
 *
 * Lists go out item by item in JSON (tables too) and protobuf; tables and metadata-only forms
 * are made here from the served objects; get and list bodies are gzip-compressed when asked.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { goStyleYaml } from '../codec/go-style-yaml';
import type { KubeObject } from '../../api/objects';
import { StatusError, type Status } from '../status/status-error';
import { includeObjectOf, tableInParts, tableOf, type IncludeObject } from '../table/table';
import type { Printer } from '../table/printer';
import { queryOf } from '../request/query';
import {
  negotiateOutput,
  serializersFor,
  wantsPretty,
  NO_TRANSFORMS,
  type EndpointRestrictions,
  type Negotiated,
  type SerializerInfo,
} from '../codec/media-type';
import { asPartialObjectMetadata, partialObjectMetadataListHead, type ListMetadata } from '../table/partial-metadata';
import { encodeEnvelope, encodeListChunks, encodeWatchFrame } from '../codec/protobuf-envelope';
import { jsonText, prettyJsonText } from '../json/go-map-order';
import type { JsonObject } from '../codec/protobuf';
import { acceptsGzip, ResponseBody } from './response-body';
import { encodeCbor } from '../codec/cbor';
import { auditOf, auditResponseStatus } from '../audit/record/request-audit';
import { DEFAULT_REPRESENTATION_SETTINGS, type RepresentationSettings } from '../codec/representation-settings';

/** What a resource endpoint can be answered in. */
export interface Endpoint {
  readonly resource: { readonly group: string; readonly resource: string };
  /** Built-in kinds have a protobuf form; custom resources do not. */
  readonly protobuf: boolean;
  /** Kinds that are stored objects print as tables; reviews do not. */
  readonly table: boolean;
  /** The table printer of the kind, or of its served version; absent: Name and Created At. */
  readonly printer?: Printer;
}

export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly settings?: RepresentationSettings;
}

function settingsOf(exchange: { settings?: RepresentationSettings }): RepresentationSettings {
  return exchange.settings ?? DEFAULT_REPRESENTATION_SETTINGS;
}

function serializers(endpoint: Endpoint | undefined, settings: RepresentationSettings): readonly SerializerInfo[] {
  return serializersFor({ protobuf: endpoint?.protobuf ?? true, cbor: settings.cbor });
}

/** The serializers a resource endpoint answers in, in the reference's order. */
export function servedSerializers(
  endpoint: Endpoint,
  settings: RepresentationSettings | undefined,
): readonly SerializerInfo[] {
  return serializers(endpoint, settings ?? DEFAULT_REPRESENTATION_SETTINGS);
}

function restrictionsOf(endpoint: Endpoint): EndpointRestrictions {
  return { table: endpoint.table, metadata: true };
}

/** Negotiates a resource endpoint's answer; throws the 406 Status when nothing fits. */
export function negotiateResponse(
  exchange: Exchange,
  endpoint: Endpoint,
  options: { watch?: boolean } = {},
): Negotiated {
  return negotiateOutput({
    accept: exchange.req.headers.accept,
    serializers: serializers(endpoint, settingsOf(exchange)),
    restrictions: restrictionsOf(endpoint),
    watch: options.watch,
    // A kind without a protobuf form is refused in it, but a 406 names it as for any kind.
    named: serializers(undefined, settingsOf(exchange)),
  });
}

function contentTypeOf(negotiated: Negotiated): string {
  return negotiated.serializer.mediaType;
}

/**
 * A whole value in the negotiated text or binary form; a protobuf message the value's type
 * meta does not name is given by `messageName`.
 */
export function encodeNegotiated(
  req: IncomingMessage,
  negotiated: Negotiated,
  value: unknown,
  messageName?: string,
): Buffer {
  switch (negotiated.serializer.format) {
    case 'protobuf':
      return encodeEnvelope(value as JsonObject, messageName);
    case 'yaml':
      return Buffer.from(goStyleYaml(value));
    case 'cbor':
      return encodeCbor(value);
    case 'json': {
      const pretty = wantsPretty({ negotiated, query: queryOf(req), userAgent: req.headers['user-agent'] });
      // Go's indenting marshaller, which the reference prints pretty JSON with, ends without a newline.
      return Buffer.from(pretty ? prettyJsonText(value) : `${jsonText(value)}\n`);
    }
  }
}

function compressionAllowed(exchange: Exchange): boolean {
  return settingsOf(exchange).compression && acceptsGzip(exchange.req.headers['accept-encoding']);
}

function isStatus(object: unknown): object is Status {
  return typeof object === 'object' && object !== null && (object as { kind?: unknown }).kind === 'Status';
}

/** Groups whose internal Go package is not the group's first label. */
const INTERNAL_PACKAGES: Readonly<Record<string, string>> = {
  '': 'core',
  // events.k8s.io Events are core Events inside the reference.
  'events.k8s.io': 'core',
  'internal.apiserver.k8s.io': 'apiserverinternal',
};

/**
 * The Go type the reference's messages print for what a request reached: a built-in kind's
 * internal type (`*core.ConfigMap`, `*apps.Deployment`); a custom resource, which has no
 * internal version, as served.
 */
function goTypeName(endpoint: Endpoint, kind: string, apiVersion: string): string {
  if (!endpoint.protobuf) return `*${apiVersion.slice(apiVersion.lastIndexOf('/') + 1)}.${kind}`;
  const group = endpoint.resource.group;
  return `*${INTERNAL_PACKAGES[group] ?? group.split('.')[0]}.${kind}`;
}

/** The object as the negotiated transform shows it (a Table, metadata, or itself). */
function transformObject(options: {
  negotiated: Negotiated;
  endpoint: Endpoint;
  object: KubeObject;
  includeObject: IncludeObject;
}): unknown {
  const { negotiated, object } = options;
  const transform = negotiated.transform;
  if (transform === undefined || isStatus(object)) return object;
  switch (transform.kind) {
    case 'Table':
      return tableOf({
        printer: options.endpoint.printer,
        version: transform.version,
        includeObject: options.includeObject,
        now: new Date(),
        objects: [object],
        metadata: object.metadata.resourceVersion ? { resourceVersion: object.metadata.resourceVersion } : {},
      });
    case 'PartialObjectMetadata':
      return asPartialObjectMetadata(object, transform.version);
    case 'PartialObjectMetadataList':
      throw notAcceptableTransform(
        `you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(options.endpoint, String(object.kind), String(object.apiVersion))})`,
      );
  }
}

function notAcceptableTransform(message: string): StatusError {
  return new StatusError({ code: 406, reason: 'NotAcceptable', message });
}

/**
 * The answer as the request's audit event keeps it: a Status's fields always, the object itself
 * (as sent: a Table when the client asked for one) only at level RequestResponse, which is the
 * only time `value` is called.
 */
export function auditResponse(res: ServerResponse, value: unknown | (() => unknown)): void {
  const audit = auditOf(res.req);
  if (!audit) return;
  const resolve = () => (typeof value === 'function' ? (value as () => unknown)() : value);
  if (typeof value !== 'function' && isStatus(value)) auditResponseStatus(res, value);
  audit.setResponseObject(resolve);
}

/**
 * Where a GET handler keeps the encodings of the objects it answers with: `source` is the
 * object the answer was served from (the watch cache's, shared by every reader), which the
 * handler serves the same way every time, so the answer's compact JSON text or protobuf bytes
 * are kept under it for the next GET of it. A pod's JSON encoding was about a tenth of a GET's CPU.
 */
export interface KeptObjectEncoding extends ItemEncodings {
  readonly source: object;
}

/** One object (get, create, update, patch, delete) with its status code. */
export async function writeObject(
  exchange: Exchange & {
    endpoint: Endpoint;
    code: number;
    object: KubeObject;
    negotiated?: Negotiated;
    /** Where the answer's encoding is kept between GETs; absent: it is encoded for this answer. */
    kept?: KeptObjectEncoding;
  },
): Promise<void> {
  const negotiated = exchange.negotiated ?? negotiateResponse(exchange, exchange.endpoint);
  const value = transformObject({
    negotiated,
    endpoint: exchange.endpoint,
    object: exchange.object,
    includeObject: includeObjectOf(queryOf(exchange.req)),
  });
  auditResponse(exchange.res, value);
  const body = new ResponseBody(exchange.res, {
    code: exchange.code,
    contentType: contentTypeOf(negotiated),
    compress: compressionAllowed(exchange),
  });
  await body.write(
    encodedObject(exchange.req, negotiated, value, value === exchange.object ? exchange.kept : undefined),
  );
  await body.end();
}

/** The answer's bytes: compact JSON and protobuf kept under `kept.source` when given, the rest encoded. */
function encodedObject(
  req: IncomingMessage,
  negotiated: Negotiated,
  value: unknown,
  kept: KeptObjectEncoding | undefined,
): Buffer {
  if (kept !== undefined) {
    const format = negotiated.serializer.format;
    if (format === 'protobuf')
      return keptOrEncoded(kept.messages, kept.source, () => ownBytes(encodeEnvelope(value as JsonObject)));
    if (format === 'json' && !wantsPretty({ negotiated, query: queryOf(req), userAgent: req.headers['user-agent'] }))
      return Buffer.from(`${keptOrEncoded(kept.texts, kept.source, () => jsonText(value))}\n`);
  }
  return encodeNegotiated(req, negotiated, value);
}

export interface ListHead {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ListMetadata;
}

/** Items of a JSON array go out in pieces of about this many characters: few writes, little held. */
const JSON_PIECE_CHARS = 64 * 1024;

/**
 * `head` as JSON with one more member, an array of the given item texts (as `JSON.stringify`
 * would write the whole), then the members of `tail` if given.
 */
async function writeJsonWithArray(
  body: ResponseBody,
  options: { head: object; member: string; texts: Iterable<string>; tail?: object },
): Promise<void> {
  let pending = `${JSON.stringify(options.head).slice(0, -1)},${JSON.stringify(options.member)}:[`;
  let first = true;
  for (const text of options.texts) {
    pending += (first ? '' : ',') + text;
    first = false;
    if (pending.length >= JSON_PIECE_CHARS) {
      await body.write(pending);
      pending = '';
    }
  }
  const tail = options.tail === undefined ? '}' : `,${JSON.stringify(options.tail).slice(1)}`;
  await body.write(`${pending}]${tail}\n`);
}

/** A list's items encoded, by the object each was served from. */
export interface ItemEncodings {
  /** Compact JSON texts. */
  readonly texts: WeakMap<object, string>;
  /** Protobuf bodies (no key or length). */
  readonly messages: WeakMap<object, Buffer>;
}

/**
 * The encoded items of a list that a list handler keeps from one list to the next: `sources[i]`
 * is the object `items[i]` was served from (the watch cache's, shared by every reader), which
 * the handler serves the same way every time, so the item's encoding is kept under it and a
 * later list writes it without encoding the item again. Encoding the 10,000 pods of a list took
 * about 120 ms of its 200-250 ms of CPU in JSON, twice that in protobuf.
 */
export interface SharedItemEncodings extends ItemEncodings {
  readonly sources: readonly object[];
}

function* jsonTexts<T>(values: Iterable<T>, shown: (value: T) => unknown = (value) => value): Iterable<string> {
  for (const value of values) yield jsonText(shown(value));
}

function* sharedJsonTexts(
  items: readonly KubeObject[],
  shown: (item: KubeObject) => unknown,
  shared: SharedItemEncodings,
): Iterable<string> {
  for (let index = 0; index < items.length; index++)
    yield keptOrEncoded(shared.texts, shared.sources[index], () => jsonText(shown(items[index])));
}

/**
 * `bytes` in memory of their own. Node hands out a `Buffer.allocUnsafe` under half its pool size
 * as a slice of a pool it shares with the allocations around it (`Buffer.poolSize`, 64 KiB in
 * Node 24), so a kept slice of 2 KiB could keep 64 KiB alive for as long as it is kept.
 */
function ownBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const owned = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(owned);
  return owned;
}

/** The encoding kept under `source`, or the one `encode` makes, kept there for the next answer. */
function keptOrEncoded<T>(kept: WeakMap<object, T>, source: object, encode: () => T): T {
  let encoded = kept.get(source);
  if (encoded === undefined) {
    encoded = encode();
    kept.set(source, encoded);
  }
  return encoded;
}

/**
 * A custom resource's list as the reference writes it, an unstructured map: its members in
 * sorted order, so `items` between `apiVersion` and `kind`, and `continue` even when empty.
 */
function unstructuredListParts(head: ListHead): { head: object; tail: object } {
  const { continue: continueToken = '', remainingItemCount, resourceVersion } = head.metadata;
  const metadata = {
    continue: continueToken,
    ...(remainingItemCount === undefined ? {} : { remainingItemCount }),
    resourceVersion,
  };
  return { head: { apiVersion: head.apiVersion }, tail: { kind: head.kind, metadata } };
}

/**
 * An item of a built-in kind's list as the reference writes it: a typed list's items carry no
 * apiVersion and kind (the list names them once); custom resources' unstructured items, table
 * rows and watch events keep theirs.
 */
function withoutTypeMeta(item: KubeObject): JsonObject {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = item;
  return rest as unknown as JsonObject;
}

/**
 * A list: JSON, protobuf and JSON tables item by item (no whole-list string or buffer, at most
 * a piece of the answer at once); YAML, pretty JSON and other tables whole.
 */
export async function writeList(
  exchange: Exchange & {
    endpoint: Endpoint;
    head: ListHead;
    items: readonly KubeObject[];
    negotiated?: Negotiated;
    /** Where the items' encodings are kept between lists; absent: each list encodes its items. */
    shared?: SharedItemEncodings;
  },
): Promise<void> {
  const negotiated = exchange.negotiated ?? negotiateResponse(exchange, exchange.endpoint);
  const { head, items } = exchange;
  const transform = negotiated.transform;
  const body = new ResponseBody(exchange.res, {
    code: 200,
    contentType: contentTypeOf(negotiated),
    compress: compressionAllowed(exchange),
  });
  if (transform?.kind === 'PartialObjectMetadata') {
    throw notAcceptableTransform(
      `you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(exchange.endpoint, head.kind, head.apiVersion)})`,
    );
  }
  const streamsJson =
    negotiated.serializer.format === 'json' &&
    !wantsPretty({ negotiated, query: queryOf(exchange.req), userAgent: exchange.req.headers['user-agent'] });
  if (transform?.kind === 'Table') {
    const tableOptions = {
      printer: exchange.endpoint.printer,
      version: transform.version,
      includeObject: includeObjectOf(queryOf(exchange.req)),
      now: new Date(),
      objects: items,
      metadata: head.metadata,
    };
    auditResponse(exchange.res, () => tableOf(tableOptions));
    if (streamsJson) {
      const { head: tableHead, rows } = tableInParts(tableOptions);
      await writeJsonWithArray(body, { head: tableHead, member: 'rows', texts: jsonTexts(rows) });
    } else {
      await body.write(encodeNegotiated(exchange.req, negotiated, tableOf(tableOptions)));
    }
    await body.end();
    return;
  }
  const metadataOnly = transform?.kind === 'PartialObjectMetadataList';
  const unstructured = !metadataOnly && !exchange.endpoint.protobuf;
  const listHead = metadataOnly ? partialObjectMetadataListHead(head.metadata, transform.version) : head;
  const shown = (item: KubeObject): JsonObject =>
    metadataOnly
      ? (asPartialObjectMetadata(item, transform.version) as unknown as JsonObject)
      : exchange.endpoint.protobuf
        ? withoutTypeMeta(item)
        : (item as unknown as JsonObject);
  auditResponse(exchange.res, () => ({ ...listHead, items: items.map(shown) }));
  const format = negotiated.serializer.format;
  // Metadata-only items are made for this list alone: nothing of theirs is kept.
  const shared = metadataOnly ? undefined : exchange.shared;
  const texts = (): Iterable<string> =>
    shared === undefined ? jsonTexts(items, shown) : sharedJsonTexts(items, shown, shared);
  if (format === 'protobuf') {
    const bodyOf =
      shared &&
      ((index: number, encode: () => Buffer) =>
        keptOrEncoded(shared.messages, shared.sources[index], () => ownBytes(encode())));
    // An item message has no apiVersion or kind field (typed lists name them once), so the
    // encoder skips them without the copies `shown` makes for JSON.
    const encoded = metadataOnly ? items.map(shown) : (items as unknown as readonly JsonObject[]);
    for (const chunk of encodeListChunks(
      listHead as unknown as { apiVersion: string; kind: string; metadata: JsonObject },
      encoded,
      bodyOf,
    ))
      await body.write(chunk);
  } else if (unstructured) {
    const parts = unstructuredListParts(listHead);
    if (streamsJson) await writeJsonWithArray(body, { ...parts, member: 'items', texts: texts() });
    else
      await body.write(
        encodeNegotiated(exchange.req, negotiated, { ...parts.head, items: items.map(shown), ...parts.tail }),
      );
  } else if (streamsJson) {
    await writeJsonWithArray(body, { head: listHead, member: 'items', texts: texts() });
  } else {
    await body.write(encodeNegotiated(exchange.req, negotiated, { ...listHead, items: items.map(shown) }));
  }
  await body.end();
}

/**
 * How a watch stream separates its events: JSON ends each with a newline, protobuf prefixes
 * each with its length (4 bytes, big-endian), a CBOR sequence needs nothing between items.
 */
export type WatchFraming = 'lines' | 'length-prefixed' | 'sequence';

/** Encodes the events of one watch in the negotiated form. */
export interface WatchEncoder {
  readonly contentType: string;
  readonly framing: WatchFraming;
  /**
   * Encoders with the same key turn the same event into the same bytes, so watchers may share
   * them; absent when the bytes depend on the watch itself (Table rows: columns go with the
   * first event only, and ages are computed at the time of sending).
   */
  readonly shareKey: string | undefined;
  encode(type: string, object: KubeObject | Status): Buffer;
}

export function watchEncoder(exchange: Exchange & { endpoint: Endpoint; negotiated?: Negotiated }): WatchEncoder {
  const negotiated = exchange.negotiated ?? negotiateResponse(exchange, exchange.endpoint, { watch: true });
  const transform = negotiated.transform;
  const includeObject = includeObjectOf(queryOf(exchange.req));
  const format = negotiated.serializer.format;
  const shareKey =
    transform?.kind === 'Table'
      ? undefined
      : transform === undefined
        ? format
        : `${format};as=${transform.kind};v=${transform.version}`;
  let columnsSent = false;
  const shown = (object: KubeObject | Status): unknown => {
    if (transform === undefined || isStatus(object)) return object;
    if (transform.kind === 'Table') {
      // A bookmark is a row like any event (the reference converts whatever it sends); the
      // initial-events-end annotation reaches the client in that row's object.
      const table = tableOf({
        printer: exchange.endpoint.printer,
        version: transform.version,
        includeObject,
        now: new Date(),
        objects: [object],
        metadata: object.metadata.resourceVersion ? { resourceVersion: object.metadata.resourceVersion } : {},
        // The reference sends the column definitions with the first event only.
        omitColumns: columnsSent,
      });
      columnsSent = true;
      return table;
    }
    return asPartialObjectMetadata(object, transform.version);
  };
  if (format === 'protobuf') {
    return {
      contentType: negotiated.serializer.streamMediaType ?? negotiated.serializer.mediaType,
      framing: 'length-prefixed',
      shareKey,
      encode: (type, object) => encodeWatchFrame(type, shown(object) as JsonObject),
    };
  }
  if (format === 'cbor') {
    // A CBOR sequence: one self-described data item per event.
    return {
      contentType: negotiated.serializer.streamMediaType ?? negotiated.serializer.mediaType,
      framing: 'sequence',
      shareKey,
      encode: (type, object) => encodeCbor({ type, object: shown(object) }),
    };
  }
  return {
    contentType: negotiated.serializer.streamMediaType ?? negotiated.serializer.mediaType,
    framing: 'lines',
    shareKey,
    encode: (type, object) => Buffer.from(`{"type":${JSON.stringify(type)},"object":${jsonText(shown(object))}}\n`),
  };
}

/**
 * A Status error in the client's type where it can be (no transforms apply to errors);
 * when nothing the client accepts fits, in JSON, as the reference falls back.
 */
export function encodeStatus(
  exchange: { req: IncomingMessage; settings?: RepresentationSettings },
  status: Status,
): { contentType: string; body: Buffer } {
  let negotiated: Negotiated | undefined;
  try {
    negotiated = negotiateOutput({
      accept: exchange.req.headers.accept,
      serializers: serializers(undefined, settingsOf(exchange)),
      restrictions: NO_TRANSFORMS,
    });
  } catch {
    negotiated = undefined;
  }
  if (negotiated === undefined) {
    return { contentType: 'application/json', body: Buffer.from(JSON.stringify(status) + '\n') };
  }
  return { contentType: contentTypeOf(negotiated), body: encodeNegotiated(exchange.req, negotiated, status) };
}
