/**
 * Watch: newline-delimited JSON events (or protobuf frames, CBOR, Table rows) over a chunked
 * 200 response whose headers go out at once, or one message each over a WebSocket when the
 * request asks to switch (watch-websocket.ts). An in-band failure is one ERROR event carrying a
 * Status, then the end of the stream.
 *
 * Memory per watch is bounded twice: the watch's own queue in the cache (events and bytes of
 * objects, see CacheWatcher) and the bytes this handler has handed to the connection and the
 * client has not taken yet (`WATCH_BUFFER_BYTES`, see WatchWriter). A client that stops reading
 * fills the second, so the handler stops reading the watch, so the first fills and the cache
 * closes the watch; the handler then ends the stream and drops the connection if the client
 * does not take the end within `WATCH_END_LINGER_MS`.
 *
 * An event's bytes are made once for every watcher that shows it alike (same served version,
 * same encoding): the watch cache hands the same event object to all of them.
 */
import type { Response } from 'express';
import { openWatchesOf } from './open-watches';
import { queryOf } from '../request/query';
import { statusErrorFrom } from '../status/from-error';
import { corruptWatchEventStatus } from '../status/corrupt-objects';
import { isCorruptObjectError } from '../../storage/objects/codec';
import { selectionOf, namespaceScopeOf } from './list';
import { servedEvent } from './served-selection';
import { watchEncoder, type WatchEncoder } from '../responsewriters/respond';
import { apiVersionOf, groupResourceOf, toServedVersion } from '../registry/store/scope';
import {
  addWarnings,
  deprecationWarnings,
  endpointOf,
  listQueryOf,
  type HandlerScope,
  type ResourceHandler,
} from './scope';
import { EVERYTHING, type ObjectWatchEvent, type Predicate } from '../../storage/objects/types';
import { WatchWriter, type WatchSink } from './watch-writer';
import { watchEventRecorder } from '../metrics/with-request-metrics';
import { openWebSocketWatch } from './watch-websocket';
import { isWebSocketRequest } from '../subresources/log-websocket';

import type { KubeObject } from '../../api/objects';
/** Bytes handed to a watch's connection and not yet taken by its client before the handler stops reading the watch. */
export const WATCH_BUFFER_BYTES = 1024 * 1024;

/** How long a watch's client has to take the end of its stream before it is disconnected. */
export const WATCH_END_LINGER_MS = 5_000;

/** `--min-request-timeout`'s default, in seconds. */
export const DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS = 1800;

/**
 * How long a watch runs when its client gives no `timeoutSeconds` (or 0), as the reference
 * decides it: random in [min, 2·min) so that watchers do not all reconnect together, or no end
 * at all when `--min-request-timeout` is 0.
 */
export function defaultWatchTimeoutSeconds(
  minRequestTimeoutSeconds: number = DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS,
): number | undefined {
  if (minRequestTimeoutSeconds <= 0) return undefined;
  return minRequestTimeoutSeconds * (1 + Math.random());
}

/** Settles when the last chunk has been handed to the socket, or the connection is gone. */
function streamFinished(res: Response): Promise<void> {
  return new Promise((resolve) => {
    res.once('finish', () => resolve());
    res.once('close', () => resolve());
  });
}

/**
 * The 200 of a watch over HTTP, its headers sent at once, and the writer of its events. A HEAD
 * (a custom resource's handler serves it as GET) has no body: its answer is the headers, ended at
 * once, and no writer. The reference holds those headers open until the watch would end, writing
 * nothing; the writer, which frames chunks onto the socket itself, would put them where the
 * client reads its next answer.
 */
function openEventStream(res: Response, contentType: string): WatchSink | undefined {
  res.status(200);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  if (res.req.method === 'HEAD') {
    res.end();
    return undefined;
  }
  // An HTTP/1.0 client reads no chunks: Node then writes the events as they are, and the
  // connection's close ends them, as the reference's answer does.
  if (res.req.httpVersion !== '1.0') res.setHeader('Transfer-Encoding', 'chunked');
  res.flushHeaders();
  return new WatchWriter(res, WATCH_BUFFER_BYTES);
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

/**
 * Encoded forms of the events in flight, by sharing key: every watcher that shows an event alike
 * takes the same bytes. Held only as long as the event is (a watcher's queue, a handler).
 */
const sharedEncodings = new WeakMap<ObjectWatchEvent, Map<string, Buffer>>();

function sharedEncoding(event: ObjectWatchEvent, shareKey: string | undefined): Buffer | undefined {
  return shareKey === undefined ? undefined : sharedEncodings.get(event)?.get(shareKey);
}

function share(event: ObjectWatchEvent, shareKey: string | undefined, bytes: Buffer): Buffer {
  if (shareKey === undefined) return bytes;
  let forms = sharedEncodings.get(event);
  if (forms === undefined) {
    forms = new Map();
    sharedEncodings.set(event, forms);
  }
  forms.set(shareKey, bytes);
  return bytes;
}

/** The event's bytes; a promise of them only when the type's conversion answers later (a webhook). */
function encodeEvent(
  scope: HandlerScope,
  encoder: WatchEncoder,
  shareKey: string | undefined,
  event: ObjectWatchEvent,
): Buffer | Promise<Buffer> {
  if (event.type === 'ERROR') {
    const status = isCorruptObjectError(event.error)
      ? corruptWatchEventStatus(event.error.details, scope.context.corruptObjects)
      : statusErrorFrom(event.error, { resource: groupResourceOf(scope.type) });
    return encoder.encode('ERROR', status.status);
  }
  if (event.type === 'BOOKMARK') {
    return encoder.encode('BOOKMARK', { ...event.object, apiVersion: apiVersionOf(scope), kind: scope.type.kind });
  }
  // Looked up before converting: a fan-out converts and encodes each event once, not once a watcher.
  const bytes = sharedEncoding(event, shareKey);
  if (bytes !== undefined) return bytes;
  const served = toServedVersion(scope, event.object);
  // Converted later (per watcher, by a webhook): encoded for this watcher alone, never shared.
  if (served instanceof Promise) return served.then((object) => encoder.encode(event.type, object));
  return share(event, shareKey, encoder.encode(event.type, served));
}

export function watchHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    addWarnings(req, deprecationWarnings(scope));
    const query = listQueryOf(scope, queryOf(req));
    // Negotiated before the watch starts, so that a 406 is a plain answer.
    const encoder = watchEncoder({ req, res, settings: scope.context.representations, endpoint: endpointOf(scope) });
    // The served version and resource decide the bytes as much as the encoding does.
    const shareKey =
      encoder.shareKey === undefined
        ? undefined
        : `${apiVersionOf(scope)}/${groupResourceOf(scope.type).resource};${encoder.shareKey}`;
    const selection = selectionOf(scope, query);
    const watch = await scope.storage.watch(namespaceScopeOf(scope, info.namespace), {
      resourceVersion: query.resourceVersion,
      predicate: withName(selection.predicate, info.name),
      allowWatchBookmarks: query.allowWatchBookmarks,
      sendInitialEvents: query.sendInitialEvents,
      // The reference treats `timeoutSeconds=0` as not given.
      timeoutSeconds: query.timeoutSeconds || defaultWatchTimeoutSeconds(scope.context.minRequestTimeoutSeconds),
    });
    const stop = (): void => watch.stop();
    // The reference hands a WebSocket watch to its handshake after the watch was set up.
    const writer = isWebSocketRequest(req)
      ? await openWebSocketWatch({
          req,
          socket: req.socket,
          framing: encoder.framing,
          maxBufferedBytes: WATCH_BUFFER_BYTES,
        })
      : openEventStream(res, encoder.contentType);
    if (writer === undefined) {
      stop();
      return;
    }
    res.on('close', stop);
    // Shutdown stops the watch like its timeout does: the loop below ends and so does the response.
    const registration = openWatchesOf(req)?.add({ end: stop, finished: streamFinished(res) });
    let watchEnded = false;
    void watch.done.then(() => {
      watchEnded = true;
      writer.interrupt();
    });
    const events = watch[Symbol.asyncIterator]();
    const recordEvent = watchEventRecorder(res);
    try {
      for (;;) {
        // Once the watch has ended, what it still yields is bounded: it goes out without waiting.
        if (writer.full && !watchEnded) await writer.whenRoom();
        if (!writer.open) break;
        const next = await events.next();
        if (next.done) break;
        const event = next.value;
        let bytes: Buffer;
        if (selection.servedFields !== undefined && event.type !== 'BOOKMARK' && event.type !== 'ERROR') {
          // Judged on the objects as served: converted for this watcher alone.
          const served = await servedEvent(event, (object) => toServedVersion(scope, object), selection.servedFields);
          if (served === undefined) continue;
          bytes = encoder.encode(served.type, served.object);
        } else {
          const encoded = encodeEvent(scope, encoder, shareKey, event);
          bytes = encoded instanceof Promise ? await encoded : encoded;
        }
        writer.send(bytes);
        recordEvent(bytes.length);
        if (event.type === 'ERROR') break;
      }
    } finally {
      registration?.remove();
      res.off('close', stop);
      watch.stop();
      writer.end(WATCH_END_LINGER_MS);
    }
  };
}
