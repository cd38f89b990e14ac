/**
 * Watch: newline-delimited JSON events over a chunked 200 response whose headers go out at
 * once. Writes wait for `drain` when the socket is full, so a slow client slows its own
 * iteration (and the storage drops it if it falls too far behind) instead of growing memory.
 * An in-band failure is one ERROR event carrying a Status, then the end of the stream.
 */
import { once } from 'node:events';
import type { Response } from 'express';
import { openWatchesOf } from '../http/open-watches';
import { parseListQuery, queryOf } from '../request/query';
import { statusErrorFrom } from '../status/from-error';
import { predicateOf, namespaceScopeOf } from './list';
import { watchEncoder } from '../codec/respond';
import { apiVersionOf, groupResourceOf, toServedVersion } from '../registry/store/scope';
import { addWarnings, deprecationWarnings, endpointOf, type HandlerScope, type ResourceHandler } from './scope';
import { EVERYTHING, type KubeObject, type Predicate } from '../../storage/objects/types';

const MIN_DEFAULT_TIMEOUT_SECONDS = 1800;

/** The reference's default: random in [30 min, 60 min) so that watchers do not all reconnect together. */
export function defaultWatchTimeoutSeconds(): number {
  return MIN_DEFAULT_TIMEOUT_SECONDS + Math.floor(Math.random() * MIN_DEFAULT_TIMEOUT_SECONDS);
}

async function writeEvent(res: Response, event: Buffer): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  const flushed = res.write(event);
  if (!flushed) {
    await Promise.race([once(res, 'drain'), once(res, 'close')]);
  }
  // compression() holds chunks back unless told to flush.
  (res as Response & { flush?: () => void }).flush?.();
  return !res.destroyed;
}

/** Settles when the last chunk has been handed to the socket, or the connection is gone. */
function streamFinished(res: Response): Promise<void> {
  return new Promise((resolve) => {
    res.once('finish', () => resolve());
    res.once('close', () => resolve());
  });
}

/** A watch on a single object's path (`/watch/.../pods/x`, or `?fieldSelector=metadata.name=x`) sees only it. */
function withName(predicate: Predicate, name: string): Predicate {
  if (name === '') return predicate;
  const base = predicate === EVERYTHING ? undefined : predicate;
  return {
    everything: false,
    name,
    matches: (object: KubeObject) => object.metadata.name === name && (base === undefined || base.matches(object)),
  };
}

export function watchHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    const query = parseListQuery(queryOf(req), true);
    // Negotiated before the watch starts, so that a 406 is a plain answer.
    const encoder = watchEncoder({ req, res, settings: scope.context.representations, endpoint: endpointOf(scope) });
    const watch = await scope.storage.watch(namespaceScopeOf(scope, info.namespace), {
      resourceVersion: query.resourceVersion,
      predicate: withName(predicateOf(scope, query), info.name),
      allowWatchBookmarks: query.allowWatchBookmarks,
      sendInitialEvents: query.sendInitialEvents,
      timeoutSeconds: query.timeoutSeconds ?? defaultWatchTimeoutSeconds(),
    });
    const stop = (): void => watch.stop();
    res.on('close', stop);
    // Shutdown stops the watch like its timeout does: the loop below ends and so does the response.
    const registration = openWatchesOf(req)?.add({ end: stop, finished: streamFinished(res) });
    addWarnings(res, deprecationWarnings(scope));
    res.status(200);
    res.setHeader('Content-Type', encoder.contentType);
    res.setHeader('Transfer-Encoding', 'chunked');
    res.setHeader('Cache-Control', 'no-cache, private');
    res.flushHeaders();
    try {
      for await (const event of watch) {
        if (event.type === 'ERROR') {
          const status = statusErrorFrom(event.error, { resource: groupResourceOf(scope.type) }).status;
          await writeEvent(res, encoder.encode('ERROR', status));
          break;
        }
        const served =
          event.type === 'BOOKMARK'
            ? { ...event.object, apiVersion: apiVersionOf(scope), kind: scope.type.kind }
            : toServedVersion(scope, event.object);
        const object = served instanceof Promise ? await served : served;
        if (!(await writeEvent(res, encoder.encode(event.type, object)))) break;
      }
    } finally {
      registration?.remove();
      res.off('close', stop);
      watch.stop();
      if (!res.writableEnded) res.end();
    }
  };
}
