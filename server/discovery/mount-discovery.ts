/**
 * HTTP handlers for discovery: `/api`, `/api/v1`, `/apis`, `/apis/<group>`, `/apis/<group>/<version>`.
 *
 * `/api` and `/apis` answer with the aggregated document when the client's `Accept` asks for
 * `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList` (or v2beta1, while the
 * AggregatedDiscoveryRemoveBetaType gate is off; on, as by default, such a range is passed
 * over like any other the server does not serve), with an
 * ETag and 304 on `If-None-Match` as the reference does; otherwise, and on the other paths, with
 * the unaggregated documents. Documents are built at first use and rebuilt when the registry changes.
 */
import { createHash } from 'node:crypto';
import type { IRouter, NextFunction, Request, Response } from 'express';
import type { ResourceRegistry } from '../registry/types';
import { StatusError } from '../status/status-error';
import { methodNotAllowed } from '../status/catalogue';
import { parseAccept, rangeMatchesType } from '../codec/media-type';
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

export interface DiscoveryOptions {
  readonly registry: ResourceRegistry;
  /**
   * `host:port` advertised in `/api`'s `serverAddressByClientCIDRs` (the reference's
   * `--advertise-address` and secure port). Absent: the local address the request arrived on.
   */
  readonly serverAddress?: string;
  /** Groups of extension API servers (server/aggregator/), merged into `/apis` and served at `/apis/<group>`. */
  readonly extensions?: ExtensionGroups;
  /**
   * Whether a feature gate is on: StorageVersionHash decides the built-in kinds' hashes, and
   * AggregatedDiscoveryRemoveBetaType whether v2beta1 is served. Absent: every gate at its 1.34
   * default.
   */
  readonly featureEnabled?: (gate: string) => boolean;
}

const JSON_TYPE = 'application/json';
const AGGREGATED_GROUP = 'apidiscovery.k8s.io';
const AGGREGATED_KIND = 'APIGroupDiscoveryList';
const AGGREGATED_VERSIONS: readonly AggregatedDiscoveryVersion[] = ['v2', 'v2beta1'];
/** What the reference serves while AggregatedDiscoveryRemoveBetaType is on. */
const AGGREGATED_VERSIONS_WITHOUT_BETA: readonly AggregatedDiscoveryVersion[] = ['v2'];

/** What a discovery request's `Accept` chose. */
export type DiscoveryRepresentation =
  | { readonly form: 'legacy' }
  | { readonly form: 'aggregated'; readonly version: AggregatedDiscoveryVersion }
  | { readonly form: 'none' };

/**
 * The representation to answer with: the first acceptable range, best weight first. A range
 * asks for the aggregated form only by naming its group, version and kind, in one of
 * `aggregatedVersions` (none: the path serves no aggregated form); a JSON range with other
 * `as` parameters (a Table, say) is not acceptable here, nor is any non-JSON type.
 */
export function chooseDiscoveryRepresentation(options: {
  accept: string | undefined;
  aggregatedVersions: readonly AggregatedDiscoveryVersion[];
}): DiscoveryRepresentation {
  for (const range of parseAccept(options.accept)) {
    if (!rangeMatchesType(range, 'application', 'json')) continue;
    const { as, g, v } = range.parameters;
    if (as === undefined && g === undefined && v === undefined) return { form: 'legacy' };
    const version = options.aggregatedVersions.find((candidate) => candidate === v);
    if (as === AGGREGATED_KIND && g === AGGREGATED_GROUP && version) {
      return { form: 'aggregated', version };
    }
  }
  return { form: 'none' };
}

export function aggregatedContentType(version: AggregatedDiscoveryVersion): string {
  return `${JSON_TYPE};g=${AGGREGATED_GROUP};v=${version};as=${AGGREGATED_KIND}`;
}

interface EncodedDocument {
  readonly body: string;
  /** Unquoted: uppercase hex SHA-512 of the body, as the reference computes it. */
  readonly hash: string;
}

function encode(document: unknown): EncodedDocument {
  const body = JSON.stringify(document);
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

export interface MountedDiscovery {
  /** Whether a group is served (built in, from a custom resource, or by an APIService). */
  servesGroup(name: string): boolean;
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
      return JSON.stringify({ ...document, groups: mergeGroupList(document.groups, extensionGroups()) });
    },
    extensionsRevision,
  );

  // `/api`, `/api/<version>` and a served `/apis/<group>/<version>` are the reference's go-restful
  // routes, which refuse every other method (HEAD too); `/apis` and `/apis/<group>` are routes of
  // its mux, which serves any method alike.
  app.all('/api', (request, response, next) => {
    if (request.method !== 'GET') return next(methodNotAllowed());
    const representation = chooseDiscoveryRepresentation({ accept: request.headers.accept, aggregatedVersions });
    if (representation.form === 'aggregated') {
      sendAggregated(request, response, representation.version, aggregated().api[representation.version]!);
    } else if (representation.form === 'legacy') {
      const core = groups().find((group) => group.name === '');
      const serverAddress = options.serverAddress ?? localAddressOf(request);
      sendJson(response, JSON.stringify(apiVersionsDocument({ core, serverAddress })));
    } else {
      sendNotAcceptable(response, aggregatedVersions);
    }
  });

  app.all('/apis', (request, response) => {
    const representation = chooseDiscoveryRepresentation({ accept: request.headers.accept, aggregatedVersions });
    if (representation.form === 'aggregated') {
      sendAggregated(request, response, representation.version, aggregated().apis[representation.version]!);
    } else if (representation.form === 'legacy') {
      sendJson(response, groupList());
    } else {
      sendNotAcceptable(response, aggregatedVersions);
    }
  });

  app.all('/api/:version', (request, response, next) => {
    serveLegacy(request, response, next, 'GET', () => {
      const groupVersion = findServedGroupVersion(groups(), '', String(request.params.version));
      return groupVersion && apiResourceListDocument(groupVersion, { storageVersionHashes });
    });
  });

  app.all('/apis/:group', (request, response, next) => {
    serveLegacy(request, response, next, 'any', () => {
      const group = groups().find((candidate) => candidate.name !== '' && candidate.name === request.params.group);
      if (group !== undefined) return apiGroupDocument(group);
      const extension = extensionGroups().find((candidate) => candidate.name === request.params.group);
      return extension && { kind: 'APIGroup', apiVersion: 'v1', ...extensionAPIGroup(extension) };
    });
  });

  app.all('/apis/:group/:version', (request, response, next) => {
    serveLegacy(request, response, next, 'GET', () => {
      const groupVersion = findServedGroupVersion(
        groups(),
        String(request.params.group),
        String(request.params.version),
      );
      return groupVersion && groupVersion.group !== ''
        ? apiResourceListDocument(groupVersion, { storageVersionHashes })
        : undefined;
    });
  });
  return {
    servesGroup: (name) =>
      groups().some((group) => group.name === name) || extensionGroups().some((group) => group.name === name),
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
 * Unknown groups and versions fall through to the server's not-found handling; a known one
 * served only to GET refuses other methods.
 */
function serveLegacy(
  request: Request,
  response: Response,
  next: NextFunction,
  methods: 'GET' | 'any',
  build: () => object | undefined,
): void {
  const document = build();
  if (document === undefined) {
    next();
    return;
  }
  if (methods === 'GET' && request.method !== 'GET') {
    next(methodNotAllowed());
    return;
  }
  const representation = chooseDiscoveryRepresentation({ accept: request.headers.accept, aggregatedVersions: [] });
  if (representation.form === 'none') {
    sendNotAcceptable(response, []);
    return;
  }
  sendJson(response, JSON.stringify(document));
}

function sendAggregated(
  request: Request,
  response: Response,
  version: AggregatedDiscoveryVersion,
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
  response.status(200).setHeader('Content-Type', aggregatedContentType(version));
  response.end(document.body);
}

function sendJson(response: Response, body: string): void {
  response.status(200).setHeader('Content-Type', JSON_TYPE);
  response.end(body);
}

/** The types the path serves: plain JSON, and the aggregated documents it serves. */
function sendNotAcceptable(response: Response, aggregatedVersions: readonly AggregatedDiscoveryVersion[]): void {
  const served = [JSON_TYPE, ...aggregatedVersions.map(aggregatedContentType)];
  const error = new StatusError({
    code: 406,
    reason: 'NotAcceptable',
    message: `only the following media types are accepted: ${served.join(', ')}`,
  });
  response.status(406).setHeader('Content-Type', JSON_TYPE);
  response.end(JSON.stringify(error.status));
}

/** `host:port` of the local end of the request's connection, IPv6 in brackets. */
function localAddressOf(request: Request): string {
  const address = (request.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const host = address.includes(':') ? `[${address}]` : address;
  return `${host}:${request.socket.localPort ?? 443}`;
}
