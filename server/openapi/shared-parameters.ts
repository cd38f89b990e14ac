/**
 * The shared parameters of a Swagger 2.0 document, as the reference's v2 builder
 * (kube-openapi's) writes them: every parameter of a path or an operation, apart from those it
 * keeps inline, moves into the document's `parameters` under `<name>-<hash of its JSON>` and is
 * named where it stood by `$ref`. The name depends only on the parameter's JSON, so a client
 * that caches documents, or an aggregator merging several, finds the same parameter under one name.
 */
import { goJsonStringify } from '../json/go-json';

/** A v2 parameter as a document holds it: inline, or a `$ref` to a shared one. */
interface V2Parameter {
  readonly name?: string;
  readonly in?: string;
  readonly schema?: { readonly $ref?: string };
  readonly $ref?: string;
}

/** A path item: operations by method, and the path's own `parameters`. */
type V2PathItem = Readonly<Record<string, unknown>>;

/** The members of a path item the builder walks, in its order: the operations, then the path's own list. */
const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

/** What the reference keeps inline, each for the reason its builder gives. */
function keptInline(parameter: V2Parameter): boolean {
  // The name's description names the kind, so it is never the same twice.
  if ((parameter.in === 'query' || parameter.in === 'path') && parameter.name === 'name') return true;
  // kubectl before 1.27 (fieldValidation) and 1.26 (dryRun) looks for these on the operation itself.
  if (parameter.in === 'query' && (parameter.name === 'fieldValidation' || parameter.name === 'dryRun')) return true;
  // A body of the kind's own type; the generic ones (DeleteOptions, Patch) are shared.
  const bodyRef = parameter.schema?.$ref;
  return (
    parameter.in === 'body' &&
    parameter.name === 'body' &&
    bodyRef !== undefined &&
    !bodyRef.startsWith('#/definitions/io.k8s.apimachinery')
  );
}

/** The parameter lists of a path item, in the builder's order. */
function parameterLists(item: V2PathItem): V2Parameter[][] {
  const lists: V2Parameter[][] = [];
  for (const method of OPERATION_METHODS) {
    const operation = item[method] as { parameters?: V2Parameter[] } | undefined;
    if (operation?.parameters !== undefined) lists.push(operation.parameters);
  }
  const own = item.parameters as V2Parameter[] | undefined;
  if (own !== undefined) lists.push(own);
  return lists;
}

const FNV_OFFSET_BASIS = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;

/**
 * The reference's suffix: the first 6 bytes of the 64-bit FNV-1 hash (multiply, then xor) of
 * the parameter's JSON, big-endian, in URL-safe base64: 8 characters.
 */
function parameterHash(json: string): string {
  let hash = FNV_OFFSET_BASIS;
  for (const byte of Buffer.from(json, 'utf8')) hash = BigInt.asUintN(64, hash * FNV_PRIME) ^ BigInt(byte);
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(hash);
  return bytes.subarray(0, 6).toString('base64url');
}

/**
 * `paths` with each shareable parameter replaced by a `$ref`, and the shared parameters by name
 * (sorted, as Go writes a map). `paths` is a fresh document's and is changed in place.
 */
export function shareParameters(paths: Record<string, V2PathItem>): Record<string, V2Parameter> {
  // Go's encoding/json writes the JSON the reference hashes; goJsonStringify writes the same.
  const byJson = new Map<string, V2Parameter>();
  for (const item of Object.values(paths)) {
    for (const list of parameterLists(item)) {
      for (const parameter of list) {
        if (parameter.$ref !== undefined || keptInline(parameter)) continue;
        const json = goJsonStringify(parameter);
        if (!byJson.has(json)) byJson.set(json, parameter);
      }
    }
  }
  const shared: Record<string, V2Parameter> = {};
  const nameOf = new Map<string, string>();
  for (const json of [...byJson.keys()].sort()) {
    const parameter = byJson.get(json)!;
    const base = parameter.name || 'param';
    // A conflict of hashes is unlikely; the reference numbers the later ones then.
    let name = `${base}-${parameterHash(json)}`;
    for (let attempt = 1; name in shared; attempt++) name = `${parameter.name}-${attempt}`;
    shared[name] = parameter;
    nameOf.set(json, name);
  }
  for (const item of Object.values(paths)) {
    for (const list of parameterLists(item)) {
      list.forEach((parameter, index) => {
        const name = parameter.$ref === undefined ? nameOf.get(goJsonStringify(parameter)) : undefined;
        if (name !== undefined) list[index] = { $ref: `#/parameters/${name}` };
      });
    }
  }
  return Object.fromEntries(
    Object.keys(shared)
      .sort()
      .map((name) => [name, shared[name]]),
  );
}
