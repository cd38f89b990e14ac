/**
 * OpenAPI of extension API servers (the aggregator's remote APIServices), served next to this
 * server's own: each remote group-version's v3 document at `/openapi/v3/apis/<group>/<version>`
 * and in the `/openapi/v3` index, and its paths, definitions and shared parameters merged into `/openapi/v2`
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
  /** The shared parameters the paths name by `$ref` (a kube-openapi server shares most). */
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** What the aggregator tells the OpenAPI handlers; `revision` changes whenever the rest does. */
export interface ExtensionOpenAPI {
  revision(): number;
  /** By `apis/<group>/<version>`. */
  v3Documents(): ReadonlyMap<string, ExtensionV3Document>;
  v2Parts(): readonly ExtensionV2Part[];
}

/**
 * `document` (a v2 document as JSON) with the extensions' paths, definitions and shared
 * parameters added. A shared parameter's name carries a hash of its content, so one name
 * already present is the same parameter.
 */
export function mergeV2(
  document: {
    paths?: Record<string, unknown>;
    definitions?: Record<string, unknown>;
    parameters?: Record<string, unknown>;
  },
  parts: readonly ExtensionV2Part[],
): object {
  if (parts.length === 0) return document;
  const paths = { ...document.paths };
  const definitions = { ...document.definitions };
  const parameters = { ...document.parameters };
  for (const part of parts) {
    for (const [path, item] of Object.entries(part.paths)) paths[path] ??= item;
    for (const [name, definition] of Object.entries(part.definitions)) definitions[name] ??= definition;
    for (const [name, parameter] of Object.entries(part.parameters)) parameters[name] ??= parameter;
  }
  // By name, as the reference writes the map.
  const sortedParameters = Object.fromEntries(
    Object.keys(parameters)
      .sort()
      .map((name) => [name, parameters[name]]),
  );
  return { ...document, paths, definitions, parameters: sortedParameters };
}
