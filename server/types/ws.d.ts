/**
 * The part of the `ws` package's API this server and its tests use (the package ships no types
 * and `@types/ws` is not installed): a server that takes over an upgrade request's socket, the
 * WebSocket it yields, and a client.
 */
declare module 'ws' {
  import type { IncomingMessage } from 'node:http';
  import type { Duplex } from 'node:stream';
  import { EventEmitter } from 'node:events';

  class WebSocket extends EventEmitter {
    /** A client (the tests' own), with TLS options as `https.request` takes them. */
    constructor(
      address: string,
      protocols?: string | string[],
      options?: { ca?: Buffer; cert?: Buffer; key?: Buffer; headers?: Record<string, string> },
    );
    readonly protocol: string;
    readonly readyState: number;
    readonly bufferedAmount: number;
    readonly OPEN: number;
    readonly CLOSED: number;
    send(data: Buffer | string, options: { binary?: boolean }, callback?: (error?: Error) => void): void;
    send(data: Buffer | string, callback?: (error?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    pause(): void;
    resume(): void;
    on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: 'upgrade', listener: (response: IncomingMessage) => void): this;
    on(event: 'unexpected-response', listener: (request: unknown, response: IncomingMessage) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  interface ServerOptions {
    noServer: true;
    perMessageDeflate?: boolean;
    maxPayload?: number;
  }

  class WebSocketServer extends EventEmitter {
    constructor(options: ServerOptions);
    /** Before the handshake's answer is written: `headers` may be added to. */
    on(event: 'headers', listener: (headers: string[], request: IncomingMessage) => void): this;
    handleUpgrade(
      request: IncomingMessage,
      socket: Duplex,
      head: Buffer,
      callback: (socket: WebSocket, request: IncomingMessage) => void,
    ): void;
  }

  export { WebSocket, WebSocketServer };
  export default WebSocket;
}
