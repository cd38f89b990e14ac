/**
 * OpenAPI of extension API servers (the aggregator's remote APIServices), served next to this
 * server's own: each remote group-version's v3 document at `/openapi/v3/apis/<group>/<version>`
 * and in the `/openapi/v3` index, and its paths and definitions merged into `/openapi/v2`
 * (where a definition name this server already has keeps this server's).
 */

export interface ExtensionV3Document {
  readonly body: Buffer;
  /** Uppercase hex SHA-512 of the body, as this server hashes its own documents. */
  readonly hash: string;
}

export interface ExtensionV2Part {
  readonly paths: Readonly<Record<string, unknown>>;
  readonly definitions: Readonly<Record<string, unknown>>;
}

/** What the aggregator tells the OpenAPI handlers; `revision` changes whenever the rest does. */
export interface ExtensionOpenAPI {
  revision(): number;
  /** By `apis/<group>/<version>`. */
  v3Documents(): ReadonlyMap<string, ExtensionV3Document>;
  v2Parts(): readonly ExtensionV2Part[];
}

/** `document` (a v2 document as JSON) with the extensions' paths and definitions added. */
export function mergeV2(
  document: { paths?: Record<string, unknown>; definitions?: Record<string, unknown> },
  parts: readonly ExtensionV2Part[],
): object {
  if (parts.length === 0) return document;
  const paths = { ...document.paths };
  const definitions = { ...document.definitions };
  for (const part of parts) {
    for (const [path, item] of Object.entries(part.paths)) paths[path] ??= item;
    for (const [name, definition] of Object.entries(part.definitions)) definitions[name] ??= definition;
  }
  return { ...document, paths, definitions };
}
