/**
 * DRA device selectors (`selectors[*].cel.expression` of a DeviceClass, a claim's requests, a
 * DeviceTaintRule) compiled as kube-apiserver 1.34 compiles them (the dynamic-resource-allocation
 * cel package): in the base environment of new or of stored expressions, with `cel.bind`, and one
 * variable, `device`, of type `kubernetes.DRADevice`: its `driver`, its `attributes` (domain ->
 * name -> a bool, int, string or version value, which the checker types `google.protobuf.Any`)
 * and its `capacity` (domain -> name -> quantity), and with the DRAConsumableCapacity gate (off
 * by default in 1.34) whether it allows multiple allocations (`allowMultipleAllocations`).
 *
 * The result must be a bool or of the unknown type (`google.protobuf.Any`, an attribute's value),
 * and the static cost estimate at most the runtime limit, with sizes by field path as the
 * reference's estimator gives them. Results are kept per expression text and environment.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { CompileResult, EnvironmentKind, ExpressionCompiler } from '../cel/environment';
import { celEnvironment } from '../cel/lazy';
import type { CallProblem, CelLibrary } from '../cel/libraries/library';
import { referenceTypeName } from '../cel/compile-errors';

/** The most an expression may be estimated to cost, and the runtime limit of one evaluation. */
const CEL_SELECTOR_EXPRESSION_MAX_COST = 1_000_000;

const DEVICE_TYPE = 'kubernetes.DRADevice';
const ATTRIBUTES_TYPE = 'map<string, map<string, dyn>>';

/** The engine's values of the device type: selectors are only compiled here, never run. */
class DraDevice extends Map<string, unknown> {}

/** The largest sizes the reference's types give: names, maps of attributes and capacities, values. */
const MAX_DOMAIN_LENGTH = 63;
const MAX_ID_LENGTH = 32;
const MAX_DRIVER_NAME_LENGTH = 63;
const MAX_ATTRIBUTES_AND_CAPACITIES = 32;
const MAX_ATTRIBUTE_VALUE_LENGTH = 64;

/** A node of the reference's declared types, as far as its size estimator walks them. */
interface SizedType {
  readonly maxElements: number;
  readonly fields?: Readonly<Record<string, SizedType>>;
  readonly key?: SizedType;
  readonly element?: SizedType;
}

const ATTRIBUTE_VALUE: SizedType = { maxElements: MAX_ATTRIBUTE_VALUE_LENGTH };
const ID: SizedType = { maxElements: MAX_ID_LENGTH };
const DOMAIN: SizedType = { maxElements: MAX_DOMAIN_LENGTH };
const domainMap = (element: SizedType): SizedType => ({
  maxElements: MAX_ATTRIBUTES_AND_CAPACITIES,
  key: DOMAIN,
  element: { maxElements: MAX_ATTRIBUTES_AND_CAPACITIES, key: ID, element },
});
const DEVICE: SizedType = {
  maxElements: 0,
  fields: {
    driver: { maxElements: MAX_DRIVER_NAME_LENGTH },
    attributes: domainMap(ATTRIBUTE_VALUE),
    capacity: domainMap({ maxElements: 0 }),
    allowMultipleAllocations: { maxElements: 1 },
  },
};

/**
 * The size the reference's estimator gives a value by its path from `device`: a field, a map's
 * keys or values; a name selected on a map of attributes is an attribute's value, any other
 * unknown step has no size.
 */
function deviceSizeAt(path: readonly string[]): number | undefined {
  if (path[0] !== 'device') return undefined;
  let node = DEVICE;
  for (const step of path.slice(1)) {
    const next =
      step === '@values' || step === '@items'
        ? node.element
        : step === '@keys'
          ? node.key
          : (node.fields?.[step] ?? (node.element === ATTRIBUTE_VALUE ? ATTRIBUTE_VALUE : undefined));
    if (next === undefined) return undefined;
    node = next;
  }
  return node.maxElements;
}

/** The engine's checked node, as far as this module reads it. */
interface CheckedNode {
  readonly op: string;
  readonly args: unknown;
  readonly meta?: {
    readonly alternate?: CheckedNode;
    /** `cel.bind`'s descriptor: its variable, value and body. */
    readonly macro?: { readonly var?: string; readonly val?: CheckedNode; readonly exp?: CheckedNode };
  };
}

/**
 * How far below `device.attributes` a node selects (0: the map of domains, 1: a domain's map,
 * 2: an attribute's value), or undefined when it is not such a selection.
 */
function attributesDepth(node: CheckedNode): number | undefined {
  if (node.op !== '.' && node.op !== '[]') return undefined;
  const [target, field] = node.args as [CheckedNode, unknown];
  if (node.op === '.' && field === 'attributes' && target.op === 'id' && target.args === 'device') return 0;
  const depth = attributesDepth(target);
  return depth === undefined || depth >= 2 ? undefined : depth + 1;
}

/**
 * cel-go's checker refuses a comprehension over a value of type `google.protobuf.Any`, which the
 * engine (typing attribute values `dyn`) lets through.
 */
function rangeOverAttributeValue(nodes: readonly unknown[]): CallProblem | undefined {
  for (const node of nodes as CheckedNode[]) {
    const loop = node.meta?.alternate;
    if (loop?.op !== 'comprehension') continue;
    const range = (loop.args as { iterable: CheckedNode }).iterable;
    if (attributesDepth(range) === 2) {
      return {
        message: "expression of type 'any' cannot be range of a comprehension (must be list, map, or dynamic)",
        node: range,
      };
    }
  }
  return undefined;
}

/** The device's fields, as the reference declares them without the DRAConsumableCapacity gate. */
const DEVICE_FIELDS: Readonly<Record<string, string>> = {
  driver: 'string',
  attributes: ATTRIBUTES_TYPE,
  capacity: 'map<string, map<string, kubernetes.Quantity>>',
};

/** The device type (with allowMultipleAllocations where the DRAConsumableCapacity gate is on). */
function deviceLibrary(consumableCapacity: boolean): CelLibrary {
  const fields = consumableCapacity ? { ...DEVICE_FIELDS, allowMultipleAllocations: 'bool' } : DEVICE_FIELDS;
  return {
    declare(env: Environment) {
      env.registerType(DEVICE_TYPE, { ctor: DraDevice, fields });
    },
    validate: rangeOverAttributeValue,
  };
}

/**
 * Whether the engine's `dyn` in the type of `node` is the reference's `google.protobuf.Any`: in a
 * selection below `device.attributes`, and carried on by a conditional both of whose branches
 * have it, by an index of a list literal all of whose items have it, and by `cel.bind` (`bound`:
 * the bound variables in scope that have it).
 */
function dynIsAny(node: CheckedNode, bound: ReadonlyMap<string, boolean> = new Map()): boolean {
  if (attributesDepth(node) !== undefined) return true;
  const bind = node.meta?.macro;
  if (bind?.var !== undefined && bind.val !== undefined && bind.exp !== undefined)
    return dynIsAny(bind.exp, new Map([...bound, [bind.var, dynIsAny(bind.val, bound)]]));
  switch (node.op) {
    case 'id':
      return bound.get(node.args as string) ?? false;
    case '?:': {
      const [, then, otherwise] = node.args as CheckedNode[];
      return dynIsAny(then, bound) && dynIsAny(otherwise, bound);
    }
    case '[]': {
      const [target] = node.args as [CheckedNode];
      const items = target.op === 'list' ? (target.args as CheckedNode[]) : [];
      return items.length > 0 && items.every((item) => dynIsAny(item, bound));
    }
    default:
      return false;
  }
}

/** The result's type as cel-go names it (see dynIsAny). */
function resultTypeName(root: CheckedNode, outputType: string): string {
  const name = referenceTypeName(outputType);
  return dynIsAny(root) ? name.replace(/\bdyn\b/g, 'google.protobuf.Any') : name;
}

/** What the reference finds wrong with a selector: a message of an invalid value, or its cost. */
export type SelectorProblem = { readonly kind: 'invalid'; readonly message: string } | { readonly kind: 'tooComplex' };

function judge(result: CompileResult): SelectorProblem | undefined {
  if (!result.ok) return { kind: 'invalid', message: `compilation failed: ${result.error}` };
  const { compiled } = result;
  const type = resultTypeName(compiled.ast as unknown as CheckedNode, compiled.outputType);
  if (type !== 'bool' && type !== 'google.protobuf.Any')
    return { kind: 'invalid', message: `must evaluate to bool or the unknown type, not ${type}` };
  if (compiled.estimateMaxCost() > CEL_SELECTOR_EXPRESSION_MAX_COST) return { kind: 'tooComplex' };
  return undefined;
}

/** Where a selector is judged: as a stored expression or a new one, and under which gates. */
export interface SelectorEnvironment {
  /** Kept unchanged from the stored object: compiled for stored expressions. */
  readonly stored: boolean;
  /** The DRAConsumableCapacity gate: the device has allowMultipleAllocations. */
  readonly consumableCapacity: boolean;
}

interface CompileCache {
  compiler?: ExpressionCompiler;
  readonly verdicts: Map<string, SelectorProblem | null>;
}

/** A compiler per environment, made for its first selector (cel/lazy.ts), and its verdicts by expression text. */
const caches = new Map<string, CompileCache>();
/** The most expressions kept per environment; past it the cache starts over. */
const CACHE_LIMIT = 1024;

/**
 * What is wrong with a selector's expression in `environment`, or undefined when it compiles,
 * is a bool and is cheap enough.
 */
export function deviceSelectorProblem(
  expression: string,
  environment: SelectorEnvironment,
): SelectorProblem | undefined {
  const kind: EnvironmentKind = environment.stored ? 'stored' : 'new';
  const key = `${kind}/${environment.consumableCapacity}`;
  let cache = caches.get(key);
  if (cache === undefined) caches.set(key, (cache = { verdicts: new Map() }));
  let problem = cache.verdicts.get(expression);
  if (problem === undefined) {
    cache.compiler ??= new (celEnvironment().ExpressionCompiler)(
      { device: DEVICE_TYPE },
      { environment: kind, libraries: [deviceLibrary(environment.consumableCapacity)], pathSizes: deviceSizeAt },
    );
    problem = judge(cache.compiler.compile(expression)) ?? null;
    if (cache.verdicts.size >= CACHE_LIMIT) cache.verdicts.clear();
    cache.verdicts.set(expression, problem);
  }
  return problem ?? undefined;
}
