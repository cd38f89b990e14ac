/**
 * The patched object a 422 on a patch quotes (`patch: Invalid value: "..."`), with what differs
 * between servers and runs (uids, times, resource versions) replaced by placeholders.
 */
export function normalizedQuote(message: string): string | undefined {
  const quoted = /patch: Invalid value: ("(?:[^"\\]|\\.)*")/.exec(message)?.[1];
  if (quoted === undefined) return undefined;
  return quoted
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>')
    .replace(/(resourceVersion\\":\\")\d+/g, '$1<rv>');
}
