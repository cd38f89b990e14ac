/**
 * HTTP handlers for discovery: `/api`, `/api/v1`, `/apis`, `/apis/<group>`, `/apis/<group>/<version>`.
 *
 * `/api` and `/apis` answer with the aggregated document when a range of the client's `Accept`
 * asks for it (`application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`, or YAML
 * or protobuf so; v2beta1 too while the AggregatedDiscoveryRemoveBetaType gate is off), with an
 * ETag and 304 on `If-None-Match` as the reference does; otherwise, and on the other paths, with
 * the unaggregated documents, in JSON, YAML or protobuf as negotiated. Documents are built at
 * first use and rebuilt when the registry changes.
 */
import { createHash } from 'node:crypto';
import type { IRouter, NextFunction, Request, Response } from 'express';
import type { ResourceRegistry } from '../registry/types';
import { methodNotAllowed } from '../status/catalogue';
import {
  negotiateOutput,
  NO_TRANSFORMS,
  parseAccept,
  producedMediaTypes,
  rangeMatchesType,
  serializersFor,
  type Negotiated,
  type SerializerInfo,
} from '../codec/media-type';
import { restfulRouteRefusal, type RestfulRoute } from '../codec/route-accept';
import { encodeNegotiated } from '../responsewriters/respond';
import { aggregatedDiscoveryDocument, type AggregatedDiscoveryVersion } from './aggregated-documents';
import {
  apiGroupDocument,
  apiGroupListDocument,
  apiResourceListDocument,
  apiVersionsDocument,
} from './legacy-documents';
import { memoizeOnRegistry } from './registry-snapshot';
import { featureGateReader } from '../config/feature-enabled';
import { extensionAPIGroup, mergeAggregatedGroups, mergeGroupList, type ExtensionGroups } from './extension-groups';
import { findServedGroupVersion, servedGroups } from './served-groups';
import { joinHostPort } from '../net/host-port';

export interface DiscoveryOptions {
  readonly registry: ResourceRegistry;
  /**
   * `host:port` advertised in `/api`'s `serverAddressByClientCIDRs`: the reference's external
   * address (`--external-hostname`, else `--advertise-address`, and the secure port). Absent:
   * the local address the request arrived on.
   */
  readonly serverAddress?: () => string;
  /** Groups of extension API servers (server/aggregator/), merged into `/apis` and served at `/apis/<group>`. */
  readonly extensions?: ExtensionGroups;
  /**
   * Whether a feature gate is on: StorageVersionHash decides the built-in kinds' hashes, and
   * AggregatedDiscoveryRemoveBetaType whether v2beta1 is served. Absent: every gate at its 1.34
   * default.
   */
  readonly featureEnabled?: (gate: string) => boolean;
}

const AGGREGATED_GROUP = 'apidiscovery.k8s.io';
const AGGREGATED_KIND = 'APIGroupDiscoveryList';
const AGGREGATED_VERSIONS: readonly AggregatedDiscoveryVersion[] = ['v2', 'v2beta1'];
/** What the reference serves while AggregatedDiscoveryRemoveBetaType is on. */
const AGGREGATED_VERSIONS_WITHOUT_BETA: readonly AggregatedDiscoveryVersion[] = ['v2'];
/**
 * The unaggregated documents' protobuf messages, by kind: `/api`'s and `/api/v1`'s name no
 * apiVersion (nor does the reference's envelope), so the route names the message.
 */
const META_MESSAGE_PREFIX = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** Discovery documents are served in JSON, YAML and protobuf, as the reference's are. */
const DISCOVERY_SERIALIZERS = serializersFor({ protobuf: true, cbor: false });
/** The go-restful routes among them (`/api`, a built-in `/api[s]/<group>/<version>`). */
const DISCOVERY_ROUTE: RestfulRoute = {
  consumes: producedMediaTypes(DISCOVERY_SERIALIZERS, { streams: false }),
  produces: producedMediaTypes(DISCOVERY_SERIALIZERS, { streams: false }),
};

/** What a discovery request's `Accept` chose. */
export type DiscoveryRepresentation =
  | { readonly form: 'legacy' }
  | { readonly form: 'aggregated'; readonly version: AggregatedDiscoveryVersion; readonly serializer: SerializerInfo };

/**
 * Aggregated when some range asks for it, whatever ranges come before: the first range, best
 * weight first, naming its group, kind and one of `aggregatedVersions` (none: the path serves no
 * aggregated form) in a type discovery is served in. Otherwise the unaggregated documents,
 * negotiated as any answer without transforms (`legacyNegotiated`).
 */
export function chooseDiscoveryRepresentation(options: {
  accept: string | undefined;
  aggregatedVersions: readonly AggregatedDiscoveryVersion[];
}): DiscoveryRepresentation {
  for (const range of parseAccept(options.accept)) {
    const { as, g, v, stream } = range.parameters;
    if (as !== AGGREGATED_KIND || g !== AGGREGATED_GROUP) continue;
    const version = options.aggregatedVersions.find((candidate) => candidate === v);
    if (version === undefined || (stream !== undefined && stream !== '' && stream !== 'watch')) continue;
    const serializer = DISCOVERY_SERIALIZERS.find((candidate) =>
      rangeMatchesType(range, candidate.type, candidate.subtype),
    );
    if (serializer !== undefined) return { form: 'aggregated', version, serializer };
  }
  return { form: 'legacy' };
}

/** The unaggregated documents' form; throws the reference's 406 when no range fits. */
function legacyNegotiated(accept: string | undefined): Negotiated {
  return negotiateOutput({ accept, serializers: DISCOVERY_SERIALIZERS, restrictions: NO_TRANSFORMS });
}

export function aggregatedContentType(version: AggregatedDiscoveryVersion, mediaType = 'application/json'): string {
  return `${mediaType};g=${AGGREGATED_GROUP};v=${version};as=${AGGREGATED_KIND}`;
}

interface EncodedDocument {
  readonly document: object;
  /** Its JSON, the form asked for most. */
  readonly body: string;
  /** Unquoted: uppercase hex SHA-512 of the JSON, as the reference computes it for every form. */
  readonly hash: string;
}

function encode(document: object): EncodedDocument {
  const body = JSON.stringify(document);
  return { document, body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

export interface MountedDiscovery {
  /**
   * Whether an unknown path below a served group is a NotFound Status: a group with built-in
   * kinds (the reference's web services answer it) or served by a remote APIService. Below a
   * group of custom resources alone the reference's apiextensions handler passes what it does
   * not serve (another scope's path, a version not served, an unknown resource) to Go's plain 404.
   */
  notFoundAsStatus(name: string): boolean;
  /** The discovery paths the server's index lists: `/api`, `/apis`, and each group and version. */
  listedPaths(): string[];
}

export function mountDiscovery(app: IRouter, options: DiscoveryOptions): MountedDiscovery {
  const { registry, extensions } = options;
  const featureEnabled = options.featureEnabled ?? featureGateReader({});
  const storageVersionHashes = featureEnabled('StorageVersionHash');
  const aggregatedVersions = featureEnabled('AggregatedDiscoveryRemoveBetaType')
    ? AGGREGATED_VERSIONS_WITHOUT_BETA
    : AGGREGATED_VERSIONS;
  const extensionGroups = () => extensions?.groups() ?? [];
  const extensionsRevision = () => extensions?.revision() ?? 0;
  const groups = memoizeOnRegistry(registry, servedGroups);
  const aggregated = memoizeOnRegistry(
    registry,
    () => {
      const all = groups();
      const core = all.filter((group) => group.name === '');
      const named = all.filter((group) => group.name !== '');
      const build = (selection: typeof all, merge: boolean) =>
        Object.fromEntries(
          aggregatedVersions.map((version) => {
            const document = aggregatedDiscoveryDocument({ groups: selection, version });
            return [
              version,
              encode(
                merge ? { ...document, items: mergeAggregatedGroups(document.items, extensionGroups()) } : document,
              ),
            ];
          }),
        ) as Partial<Record<AggregatedDiscoveryVersion, EncodedDocument>>;
      // Built for the served versions alone, the only ones the representation chosen can name.
      return { api: build(core, false), apis: build(named, true) };
    },
    extensionsRevision,
  );
  const groupList = memoizeOnRegistry(
    registry,
    () => {
      const document = apiGroupListDocument(groups());
      return { ...document, groups: mergeGroupList(document.groups, extensionGroups()) };
    },
    extensionsRevision,
  );

  // `/api`, `/api/<version>` and a built-in `/apis/<group>/<version>` are the reference's
  // go-restful routes, which refuse every other method (HEAD too) and check the request's media
  // types first; `/apis`, `/apis/<group>` and a custom resource's group version are routes of
  // its mux, which serves any method alike. `/api` and `/apis` pass the aggregated form by.
  // Routes take any method through route().all: Express's app.all registers Node's list of
  // methods alone, and one outside it (`FOO`, see server/http/foreign-method.ts) would pass by.
  app.route('/api').all((request, response, next) => {
    if (request.method !== 'GET') return next(methodNotAllowed());
    const representation = chooseDiscoveryRepresentation({ accept: request.headers.accept, aggregatedVersions });
    if (representation.form === 'aggregated') {
      return sendAggregated(request, response, representation, aggregated().api[representation.version]!);
    }
    const core = groups().find((group) => group.name === '');
    const serverAddress = options.serverAddress?.() ?? localAddressOf(request);
    sendLegacy(request, response, next, {
      restful: true,
      kind: 'APIVersions',
      document: () => apiVersionsDocument({ core, serverAddress }),
    });
  });

  app.route('/apis').all((request, response, next) => {
    const representation = chooseDiscoveryRepresentation({ accept: request.headers.accept, aggregatedVersions });
    if (representation.form === 'aggregated') {
      return sendAggregated(request, response, representation, aggregated().apis[representation.version]!);
    }
    sendLegacy(request, response, next, { restful: false, kind: 'APIGroupList', document: groupList });
  });

  app.route('/api/:version').all((request, response, next) => {
    const groupVersion = findServedGroupVersion(groups(), '', String(request.params.version));
    if (groupVersion === undefined) return next();
    if (request.method !== 'GET') return next(methodNotAllowed());
    sendLegacy(request, response, next, {
      restful: true,
      kind: 'APIResourceList',
      document: () => apiResourceListDocument(groupVersion, { storageVersionHashes }),
    });
  });

  app.route('/apis/:group').all((request, response, next) => {
    const group = groups().find((candidate) => candidate.name !== '' && candidate.name === request.params.group);
    const extension =
      group === undefined ? extensionGroups().find((candidate) => candidate.name === request.params.group) : undefined;
    if (group === undefined && extension === undefined) return next();
    sendLegacy(request, response, next, {
      restful: false,
      kind: 'APIGroup',
      document: () =>
        group !== undefined
          ? apiGroupDocument(group)
          : { kind: 'APIGroup', apiVersion: 'v1', ...extensionAPIGroup(extension!) },
    });
  });

  app.route('/apis/:group/:version').all((request, response, next) => {
    const groupVersion = findServedGroupVersion(groups(), String(request.params.group), String(request.params.version));
    if (groupVersion === undefined || groupVersion.group === '') return next();
    // A custom resource's group version is served by the reference's apiextensions handler,
    // which takes any method.
    const restful = groupVersion.resources.some(({ type }) => !type.custom);
    if (restful && request.method !== 'GET') return next(methodNotAllowed());
    sendLegacy(request, response, next, {
      restful,
      kind: 'APIResourceList',
      document: () => apiResourceListDocument(groupVersion, { storageVersionHashes }),
    });
  });
  return {
    notFoundAsStatus: (name) =>
      groups().some(
        (group) =>
          group.name === name && group.versions.some(({ resources }) => resources.some(({ type }) => !type.custom)),
      ) || extensionGroups().some((group) => group.name === name && group.versions.some(({ local }) => !local)),
    listedPaths: () => [
      '/apis',
      '/apis/',
      ...[...groups(), ...extensionGroups()].flatMap(({ name, versions }) => {
        const root = name === '' ? '/api' : `/apis/${name}`;
        return [root, ...versions.map(({ version }) => `${root}/${version}`)];
      }),
    ],
  };
}

/**
 * An unaggregated document in the negotiated form. On a go-restful route the router's checks
 * of the request's media types come first; a 406 or 415 goes to the chain's error handling,
 * which writes it in the form `Accept` asks for where it can.
 */
function sendLegacy(
  request: Request,
  response: Response,
  next: NextFunction,
  options: { restful: boolean; kind: string; document: () => object },
): void {
  const refusal =
    options.restful &&
    restfulRouteRefusal(
      { method: request.method, contentType: request.headers['content-type'], accept: request.headers.accept },
      DISCOVERY_ROUTE,
    );
  if (refusal) return next(refusal);
  let negotiated: Negotiated;
  try {
    negotiated = legacyNegotiated(request.headers.accept);
  } catch (error) {
    return next(error);
  }
  const body = encodeNegotiated(request, negotiated, options.document(), META_MESSAGE_PREFIX + options.kind);
  response.status(200).setHeader('Content-Type', negotiated.serializer.mediaType);
  response.end(body);
}

function sendAggregated(
  request: Request,
  response: Response,
  representation: { version: AggregatedDiscoveryVersion; serializer: SerializerInfo },
  document: EncodedDocument,
): void {
  const quotedHash = `"${document.hash}"`;
  response.setHeader('ETag', quotedHash);
  response.setHeader('Vary', 'Accept');
  response.setHeader('Cache-Control', 'public');
  if (request.headers['if-none-match'] === quotedHash) {
    response.status(304).end();
    return;
  }
  const { serializer, version } = representation;
  response.status(200).setHeader('Content-Type', aggregatedContentType(version, serializer.mediaType));
  response.end(
    serializer.format === 'json'
      ? document.body
      : encodeNegotiated(request, { serializer, pretty: false }, document.document),
  );
}

/** `host:port` of the local end of the request's connection, IPv6 in brackets. */
function localAddressOf(request: Request): string {
  const address = (request.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return joinHostPort(address, request.socket.localPort ?? 443);
}
