/**
 * Reads a `types_swagger_doc_generated.go` file of the API's Go modules: for every type, the map
 * of its descriptions (key `""` the type's own, other keys its JSON field names).
 *
 *   var map_DeploymentSpec = map[string]string{
 *       "":         "DeploymentSpec is ...",
 *       "replicas": "Number of desired pods. ...",
 *   }
 *   func (DeploymentSpec) SwaggerDoc() map[string]string {
 *       return map_DeploymentSpec
 *   }
 */

const MAP_BLOCK = /var (map_\w+) = map\[string\]string\{([\s\S]*?)\n\}/g;
const ENTRY = /"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;
const SWAGGER_DOC_METHOD = /func \((\w+)\) SwaggerDoc\(\) map\[string\]string \{\s*return (map_\w+)/g;

/** A Go interpreted string literal's content; Go's escapes are JSON's but for `\'`, `\a`, `\x..`. */
function goString(literal: string): string {
  const jsonCompatible = literal
    .replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1')
    .replace(/\\'/g, "'")
    .replace(/\\a/g, '\\u0007')
    .replace(/\\v/g, '\\u000b');
  return JSON.parse(`"${jsonCompatible}"`) as string;
}

export function swaggerDocsOf(source: string): Map<string, Record<string, string>> {
  const maps = new Map<string, Record<string, string>>();
  for (const [, variable, body] of source.matchAll(MAP_BLOCK)) {
    const fields: Record<string, string> = {};
    for (const [, key, value] of body.matchAll(ENTRY)) fields[goString(key)] = goString(value);
    maps.set(variable, fields);
  }
  const byType = new Map<string, Record<string, string>>();
  for (const [, type, variable] of source.matchAll(SWAGGER_DOC_METHOD)) {
    const fields = maps.get(variable);
    if (fields !== undefined) byType.set(type, fields);
  }
  return byType;
}
