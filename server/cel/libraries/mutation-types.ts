/**
 * What a MutatingAdmissionPolicy's mutations construct, as the reference's environment for
 * them has it (its DynamicTypeResolver and JSONPatch library):
 *
 * - `Object` and every `Object.<field>.<field>...`: the apply configuration of the matched
 *   object and of the values under it. The reference types them without the object's schema:
 *   any field is accepted, of any type; the names are checked against the field path only once
 *   the expression has run (`typeNameMismatches`), and the fields against the schema when the
 *   configuration is applied.
 * - `JSONPatch`: `op`, `path` and `from` strings and a `value` of any type.
 * - `jsonpatch.escapeKey(string)`: a key escaped for a JSON Pointer (`~` as `~0`, `/` as `~1`).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { UnsignedInt } from '../engine-values';
import type { MessageType } from '../message-types';
import { traversalCost } from '../runtime-cost';
import type { CelValue } from '../values';
import { CelFunctionError, type CelLibrary } from './library';

export const OBJECT_TYPE = 'Object';
export const JSON_PATCH_TYPE = 'JSONPatch';

/** A constructed `Object` or `Object.<path>` value: its set fields. */
export abstract class ConstructedObject extends Map<string, CelValue> {
  abstract readonly typeName: string;
}

/** A constructed `JSONPatch` operation; unset strings are empty, as the reference's. */
export class JsonPatchOperation {
  op = '';
  path = '';
  from = '';
  value?: CelValue;
}

/** The Go type the reference names when a dynamic value does not fit a JSONPatch string field. */
function goTypeName(value: CelValue): string {
  if (value === null) return 'structpb.NullValue';
  if (typeof value === 'bigint') return 'int64';
  if (typeof value === 'number') return 'float64';
  if (typeof value === 'boolean') return 'bool';
  if (value instanceof UnsignedInt) return 'uint64';
  if (value instanceof Uint8Array) return '[]uint8';
  if (Array.isArray(value)) return '[]ref.Val';
  if (value instanceof Map) return 'map[ref.Val]ref.Val';
  return typeof value;
}

const JSON_PATCH: MessageType = {
  // The reference accepts any field name here with no type, so that no value fits an unknown one.
  fieldType: (field) =>
    field === 'value' ? 'dyn' : field === 'op' || field === 'path' || field === 'from' ? 'string' : '',
  registration: { ctor: JsonPatchOperation, fields: { op: 'string', path: 'string', from: 'string', value: 'dyn' } },
  construct(fields) {
    const operation = new JsonPatchOperation();
    for (const [name, value] of fields) {
      if (name === 'value') operation.value = value;
      else if (name === 'op' || name === 'path' || name === 'from') {
        if (typeof value !== 'string') {
          throw new CelFunctionError(`unexpected type ${goTypeName(value)} for JSONPatchType '${name}' field`);
        }
        operation[name] = value;
      } else throw new CelFunctionError(`unexpected JSONPatchType field: ${name}`);
    }
    return operation;
  },
};

/** The `Object.<path>` type of one name, with a class of its own: the engine knows a value's type by its class. */
function objectType(name: string): MessageType {
  const ctor = class extends ConstructedObject {
    readonly typeName = name;
  };
  return {
    fieldType: () => 'dyn',
    registration: { ctor },
    construct: (fields) => {
      const object = new ctor();
      for (const [field, value] of fields) object.set(field, value);
      return object;
    },
  };
}

/**
 * Where the type names of `object`'s construction differ from its field path (`Object{spec:
 * Object.metadata{}}`), in the reference's words. Lists and maps between objects add nothing
 * to the path.
 */
export function typeNameMismatches(object: ConstructedObject): string[] {
  const mismatches: string[] = [];
  const visit = (value: unknown, path: string): void => {
    if (value instanceof ConstructedObject) {
      if (value.typeName !== path) {
        mismatches.push(
          `unexpected type name "${value.typeName}", expected "${path}", which matches field name path from root Object type`,
        );
      }
      for (const [field, child] of value) visit(child, `${path}.${field}`);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, path);
    } else if (value instanceof Map) {
      for (const item of value.values()) visit(item, path);
    }
  };
  visit(object, object.typeName);
  return mismatches;
}

/** Holder for `jsonpatch.escapeKey`: the engine resolves `jsonpatch.` as a variable of this type. */
class JsonPatchNamespace {}

export function escapeJsonPointerKey(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * The library, made per environment: each holds the `Object.<path>` types its expressions
 * named, so that no name outlives the environment.
 */
export function mutationTypesLibrary(): CelLibrary {
  const objectTypes = new Map<string, MessageType>();
  return {
    declare(env: Environment) {
      env
        .registerType('kubernetes.JsonPatchNamespace', JsonPatchNamespace)
        .registerConstant('jsonpatch', 'kubernetes.JsonPatchNamespace', new JsonPatchNamespace())
        .registerFunction(
          'kubernetes.JsonPatchNamespace.escapeKey(string): string',
          (_ns: JsonPatchNamespace, key: string) => escapeJsonPointerKey(key),
        );
    },
    costs: {
      '.escapeKey': ([, key]) => traversalCost(key),
    },
    resolveMessageType(name) {
      if (name === JSON_PATCH_TYPE) return JSON_PATCH;
      if (name !== OBJECT_TYPE && !name.startsWith(`${OBJECT_TYPE}.`)) return undefined;
      let type = objectTypes.get(name);
      if (type === undefined) {
        type = objectType(name);
        objectTypes.set(name, type);
      }
      return type;
    },
  };
}
