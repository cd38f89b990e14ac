/**
 * Static cost estimate of a checked expression: the worst case the reference's estimator
 * assumes, from the sizes the schemas allow (maxLength, maxItems, maxProperties; without them,
 * as much as fits in a request of 3 MiB). CustomResourceDefinition rules are refused at write
 * time when the estimate exceeds the per-expression limit, with the reference's message.
 *
 * The estimate follows the runtime prices (runtime-cost.ts): a comprehension costs its body
 * times the most elements its range can hold, string functions 0.1 per character of the
 * longest string, list functions one per element, an authorization check 350,000.
 */
import { isNamespace } from './instrumentation';
import type { ConstructionArgs } from './message-construction';
import {
  APPEND_COST,
  COUNT_COST,
  LIST_CREATE_COST,
  MACRO_PRICES,
  MAP_CREATE_COST,
  REGEX_LENGTH_FACTOR,
  SELECT_COST,
  STRING_TRAVERSAL_FACTOR,
  STRUCT_CREATE_COST,
} from './runtime-cost';
import { AUTHORIZER_CHECK_COST, selectorParseCost } from './libraries/authorizer';
import type { CelSchema } from './schema-types';
import { selfCompareFactor } from './libraries/list-extensions';
import { MAX_FORMAT_REGEX_SIZE } from './libraries/format';
import { SORT_BY_OP, SORT_BY_PRICES, type SortBy } from './sort-by';
import { OPTIONAL_MAP_OP, OPTIONAL_MAP_PRICES, type OptionalMap } from './optional-library';
import { TWO_VARIABLE_LOOP_OP, TWO_VARIABLE_LOOP_PRICES, type TwoVariableLoop } from './two-variable-comprehensions';

type ComprehensionArgs = {
  readonly iterable: Node;
  readonly iterVarName: string;
  readonly init: Node;
  readonly step: Node;
};
type SortByArgs = Pick<SortBy, 'variableName'> & { readonly target: Node; readonly key: Node };
type OptionalMapArgs = Pick<OptionalMap, 'flat' | 'variableName'> & { readonly target: Node; readonly body: Node };
type TwoVariableLoopArgs = Pick<TwoVariableLoop, 'kind' | 'keyName' | 'valueName'> & {
  readonly iterable: Node;
  readonly filter?: Node;
  readonly body: Node;
};

/** Largest cost one CustomResourceDefinition rule may be estimated at. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Largest total estimate of all of a CustomResourceDefinition's rules. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** The request size bound that caps values no schema bounds. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** The reference's text for an estimate over its limit (`costName`: "estimated rule cost", ...). */
export function costExceededMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return (
    `${costName} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, ` +
    'maxProperties, and maxLength where arrays, maps, and strings are declared)'
  );
}

/** The least number of bytes one serialized value of `schema` takes, for unbounded sizes. */
function minSerializedSize(schema: CelSchema | undefined): number {
  switch (schema?.type) {
    case 'string':
    case 'object':
    case 'array':
      return 2; // "", {}, []
    default:
      return 1;
  }
}

/** The most characters, elements or entries a value of `schema` can have. */
export function maxSizeOf(schema: CelSchema | undefined): number {
  const unbounded = (elementMinSize: number): number => Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elementMinSize + 1));
  if (schema === undefined) return MAX_REQUEST_SIZE_BYTES;
  switch (schema.type) {
    case 'string':
      return schema.maxLength ?? MAX_REQUEST_SIZE_BYTES - 2;
    case 'array':
      return schema.maxItems ?? unbounded(minSerializedSize(schema.items));
    case 'object':
      if (schema.properties) return Object.keys(schema.properties).length;
      return (
        schema.maxProperties ??
        unbounded(
          4 +
            minSerializedSize(
              typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined,
            ),
        )
      );
    default:
      return schema['x-kubernetes-int-or-string'] || schema['x-kubernetes-preserve-unknown-fields']
        ? MAX_REQUEST_SIZE_BYTES
        : 1;
  }
}

/** What the estimator knows of a value: the schema it follows (if any) and its largest size. */
interface Shape {
  readonly schema?: CelSchema;
  readonly size: number;
  /** Where the value sits under a variable, when the place sizes values by path (see PathSizes). */
  readonly path?: readonly string[];
}

/**
 * The sizes a place gives by field path, as a cel-go SizeEstimator does (DRA device selectors):
 * the path's first element is a variable, each next one a field name, `@keys`, `@values` (of a
 * map) or `@items` (of a list). Undefined where the place knows no size: cel-go then assumes the
 * largest. Where given, it sizes every value with a path, in place of the schemas.
 */
export type PathSizes = (path: readonly string[]) => number | undefined;

interface Estimate {
  readonly cost: number;
  readonly shape: Shape;
}

const UNKNOWN: Shape = { size: MAX_REQUEST_SIZE_BYTES };
const STRING: CelSchema = { type: 'string' };

function shapeOf(schema: CelSchema | undefined): Shape {
  return schema === undefined ? UNKNOWN : { schema, size: maxSizeOf(schema) };
}

function fieldSchema(schema: CelSchema | undefined, field: string): CelSchema | undefined {
  if (!schema) return undefined;
  if (schema.properties) {
    for (const [name, child] of Object.entries(schema.properties))
      if (name === field || escapeMatches(name, field)) return child;
    return undefined;
  }
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

// Escaped names (`a__dash__b`) select the property `a-b`; comparing after unescaping is enough here.
function escapeMatches(property: string, field: string): boolean {
  return (
    field
      .replace(/__underscores__/g, '__')
      .replace(/__dot__/g, '.')
      .replace(/__dash__/g, '-')
      .replace(/__slash__/g, '/')
      .replace(/^__(.*)__$/, '$1') === property
  );
}

function elementSchema(schema: CelSchema | undefined): CelSchema | undefined {
  if (schema?.type === 'array') return schema.items;
  if (schema?.type === 'object' && !schema.properties) return { type: 'string' }; // iterating a map gives its keys
  return undefined;
}

/** The engine's AST node, as far as the estimator reads it. */
interface Node {
  readonly op: string;
  readonly args: unknown;
  readonly meta: { readonly alternate?: Node; readonly macro?: Node };
  /** The type the checker gave the node. */
  readonly checkedType?: { readonly name: string; readonly valueType?: { readonly name: string } };
}

/** The engine's descriptors of `cel.bind`, `has()` and the optional-type macros (see macroDescriptor). */
type MacroDescriptor =
  | { readonly var: string; readonly val: Node; readonly exp: Node }
  | { readonly args: readonly [Node] }
  | { readonly receiver: Node; readonly arg: Node };

/** cel-go's estimate where a size is unknown and it falls back to the largest uint64. */
const UNBOUNDED = 2 ** 64 - 1;

/**
 * An int literal's value where `node` is one, else `fallback`. A negative literal (which the
 * engine parses as a negation, cel-go as a literal) counts as 0, as cel-go reads it.
 */
function literalSize(node: Node | undefined, fallback: number): number {
  if (node?.op === '-_') return (node.args as Node).op === 'value' ? 0 : fallback;
  if (node?.op !== 'value' || typeof node.args !== 'bigint') return fallback;
  return Number(node.args);
}

/** Whether the checker typed `node` as a list (`list<int>`, `list<dyn>`). */
const isListType = (node: Node): boolean => /^list\b/.test(node.checkedType?.name ?? '');

/** Whether values of the type named are strings or bytes, which comparisons also traverse. */
const isTraversed = (typeName: string | undefined): boolean => typeName === 'string' || typeName === 'bytes';

/** The estimate of ext.Lists' allocating calls: 1, plus 10 for the list, plus the size worked on times a factor. */
const allocatingListEstimate = (factor: number, size: number): number =>
  Math.ceil(size * factor) + 1 + LIST_CREATE_COST;

/**
 * Cost (not counting the arguments) and result shape of ext.Lists' calls, as version 3's
 * estimators give them, or undefined for other calls. `nodes` and `shapes`: receiver first.
 */
function listExtensionEstimate(name: string, nodes: readonly Node[], shapes: readonly Shape[]): Estimate | undefined {
  const [receiver] = shapes;
  switch (name) {
    case 'range': {
      // `lists.range(n)`: the receiver is the namespace.
      const size = literalSize(nodes[1], UNBOUNDED);
      return { cost: allocatingListEstimate(1, size), shape: { size } };
    }
    case 'slice': {
      if (nodes.length !== 3) return undefined;
      const start = literalSize(nodes[1], 0);
      const end = literalSize(nodes[2], receiver.size);
      const size = end >= start ? end - start : UNBOUNDED;
      return { cost: allocatingListEstimate(1, size), shape: { schema: receiver.schema, size } };
    }
    case 'flatten': {
      const depth = nodes.length === 1 ? 1 : literalSize(nodes[1], UNBOUNDED);
      return { cost: allocatingListEstimate(depth, receiver.size), shape: { size: receiver.size } };
    }
    case 'reverse':
      return { cost: allocatingListEstimate(1, receiver.size), shape: receiver };
    case 'distinct':
    case 'sort': {
      const factor = name === 'sort' ? selfCompareFactor(isTraversed(nodes[0].checkedType?.valueType?.name)) : 2;
      const size = receiver.size * receiver.size;
      return { cost: allocatingListEstimate(factor, size), shape: { schema: receiver.schema, size } };
    }
    default:
      return undefined;
  }
}

const traversal = (size: number): number => Math.ceil(size * STRING_TRAVERSAL_FACTOR);

/** Largest size of a parsed IP address in bytes (IPv6), for the CIDR functions. */
const MAX_IP_BYTES = 16;

/** The sets functions' price, as cel-go estimates it: 1 plus the lists' sizes multiplied, times a factor. */
const setsCost = (factor: number, a: Shape | undefined, b: Shape | undefined): number =>
  1 + (a?.size ?? 0) * (b?.size ?? 0) * factor;

/**
 * Cost of a call by name (not counting its arguments), from its receiver's and arguments'
 * shapes. The functions of the url, quantity, ip, cidr and semver libraries are priced as the
 * reference's estimator prices them; the others at 1 more than their traversals.
 */
function callCost(name: string, shapes: readonly Shape[]): number {
  const [first, second] = shapes;
  switch (name) {
    case 'matches':
    case 'find':
    case 'findAll':
      return (
        1 +
        Math.ceil((1 + (first?.size ?? 0)) * STRING_TRAVERSAL_FACTOR) *
          Math.ceil((second?.size ?? 0) * REGEX_LENGTH_FACTOR)
      );
    case 'contains':
      // `sets.contains(a, b)` has the namespace as receiver and two arguments.
      if (shapes.length === 3) return setsCost(1, second, shapes[2]);
      return 1 + Math.ceil((first?.size ?? 0) * (second?.size ?? 0) * STRING_TRAVERSAL_FACTOR);
    case 'equivalent':
      return setsCost(2, second, shapes[2]);
    case 'intersects':
      return setsCost(1, second, shapes[2]);
    case 'startsWith':
    case 'endsWith':
      return 1 + traversal(second?.size ?? 0);
    case 'indexOf':
    case 'lastIndexOf':
      return (
        1 + (first?.schema?.type === 'array' ? first.size : traversal(first?.size ?? 0) + traversal(second?.size ?? 0))
      );
    case 'lowerAscii':
    case 'upperAscii':
    case 'replace':
    case 'split':
    case 'substring':
    case 'trim':
    case 'join':
    case 'format':
    case 'quote':
      return 1 + traversal(first?.size ?? 0);
    case 'isSorted':
    case 'sum':
    case 'min':
    case 'max':
      return 1 + (first?.size ?? 0);
    case 'check':
      return 1 + AUTHORIZER_CHECK_COST;
    case 'escapeKey':
      return traversal(second?.size ?? 0);
    case 'fieldSelector':
    case 'labelSelector':
      return selectorParseCost(second?.size ?? 0);
    case 'url':
    case 'quantity':
    case 'isQuantity':
    case 'ip':
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
    case 'semver':
    case 'isSemver':
      // `ip()` of a CIDR reads a field; every other form parses its string.
      return first?.schema?.type === 'string' || first?.size !== 1 ? traversal(first?.size ?? 0) : 1;
    case 'validate':
      // A named format's check: the string's traversal times the largest pattern's expressions.
      return traversal(second?.size ?? 0) * Math.ceil(MAX_FORMAT_REGEX_SIZE * REGEX_LENGTH_FACTOR);
    case 'isCanonical':
      return Math.ceil((second?.size ?? 0) * 2 * STRING_TRAVERSAL_FACTOR);
    case 'containsIP':
    case 'containsCIDR': {
      // Comparing two addresses of at most 16 bytes; containsCIDR also masks and compares lengths.
      const compare = traversal(2 * MAX_IP_BYTES) + (name === 'containsCIDR' ? traversal(MAX_IP_BYTES) + 1 : 0);
      return (
        compare + (second?.schema?.type === 'string' || (second?.size ?? 1) > 1 ? traversal(second?.size ?? 0) : 0)
      );
    }
    default:
      return 1;
  }
}

class Estimator {
  private readonly scopes: Array<Map<string, Shape>> = [];

  constructor(
    private readonly variables: ReadonlyMap<string, Shape>,
    private readonly pathSizes?: PathSizes,
  ) {}

  /** `shape` sized by the place's PathSizes at `path` below `parent`'s path, where the place gives them. */
  private at(shape: Shape, parent: Shape, step: string): Shape {
    if (this.pathSizes === undefined || parent.path === undefined) return shape;
    const path = [...parent.path, step];
    return { ...shape, path, size: this.pathSizes(path) ?? UNBOUNDED };
  }

  private lookup(name: string): Shape {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const shape = this.scopes[i].get(name);
      if (shape) return shape;
    }
    return this.variables.get(name) ?? UNKNOWN;
  }

  estimate(node: Node): Estimate {
    const alternate = node.meta.alternate;
    if (alternate?.op === 'comprehension' && node.op === 'rcall') {
      // A standard macro: cel-go's expansion of it, by name.
      return this.comprehension(alternate.args as ComprehensionArgs, (node.args as unknown[])[0] as string);
    }
    if (alternate) return this.estimate(alternate);
    const macro = node.meta.macro;
    if (macro && 'op' in macro) return this.estimate(macro);
    if (macro) return this.macroDescriptor(macro as unknown as MacroDescriptor);
    const args = node.args;
    switch (node.op) {
      case 'value':
        return { cost: 0, shape: { size: typeof args === 'string' ? args.length : 1 } };
      case 'id':
        return { cost: isNamespace(node) ? 0 : SELECT_COST, shape: this.lookup(args as string) };
      case 'accuValue':
        // The accumulator a ternary passes on, free in cel-go.
        return { cost: 0, shape: UNKNOWN };
      case 'accuInc':
        return { cost: COUNT_COST, shape: { size: 1 } };
      case 'accuPush':
        return { cost: APPEND_COST + this.estimate(args as Node).cost, shape: UNKNOWN };
      case '.':
      case '.?': {
        const [target, field] = args as [Node, string];
        const inner = this.estimate(target);
        const shape = this.at(shapeOf(fieldSchema(inner.shape.schema, field)), inner.shape, field);
        return { cost: inner.cost + SELECT_COST, shape };
      }
      case '[]':
      case '[?]': {
        const [target, index] = args as [Node, Node];
        const inner = this.estimate(target);
        const key = this.estimate(index);
        const schema = inner.shape.schema;
        const isList = schema?.type === 'array' || isListType(target);
        const child = isList ? schema?.items : fieldSchema(schema, '');
        const shape = this.at(shapeOf(child), inner.shape, isList ? '@items' : '@values');
        return { cost: inner.cost + key.cost + SELECT_COST, shape };
      }
      case 'list': {
        const items = (args as Node[]).map((item) => this.estimate(item));
        return {
          cost: LIST_CREATE_COST + items.reduce((sum, item) => sum + item.cost, 0),
          shape: { size: items.length },
        };
      }
      case 'map': {
        const entries = (args as Array<[Node, Node]>).flatMap(([k, v]) => [this.estimate(k), this.estimate(v)]);
        return {
          cost: MAP_CREATE_COST + entries.reduce((sum, e) => sum + e.cost, 0),
          shape: { size: entries.length / 2 },
        };
      }
      case 'message': {
        const [, fields] = args as ConstructionArgs;
        const values = fields.map(([, value]) => this.estimate(value as unknown as Node));
        return {
          cost: STRUCT_CREATE_COST + values.reduce((sum, e) => sum + e.cost, 0),
          shape: { size: fields.length },
        };
      }
      case '?:': {
        const [condition, then, otherwise] = (args as Node[]).map((n) => this.estimate(n));
        const worse = then.cost >= otherwise.cost ? then : otherwise;
        return { cost: condition.cost + worse.cost, shape: worse.shape };
      }
      case 'comprehension':
        return this.comprehension(args as ComprehensionArgs, undefined);
      case TWO_VARIABLE_LOOP_OP:
        return this.twoVariableLoop(args as TwoVariableLoopArgs);
      case OPTIONAL_MAP_OP:
        return this.optionalMap(args as OptionalMapArgs);
      case SORT_BY_OP:
        return this.sortBy(args as SortByArgs);
      case 'call':
      case 'rcall': {
        const name = (args as unknown[])[0] as string;
        const argNodes =
          node.op === 'call'
            ? ((args as unknown[])[1] as Node[])
            : [(args as unknown[])[1] as Node, ...((args as unknown[])[2] as Node[])];
        const estimates = argNodes.map((n) => this.estimate(n));
        const shapes = estimates.map((e) => e.shape);
        const argumentsCost = estimates.reduce((sum, e) => sum + e.cost, 0);
        const listCall = node.op === 'rcall' ? listExtensionEstimate(name, argNodes, shapes) : undefined;
        if (listCall) return { cost: listCall.cost + argumentsCost, shape: listCall.shape };
        const cost = callCost(name, shapes) + argumentsCost;
        // A conversion to string has no size estimate in cel-go, and a string is no scalar there:
        // what it makes may be of any length (so concatenating it is priced as unbounded).
        if (name === 'string' && node.op === 'call') return { cost, shape: { size: UNBOUNDED, schema: STRING } };
        // Results derived from a string (a case change, a split) are at most that string's size.
        const derived = ['lowerAscii', 'upperAscii', 'trim', 'substring', 'replace', 'format', 'split', 'findAll'];
        return { cost, shape: { size: derived.includes(name) ? (shapes[0]?.size ?? 1) : 1 } };
      }
      default:
        return this.operator(node);
    }
  }

  private operator(node: Node): Estimate {
    const operands = (Array.isArray(node.args) ? (node.args as Node[]) : [node.args as Node]).map((n) =>
      this.estimate(n),
    );
    const cost = operands.reduce((sum, e) => sum + e.cost, 0);
    const [left, right] = operands.map((e) => e.shape);
    switch (node.op) {
      case '&&':
      case '||':
        return { cost, shape: { size: 1 } };
      case '==':
      case '!=': {
        const size = Math.min(left.size, right?.size ?? 0);
        const stringLike = left.schema?.type === 'string' || right?.schema?.type === 'string';
        return {
          cost: cost + 1 + (stringLike ? traversal(size) : left.schema?.type === 'array' ? size : 0),
          shape: { size: 1 },
        };
      }
      case 'in':
        return { cost: cost + 1 + (right?.schema?.type === 'array' ? right.size : 0), shape: { size: 1 } };
      case '+': {
        const size = left.size + (right?.size ?? 0);
        const isString = left.schema?.type === 'string' || right?.schema?.type === 'string';
        return { cost: cost + 1 + (isString ? traversal(size) : 0), shape: { size } };
      }
      default:
        return { cost: cost + 1, shape: { size: 1 } };
    }
  }

  /**
   * A macro the engine keeps as a descriptor rather than a node: `has()`, whose presence test is
   * free in the reference's environments (only its operand costs); `cel.bind`, its value then its
   * body with the variable bound to the value's shape; an optional-type macro (orValue, or), its
   * receiver and argument.
   */
  private macroDescriptor(macro: MacroDescriptor): Estimate {
    if ('exp' in macro) {
      const value = this.estimate(macro.val);
      this.scopes.push(new Map([[macro.var, value.shape]]));
      try {
        const body = this.estimate(macro.exp);
        return { cost: value.cost + body.cost, shape: body.shape };
      } finally {
        this.scopes.pop();
      }
    }
    if ('args' in macro) {
      const [operand] = macro.args;
      const tested = operand.op === '.' || operand.op === '.?' ? (operand.args as [Node, string])[0] : operand;
      return { cost: this.estimate(tested).cost, shape: { size: 1 } };
    }
    const parts = [this.estimate(macro.receiver), this.estimate(macro.arg)];
    return { cost: parts[0].cost + parts[1].cost, shape: parts[1].shape };
  }

  /** A comprehension: for a standard `macro`, as cel-go estimates its expansion (MACRO_PRICES). */
  private comprehension(args: ComprehensionArgs, macro: string | undefined): Estimate {
    const range = this.estimate(args.iterable);
    const init = this.estimate(args.init);
    const prices = macro === undefined ? undefined : MACRO_PRICES[macro];
    const isList = range.shape.schema?.type === 'array' || isListType(args.iterable);
    const element = this.at(shapeOf(elementSchema(range.shape.schema)), range.shape, isList ? '@items' : '@keys');
    this.scopes.push(new Map([[args.iterVarName, element]]));
    try {
      const step = this.estimate(args.step);
      const turn = prices?.turn ?? 1;
      return {
        cost: range.cost + init.cost + range.shape.size * (step.cost + turn) + (prices?.result ?? 0),
        shape: { size: range.shape.size },
      };
    } finally {
      this.scopes.pop();
    }
  }

  /** cel-go's estimate of its expansion of sortBy: a bind of the list, a map to the keys, the sort. */
  private sortBy(sortBy: SortByArgs): Estimate {
    const target = this.estimate(sortBy.target);
    const elementShape =
      target.shape.schema?.type === 'array' ? shapeOf(target.shape.schema.items) : shapeOf(undefined);
    this.scopes.push(new Map([[sortBy.variableName, elementShape]]));
    try {
      const key = this.estimate(sortBy.key).cost;
      const size = target.shape.size;
      const { inputReads, turn, result, estimatedBind, estimatedMapInit } = SORT_BY_PRICES;
      const sort = allocatingListEstimate(selfCompareFactor(isTraversed(sortBy.key.checkedType?.name)), size * size);
      return {
        cost: target.cost + estimatedBind + inputReads + estimatedMapInit + size * (turn + key) + result + sort,
        shape: target.shape,
      };
    } finally {
      this.scopes.pop();
    }
  }

  /** cel-go's estimate of its expansion of optMap and optFlatMap, which evaluates the target twice. */
  private optionalMap(map: OptionalMapArgs): Estimate {
    const target = this.estimate(map.target);
    this.scopes.push(new Map([[map.variableName, target.shape]]));
    try {
      const body = this.estimate(map.body);
      const expansion =
        OPTIONAL_MAP_PRICES.estimatedRange + OPTIONAL_MAP_PRICES.present(map.flat) + OPTIONAL_MAP_PRICES.firstRead;
      return { cost: 2 * target.cost + expansion + body.cost, shape: body.shape };
    } finally {
      this.scopes.pop();
    }
  }

  /** cel-go's estimate of its expansion of the macro: the initial accumulator, each turn at its worst, the result. */
  private twoVariableLoop(loop: TwoVariableLoopArgs): Estimate {
    const range = this.estimate(loop.iterable);
    const schema = range.shape.schema;
    const keyShape = schema?.type === 'array' ? { size: 1 } : shapeOf(elementSchema(schema));
    const valueShape = shapeOf(schema?.type === 'array' ? schema.items : fieldSchema(schema, ''));
    this.scopes.push(
      new Map([
        [loop.keyName, keyShape],
        [loop.valueName, valueShape],
      ]),
    );
    try {
      const filter = loop.filter ? this.estimate(loop.filter).cost : 0;
      const body = this.estimate(loop.body).cost;
      const { initial, turn, result } = TWO_VARIABLE_LOOP_PRICES[loop.kind];
      const isTransform = initial > 0;
      return {
        cost: range.cost + initial + range.shape.size * (filter + turn + body) + result,
        shape: { size: isTransform ? range.shape.size : 1 },
      };
    } finally {
      this.scopes.pop();
    }
  }
}

/** Worst-case cost of the checked expression whose tree is `root`, given its variables' schemas. */
export function estimateMaxCost(
  root: unknown,
  variables: ReadonlyMap<string, CelSchema | undefined>,
  pathSizes?: PathSizes,
): number {
  const shapes = new Map(
    [...variables].map(([name, schema]): [string, Shape] => {
      const shape = shapeOf(schema);
      return [name, pathSizes === undefined ? shape : { ...shape, path: [name], size: pathSizes([name]) ?? UNBOUNDED }];
    }),
  );
  return new Estimator(shapes, pathSizes).estimate(root as Node).cost;
}
