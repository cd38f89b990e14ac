/**
 * Reading a server-side apply body: YAML (JSON is YAML) or, behind the CBOR gate, CBOR, into
 * the configuration object, with the reference's texts. Repeated keys are what `fieldValidation`
 * governs here (unknown fields are never accepted in an apply; see typed-patch.ts): the
 * reference re-reads the body strictly and reports `line N: key "x" already set in map`.
 */
import { parseDocument } from 'yaml';
import { CborDecodeError, decodeCbor } from '../codec/cbor';
import type { FieldValidation } from '../request/query';
import { checkNestingDepth } from '../request/nesting';
import { badRequest } from '../status/catalogue';
import { isObject } from '../json/value';
import { goTypeOf } from '../../api/go-json-syntax';
import { yamlRepeatedKeyLines } from '../validation/decode';

export type ApplyBodyFormat = 'yaml' | 'cbor';

export interface ApplyBody {
  readonly config: Record<string, unknown>;
  /** `Warning` texts (fieldValidation=Warn). */
  readonly warnings: readonly string[];
}

function asConfiguration(value: unknown, format: 'YAML' | 'CBOR'): Record<string, unknown> {
  // An empty document is an empty configuration, which the type check then rejects.
  if (value === null || value === undefined) return {};
  if (!isObject(value))
    throw badRequest(
      `error decoding ${format}: json: cannot unmarshal ${goTypeOf(value)} into Go value of type map[string]interface {}`,
    );
  return value;
}

function parseYaml(text: string, fieldValidation: FieldValidation): ApplyBody {
  // YAML 1.1, as the reference's YAML library reads it (yes/no are booleans).
  const document = parseDocument(text, { uniqueKeys: false, version: '1.1' });
  if (document.errors.length > 0)
    throw badRequest(
      `error decoding YAML: error converting YAML to JSON: yaml: ${document.errors[0].message.split('\n')[0]}`,
    );
  let value: unknown;
  try {
    // Aliases expand into copies: past 100 uses the library stops ("billion laughs").
    value = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${error.message.split('\n')[0]}`);
  }
  checkNestingDepth(value, 'yaml');
  const config = asConfiguration(value, 'YAML');
  if (fieldValidation === 'Ignore') return { config, warnings: [] };
  const duplicates = yamlRepeatedKeyLines(text);
  if (duplicates.length === 0) return { config, warnings: [] };
  if (fieldValidation === 'Strict')
    throw badRequest(
      `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`,
    );
  // One warning per line of the error, as the reference splits a strict decoding error it only warns of.
  return { config, warnings: duplicates };
}

/** CBOR bodies through the codec's strict decoder (duplicate map keys are refused there). */
function parseCbor(body: Buffer): ApplyBody {
  try {
    const value = decodeCbor(body);
    checkNestingDepth(value, 'cbor');
    return { config: asConfiguration(value, 'CBOR'), warnings: [] };
  } catch (error) {
    if (error instanceof CborDecodeError) throw badRequest(`error decoding CBOR: ${error.message}`);
    throw error;
  }
}

export function parseApplyBody(options: {
  readonly body: Buffer;
  readonly format: ApplyBodyFormat;
  readonly fieldValidation: FieldValidation;
}): ApplyBody {
  return options.format === 'cbor'
    ? parseCbor(options.body)
    : parseYaml(options.body.toString('utf8'), options.fieldValidation);
}
