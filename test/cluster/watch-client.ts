/**
 * Raw HTTPS watch clients for the cluster tests: one stream read line by line, and a watcher
 * that, like a reflector, reconnects from the last resource version it saw whenever a stream
 * ends, recording every event and how each stream ended.
 *
 *   const stream = openWatchStream({ url, credentials, path: '/api/v1/namespaces/a/configmaps?watch=1', onEvent });
 *   const ending = await stream.ended;          // { how: 'end' } for a normal end
 *
 *   const watcher = startReconnectingWatcher({ url, credentials, path: '/api/v1/namespaces/a/configmaps', resourceVersion: '12' });
 *   ...
 *   await watcher.stop();                        // watcher.events, watcher.streams
 *
 * With `relistOnExpiry`, a watcher answered 410 Gone (its version compacted or older than the
 * server's window) lists, as a reflector does, and watches on from the list's version.
 */
import { request as httpsRequest } from 'node:https';
import type { KubeconfigCredentials } from '../helpers/server';
import { requestOnce } from './cluster';

export interface WatchEvent {
  readonly type: string;
  readonly object: {
    metadata?: {
      name?: string;
      resourceVersion?: string;
      annotations?: Record<string, string>;
      deletionTimestamp?: string;
    };
    code?: number;
    reason?: string;
    message?: string;
  };
}

/** How a stream ended: `end` is a proper end of the chunked response. */
export type StreamEnding =
  | { readonly how: 'end'; readonly status: number }
  | { readonly how: 'aborted' | 'error'; readonly status: number; readonly error: string };

export interface WatchStream {
  readonly ended: Promise<StreamEnding>;
  /** Resolves once the response headers arrived (with the status), or with 0 when the request failed first. */
  readonly responded: Promise<number>;
  close(): void;
}

export function openWatchStream(options: {
  readonly url: string;
  readonly credentials: KubeconfigCredentials;
  readonly path: string;
  readonly onEvent: (event: WatchEvent) => void;
}): WatchStream {
  const { credentials } = options;
  let respond: (status: number) => void = () => undefined;
  const responded = new Promise<number>((resolve) => (respond = resolve));
  // A fresh connection per stream (agent: false), so the balancer picks a replica for each.
  const req = httpsRequest(new URL(options.path, options.url), {
    ca: credentials.ca,
    cert: credentials.cert,
    key: credentials.key,
    agent: false,
  });
  const ended = new Promise<StreamEnding>((resolve) => {
    let status = 0;
    let settled = false;
    const settle = (ending: StreamEnding) => {
      if (settled) return;
      settled = true;
      respond(status);
      resolve(ending);
    };
    req.on('error', (error) => settle({ how: 'error', status, error: error.message }));
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      respond(status);
      let buffered = '';
      res.setEncoding('utf8');
      if (status !== 200) {
        // An answer instead of a stream (429 before the caches are ready, 503, ...): a failed connection.
        res.on('data', (chunk: string) => (buffered += chunk));
        res.on('end', () => settle({ how: 'error', status, error: buffered }));
        res.on('close', () => settle({ how: 'error', status, error: buffered }));
        return;
      }
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line.trim() !== '') options.onEvent(JSON.parse(line) as WatchEvent);
          newline = buffered.indexOf('\n');
        }
      });
      res.on('aborted', () => settle({ how: 'aborted', status, error: 'response aborted' }));
      res.on('error', (error) => settle({ how: 'error', status, error: error.message }));
      res.on('end', () =>
        settle(res.complete ? { how: 'end', status } : { how: 'aborted', status, error: 'incomplete response' }),
      );
      res.on('close', () => settle({ how: 'aborted', status, error: 'closed before the end' }));
    });
  });
  req.end();
  return { ended, responded, close: () => req.destroy() };
}

export interface ObservedEvent {
  readonly type: string;
  readonly name: string;
  readonly resourceVersion: string;
}

/** One stream of a reconnecting watcher: from which version, how many events, how it ended. */
export interface StreamRecord {
  readonly fromResourceVersion: string;
  /** Milliseconds since the watcher started. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly events: number;
  readonly ending: StreamEnding;
}

/** A list after a 410: what the watcher had seen then, and the version it watched on from. */
export interface RelistRecord {
  /** How many events the watcher had recorded before the list. */
  readonly afterEvents: number;
  /** The version the watch was refused from. */
  readonly expiredResourceVersion: string;
  /** The list's version. */
  readonly resourceVersion: string;
  /** Milliseconds since the watcher started. */
  readonly at: number;
}

export interface ReconnectingWatcher {
  /** Events in arrival order, bookmarks left out. */
  readonly events: readonly ObservedEvent[];
  /** Every stream, in order (the last one is cut by `stop`). */
  readonly streams: readonly StreamRecord[];
  /** ERROR events (a 410 on reconnect among them, unless `relistOnExpiry`), which end the watcher. */
  readonly errors: readonly WatchEvent['object'][];
  /** The lists after a 410, with `relistOnExpiry`. */
  readonly relists: readonly RelistRecord[];
  /** The last resource version seen (event or bookmark). */
  readonly resourceVersion: string;
  stop(): Promise<void>;
}

const RECONNECT_DELAY_MS = 100;
const GONE = 410;

/**
 * Watches `path` from `resourceVersion`, reconnecting from the last seen version after every
 * stream end or failed connection (at most `maxStreams` streams), until stopped or an ERROR
 * event arrives (a 410 one relists instead, with `relistOnExpiry`).
 */
export function startReconnectingWatcher(options: {
  readonly url: string;
  readonly credentials: KubeconfigCredentials;
  readonly path: string;
  readonly resourceVersion: string;
  readonly maxStreams?: number;
  readonly relistOnExpiry?: boolean;
}): ReconnectingWatcher {
  const events: ObservedEvent[] = [];
  const streams: StreamRecord[] = [];
  const watcherStart = Date.now();
  const errors: WatchEvent['object'][] = [];
  const relists: RelistRecord[] = [];
  let expired = false;
  let resourceVersion = options.resourceVersion;
  let current: WatchStream | undefined;
  let stopped = false;
  const maxStreams = options.maxStreams ?? 200;

  const run = async (): Promise<void> => {
    while (!stopped && errors.length === 0 && streams.length < maxStreams) {
      const query = new URLSearchParams({ watch: '1', resourceVersion, allowWatchBookmarks: 'true' });
      const fromResourceVersion = resourceVersion;
      const startedAt = Date.now() - watcherStart;
      const eventsBefore = events.length;
      current = openWatchStream({
        url: options.url,
        credentials: options.credentials,
        path: `${options.path}?${query}`,
        onEvent: (event) => {
          if (event.type === 'ERROR') {
            if (options.relistOnExpiry && event.object.code === GONE) expired = true;
            else errors.push(event.object);
            return;
          }
          const rv = event.object.metadata?.resourceVersion ?? '';
          resourceVersion = rv;
          if (event.type !== 'BOOKMARK')
            events.push({ type: event.type, name: event.object.metadata?.name ?? '', resourceVersion: rv });
        },
      });
      const ending = await current.ended;
      streams.push({
        fromResourceVersion,
        startedAt,
        endedAt: Date.now() - watcherStart,
        events: events.length - eventsBefore,
        ending,
      });
      if (expired && !stopped) await relist();
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
    }
  };
  /** Lists (one attempt; a failed one is tried again after the next stream's end) and watches on from the list. */
  const relist = async (): Promise<void> => {
    const answer = await requestOnce(options.credentials, options.url, 'GET', options.path).catch(() => undefined);
    if (answer?.status !== 200) return;
    const listed = (JSON.parse(answer.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    relists.push({
      afterEvents: events.length,
      expiredResourceVersion: resourceVersion,
      resourceVersion: listed,
      at: Date.now() - watcherStart,
    });
    resourceVersion = listed;
    expired = false;
  };
  const running = run();

  return {
    events,
    streams,
    errors,
    relists,
    get resourceVersion() {
      return resourceVersion;
    },
    async stop() {
      stopped = true;
      current?.close();
      await running;
    },
  };
}
