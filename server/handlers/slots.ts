/**
 * The handlers a resource type brings beyond the generic ones: what `ResourceType.handlers`
 * holds (server/registry/types.ts declares the slot empty, since a handler is built from what
 * only the layers above the kinds know; this module fills it in).
 */
import type { GroupVersionKind } from '../../api/identity';
import type { Verb } from '../registry/types';
import type { HandlerScope, ResourceHandler } from './scope';

/** Builds the handler of one endpoint for one served version, from what the generic handlers are built from. */
export type HandlerFactory = (scope: HandlerScope) => ResourceHandler;

/**
 * A subresource served by handlers of its own (`serviceaccounts/token`, `pods/eviction`),
 * beyond the generic status, scale and finalize.
 */
export interface SubresourceEndpoint {
  /** The kind its requests and answers carry (authentication.k8s.io/v1 TokenRequest), as discovery shows it. */
  readonly kind: GroupVersionKind;
  /** OpenAPI definition name of that kind. */
  readonly definition: string;
  /** One handler per verb it serves (the request's verb: `create` for POST, `get` for GET...). */
  readonly handlers: Readonly<Partial<Record<Verb, HandlerFactory>>>;
  /** It streams a backend's answer (pods/log, the proxies, exec): no representation is negotiated for it. */
  readonly connection?: true;
  /**
   * What the reference's route declares it produces ahead of the serializers' media types, which
   * its router checks `Accept` against: `text/plain` for pods/log; `anything` (`*\/*`, no
   * check) for the connect subresources. Absent: the serializers' types alone.
   */
  readonly produces?: 'anything' | readonly string[];
  /**
   * The URL past the subresource is a path it proxies (`pods/x/proxy/a/b`); others end at their
   * name. OPTIONS (verb `options`, which discovery does not list) reaches its `get` handler too,
   * as the reference's proxies pass that method on.
   */
  readonly takesPath?: true;
  /**
   * The options kind whose fields are its query parameters, where that is not its kind (pods/log
   * answers about a Pod and takes PodLogOptions); the OpenAPI documents list them.
   */
  readonly optionsDefinition?: string;
  /** The feature gate it is served behind, as the reference's storage leaves it out while the gate is off. */
  readonly featureGate?: string;
}

declare module '../registry/types' {
  /**
   * Handlers a type brings beyond the generic ones. Routes dispatch them like the generic ones:
   * same request information, same scope, same negotiation and error handling. A built-in kind
   * whose handler needs what exists only once the server starts (a signing key) gets it by
   * replacing its type: `registry.add({ ...registry.find(v1, 'serviceaccounts'), handlers })`.
   */
  interface HandlerSlots {
    /**
     * Handlers of the resource itself that take the place of the generic one of their verb (a
     * review's create, which answers and stores nothing). The verb must also be in `verbs`.
     */
    readonly verbs?: Readonly<Partial<Record<Verb, HandlerFactory>>>;
    /** Subresources by name. */
    readonly subresources?: Readonly<Record<string, SubresourceEndpoint>>;
  }
}
