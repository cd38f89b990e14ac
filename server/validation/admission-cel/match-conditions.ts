/**
 * A webhook's matchConditions compile against the variables the reference gives them: the
 * object, the old object, the request and the request's authorizer. Compiled once per
 * expression text and environment, for the write-time check of a configuration and for every
 * request after.
 */
import type { CompileResult, EnvironmentKind, ExpressionCompiler } from '../../cel/environment';
import { celEnvironment } from '../../cel/lazy';
import { AUTHORIZER_VARIABLES } from '../../cel/libraries/request-authorizer';

/** Compilers made for the first condition: an idle server loads no CEL (cel/lazy.ts). */
const caches: Record<
  EnvironmentKind,
  { compiler?: ExpressionCompiler; readonly compiled: Map<string, CompileResult> }
> = {
  new: { compiled: new Map() },
  stored: { compiled: new Map() },
};
/** The most expressions kept; past it the cache starts over (configurations are few, texts rarely change). */
const CACHE_LIMIT = 1024;

/**
 * A webhook's match condition compiled in `environment`: `new` where a configuration is written,
 * `stored` where its webhooks are called (the reference's StoredExpressions).
 */
export function compileMatchCondition(expression: string, environment: EnvironmentKind = 'new'): CompileResult {
  const cache = caches[environment];
  let result = cache.compiled.get(expression);
  if (result === undefined) {
    cache.compiler ??= new (celEnvironment().ExpressionCompiler)(
      { object: 'dyn', oldObject: 'dyn', request: 'dyn', ...AUTHORIZER_VARIABLES },
      { environment },
    );
    result = cache.compiler.compile(expression);
    if (cache.compiled.size >= CACHE_LIMIT) cache.compiled.clear();
    cache.compiled.set(expression, result);
  }
  return result;
}
