/**
 * Reading a server-side apply body: YAML (JSON is YAML) or, behind the CBOR gate, CBOR, into
 * the configuration object, with the reference's texts. Repeated keys are what `fieldValidation`
 * governs here (unknown fields are never accepted in an apply; see typed-patch.ts): the
 * reference re-reads the body strictly and reports `line N: key "x" already set in map`.
 */
import { parseDocument } from 'yaml';
import { CborDecodeError, decodeCbor } from '../codec/cbor';
import type { FieldValidation } from '../request/query';
import { badRequest } from '../status/catalogue';
import { isObject } from '../json/value';

export type ApplyBodyFormat = 'yaml' | 'cbor';

export interface ApplyBody {
  readonly config: Record<string, unknown>;
  /** `Warning` texts (fieldValidation=Warn). */
  readonly warnings: readonly string[];
}

function goTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  return 'object';
}

function asConfiguration(value: unknown, format: 'YAML' | 'CBOR'): Record<string, unknown> {
  // An empty document is an empty configuration, which the type check then rejects.
  if (value === null || value === undefined) return {};
  if (!isObject(value)) throw badRequest(`error decoding ${format}: json: cannot unmarshal ${goTypeOf(value)} into Go value of type map[string]interface {}`);
  return value;
}

function parseYaml(text: string, fieldValidation: FieldValidation): ApplyBody {
  // YAML 1.1, as the reference's YAML library reads it (yes/no are booleans).
  const document = parseDocument(text, { uniqueKeys: false, version: '1.1' });
  if (document.errors.length > 0) throw badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${document.errors[0].message.split('\n')[0]}`);
  const config = asConfiguration(document.toJS({ maxAliasCount: 100 }), 'YAML');
  if (fieldValidation === 'Ignore') return { config, warnings: [] };
  const duplicates = parseDocument(text, { uniqueKeys: true, version: '1.1' })
    .errors.filter((error) => error.code === 'DUPLICATE_KEY')
    .map((error) => `line ${error.linePos?.[0].line ?? 0}: key ${JSON.stringify(keyAt(text, error.pos[0]))} already set in map`);
  if (duplicates.length === 0) return { config, warnings: [] };
  const problem = `error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`;
  if (fieldValidation === 'Strict') throw badRequest(`error strict decoding YAML: ${problem}`);
  return { config, warnings: [problem] };
}

/** The key that starts at `offset`: a quoted or plain scalar. */
function keyAt(text: string, offset: number): string {
  const rest = text.slice(offset);
  const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(rest) ?? /^'((?:[^']|'')*)'/.exec(rest);
  if (quoted) return rest.startsWith('"') ? (JSON.parse(`"${quoted[1]}"`) as string) : quoted[1].replace(/''/g, "'");
  return /^[^:\s,{}[\]]*/.exec(rest)?.[0] ?? '';
}

/** CBOR bodies through the codec's strict decoder (duplicate map keys are refused there). */
function parseCbor(body: Buffer): ApplyBody {
  try {
    return { config: asConfiguration(decodeCbor(body), 'CBOR'), warnings: [] };
  } catch (error) {
    if (error instanceof CborDecodeError) throw badRequest(`error decoding CBOR: ${error.message}`);
    throw error;
  }
}

export function parseApplyBody(options: { readonly body: Buffer; readonly format: ApplyBodyFormat; readonly fieldValidation: FieldValidation }): ApplyBody {
  return options.format === 'cbor' ? parseCbor(options.body) : parseYaml(options.body.toString('utf8'), options.fieldValidation);
}
