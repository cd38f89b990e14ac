/**
 * A webhook's matchConditions compile against the variables the reference gives them: the
 * object, the old object, the request and the request's authorizer. Compiled once per
 * expression text, for the write-time check of a configuration and for every request after.
 */
import type { CompileResult, ExpressionCompiler } from '../../cel/environment';
import { celEnvironment } from '../../cel/lazy';
import { AUTHORIZER_VARIABLES } from '../../cel/libraries/request-authorizer';

/** Made for the first condition: an idle server loads no CEL (cel/lazy.ts). */
let compiler: ExpressionCompiler | undefined;
const compiled = new Map<string, CompileResult>();
/** The most expressions kept; past it the cache starts over (configurations are few, texts rarely change). */
const CACHE_LIMIT = 1024;

export function compileMatchCondition(expression: string): CompileResult {
  let result = compiled.get(expression);
  if (result === undefined) {
    compiler ??= new (celEnvironment().ExpressionCompiler)({
      object: 'dyn',
      oldObject: 'dyn',
      request: 'dyn',
      ...AUTHORIZER_VARIABLES,
    });
    result = compiler.compile(expression);
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(expression, result);
  }
  return result;
}
