/** Loopback ports for the processes tests start (etcd members, haproxy). */
import { createServer } from 'node:net';

/** A port the kernel just handed out on 127.0.0.1; free again by the time a process binds it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
