/**
 * The TCP ports a pod's processes listen on, read from Linux's /proc: the sockets each process
 * (and each of its descendants) holds open, and which of them listen, with their address, in
 * /proc/net/tcp and tcp6. A pod's processes share the host's network here (process-runtime.ts),
 * so a port of the pod is reached on this host at the address its process bound, loopback for a
 * wildcard: what a kubelet's port-forward reaches inside a pod's network namespace at localhost.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** /proc/net/tcp's state of a listening socket (TCP_LISTEN). */
const LISTEN = '0A';

/** A process's files and children, or nothing when it has gone meanwhile. */
function readOrNothing<T>(read: () => T, nothing: T): T {
  try {
    return read();
  } catch {
    return nothing;
  }
}

/** `pid` and every process below it. */
function withDescendants(pid: number): number[] {
  const tasks = readOrNothing(() => readdirSync(`/proc/${pid}/task`), []);
  const children = tasks.flatMap((task) =>
    readOrNothing(() => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8'), '')
      .split(' ')
      .filter((child) => child !== '')
      .map(Number),
  );
  return [pid, ...children.flatMap(withDescendants)];
}

/** The inodes of the sockets `pid` holds open. */
function socketInodes(pid: number): string[] {
  return readOrNothing(() => readdirSync(`/proc/${pid}/fd`), []).flatMap((fd) => {
    const target = readOrNothing(() => readlinkSync(`/proc/${pid}/fd/${fd}`), '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    return match === null ? [] : [match[1]];
  });
}

/** Bytes of a /proc/net address: the kernel prints each 32-bit word in host (little-endian) order. */
function addressBytes(hex: string): number[] {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8)
    for (let byte = 6; byte >= 0; byte -= 2) bytes.push(parseInt(hex.slice(word + byte, word + byte + 2), 16));
  return bytes;
}

/** Where a client on this host reaches a socket bound to the address `hex` of /proc/net/tcp or tcp6. */
function reachableAt(hex: string): string {
  const bytes = addressBytes(hex);
  if (bytes.length === 4) return bytes.every((byte) => byte === 0) ? '127.0.0.1' : bytes.join('.');
  if (bytes.every((byte) => byte === 0)) return '::1';
  const mapped = bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let at = 0; at < 16; at += 2) groups.push(((bytes[at] << 8) | bytes[at + 1]).toString(16));
  return groups.join(':');
}

/** Listening sockets by inode: port and the address that reaches it. */
function listeningSockets(): Map<string, { port: number; address: string }> {
  const sockets = new Map<string, { port: number; address: string }>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6'])
    for (const line of readOrNothing(() => readFileSync(table, 'utf8'), '')
      .split('\n')
      .slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== LISTEN) continue;
      const [address, port] = fields[1].split(':');
      sockets.set(fields[9], { port: parseInt(port, 16), address: reachableAt(address) });
    }
  return sockets;
}

/** Each TCP port the processes `pids` or their descendants listen on, with the address that reaches it. */
export function listeningPorts(pids: readonly number[]): Map<number, string> {
  const sockets = listeningSockets();
  const ports = new Map<number, string>();
  for (const inode of pids.flatMap(withDescendants).flatMap(socketInodes)) {
    const socket = sockets.get(inode);
    if (socket !== undefined && !ports.has(socket.port)) ports.set(socket.port, socket.address);
  }
  return new Map([...ports].sort(([a], [b]) => a - b));
}
