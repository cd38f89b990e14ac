/**
 * A response body of many back-pressured chunks to a client that reads slowly, over a real
 * HTTP connection: every chunk arrives, and waiting for the socket leaves no listener behind
 * (one per chunk would grow without bound and warn `MaxListenersExceededWarning`).
 */
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResponseBody } from '../../../server/responsewriters/response-body';

const CHUNKS = 200;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

describe('ResponseBody', () => {
  let server: Server;
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('waits for a slow client chunk by chunk without leaving listeners behind', async () => {
    const listenerCounts: number[] = [];
    let written: Promise<void> | undefined;
    server = createServer((_req, res: ServerResponse) => {
      written = (async () => {
        const body = new ResponseBody(res, { code: 200, contentType: 'application/octet-stream', compress: false });
        for (let i = 0; i < CHUNKS; i++) {
          await body.write(CHUNK);
          listenerCounts.push(res.listenerCount('close') + res.listenerCount('drain') + res.listenerCount('error'));
        }
        await body.end();
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;

    const received = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
        let bytes = 0;
        // A slow reader: a pause after every piece, so the server's writes keep meeting a full socket.
        res.on('data', (piece: Buffer) => {
          bytes += piece.length;
          res.pause();
          setTimeout(() => res.resume(), 1);
        });
        res.on('end', () => resolve(bytes));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    await written;

    expect(received).toBe(CHUNKS * CHUNK.length);
    // The body waited on the socket many times, and the listeners stayed as few as at the start.
    expect(listenerCounts.length).toBe(CHUNKS);
    expect(Math.max(...listenerCounts)).toBe(listenerCounts[0]);
  });
});
