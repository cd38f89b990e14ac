/**
 * What every resource handler is built from: the type it serves, the version the request
 * named, that type's storage, and the context shared by all handlers. Also the small pieces
 * every verb uses: object keys, version conversion, JSON answers and Warning headers.
 */
import type { Request, Response } from 'express';
import type { KubeObject, ObjectKey, ObjectStorage } from '../../storage/objects/types';
import { definitionsOfType } from '../registry/type-definitions';
import type { ResourceRegistry, ResourceType, ServedVersion } from '../registry/types';
import { groupVersionString } from '../registry/types';
import type { RequestInfo } from '../http/request-info';
import type { GroupResource } from '../status/catalogue';
import type { Definitions } from '../validation/decode';
import { writeObject, type Endpoint, type RepresentationSettings } from '../codec/respond';
import type { Admission } from '../admission/types';
import type { Authorizer } from '../authz/types';

export interface HandlerContext {
  readonly registry: ResourceRegistry;
  /** OpenAPI-style definitions of the built-in kinds; absent: bodies are taken as they are. */
  readonly definitions?: Definitions;
  /** The time written into creationTimestamp, deletionTimestamp and managedFields. */
  readonly now: () => Date;
  /** Feature gates of the representations (CBOR, compression); absent: the reference's defaults. */
  readonly representations?: RepresentationSettings;
  /** Mutating then validating admission, run on every write after the strategy's own checks. */
  readonly admission?: Admission;
  /** Asked for permissions beyond the request's own verb (unsafe-delete-ignore-read-errors). */
  readonly authorizer?: Authorizer;
  /** `--feature-gates`; absent gates are off. */
  readonly featureGates?: Readonly<Record<string, boolean>>;
}

export interface HandlerScope {
  readonly type: ResourceType;
  /** The version the request addressed. */
  readonly version: ServedVersion;
  readonly storage: ObjectStorage;
  readonly context: HandlerContext;
}

/**
 * The scope handlers of one served version of `type` are built from, for requests and for the
 * server's own writes alike: the shared context, with the type's own schema definitions (a
 * custom resource's) over the built-in ones when it brings some.
 */
export function scopeOfType(options: { type: ResourceType; version: ServedVersion; storage: ObjectStorage; context: HandlerContext }): HandlerScope {
  const { type, context } = options;
  const definitions = definitionsOfType(context.definitions, type);
  return { ...options, context: definitions === context.definitions ? context : { ...context, definitions } };
}

/** What a handler reads about the request, besides the request itself. */
export interface ResourceRequest {
  readonly info: RequestInfo;
  readonly req: Request;
  readonly res: Response;
}

export type ResourceHandler = (request: ResourceRequest) => Promise<void>;

export function groupResourceOf(type: ResourceType): GroupResource {
  return { group: type.group, resource: type.resource };
}

export function apiVersionOf(scope: HandlerScope): string {
  return groupVersionString({ group: scope.type.group, version: scope.version.version });
}

export function objectKeyOf(scope: HandlerScope, info: Pick<RequestInfo, 'namespace' | 'name'>): ObjectKey {
  return scope.type.namespaced ? { namespace: info.namespace, name: info.name } : { name: info.name };
}

/**
 * A value, or a promise of it when a type's conversion is asynchronous (a conversion webhook).
 * Built-in conversions are synchronous, and their path stays free of promises and awaits.
 */
export type Converted<T> = T | Promise<T>;

/** `then(value)`, at once for a value, after it for a promise. */
export function whenConverted<T, R>(value: Converted<T>, then: (value: T) => Converted<R>): Converted<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/**
 * The stored object as the request's version shows it. Below the top level it shares the
 * stored object (the watch cache hands one object to every reader), so its users only read it:
 * encoders do, and update functions get it from the private copy the storage gives them. A
 * deep copy here cost most of a list's CPU.
 */
export function toServedVersion(scope: HandlerScope, object: KubeObject): Converted<KubeObject> {
  const { type } = scope;
  // No closures here: this runs once per listed item and watch event.
  if (!type.convert) return servedAs(scope, object);
  const converted = type.convert(object, { group: type.group, version: scope.version.version });
  return converted instanceof Promise ? converted.then((later) => servedAs(scope, later)) : servedAs(scope, converted);
}

function servedAs(scope: HandlerScope, converted: KubeObject): KubeObject {
  return { ...converted, apiVersion: apiVersionOf(scope), kind: scope.type.kind };
}

/** Every object as the request's version shows it: an array, or a promise of one when a conversion is asynchronous. */
export function toServedVersions(scope: HandlerScope, objects: readonly KubeObject[]): Converted<KubeObject[]> {
  const served = objects.map((object) => toServedVersion(scope, object));
  return served.some((object) => object instanceof Promise) ? Promise.all(served) : (served as KubeObject[]);
}

/** A request-version object as it is stored. */
export function toStorageVersion(scope: HandlerScope, object: KubeObject): Converted<KubeObject> {
  const { type } = scope;
  const group = type.group;
  const version = type.storageVersion;
  const stamp = (converted: KubeObject): KubeObject => ({ ...converted, apiVersion: groupVersionString({ group, version }), kind: type.kind });
  if (!type.convert || version === scope.version.version) return stamp(object);
  return whenConverted(type.convert(object, { group, version }), stamp);
}

/** `299 - "<text>"`, one header value per warning, as the reference writes them. */
export function addWarnings(res: Response, warnings: readonly string[]): void {
  for (const warning of warnings) res.append('Warning', `299 - ${JSON.stringify(warning)}`);
}

export function deprecationWarnings(scope: HandlerScope): string[] {
  const { version } = scope;
  if (!version.deprecated) return [];
  return [
    version.deprecationWarning ??
      `${groupVersionString({ group: scope.type.group, version: version.version })} ${scope.type.kind} is deprecated`,
  ];
}

/** What the type's answers can be encoded as: protobuf unless the type has none; stored kinds print as tables, with the version's printer. */
export function endpointOf(scope: HandlerScope): Endpoint {
  return endpointOfType(scope.type, scope.version);
}

/** Without a version, as far as negotiation needs it (the printer is the version's). */
export function endpointOfType(type: ResourceType, version?: ServedVersion): Endpoint {
  return { resource: groupResourceOf(type), protobuf: type.protobuf !== false, table: !type.virtual, printer: version?.printer };
}

/** The answer in the representation the client negotiated (JSON, YAML, protobuf, Table, metadata). */
export async function writeResponse(scope: HandlerScope, res: Response, code: number, body: object): Promise<void> {
  // A success Status (delete) is encoded as it is: transforms leave Status bodies alone.
  await writeObject({ req: res.req, res, settings: scope.context.representations, endpoint: endpointOf(scope), code, object: body as KubeObject });
}
