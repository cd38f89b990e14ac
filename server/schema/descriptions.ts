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

const kept = new Map<string, Readonly<Record<string, string>>>();

/**
 * One definition's descriptions (`{}` when the file was never fetched), for the few texts needed
 * outside the OpenAPI documents (a table's column descriptions). Kept alone, so that asking for
 * them does not keep the whole file (1.4 MB of text) for the process's life.
 */
export function definitionDescriptions(definition: string): Readonly<Record<string, string>> {
  let found = kept.get(definition);
  if (found === undefined) {
    const file = loaded ?? readDescriptions();
    found = file[definition] ?? {};
    kept.set(definition, found);
  }
  return found;
}

function readDescriptions(): Descriptions {
  const file = generatedFile(FILE_NAME);
  return file === undefined ? {} : (JSON.parse(fs.readFileSync(file, 'utf8')) as Descriptions);
}
