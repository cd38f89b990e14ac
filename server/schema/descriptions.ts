/**
 * Field descriptions of the built-in kinds, for the OpenAPI documents (`kubectl explain`). They
 * are not part of the project: `make run` and `make test` take them at install time from the
 * API's Go modules (tools/descriptions) into generated/descriptions.json, beside the schema
 * data. Without that file the documents carry types only.
 */
import * as fs from 'node:fs';
import { generatedFile } from './generated-files';

/** Definition name → `{ "": type description, <json field>: field description }`. */
export type Descriptions = Readonly<Record<string, Readonly<Record<string, string>>>>;

const FILE_NAME = 'descriptions.json';

let loaded: Descriptions | undefined;

/** Read once, on the first OpenAPI document built; `{}` when the file was never fetched. */
export function descriptions(): Descriptions {
  loaded ??= readDescriptions();
  return loaded;
}

/** The definitions asked for outside the OpenAPI documents, and their descriptions once read. */
const wanted = new Set<string>();
const kept = new Map<string, Readonly<Record<string, string>>>();

/**
 * Says that `definitionDescriptions(definition)` will be asked for, so that the one read of the
 * file keeps it too. Declared where the askers are made (table columns, at load), read later.
 */
export function wantDefinitionDescriptions(definition: string): void {
  wanted.add(definition);
}

/**
 * One definition's descriptions (`{}` when the file was never fetched), for the few texts needed
 * outside the OpenAPI documents (a table's column descriptions). The file is read once, keeping
 * every wanted definition's entry alone, so that asking does not keep the whole file (1.4 MB of
 * text) for the process's life.
 */
export function definitionDescriptions(definition: string): Readonly<Record<string, string>> {
  let found = kept.get(definition);
  if (found === undefined) {
    wanted.add(definition);
    const file = loaded ?? readDescriptions();
    for (const name of wanted) if (!kept.has(name)) kept.set(name, file[name] ?? {});
    found = kept.get(definition) ?? {};
  }
  return found;
}

function readDescriptions(): Descriptions {
  const file = generatedFile(FILE_NAME);
  return file === undefined ? {} : (JSON.parse(fs.readFileSync(file, 'utf8')) as Descriptions);
}
