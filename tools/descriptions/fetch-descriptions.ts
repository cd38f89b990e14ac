/**
 * `node dist/tools/descriptions/fetch-descriptions.js <out.json>`: writes the field descriptions
 * of the built-in kinds, for `kubectl explain`, from the API's Go modules. The project may not
 * carry the reference's description texts, so they are taken at install time from the very
 * modules (and versions) tools/schemagen reads: the Go doc comments of their types and fields,
 * made into descriptions as the reference's OpenAPI generator makes them (go-doc-comments.ts).
 *
 * A module's zip comes from the local Go module cache when Go downloaded it already, else from
 * the Go module proxy (`GOPROXY`, default proxy.golang.org). Go itself is not needed.
 *
 * A field whose Go type is an enum gets the "Possible enum values:" section the reference's
 * OpenAPI generator appends (go-enums.ts), read from the same packages' Go sources.
 *
 * Output: `{ "<definition name>": { "": "<type description>", "<json field>": "<description>" } }`,
 * limited to the definitions of server/schema/generated/definitions.json.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';
import { docCommentsOf } from './go-doc-comments';
import { enumSectionLines, goEnums, type GoFile } from './go-enums';

const REPO = join(__dirname, '..', '..', '..');
const GO_MOD = join(REPO, 'tools', 'schemagen', 'go.mod');
const DEFINITIONS = join(REPO, 'server', 'schema', 'generated', 'definitions.json');
/** The modules whose packages define the served kinds. */
const MODULES = ['k8s.io/api', 'k8s.io/apimachinery', 'k8s.io/apiextensions-apiserver', 'k8s.io/kube-aggregator'];
const FETCH_TIMEOUT_MS = 20_000;
const TYPE_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.TypeMeta';

/** The version tools/schemagen pins for `module`. */
function pinnedVersion(goMod: string, module: string): string {
  const match = new RegExp(`^\\s*${module.replace(/\./g, '\\.')}\\s+(v\\S+)`, 'm').exec(goMod);
  if (!match) throw new Error(`${module} is not required by ${GO_MOD}`);
  return match[1];
}

function localZip(module: string, version: string): string | undefined {
  const modCache = process.env.GOMODCACHE || join(process.env.GOPATH || join(homedir(), 'go'), 'pkg', 'mod');
  const file = join(modCache, 'cache', 'download', module, '@v', `${version}.zip`);
  return existsSync(file) ? file : undefined;
}

/** The first proxy of GOPROXY that is a URL (not `direct` or `off`). */
function proxyBase(): string {
  const proxies = (process.env.GOPROXY || 'https://proxy.golang.org').split(/[,|]/);
  const url = proxies.find((entry) => /^https?:\/\//.test(entry));
  if (url === undefined) throw new Error(`GOPROXY=${process.env.GOPROXY} names no proxy to download from`);
  return url.replace(/\/+$/, '');
}

async function moduleZip(module: string, version: string): Promise<Uint8Array> {
  const local = localZip(module, version);
  if (local !== undefined) return readFileSync(local);
  const url = `${proxyBase()}/${module}/@v/${version}.zip`;
  const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }).catch((error: Error) => {
    // fetch's own message is only "fetch failed"; the cause says why (DNS, TLS, refused).
    throw new Error(`${url}: ${(error.cause as Error | undefined)?.message ?? error.message}`);
  });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** `k8s.io/api@v0.34.13/apps/v1/x.go` → `k8s.io/api/apps/v1`, the import path of its package. */
function packagePathOf(zipPath: string): string {
  const [moduleAtVersion, ...rest] = zipPath.split('@');
  return [moduleAtVersion, ...rest.join('@').split('/').slice(1, -1)].join('/');
}

/** `k8s.io/api/apps/v1` → `io.k8s.api.apps.v1`, the prefix of its definitions' names. */
function definitionPrefix(packagePath: string): string {
  const [domain, ...path] = packagePath.split('/');
  return [...domain.split('.').reverse(), ...path].join('.');
}

async function main(out: string): Promise<void> {
  const goMod = readFileSync(GO_MOD, 'utf8');
  const definitions = (
    JSON.parse(readFileSync(DEFINITIONS, 'utf8')) as { definitions: Record<string, { properties?: object }> }
  ).definitions;
  const known = new Set(Object.keys(definitions));
  const descriptions: Record<string, Record<string, string>> = {};
  const sources: GoFile[] = [];
  // The packages that define the served kinds' definitions (io.k8s.api.apps.v1 ...).
  const knownPrefixes = new Set([...known].map((name) => name.slice(0, name.lastIndexOf('.'))));
  for (const module of MODULES) {
    const version = pinnedVersion(goMod, module);
    const files = unzipSync(await moduleZip(module, version), {
      filter: (file) => file.name.endsWith('.go') && !file.name.endsWith('_test.go'),
    });
    for (const [path, bytes] of Object.entries(files)) {
      const packagePath = packagePathOf(path);
      if (!knownPrefixes.has(definitionPrefix(packagePath))) continue;
      sources.push({ packagePath, source: new TextDecoder().decode(bytes) });
    }
  }
  // The enums first: a field's section is part of the comment its description is made of.
  const enums = goEnums(sources);
  for (const { packagePath, source } of sources) {
    const addedLines = (struct: string, field: string) => {
      const type = enums.fieldTypes.get(`${packagePath}.${struct}`)?.get(field);
      return type === undefined ? undefined : enumSectionLines(enums.sections.get(type)!);
    };
    for (const [type, fields] of docCommentsOf(source, addedLines)) {
      const name = `${definitionPrefix(packagePath)}.${type}`;
      if (known.has(name) && Object.keys(fields).length > 0) descriptions[name] = fields;
    }
  }
  // A struct embedded inline lends its fields to the struct that embeds it, and the reference
  // documents them there with the embedded struct's texts (LocalObjectReference's `name` in
  // ConfigMapKeySelector). An embedded struct may embed others in turn.
  const descriptionsOfStruct = (struct: string) => {
    const dot = struct.lastIndexOf('.');
    return descriptions[`${definitionPrefix(struct.slice(0, dot))}.${struct.slice(dot + 1)}`];
  };
  const lend = (struct: string, into: Record<string, string>, seen: Set<string>): void => {
    for (const inner of enums.embedded.get(struct) ?? []) {
      if (seen.has(inner)) continue;
      seen.add(inner);
      for (const [field, text] of Object.entries(descriptionsOfStruct(inner) ?? {}))
        if (field !== '') into[field] ??= text;
      lend(inner, into, seen);
    }
  };
  for (const struct of enums.embedded.keys()) {
    const described = descriptionsOfStruct(struct);
    if (described !== undefined) lend(struct, described, new Set());
  }
  // apiVersion and kind come from the embedded TypeMeta, whose map documents them once.
  const typeMeta = descriptions[TYPE_META] ?? {};
  for (const [name, definition] of Object.entries(definitions)) {
    for (const field of ['apiVersion', 'kind']) {
      if (definition.properties === undefined || !(field in definition.properties) || typeMeta[field] === undefined)
        continue;
      const fields = (descriptions[name] ??= {});
      fields[field] ??= typeMeta[field];
    }
  }
  writeFileSync(out, JSON.stringify(descriptions));
  process.stderr.write(`field descriptions for ${Object.keys(descriptions).length} definitions written to ${out}\n`);
}

const out = process.argv[2];
if (out === undefined || !existsSync(dirname(out))) {
  process.stderr.write('usage: fetch-descriptions <out.json> (in an existing directory)\n');
  process.exit(2);
}
main(out).catch((error: unknown) => {
  // Descriptions are a convenience: say why they are missing, in one line, and let the caller go on.
  process.stderr.write(`capstan: no field descriptions for kubectl explain (${(error as Error).message})\n`);
  process.exit(1);
});
