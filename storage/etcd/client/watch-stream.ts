/**
 * etcd's Watch call: one bidirectional stream on which watches are created (and their events,
 * progress notifications and cancellations come back), decoded.
 */
import type { DuplexStream, StreamHandlers } from './channel';
import type { EtcdCallError } from './call-error';
import { decodeWatchResponse, encodeWatchCreateRequest, type WatchCreateRequest, type WatchResponse } from './messages';

export interface WatchStreamHandlers {
  onResponse(response: WatchResponse): void;
  /** The stream ended (the member went away, or etcd closed it); not called after `close()`. */
  onEnd(error: EtcdCallError | Error | undefined): void;
}

export class WatchStream {
  private constructor(private readonly stream: DuplexStream) {}

  static async open(
    openDuplex: (handlers: StreamHandlers) => Promise<DuplexStream>,
    handlers: WatchStreamHandlers,
  ): Promise<WatchStream> {
    const stream = await openDuplex({
      onMessage: (message) => {
        let response: WatchResponse;
        try {
          response = decodeWatchResponse(message);
        } catch (error) {
          stream.close();
          handlers.onEnd(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        handlers.onResponse(response);
      },
      onEnd: (error) => handlers.onEnd(error),
    });
    return new WatchStream(stream);
  }

  /** The member this stream is on. */
  get endpoint(): string {
    return this.stream.endpoint;
  }

  create(request: WatchCreateRequest): void {
    this.stream.send(encodeWatchCreateRequest(request));
  }

  close(): void {
    this.stream.close();
  }
}
