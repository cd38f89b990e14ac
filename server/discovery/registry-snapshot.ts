/**
 * Documents built from the registry are costly enough to build once, yet must follow the
 * registry when its set of types changes (custom resources come and go). The registry's `all()`
 * returns one array per set of types, so that array's identity marks the snapshot a cached
 * document was built from.
 */
import type { ResourceRegistry, ResourceType } from '../registry/types';

/**
 * `build` runs at the first call and again only after `registry.all()` returns a different array,
 * or `revision` (of what else the value is built from: the extension servers' groups) changed.
 */
export function memoizeOnRegistry<T>(
  registry: ResourceRegistry,
  build: (types: readonly ResourceType[]) => T,
  revision: () => number = () => 0,
): () => T {
  let builtFrom: readonly ResourceType[] | undefined;
  let builtAt: number | undefined;
  let value: T | undefined;
  return () => {
    const types = registry.all();
    const current = revision();
    if (types !== builtFrom || current !== builtAt || value === undefined) {
      value = build(types);
      builtFrom = types;
      builtAt = current;
    }
    return value;
  };
}
