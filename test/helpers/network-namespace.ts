/**
 * A network namespace of the test's own (Linux, as root), whose loopback also holds a global
 * unicast address of the documentation range (192.0.2.1, TEST-NET-1). The reference server
 * proxies to no loopback address (pods/proxy, nodes/proxy) and keeps none in Endpoints; inside
 * this namespace a server and its backends reach each other at that address, and no packet
 * leaves the namespace. Processes run inside through `nsenter`; the test's own process, outside,
 * reaches a port inside, or serves one inside, through a Unix socket (those are not bound to a
 * network namespace) and a small relay.
 *
 *   const ns = await createNetworkNamespace(dir);
 *   spawn(...ns.inside(['kwok', ...]));           // a process inside
 *   const port = await ns.reachInside(8080);      // 127.0.0.1:port outside -> 127.0.0.1:8080 inside
 *   const unserve = await ns.serveInside(80, server); // 192.0.2.1:80 inside -> an http.Server of the test
 *   await ns.addAddress('10.0.0.50');             // another address on the loopback inside (a cluster IP)
 *   await ns.serveInside(443, other, '10.0.0.50');
 *   await unserve();                              // 192.0.2.1:80 inside refuses connections again
 *   await ns.stop();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const NAMESPACE_ADDRESS = '192.0.2.1';

/** Relays each connection on the listening side to the other: `tcp <host> <port> <socket>` or `unix <socket> <host> <port>`. */
const RELAY = `
const net = require('node:net');
const [mode, a, b, c] = process.argv.slice(1);
const pipe = (client, target) => {
  client.pipe(target).pipe(client);
  client.on('error', () => target.destroy());
  target.on('error', () => client.destroy());
  client.on('close', () => target.destroy());
  target.on('close', () => client.destroy());
};
const server = mode === 'tcp'
  ? net.createServer((s) => pipe(s, net.connect(c))).listen(Number(b), a)
  : net.createServer((s) => pipe(s, net.connect(Number(c), b))).listen(a);
server.on('listening', () => console.log('relay ready'));
`;

export interface NetworkNamespace {
  /** Global unicast, on the namespace's loopback. */
  readonly address: string;
  /** The command line that runs `argv` inside. */
  inside(argv: readonly string[]): [string, string[]];
  /** A port on 127.0.0.1 outside whose connections reach `port` on 127.0.0.1 inside. */
  reachInside(port: number): Promise<number>;
  /** Adds `address` to the loopback inside: what kube-proxy makes of a cluster IP on a node. */
  addAddress(address: string): Promise<void>;
  /**
   * Connections to `address:port` inside (`address` by default, or one added) reach `server`
   * (listening on nothing yet) in the test's process. Resolves to what stops that: the port inside
   * is closed (connections are refused) and `server` closed.
   */
  serveInside(port: number, server: Server, at?: string): Promise<() => Promise<void>>;
  stop(): Promise<void>;
}

function waitForLine(child: ChildProcess, line: string, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(line)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}: ${output}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> | undefined {
  if (child.exitCode !== null || child.signalCode !== null) return undefined;
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** `dir` holds the relays' sockets. */
export async function createNetworkNamespace(dir: string): Promise<NetworkNamespace> {
  // The address is set up by the shell already inside the new namespace: nothing touches the host's.
  const holder = spawn(
    'unshare',
    [
      '--net',
      '--',
      'sh',
      '-c',
      `ip link set lo up && ip addr add ${NAMESPACE_ADDRESS}/32 dev lo && echo namespace ready && exec sleep 86400`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await waitForLine(holder, 'namespace ready', 'unshare');
  const pid = String(holder.pid);
  const children: ChildProcess[] = [holder];
  const servers: Server[] = [];
  let relays = 0;
  const inside = (argv: readonly string[]): [string, string[]] => ['nsenter', ['-t', pid, '-n', '--', ...argv]];
  const relay = async (args: readonly string[]): Promise<ChildProcess> => {
    const [command, commandArgs] = inside([process.execPath, '-e', RELAY, ...args]);
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    await waitForLine(child, 'relay ready', 'relay');
    return child;
  };
  return {
    address: NAMESPACE_ADDRESS,
    inside,
    async reachInside(port) {
      const socket = join(dir, `reach-${relays++}.sock`);
      await relay(['unix', socket, '127.0.0.1', String(port)]);
      const outside = createServer((client) => {
        const target = connect(socket);
        client.pipe(target).pipe(client);
        client.on('error', () => target.destroy());
        target.on('error', () => client.destroy());
        client.on('close', () => target.destroy());
        target.on('close', () => client.destroy());
      });
      servers.push(outside);
      await new Promise<void>((resolve) => outside.listen(0, '127.0.0.1', resolve));
      return (outside.address() as AddressInfo).port;
    },
    async addAddress(address) {
      const [command, args] = inside(['ip', 'addr', 'add', `${address}/32`, 'dev', 'lo']);
      const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      if (code !== 0) throw new Error(`ip addr add ${address} failed: ${stderr}`);
    },
    async serveInside(port, server, at = NAMESPACE_ADDRESS) {
      const socket = join(dir, `serve-${relays++}.sock`);
      await new Promise<void>((resolve) => server.listen(socket, resolve));
      servers.push(server);
      const child = await relay(['tcp', at, String(port), socket]);
      return async () => {
        await stopChild(child);
        await new Promise((resolve) => server.close(resolve));
      };
    },
    async stop() {
      for (const server of servers) server.close();
      await Promise.all(children.map(stopChild));
    },
  };
}
