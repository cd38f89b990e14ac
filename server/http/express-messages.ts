/**
 * Request and response classes for Node's server whose instances are born with the app's
 * Express prototypes, so that Express finds them already in place.
 *
 * Why: Express gives every request and response the app's prototypes as it takes them
 * (`Object.setPrototypeOf(req, app.request)` in `app.handle`), which moves each object to a
 * new hidden class on the hot path: `app.handle` took 3.6-3.9% of the CPU in profiles of GETs
 * at `resourceVersion=0`, 0.2% with these classes. Setting the prototype an object already has
 * is a no-op.
 *
 * The classes extend Node's own (its `IncomingMessage` and `ServerResponse` server options),
 * their prototypes carry what `app.request` and `app.response` carry, and the app is given
 * them as its prototypes: the chain each request and response ends with is the one Express
 * would have made.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

export interface MessageClasses {
  readonly IncomingMessage: typeof IncomingMessage;
  readonly ServerResponse: typeof ServerResponse;
}

export function expressMessageClasses(app: Express): MessageClasses {
  class ExpressIncomingMessage extends IncomingMessage {}
  class ExpressServerResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {}
  adopt(ExpressIncomingMessage.prototype, app.request);
  adopt(ExpressServerResponse.prototype, app.response);
  app.request = ExpressIncomingMessage.prototype as typeof app.request;
  app.response = ExpressServerResponse.prototype as typeof app.response;
  return { IncomingMessage: ExpressIncomingMessage, ServerResponse: ExpressServerResponse };
}

/** Makes `prototype` stand in for `appPrototype`: the same parent, the same own properties (`app`). */
function adopt(prototype: object, appPrototype: object): void {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(appPrototype) as object);
  Object.defineProperties(prototype, Object.getOwnPropertyDescriptors(appPrototype));
}
