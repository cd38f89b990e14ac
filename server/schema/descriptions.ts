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
  if (loaded === undefined) {
    const file = generatedFile(FILE_NAME);
    loaded = file === undefined ? {} : (JSON.parse(fs.readFileSync(file, 'utf8')) as Descriptions);
  }
  return loaded;
}
