/**
 * Reading a server-side apply body: YAML (JSON is YAML) or, behind the CBOR gate, CBOR, into
 * the configuration object, with the reference's texts. Repeated keys are what `fieldValidation`
 * governs here (unknown fields are never accepted in an apply; see typed-patch.ts): the
 * reference re-reads the body strictly once the apply has succeeded, so a conflict or a
 * refused type is answered first, and reports `line N: key "x" already set in map`.
 */
import { CborDecodeError, decodeCbor } from '../codec/cbor';
import type { FieldValidation } from '../request/query';
import { checkNestingDepth } from '../request/nesting';
import { badRequest } from '../status/catalogue';
import { isObject } from '../json/value';
import { goTypeOf } from '../../api/go-json-syntax';
import {
  GoYamlConversionError,
  GoYamlSyntaxError,
  goYamlSyntaxMessage,
  goYamlToJSON,
  parseGoYaml,
  type GoYamlReading,
} from '../validation/go-yaml';
import { plainNumbers } from '../validation/number-literal';

export type ApplyBodyFormat = 'yaml' | 'cbor';

export interface ApplyBody {
  readonly config: Record<string, unknown>;
  /** yaml.v2's words for each key the body sets again in its map (`line 7: key "k" already set in map`). */
  readonly repeatedKeys: readonly string[];
}

function asConfiguration(value: unknown, format: 'YAML' | 'CBOR'): Record<string, unknown> {
  // An empty document is an empty configuration, which the type check then rejects.
  if (value === null || value === undefined) return {};
  // The reference's YAML reader converts to JSON and decodes that, naming both steps.
  const decoding = format === 'YAML' ? 'error unmarshaling JSON: while decoding JSON: ' : '';
  if (!isObject(value))
    throw badRequest(
      `error decoding ${format}: ${decoding}json: cannot unmarshal ${goTypeOf(value)} into Go value of type map[string]interface {}`,
    );
  return value;
}

function parseYaml(text: string): ApplyBody {
  // yaml.v2 reads the first document; the rest of the text is not looked at.
  const { documents, lines } = parseGoYaml(text);
  const [document] = documents;
  if (document === undefined) return { config: {}, repeatedKeys: [] };
  let reading: GoYamlReading;
  try {
    reading = goYamlToJSON(document, lines);
  } catch (error) {
    if (error instanceof GoYamlSyntaxError)
      throw badRequest(`error decoding YAML: error converting YAML to JSON: ${goYamlSyntaxMessage(error.error, text)}`);
    if (error instanceof GoYamlConversionError)
      throw badRequest(`error decoding YAML: error converting YAML to JSON: ${error.message}`);
    throw error;
  }
  // The apply's typing takes numbers as the JSON decoder's int64 and float64.
  return { config: asConfiguration(plainNumbers(reading.value), 'YAML'), repeatedKeys: reading.repeatedKeys };
}

/**
 * What `fieldValidation` makes of the keys an apply body repeats, asked once the apply has
 * succeeded: a 400 under Strict, one warning per line of the strict error under Warn (as the
 * reference splits an error it only warns of), nothing under Ignore.
 */
export function repeatedKeyWarnings(body: ApplyBody, fieldValidation: FieldValidation): readonly string[] {
  const { repeatedKeys } = body;
  if (fieldValidation === 'Ignore' || repeatedKeys.length === 0) return [];
  if (fieldValidation === 'Strict')
    throw badRequest(
      `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${repeatedKeys.join('\n  ')}`,
    );
  return repeatedKeys;
}

/** CBOR bodies through the codec's strict decoder (duplicate map keys are refused there). */
function parseCbor(body: Buffer): ApplyBody {
  try {
    const value = decodeCbor(body);
    checkNestingDepth(value, 'cbor');
    return { config: asConfiguration(value, 'CBOR'), repeatedKeys: [] };
  } catch (error) {
    if (error instanceof CborDecodeError) throw badRequest(`error decoding CBOR: ${error.message}`);
    throw error;
  }
}

export function parseApplyBody(body: Buffer, format: ApplyBodyFormat): ApplyBody {
  return format === 'cbor' ? parseCbor(body) : parseYaml(body.toString('utf8'));
}
