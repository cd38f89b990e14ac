/** `host:port` texts as Go's net package reads and writes them. */

/** Go's net.SplitHostPort accepts it: `host:port` or `[host]:port`, one colon outside brackets. */
export function isHostPortPair(pair: string): boolean {
  if (pair.startsWith('[')) return /^\[[^[\]]*\]:[^[\]]*$/.test(pair);
  const colon = pair.lastIndexOf(':');
  if (colon < 0) return false;
  const host = pair.slice(0, colon);
  return !/[:[\]]/.test(host) && !/[[\]]/.test(pair.slice(colon + 1));
}

/** Go's net.JoinHostPort: a host with a colon (an IPv6 address) is bracketed. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
