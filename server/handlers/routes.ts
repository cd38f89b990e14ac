/**
 * Mounts the resource handlers: every request the chain marked as a resource request for a
 * served type goes to the handler of its verb (and subresource). Verbs a type does not declare
 * are 405 MethodNotAllowed; paths no type serves fall through to the chain's 404.
 *
 * The registry may change while serving: each request looks its type up afresh, and handlers
 * are built per type object, so a removed type's paths are 404 from its removal on.
 */
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import type { ObjectStorage } from '../../storage/objects/types';
import '../request/request-context';
import type { RequestInfo } from '../request/request-info';
import { withTypeDefinitions } from '../registry/type-definitions';
import {
  typeAtVersion,
  type DeclarativeMismatchCounter,
  type ResourceRegistry,
  type ResourceType,
  type Verb,
} from '../registry/types';
import { statusErrorFrom } from '../status/from-error';
import { methodNotAllowed, methodNotSupported, notFound } from '../status/catalogue';
import type { Definitions } from '../validation/decode';
import { admissionChain, type Admission } from '../admission/types';
import type { Authorizer } from '../authz/types';
import { negotiateResponse, servedSerializers } from '../responsewriters/respond';
import { producedMediaTypes } from '../codec/media-type';
import { restfulRouteRefusal } from '../codec/route-accept';
import { DEFAULT_REPRESENTATION_SETTINGS } from '../codec/representation-settings';
import { acceptedPatchTypes } from './patch-types';
import { createHandler } from './create';
import { deleteCollectionHandler, deleteHandler } from './delete';
import { getHandler } from './get';
import { listHandler } from './list';
import { patchHandler } from './patch';
import { scaleGetHandler, scaleWriteHandler } from './scale';
import { groupResourceOf } from '../registry/store/scope';
import type { StoreHooks } from '../registry/store/hooks';
import { endpointOfType, type HandlerContext, type HandlerScope, type ResourceHandler } from './scope';
import { updateHandler } from './update';
import { createKubeletClient, DEFAULT_KUBELET_CLIENT_CONFIG, type KubeletClient } from '../kubelet/kubelet-client';
import { watchHandler } from './watch';
import { featureEnabled } from '../config/feature-enabled';

import type { HandlerFactory } from './slots';
import type { RepresentationSettings } from '../codec/representation-settings';
export interface ResourceRoutesOptions {
  readonly registry: ResourceRegistry;
  /** The storage of a type (the watch cache over the store, usually), one per type. */
  readonly storageFor: (type: ResourceType) => ObjectStorage;
  readonly definitions?: Definitions;
  /** Clock for timestamps; default: the system clock. */
  readonly now?: () => Date;
  /** Absent: an empty chain. */
  readonly admission?: Admission;
  readonly authorizer?: Authorizer;
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /** `--etcd-prefix`, which the words for a corrupt object leave out of its key; default `/registry`. */
  readonly etcdPrefix?: string;
  /** A kind's own steps around storage (Services: cluster IPs). */
  readonly hooksFor?: (type: ResourceType) => StoreHooks | undefined;
  /** Feature gates of the representations (CBOR, compression); absent: the reference's defaults. */
  readonly representations?: RepresentationSettings;
  /** How pods/log and nodes/proxy reach kubelets; default: the reference's defaults (`--kubelet-*` unset). */
  readonly kubelet?: KubeletClient;
  /** `--min-request-timeout` in seconds (default 1800): how long watches without `timeoutSeconds` run. */
  readonly minRequestTimeoutSeconds?: number;
  /** Where writes count their declarative validation mismatches; absent: not counted. */
  readonly declarativeMismatches?: DeclarativeMismatchCounter;
}

/** Handlers of one served (type, version), built once. */
interface ServedHandlers {
  readonly main: Partial<Record<Verb, ResourceHandler>>;
  readonly subresources: Readonly<Record<string, Partial<Record<string, ResourceHandler>>>>;
}

function genericHandlers(scope: HandlerScope): Partial<Record<Verb, ResourceHandler>> {
  return {
    get: getHandler(scope),
    list: listHandler(scope),
    watch: watchHandler(scope),
    create: createHandler(scope),
    update: updateHandler(scope),
    patch: patchHandler(scope),
    delete: deleteHandler(scope),
    deletecollection: deleteCollectionHandler(scope),
  };
}

function builtHandlers(
  scope: HandlerScope,
  factories: Readonly<Partial<Record<Verb, HandlerFactory>>>,
): Partial<Record<Verb, ResourceHandler>> {
  return Object.fromEntries(Object.entries(factories).map(([verb, factory]) => [verb, factory(scope)]));
}

/**
 * The generic handlers (none for a virtual type, which stores nothing) with the type's own
 * handlers in their slots: generic subresources from the type's data, then its own.
 */
function buildHandlers(scope: HandlerScope): ServedHandlers {
  const { subresources, handlers: slots = {} } = scope.type;
  const sub: Record<string, Partial<Record<string, ResourceHandler>>> = {};
  if (subresources.status) {
    sub.status = {
      get: getHandler(scope),
      update: updateHandler(scope, 'status'),
      patch: patchHandler(scope, 'status'),
    };
  }
  if (subresources.scale) {
    const paths = subresources.scale;
    sub.scale = {
      get: scaleGetHandler(scope, paths),
      update: scaleWriteHandler(scope, paths, 'update'),
      patch: scaleWriteHandler(scope, paths, 'patch'),
    };
  }
  if (subresources.finalize) sub.finalize = { update: updateHandler(scope, 'finalize') };
  for (const [name, endpoint] of Object.entries(slots.subresources ?? {}))
    sub[name] = builtHandlers(scope, endpoint.handlers);
  return {
    main: { ...(scope.type.virtual ? {} : genericHandlers(scope)), ...builtHandlers(scope, slots.verbs ?? {}) },
    subresources: sub,
  };
}

/**
 * The methods the reference's resource routes are registered for, matched as go-restful matches
 * them, case and all: a lower-case `get` is no GET. Its custom resource handler serves by verb,
 * which its request info gives these methods alone.
 */
const ROUTED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether the request came by the legacy `/watch/` path rather than `?watch=true`. */
function isWatchPath(info: RequestInfo): boolean {
  const version = info.apiPrefix === 'api' ? `/api/${info.apiVersion}` : `/apis/${info.apiGroup}/${info.apiVersion}`;
  return info.path.startsWith(`${version}/watch/`);
}

function refuseWatch(type: ResourceType): ResourceHandler {
  return async ({ req }) => {
    req.resume();
    throw methodNotSupported(groupResourceOf(type), 'watch');
  };
}

/** The handler for the request, a 405 for a verb the type or subresource does not serve, or undefined to fall through. */
function pick(
  type: ResourceType,
  handlers: ServedHandlers,
  info: RequestInfo,
  method: string,
): ResourceHandler | 'not-allowed' | undefined {
  // A cluster-scoped kind has no route under a namespace (`/api/v1/namespaces/x/nodes`); a
  // namespace's own path (`/api/v1/namespaces/x`, `/namespaces/x/status`) names it as its namespace.
  if (!type.namespaced && info.namespace !== '' && !isNamespaceOwnPath(info)) return undefined;
  // The reference's custom resource handler passes a namespaced kind's path without a namespace
  // on to the 404, but for list and watch, a subresource's too.
  if (type.custom && type.namespaced && info.namespace === '' && info.verb !== 'list' && info.verb !== 'watch')
    return undefined;
  // The legacy `/watch/` paths are routed for GET only, and only for a watchable kind's objects
  // and collections: another method there is 405, or 404 when the kind has no such path at all
  // (nor has any kind below an object, `/watch/.../pods/x/status`). A custom resource's handler
  // goes by the request info's verb, which such a path makes `watch` whatever the method.
  if (info.verb === 'watch' && !type.custom) {
    if (info.subresource !== '') return undefined;
    if (method !== 'GET' && method !== 'HEAD') return type.verbs.includes('watch') ? 'not-allowed' : undefined;
  }
  if (info.subresource === '') {
    if (type.custom) return customResourceHandler(type, handlers.main, info, method);
    const verb = info.verb as Verb;
    // PUT and PATCH name an object: on a collection there is no such route.
    if ((verb === 'update' || verb === 'patch') && info.name === '') return 'not-allowed';
    // A namespaced kind's all-namespaces path serves list and watch only: the reference has no
    // route for an object there (404) and no other method on that collection (405).
    if (type.namespaced && info.namespace === '') {
      // A list's name comes from a field selector pinning metadata.name: still a list.
      if (info.name !== '' && verb !== 'list' && verb !== 'watch') return undefined;
      if (verb !== 'list' && verb !== 'watch') return 'not-allowed';
    }
    if (!ROUTED_METHODS.has(method)) return 'not-allowed';
    // POST names no object: a POST on an object's path is not a create.
    if (verb === 'create' && info.name !== '') return 'not-allowed';
    if (verb === 'watch' && !type.verbs.includes('watch') && type.verbs.includes('list')) {
      // No `/watch/` route for a kind that cannot be watched (404); on its collection's route
      // the list handler refuses the watch, naming the kind (componentstatuses).
      if (isWatchPath(info)) return undefined;
      return refuseWatch(type);
    }
    if (!type.verbs.includes(verb)) return 'not-allowed';
    // The reference routes HEAD to no built-in resource (only to the proxies, which pass any
    // method on); its custom resource handler serves by verb, HEAD as GET.
    if (method === 'HEAD' && type.definitions === undefined) return 'not-allowed';
    return handlers.main[verb] ?? 'not-allowed';
  }
  const subresource = handlers.subresources[info.subresource];
  // Not served: the chain's 404; the reference's custom resource handler names the object instead.
  if (subresource === undefined) return type.custom ? objectNotFound(type, info.name) : undefined;
  // The reference routes `<name>/<subresource>` and nothing below it, but for the proxies; its
  // custom resource handler reads the subresource and ignores what follows it.
  const takesPath = type.handlers?.subresources?.[info.subresource]?.takesPath === true;
  if (info.parts.length > 3 && !takesPath && !type.custom) return undefined;
  // The proxies take OPTIONS too, passed on as GET is.
  if (takesPath && method === 'OPTIONS') return subresource.get ?? 'not-allowed';
  if (type.custom) return customResourceHandler(type, subresource, info, method);
  if (!ROUTED_METHODS.has(method)) return 'not-allowed';
  if (method === 'HEAD' && !takesPath && type.definitions === undefined) return 'not-allowed';
  return subresource[info.verb] ?? 'not-allowed';
}

/**
 * A custom resource's handler in the reference serves the resource and each subresource by verb
 * alone (its crdHandler has no go-restful routes): a POST on an object's path is a create, and a
 * PUT or PATCH on a collection is refused by the update or patch handler for want of a name. A
 * verb it does not serve is refused naming the verb and the resource; a method its request info
 * gives no verb (OPTIONS) names none, but on a `/watch/` path, whose verb is `watch` whatever
 * the method, every method watches.
 */
function customResourceHandler(
  type: ResourceType,
  byVerb: Partial<Record<Verb, ResourceHandler>>,
  info: RequestInfo,
  method: string,
): ResourceHandler {
  const verb = ROUTED_METHODS.has(method) || isWatchPath(info) ? info.verb : '';
  return byVerb[verb as Verb] ?? (() => Promise.reject(methodNotSupported(groupResourceOf(type), verb)));
}

/** A handler answering any method with the NotFound of the object named (`widgets.example.com "w" not found`). */
function objectNotFound(type: ResourceType, name: string): ResourceHandler {
  return () => Promise.reject(notFound(groupResourceOf(type), name));
}

/** `/namespaces/<name>[/<subresource>]`: the request info names the namespace as both. */
function isNamespaceOwnPath(info: RequestInfo): boolean {
  return (
    info.resource === 'namespaces' &&
    info.parts[0] === 'namespaces' &&
    info.parts[1] === info.namespace &&
    info.name === info.namespace
  );
}

/** Virtual types store nothing: a handler of theirs that reaches for storage is a bug, not a bad request. */
function refuseStorage(): Promise<never> {
  return Promise.reject(new Error('a virtual resource type stores nothing'));
}
const NOTHING_STORED: ObjectStorage = {
  get: refuseStorage,
  list: refuseStorage,
  create: refuseStorage,
  update: refuseStorage,
  delete: refuseStorage,
  watch: refuseStorage,
};

export function resourceRoutes(options: ResourceRoutesOptions): RequestHandler {
  const context: HandlerContext = {
    registry: options.registry,
    definitions: options.definitions,
    now: options.now ?? (() => new Date()),
    admission: options.admission ?? admissionChain([]),
    hooksFor: options.hooksFor,
    representations: options.representations,
    authorizer: options.authorizer,
    featureGates: options.featureGates,
    storageFor: options.storageFor,
    kubelet: options.kubelet ?? createKubeletClient(DEFAULT_KUBELET_CLIENT_CONFIG),
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
    declarativeMismatches: options.declarativeMismatches,
    corruptObjects: {
      unsafeDeletion: featureEnabled(options.featureGates ?? {}, 'AllowUnsafeMalformedObjectDeletion'),
      etcdPrefix: options.etcdPrefix ?? '/registry',
    },
  };
  // Keyed by the type object: a type replaced or removed from the registry takes its handlers
  // (and through them its storage) with it, and a new one gets new handlers at its first request.
  const built = new WeakMap<ResourceType, Map<string, ServedHandlers>>();
  const handlersFor = (type: ResourceType, version: string): ServedHandlers | undefined => {
    let byVersion = built.get(type);
    if (byVersion === undefined) {
      byVersion = new Map();
      built.set(type, byVersion);
    }
    let handlers = byVersion.get(version);
    if (handlers === undefined) {
      const served = type.versions.find((v) => v.version === version);
      if (served === undefined) return undefined;
      const storage = type.virtual ? NOTHING_STORED : options.storageFor(type);
      handlers = buildHandlers({
        type: typeAtVersion(type, served),
        version: served,
        storage,
        context: withTypeDefinitions(context, type),
      });
      byVersion.set(version, handlers);
    }
    return handlers;
  };

  // What each route produces, built once per type and route kind: the check runs on every request.
  const produced = new WeakMap<ResourceType, Map<string, readonly string[] | undefined>>();
  const routeProducesOf = (type: ResourceType, info: RequestInfo): readonly string[] | undefined => {
    let byRoute = produced.get(type);
    if (byRoute === undefined) {
      byRoute = new Map();
      produced.set(type, byRoute);
    }
    const key = `${info.subresource}/${info.verb === 'list' || info.verb === 'watch'}`;
    if (!byRoute.has(key)) byRoute.set(key, routeProduces(type, info, options.representations));
    return byRoute.get(key);
  };

  // Every PATCH route declares the patch types (strategic merge whatever the kind): another
  // Content-Type is the router's 415, before the handler's own check of what the kind takes.
  const patchRouteConsumes = acceptedPatchTypes({
    strategic: true,
    cbor: (options.representations ?? DEFAULT_REPRESENTATION_SETTINGS).cbor,
  });

  return (req: Request, res: Response, next: NextFunction) => {
    const info = req.requestInfo;
    if (!info?.isResourceRequest) return next();
    const type = options.registry.find({ group: info.apiGroup, version: info.apiVersion }, info.resource);
    if (type === undefined) return next();
    const handlers = handlersFor(type, info.apiVersion);
    if (handlers === undefined) return next();
    const handler = pick(type, handlers, info, req.method);
    if (handler === undefined) return next();
    if (handler === 'not-allowed') {
      req.resume();
      return next(methodNotAllowed());
    }
    const produces = routeProducesOf(type, info);
    const patch = req.method === 'PATCH';
    const refusal =
      produces &&
      restfulRouteRefusal(
        {
          method: req.method,
          contentType: patch ? req.headers['content-type'] : undefined,
          accept: req.headers.accept,
        },
        { produces, consumes: patch ? patchRouteConsumes : undefined },
      );
    if (refusal) {
      req.resume();
      return next(refusal);
    }
    try {
      // The answer's type is agreed before anything happens: a 406 must not follow a write.
      // A connect subresource (a proxy, exec) answers in its backend's type: nothing to agree
      // on. A log answers in text but is agreed on as the reference's GET handler does, with
      // no table form: `text/plain` alone, or a Table, is a 406 there.
      const connection = isConnection(type, info);
      if (!connection || Array.isArray(declaredProduces(type, info)))
        negotiateResponse(
          { req, res, settings: options.representations },
          connection ? { ...endpointOfType(type), table: false } : endpointOfType(type),
          { watch: info.verb === 'watch' },
        );
    } catch (error) {
      req.resume();
      return next(error);
    }
    // Storage errors name no resource; the reference's Status details do.
    handler({ info, req, res }).catch((error: unknown) =>
      next(
        statusErrorFrom(error, {
          resource: groupResourceOf(type),
          name: info.name || undefined,
          corruptObjects: context.corruptObjects,
        }),
      ),
    );
  };
}

/**
 * The media types the reference's route for the request produces, which its router checks
 * `Accept` against; undefined where no such check happens (custom resources, connect
 * subresources). The routes that list or watch also produce the watch streams.
 */
function routeProduces(
  type: ResourceType,
  info: RequestInfo,
  settings: RepresentationSettings | undefined,
): readonly string[] | undefined {
  if (type.custom) return undefined;
  const declared = declaredProduces(type, info);
  if (declared === 'anything') return undefined;
  const serialized = producedMediaTypes(servedSerializers(endpointOfType(type), settings), {
    streams: info.subresource === '' && (info.verb === 'list' || info.verb === 'watch'),
  });
  return declared === undefined ? serialized : [...declared, ...serialized];
}

/** What the request's subresource declares it produces beyond the serializers' types, if anything. */
function declaredProduces(type: ResourceType, info: RequestInfo): 'anything' | readonly string[] | undefined {
  return info.subresource === '' ? undefined : type.handlers?.subresources?.[info.subresource]?.produces;
}

/** A subresource that streams what a backend answers (its endpoint says so). */
function isConnection(type: ResourceType, info: RequestInfo): boolean {
  return info.subresource !== '' && type.handlers?.subresources?.[info.subresource]?.connection === true;
}

/** Mounts the resource routes on an app whose chain already set `req.requestInfo`. */
export function mountResourceRoutes(app: Express, options: ResourceRoutesOptions): void {
  app.use(resourceRoutes(options));
}
