/**
 * The watch streams a server has open, so that shutdown can end each one properly (the last
 * chunk of its chunked response) instead of cutting its connection: a client that sees a
 * normal end reconnects, through the balancer, to another replica from its last resource
 * version. The server creates one registry and attaches it to its express application; the
 * watch handler finds it from the request.
 *
 *   const watches = new OpenWatches();
 *   attachOpenWatches(app, watches);
 *   // in a handler:  const registration = openWatchesOf(req)?.add({ end: () => watch.stop(), finished });
 *   // at shutdown:   await watches.endAll({ timeoutMs: 5_000 });
 */
import type { Application, Request } from 'express';

export interface OpenWatch {
  /** Ends the stream from the server's side; the handler then writes the final chunk. */
  end(): void;
  /** Settles once the response is finished or its connection is gone. */
  readonly finished: Promise<void>;
}

export class OpenWatches {
  private readonly open = new Set<OpenWatch>();
  private ending = false;

  get size(): number {
    return this.open.size;
  }

  /** Registers a stream; one that arrives while the server is already ending streams ends at once. */
  add(watch: OpenWatch): { remove(): void } {
    if (this.ending) {
      watch.end();
      return { remove: () => undefined };
    }
    this.open.add(watch);
    return { remove: () => void this.open.delete(watch) };
  }

  /**
   * Ends every open stream and resolves once their responses are finished, or after
   * `timeoutMs` for clients too slow to take the last bytes.
   */
  async endAll(options: { readonly timeoutMs: number }): Promise<void> {
    this.ending = true;
    const watches = [...this.open];
    for (const watch of watches) watch.end();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.timeoutMs);
    });
    await Promise.race([Promise.all(watches.map((watch) => watch.finished)), timeout]);
    clearTimeout(timer);
  }
}

const registries = new WeakMap<Application, OpenWatches>();

export function attachOpenWatches(app: Application, watches: OpenWatches): void {
  registries.set(app, watches);
}

/** The registry of the server that received this request; undefined on an app without one. */
export function openWatchesOf(req: Request): OpenWatches | undefined {
  return registries.get(req.app);
}
