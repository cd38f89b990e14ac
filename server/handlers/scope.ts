/**
 * What every resource handler is built from: the store's scope (type, version, storage, the
 * shared context) plus what only HTTP needs (the representations' feature gates). Also the
 * small pieces every verb's answer uses: warnings and the negotiated encoding.
 */
import type { CorruptObjectWording } from '../status/corrupt-objects';
import type { Request, Response } from 'express';
import type { ObjectStorage } from '../../storage/objects/types';
import type { ResourceType, ServedVersion } from '../registry/types';
import { groupVersionString } from '../../api/identity';
import type { RequestInfo } from '../request/request-info';
import { parseListQuery, type ListQuery, type QueryParameters } from '../request/query';
import { featureEnabled } from '../config/feature-enabled';
import type { KubeletClient } from '../kubelet/kubelet-client';
import { writeObject, type Endpoint, type KeptObjectEncoding } from '../responsewriters/respond';
import { flushGatheredEventsIfFew } from './watch-writer';
import { groupResourceOf, type StoreContext, type StoreScope } from '../registry/store/scope';

import type { KubeObject } from '../../api/objects';
import type { RepresentationSettings } from '../codec/representation-settings';
export interface HandlerContext extends StoreContext {
  /** Feature gates of the representations (CBOR, compression); absent: the reference's defaults. */
  readonly representations?: RepresentationSettings;
  /** The storage of another served type, for subresources that write more than their parent (an eviction updates a PodDisruptionBudget). */
  readonly storageFor?: (type: ResourceType) => ObjectStorage;
  /** How pods/log and nodes/proxy reach kubelets (`--kubelet-*`). */
  readonly kubelet?: KubeletClient;
  /** `--min-request-timeout`: a watch without `timeoutSeconds` ends after [min, 2·min) seconds; 0: never. Default 1800. */
  readonly minRequestTimeoutSeconds?: number;
  /** How unreadable stored values are told to clients; absent: the reference's default words. */
  readonly corruptObjects?: CorruptObjectWording;
}

export interface HandlerScope extends StoreScope {
  readonly context: HandlerContext;
}

/** What a handler reads about the request, besides the request itself. */
export interface ResourceRequest {
  readonly info: RequestInfo;
  readonly req: Request;
  readonly res: Response;
}

export type ResourceHandler = (request: ResourceRequest) => Promise<void>;

/** Adds the warnings to the request's (server/request/warning-recorder.ts), for its answer whatever it is. */
export function addWarnings(req: Request, warnings: readonly string[]): void {
  for (const warning of warnings) req.warnings.add(warning);
}

/** The version's deprecation, which every answer of its handlers carries, a refusal too: add it first. */
export function deprecationWarnings(scope: HandlerScope): string[] {
  const { version } = scope;
  if (!version.deprecated) return [];
  return [
    version.deprecationWarning ??
      `${groupVersionString({ group: scope.type.group, version: version.version })} ${scope.type.kind} is deprecated`,
  ];
}

/** The request's list options, defaulted and checked under the server's WatchList gate. */
export function listQueryOf(scope: HandlerScope, query: QueryParameters): ListQuery {
  return parseListQuery(query, { watchList: featureEnabled(scope.context.featureGates ?? {}, 'WatchList') });
}

/** What the type's answers can be encoded as: protobuf unless the type has none; stored kinds (and virtual ones with a printer) print as tables, with the version's printer. */
export function endpointOf(scope: HandlerScope): Endpoint {
  return endpointOfType(scope.type, scope.version);
}

/** Without a version, as far as negotiation needs it (the printer is then the type's). */
export function endpointOfType(type: ResourceType, version?: ServedVersion): Endpoint {
  const resource = groupResourceOf(type);
  return {
    resource,
    protobuf: type.protobuf !== false,
    table: !type.virtual || type.printer !== undefined,
    printer: version?.printer ?? type.printer,
  };
}

/** The answer in the representation the client negotiated (JSON, YAML, protobuf, Table, metadata). */
export async function writeResponse(
  scope: HandlerScope,
  res: Response,
  code: number,
  body: object,
  kept?: KeptObjectEncoding,
): Promise<void> {
  // A write's events go out before its answer (the cache waited for them to reach its watchers).
  if (res.req.method !== 'GET') flushGatheredEventsIfFew();
  // A success Status (delete) is encoded as it is: transforms leave Status bodies alone.
  await writeObject({
    req: res.req,
    res,
    settings: scope.context.representations,
    endpoint: endpointOf(scope),
    code,
    object: body as KubeObject,
    kept,
  });
}
