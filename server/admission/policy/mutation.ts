/**
 * A MutatingAdmissionPolicy's mutations as expressions, for the plugin that applies them.
 *
 * Compiled as the reference compiles them (with policyCompilers(...).mutations: the policy's
 * variables, plus the types mutations construct), an ApplyConfiguration expression must give an
 * `Object` and a JSONPatch expression a `list(JSONPatch)`, else the reference's "must evaluate
 * to" error. Evaluated, a mutation gives the apply configuration as JSON, once the type names of
 * its constructions are checked against their field paths (`Object{spec: Object.metadata{}}`
 * is refused with the reference's "type mismatch"), or the JSON Patch operations as JSON (`from`
 * only when set, `value` only when set, an Object value checked the same way). Applying them to
 * the object (server-side apply's merge, or a JSON patch) is the plugin's work.
 */
import type { CompiledExpression, EvaluateOptions, ExpressionCompiler } from '../../cel/environment';
import { resultTypeError } from '../../cel/compile-errors';
import { celEnvironment } from '../../cel/lazy';
import type { ConstructedObject, JsonPatchOperation } from '../../cel/libraries/mutation-types';
import type { CelValue } from '../../cel/values';

export type PatchType = 'ApplyConfiguration' | 'JSONPatch';

/** The type each kind of mutation must give, as the engine names it. */
const RESULT_TYPES: Readonly<Record<PatchType, string>> = {
  ApplyConfiguration: 'Object',
  JSONPatch: 'list<JSONPatch>',
};

/** One JSON Patch operation as RFC 6902 writes it. */
export interface JsonPatchOperationJson {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly value?: unknown;
}

export type MutationResult =
  | {
      readonly ok: true;
      readonly patchType: 'ApplyConfiguration';
      readonly applyConfiguration: Record<string, unknown>;
    }
  | { readonly ok: true; readonly patchType: 'JSONPatch'; readonly operations: JsonPatchOperationJson[] }
  | { readonly ok: false; readonly error: string; readonly costExceeded: boolean };

export type CompileMutationResult =
  { readonly ok: true; readonly mutation: CompiledMutation } | { readonly ok: false; readonly error: string };

/** Compiles one mutation's expression with the policy's mutation compiler. */
export function compileMutation(
  compiler: ExpressionCompiler,
  patchType: PatchType,
  expression: string,
): CompileMutationResult {
  const result = compiler.compile(expression);
  if (!result.ok) return { ok: false, error: `compilation failed: ${result.error}` };
  const typeError = resultTypeError(result.compiled.outputType, [RESULT_TYPES[patchType]]);
  if (typeError !== undefined) return { ok: false, error: typeError };
  return { ok: true, mutation: new CompiledMutation(patchType, result.compiled) };
}

/** The reference's refusal of constructions named off their field path, or undefined. */
function typeMismatch(object: ConstructedObject): string | undefined {
  const mismatches = celEnvironment().typeNameMismatches(object);
  return mismatches.length === 0 ? undefined : `type mismatch: ${mismatches.join('\n')}`;
}

function operationJson(operation: JsonPatchOperation): JsonPatchOperationJson | { error: string } {
  const { ConstructedObject, toJson } = celEnvironment();
  const json: { op: string; path: string; from?: string; value?: unknown } = { op: operation.op, path: operation.path };
  if (operation.from !== '') json.from = operation.from;
  if (operation.value !== undefined) {
    if (operation.value instanceof ConstructedObject) {
      const error = typeMismatch(operation.value);
      if (error !== undefined) return { error };
    }
    json.value = toJson(operation.value);
  }
  return json;
}

export class CompiledMutation {
  constructor(
    readonly patchType: PatchType,
    private readonly expression: CompiledExpression,
  ) {}

  /**
   * Runs the mutation on the policy's variables (CEL values, as for a validating policy),
   * waiting for authorization checks that answer later.
   */
  async evaluate(context: Readonly<Record<string, CelValue>>, options: EvaluateOptions = {}): Promise<MutationResult> {
    const result = await this.expression.evaluateAwaitingChecks(context, options);
    if (!result.ok) {
      return {
        ok: false,
        error: `expression '${this.expression.expression}' resulted in error: ${result.error}`,
        costExceeded: result.costExceeded,
      };
    }
    const failed = (error: string): MutationResult => ({ ok: false, error, costExceeded: false });
    if (this.patchType === 'ApplyConfiguration') {
      const object = result.value as ConstructedObject;
      const error = typeMismatch(object);
      if (error !== undefined) return failed(error);
      return {
        ok: true,
        patchType: 'ApplyConfiguration',
        applyConfiguration: celEnvironment().toJson(object) as Record<string, unknown>,
      };
    }
    const operations: JsonPatchOperationJson[] = [];
    for (const operation of result.value as JsonPatchOperation[]) {
      const json = operationJson(operation);
      if ('error' in json) return failed(json.error);
      operations.push(json);
    }
    return { ok: true, patchType: 'JSONPatch', operations };
  }
}
