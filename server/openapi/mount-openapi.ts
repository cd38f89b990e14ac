/**
 * HTTP handlers for `/openapi/v3`, `/openapi/v3/api/<v>`, `/openapi/v3/apis/<g>/<v>` and
 * `/openapi/v2` (JSON, and the gnostic protobuf forms kubectl and client-go ask for).
 *
 * Documents are built at first request (not at start: start time is a feature), encoded once,
 * and rebuilt when the registry's set of types changes. As the reference does, each document is
 * served with an `ETag` of its content hash (uppercase hex SHA-512) and 304 on `If-None-Match`;
 * a v3 document requested with the right `?hash=` is immutable and cacheable for a year, and a
 * stale `?hash=` is redirected to the current one. A v3 document's protobuf form, like the
 * reference's, is made from its JSON at the first request for it, carries the JSON's ETag, and
 * is kept as long as that JSON is.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { IRouter, Request, Response } from 'express';
import type { ResourceRegistry, ResourceType } from '../registry/types';
import { parseAccept, rangeMatchesType } from '../codec/media-type';
import { acceptsGzip } from '../responsewriters/response-body';
import { memoizeOnRegistry } from '../discovery/registry-snapshot';
import { findServedGroupVersion, servedGroups } from '../discovery/served-groups';
import { versionInfo } from '../discovery/version';
import { schemaData } from '../schema/definitions';
import type { Definitions } from './component-schemas';
import {
  openAPIV2Document,
  openAPIV3Document,
  openAPIV3NonResourceDocument,
  openAPIV3PathKey,
  openAPIV3Root,
  type DocumentInfo,
} from './documents';
import { nonResourceDocuments } from './non-resource-paths';
import { encodeOpenAPIV2Protobuf, OPENAPI_V2_PROTOBUF_SUBTYPES, OPENAPI_V2_PROTOBUF_TYPE } from './openapi-v2-protobuf';
import { encodeOpenAPIV3Protobuf, OPENAPI_V3_PROTOBUF_SUBTYPES, OPENAPI_V3_PROTOBUF_TYPE } from './openapi-v3-protobuf';
import { mergeV2, type ExtensionOpenAPI } from './extension-documents';
import { withoutEnums } from './openapi-enums';
import { describedDefinitions } from './described-definitions';
import { descriptions } from '../schema/descriptions';
import { goJsonStringify } from '../json/go-json';
import { featureGateReader } from '../config/feature-enabled';

export interface OpenAPIOptions {
  readonly registry: ResourceRegistry;
  /**
   * The schema definitions (OpenAPI v2 form); called once, at the first request that needs them.
   * Default: the generated schema data of the built-in kinds.
   */
  readonly definitions?: () => Definitions;
  /** Shown as the documents' `info.version`; default: the emulated `major.minor` of `/version`. */
  readonly serverVersion?: string;
  /** Documents of extension API servers (server/aggregator/), served and merged with this server's. */
  readonly extensions?: ExtensionOpenAPI;
  /**
   * Whether a feature gate is on: OpenAPIEnums keeps the built-in definitions' `enum`s.
   * Absent: every gate at its 1.34 default.
   */
  readonly featureEnabled?: (gate: string) => boolean;
}

interface EncodedDocument {
  readonly body: Buffer;
  /** Uppercase hex SHA-512 of the body, unquoted. */
  readonly hash: string;
}

const JSON_TYPE = 'application/json';
const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * The reference writes its v3 documents with Go's encoding/json, whose escapes change the bytes
 * and the hash; its v2 document with kube-openapi's own encoder, which escapes no HTML.
 */
function encode(document: object, stringify: (value: unknown) => string = goJsonStringify): EncodedDocument {
  const body = Buffer.from(stringify(document));
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

/** The paths the server's index lists for OpenAPI, as the reference's (`/openapi/v3/` is its prefix). */
export const OPENAPI_LISTED_PATHS = ['/openapi/v2', '/openapi/v3', '/openapi/v3/'];

export function mountOpenAPI(app: IRouter, options: OpenAPIOptions): void {
  const { registry, extensions } = options;
  const extensionsRevision = () => extensions?.revision() ?? 0;
  let definitions: Definitions | undefined;
  const enums = (options.featureEnabled ?? featureGateReader({}))('OpenAPIEnums');
  const loadDefinitions = () => {
    if (definitions !== undefined) return definitions;
    const builtIn = describedDefinitions((options.definitions ?? (() => schemaData().definitions))(), descriptions());
    return (definitions = enums ? builtIn : withoutEnums(builtIn));
  };
  let info: DocumentInfo | undefined;
  // The reference completes `info.version` from its emulation version, which has no patch part.
  const emulatedRelease = () => {
    const { emulationMajor, emulationMinor } = versionInfo();
    return `${emulationMajor}.${emulationMinor}`;
  };
  const documentInfo = () => (info ??= { title: 'Kubernetes', version: options.serverVersion ?? emulatedRelease() });

  // Types that bring their own schemas (custom resources) add them over the built-in ones.
  const definitionsOf = (types: readonly ResourceType[]): Definitions => {
    const own = types.flatMap((type) => (type.definitions ? [type.definitions] : []));
    return own.length === 0 ? loadDefinitions() : Object.assign({}, loadDefinitions(), ...own);
  };

  const groups = memoizeOnRegistry(registry, servedGroups);
  // One lazily built document per group-version; the map itself is rebuilt with the registry.
  const v3Documents = memoizeOnRegistry(registry, () => new Map<string, EncodedDocument>());
  const nonResourcePaths = memoizeOnRegistry(registry, () => nonResourceDocuments(groups()));
  const v3Document = (group: string, version: string): EncodedDocument | undefined => {
    const key = openAPIV3PathKey({ group, version });
    const documents = v3Documents();
    const cached = documents.get(key);
    if (cached) return cached;
    const groupVersion = findServedGroupVersion(groups(), group, version);
    if (!groupVersion) return undefined;
    const definitions = definitionsOf(groupVersion.resources.map((resource) => resource.type));
    const encoded = encode(openAPIV3Document({ groupVersion, definitions, info: documentInfo() }));
    documents.set(key, encoded);
    return encoded;
  };
  // Keys of the non-resource documents never take the form of a group-version's key.
  const v3NonResourceDocument = (key: string): EncodedDocument | undefined => {
    const documents = v3Documents();
    const cached = documents.get(key);
    if (cached) return cached;
    const paths = nonResourcePaths().get(key);
    if (!paths) return undefined;
    const encoded = encode(
      openAPIV3NonResourceDocument({ paths, definitions: loadDefinitions(), info: documentInfo() }),
    );
    documents.set(key, encoded);
    return encoded;
  };
  const v3Root = memoizeOnRegistry(
    registry,
    () => {
      const hashes = new Map<string, string>();
      for (const key of nonResourcePaths().keys()) hashes.set(key, v3NonResourceDocument(key)!.hash);
      for (const group of groups()) {
        for (const { version } of group.versions) {
          const document = v3Document(group.name, version);
          if (document) hashes.set(openAPIV3PathKey({ group: group.name, version }), document.hash);
        }
      }
      for (const [key, document] of extensions?.v3Documents() ?? [])
        if (!hashes.has(key)) hashes.set(key, document.hash);
      return Buffer.from(JSON.stringify(openAPIV3Root(hashes)));
    },
    extensionsRevision,
  );
  const v2Json = memoizeOnRegistry(
    registry,
    (types) =>
      mergeV2(
        openAPIV2Document({ groups: groups(), definitions: definitionsOf(types), info: documentInfo() }),
        extensions?.v2Parts() ?? [],
      ),
    extensionsRevision,
  );
  // Each v3 document's protobuf form, by its JSON form (own or an extension's): it goes with it.
  const v3Protobufs = new WeakMap<EncodedDocument, EncodedDocument>();
  const v3Protobuf = (json: EncodedDocument): EncodedDocument => {
    let protobuf = v3Protobufs.get(json);
    if (protobuf === undefined) {
      // Read back from the JSON rather than kept as objects: only protobuf clients pay for it.
      protobuf = { body: encodeOpenAPIV3Protobuf(JSON.parse(json.body.toString('utf8')) as object), hash: json.hash };
      v3Protobufs.set(json, protobuf);
    }
    return protobuf;
  };
  const v2Document = memoizeOnRegistry(registry, () => encode(v2Json(), JSON.stringify), extensionsRevision);
  // The reference reuses the JSON form's ETag for the protobuf form (answers vary by Accept).
  const v2Protobuf = memoizeOnRegistry(
    registry,
    (): EncodedDocument => ({ body: encodeOpenAPIV2Protobuf(v2Json()), hash: v2Document().hash }),
    extensionsRevision,
  );

  // Routes of the reference's mux: any method is served as GET is, those outside Node's list too
  // (route().all takes them, app.all would not).
  // The reference serves the index whatever the request accepts, without a type of its own:
  // Go's content sniffing names it text/plain.
  app.route('/openapi/v3').all((_request, response) => {
    response.status(200).setHeader('Content-Type', 'text/plain; charset=utf-8');
    response.end(v3Root());
  });

  const serveGroupVersion = (
    request: Request,
    response: Response,
    group: string,
    version: string,
    next: () => void,
  ) => {
    const key = openAPIV3PathKey({ group, version });
    serveV3Document(request, response, key, v3Document(group, version) ?? extensions?.v3Documents().get(key), next);
  };
  const serveV3Document = (
    request: Request,
    response: Response,
    key: string,
    json: EncodedDocument | undefined,
    next: () => void,
  ) => {
    if (!json) return next();
    const form = openAPIV3Form(request);
    // No clause at all (`Accept: ,`): kube-openapi returns before writing, and the reference's
    // timeout filter then sends none of the headers it had set: an empty 200.
    if (form === 'none') return void response.status(200).end();
    // Vary: a client must not reuse a cached JSON answer for a protobuf request, or the reverse.
    response.setHeader('Vary', 'Accept');
    if (form === undefined) return sendNotAcceptable(response);
    const [document, contentType] =
      form === 'protobuf' ? [v3Protobuf(json), OPENAPI_V3_PROTOBUF_TYPE] : [json, JSON_TYPE];
    const requestedHash = typeof request.query.hash === 'string' ? request.query.hash : '';
    if (requestedHash !== '' && requestedHash !== document.hash) {
      // Go's http.Redirect writes no body once a Content-Type is set, as kube-openapi has set it.
      response.setHeader('Content-Type', contentType);
      response.setHeader('ETag', `"${document.hash}"`);
      response.setHeader('Location', `/openapi/v3/${key}?hash=${document.hash}`);
      response.status(301).end();
      return;
    }
    if (requestedHash !== '') {
      response.setHeader('Cache-Control', 'public, immutable');
      // Go's RFC1123 layout names the zone (UTC on a server running in it), not GMT.
      response.setHeader('Expires', new Date(Date.now() + ONE_YEAR_MS).toUTCString().replace(/GMT$/, 'UTC'));
    }
    sendWithETag(request, response, document, contentType);
  };
  // `/openapi/v3/api`, `/openapi/v3/apis/apps`, `/openapi/v3/version` ...: the keys of the
  // non-resource documents, whatever the method (as the group-versions' routes).
  app.use('/openapi/v3', (request, response, next) =>
    serveV3Document(request, response, request.path.slice(1), v3NonResourceDocument(request.path.slice(1)), next),
  );
  app
    .route('/openapi/v3/api/:version')
    .all((request, response, next) => serveGroupVersion(request, response, '', String(request.params.version), next));
  app
    .route('/openapi/v3/apis/:group/:version')
    .all((request, response, next) =>
      serveGroupVersion(request, response, String(request.params.group), String(request.params.version), next),
    );

  app.route('/openapi/v2').all((request, response) => {
    // kube-openapi wraps the v2 handler in a gzip handler: its Vary comes first, on every
    // answer, and a client that takes gzip (Go's transport asks by default) gets the 2 MB
    // document compressed.
    response.setHeader('Vary', 'Accept-Encoding');
    const form = openAPIV2Form(request);
    if (form === undefined) return sendNotAcceptable(response);
    response.setHeader('Vary', ['Accept-Encoding', 'Accept']);
    const compress = acceptsGzip(request.headers['accept-encoding']);
    if (form === 'protobuf') sendWithETag(request, response, v2Protobuf(), OPENAPI_V2_PROTOBUF_TYPE, compress);
    else sendWithETag(request, response, v2Document(), JSON_TYPE, compress);
  });
}

/**
 * Documents gzipped when first asked for so, kept as long as the document is; off the event
 * loop (the v2 document takes about 25 ms).
 */
const gzipped = new WeakMap<EncodedDocument, Promise<Buffer>>();

function gzippedBody(document: EncodedDocument): Promise<Buffer> {
  let body = gzipped.get(document);
  if (body === undefined) {
    body = promisify(gzip)(document.body);
    gzipped.set(document, body);
  }
  return body;
}

/**
 * The OpenAPI handlers' negotiation (kube-openapi's): the first Accept clause, best first,
 * that names one of the forms by type and subtype, wildcards allowed, case as sent; the
 * clause's parameters are not looked at.
 */
function acceptedForm<Form extends string>(
  request: Request,
  forms: ReadonlyArray<{ readonly form: Form; readonly subtype: string }>,
): Form | undefined {
  for (const range of parseAccept(request.headers.accept)) {
    const accepted = forms.find(({ subtype }) => rangeMatchesType(range, 'application', subtype));
    if (accepted !== undefined) return accepted.form;
  }
  return undefined;
}

const OPENAPI_V3_FORMS = [
  { form: 'json' as const, subtype: 'json' },
  ...OPENAPI_V3_PROTOBUF_SUBTYPES.map((subtype) => ({ form: 'protobuf' as const, subtype })),
];

/** The v3 form asked for; `none` when the Accept header holds no clause the parser keeps. */
function openAPIV3Form(request: Request): 'json' | 'protobuf' | 'none' | undefined {
  if (parseAccept(request.headers.accept).length === 0) return 'none';
  return acceptedForm(request, OPENAPI_V3_FORMS);
}

const OPENAPI_V2_FORMS = [
  { form: 'json' as const, subtype: 'json' },
  ...OPENAPI_V2_PROTOBUF_SUBTYPES.map((subtype) => ({ form: 'protobuf' as const, subtype })),
];

function openAPIV2Form(request: Request): 'json' | 'protobuf' | undefined {
  return acceptedForm(request, OPENAPI_V2_FORMS);
}

function sendWithETag(
  request: Request,
  response: Response,
  document: EncodedDocument,
  contentType = JSON_TYPE,
  compress = false,
): void {
  const quotedHash = `"${document.hash}"`;
  response.setHeader('ETag', quotedHash);
  if (request.headers['if-none-match'] === quotedHash) {
    response.status(304).end();
    return;
  }
  response.status(200).setHeader('Content-Type', contentType);
  if (!compress) return void response.end(document.body);
  gzippedBody(document).then(
    (body) => {
      response.setHeader('Content-Encoding', 'gzip');
      response.end(body);
    },
    // Not expected of an in-memory buffer; the document goes out as it is.
    () => response.end(document.body),
  );
}

/** kube-openapi's refusal: the status alone, no body. */
function sendNotAcceptable(response: Response): void {
  response.status(406).end();
}
