/**
 * The CEL environment: one for every place the API uses expressions (authentication claim rules,
 * authorization match conditions, admission policies, CustomResourceDefinition validation rules).
 *
 * Engine: `@marcbachmann/cel-js`, chosen by measurement on this machine (Node 24, 2 cores, shared):
 *   rule `self.spec.replicas <= 5 && self.metadata.name.startsWith('a')`, plain objects:
 *     cel-js 2.3 µs/eval, @bufbuild/cel 35 µs/eval;
 *   `self.items.all(i, i.value < 1000) && self.items.map(i, i.value).size() == 100`, 100 items:
 *     cel-js 76 µs/eval, @bufbuild/cel 1,210 µs/eval.
 *   Through this environment (schema types, cost metering, range checks) the first rule takes
 *   ~2.3 µs on values converted once (`celValues`); converting a 100-item object costs ~60 µs.
 *   cel-spec conformance (test/cel/conformance.test.ts): 1,000 of the 1,002 applicable tests of
 *   the core suites pass (99.8%); the others need protobuf messages, heterogeneous literals or
 *   unchecked expressions, none of which a Kubernetes environment accepts, or are excluded there
 *   with their reasons.
 *   @bufbuild/cel passes 99.4% of the core suites (notes/libraries.md) but needs protobuf types
 *   for objects and has no type-checked environment API.
 * cel-js has a type checker, custom types, receiver functions and optional syntax; what it lacks
 * is added here: message construction (message-syntax.ts; the newest release, 8.0.0, cannot
 * parse it and keeps its parser private), the Kubernetes libraries (libraries/), RE2 regular
 * expressions (linear time, so no expression can hang the server), cost tracking (runtime-cost.ts) and estimation
 * (estimated-cost.ts), range checks, and the reference's error texts (compile-errors.ts).
 *
 * Use: `new ExpressionCompiler(variables, { environment })` declares the variables of one place
 * (CEL types or OpenAPI schemas) in the environment for new or for stored expressions (the
 * reference's EnvSet), `compile(expression)` type-checks one expression, `estimateMaxCost()` gives
 * its static worst case, and `evaluate(values, { budget })` runs it against JSON values under the
 * per-call limit and the request's budget.
 */
import { Environment, Optional, type ASTNode } from '@marcbachmann/cel-js';
import { CelAuthorizer, authorizerLibrary } from './libraries/authorizer';
import { celEquals, mixedNumberOrder, numberKeyOf, numberMembership, unorderedListEquals } from './libraries/compare';
import { CelFunctionError, type CallProblem, type CelLibrary } from './libraries/library';
import { cidrLibrary } from './libraries/cidr';
import { ipLibrary } from './libraries/ip';
import { listsLibrary } from './libraries/lists';
import { quantityLibrary } from './libraries/quantity';
import { regexLibrary } from './libraries/regex';
import { semverLibrary } from './libraries/semver';
import { setsLibrary } from './libraries/sets';
import { standardLibrary, verifyRange } from './libraries/standard';
import { stringsLibrary } from './libraries/strings';
import { urlsLibrary } from './libraries/urls';
import { formatCompileError, referencePosition, syntaxError } from './compile-errors';
import { markConstructions } from './message-construction';
import type { MessageType, MessageTypeResolver } from './message-types';
import { prepareMessageSyntax } from './message-syntax';
import { correctLiterals, prepareLiterals } from './literal-syntax';
import { widenPresenceTests } from './presence-tests';
import { buildMapLiteralsAsCelGo } from './map-literals';
import { invalidLiteral } from './literal-validation';
import { estimateMaxCost, type PathSizes } from './estimated-cost';
import { MACRO_ERROR_CODE } from './macro-nodes';
import { twoVariableComprehensionsLibrary } from './two-variable-comprehensions';
import { optionalLibrary } from './optional-library';
import { listExtensionsLibrary } from './libraries/list-extensions';
import { formatLibrary } from './libraries/format';
import { sortByLibrary } from './sort-by';
import { instrument, treeNodes, type Instrumentation } from './instrumentation';
import { CostLimitExceededError, CostMeter, PER_CALL_COST_LIMIT, RequestCostBudget, withMeter } from './runtime-cost';
import {
  celTypeOf,
  valueForSchema,
  type CelSchema,
  type DeclaredTypes,
  type ObjectTypeDeclaration,
} from './schema-types';
import { fromJson, toJson, type CelValue } from './values';

/**
 * A variable's type: a CEL type name (`string`, `map<string, dyn>`, `dyn`, a library type) or a
 * schema; `optional` makes it `optional_type(<schema's type>)`, bound to `optional.none()` when
 * its value is absent (a CRD rule's `oldSelf` with `optionalOldSelf`).
 */
export type VariableType = string | { readonly schema: CelSchema; readonly optional?: boolean };

export type VariableDeclarations = Readonly<Record<string, VariableType>>;

/**
 * The Kubernetes minor version (1.x) whose base environment new expressions are compiled in: a
 * 1.34 server's default compatibility version, 1.33, so that a cluster can roll back a version
 * and still run what it stored. Libraries introduced later serve stored expressions only.
 */
export const COMPATIBILITY_MINOR_VERSION = 33;

/**
 * Which of the reference's two environments compiles an expression: `new`, the compatibility
 * version's, for an expression being written (or changed); `stored`, with every library the
 * server knows, for an expression already stored (evaluating objects against a stored rule, or an
 * unchanged rule in an update).
 */
export type EnvironmentKind = 'new' | 'stored';

export const LIBRARIES: readonly CelLibrary[] = [
  standardLibrary,
  stringsLibrary,
  listsLibrary,
  regexLibrary,
  urlsLibrary,
  quantityLibrary,
  authorizerLibrary,
  setsLibrary,
  twoVariableComprehensionsLibrary,
  optionalLibrary,
  formatLibrary,
  // What a 1.34 server's environment for new expressions (compatibility version 1.33) adds.
  ipLibrary,
  cidrLibrary,
  semverLibrary,
  // 1.34, for stored expressions only (their `introduced`).
  listExtensionsLibrary,
  sortByLibrary,
];

const LIBRARIES_BY_KIND: Readonly<Record<EnvironmentKind, readonly CelLibrary[]>> = {
  new: LIBRARIES.filter((library) => (library.introduced ?? 0) <= COMPATIBILITY_MINOR_VERSION),
  stored: LIBRARIES,
};

function instrumentationOf(libraries: readonly CelLibrary[]): Instrumentation {
  return {
    callCosts: new Map(libraries.flatMap((library) => Object.entries(library.costs ?? {}))),
    overrides: new Map(libraries.flatMap((library) => Object.entries(library.overrides ?? {}))),
    refinements: new Map(libraries.flatMap((library) => Object.entries(library.refinements ?? {}))),
    equals: unorderedListEquals,
    order: mixedNumberOrder,
    contains: numberMembership,
    keyOf: numberKeyOf,
    verifyResult: verifyRange,
  };
}

const INSTRUMENTATION: Readonly<Record<EnvironmentKind, Instrumentation>> = {
  new: instrumentationOf(LIBRARIES_BY_KIND.new),
  stored: instrumentationOf(LIBRARIES_BY_KIND.stored),
};

function baseEnvironment(kind: EnvironmentKind): Environment {
  const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true });
  for (const library of LIBRARIES_BY_KIND[kind]) library.declare(env);
  return env;
}

const sharedBases: Partial<Record<EnvironmentKind, Environment>> = {};

export interface EvaluateOptions {
  /** The request's shared budget; each evaluation spends from it. */
  readonly budget?: RequestCostBudget;
  /** This call's limit (default: the reference's per-call limit, 1,000,000). */
  readonly callLimit?: number;
}

export type EvaluationResult =
  | { readonly ok: true; readonly value: unknown; readonly cost: number }
  | { readonly ok: false; readonly error: string; readonly cost: number; readonly costExceeded: boolean };

/** Schemas standing for variables declared with a scalar CEL type, for cost estimates. */
const SCALAR_SCHEMAS: Readonly<Record<string, CelSchema>> = {
  string: { type: 'string' },
  int: { type: 'integer' },
  double: { type: 'number' },
  bool: { type: 'boolean' },
};

/** A type-checked expression ready to run. */
export class CompiledExpression {
  constructor(
    readonly expression: string,
    /** The CEL type the checker infers for the result (`bool`, `string`, `list<string>`, `dyn`, ...). */
    readonly outputType: string,
    readonly ast: ASTNode,
    private readonly run: (context: Readonly<Record<string, CelValue>>) => unknown,
    private readonly variables: VariableDeclarations,
    private readonly pathSizes?: PathSizes,
  ) {}

  /** The worst-case cost the reference's static estimator would give (see estimated-cost.ts). */
  estimateMaxCost(): number {
    const schemas = new Map<string, CelSchema | undefined>();
    for (const [name, type] of Object.entries(this.variables)) {
      schemas.set(name, typeof type === 'object' ? type.schema : SCALAR_SCHEMAS[type]);
    }
    return estimateMaxCost(this.ast, schemas, this.pathSizes);
  }

  /**
   * Runs the expression on `values` (JSON, or library values such as an authorizer). Variables
   * missing from `values` are unbound; using one is an evaluation error.
   */
  evaluate(values: Readonly<Record<string, unknown>>, options: EvaluateOptions = {}): EvaluationResult {
    return this.evaluateCelValues(celValuesOf(this.variables, values), options);
  }

  /**
   * `evaluateCelValues`, waiting for authorization checks that answer later: an evaluation that
   * asked one is abandoned, and run again once the answers are in (expressions have no side
   * effects). Only the run that counts is charged to the budget.
   */
  async evaluateAwaitingChecks(
    context: Readonly<Record<string, CelValue>>,
    options: EvaluateOptions = {},
  ): Promise<EvaluationResult> {
    const authorizers = Object.values(context).filter(
      (value): value is CelAuthorizer => value instanceof CelAuthorizer,
    );
    for (;;) {
      const scratch = options.budget ? new RequestCostBudget(options.budget.remaining) : undefined;
      const result = this.evaluateCelValues(context, { ...options, budget: scratch });
      const settled = await Promise.all(authorizers.map((authorizer) => authorizer.settle()));
      if (settled.includes(true)) continue;
      if (options.budget && scratch) options.budget.remaining = scratch.remaining;
      return result;
    }
  }

  /** Runs the expression on values already in CEL's representation (see values.ts). */
  evaluateCelValues(context: Readonly<Record<string, CelValue>>, options: EvaluateOptions = {}): EvaluationResult {
    const budget = options.budget;
    const limit = Math.min(options.callLimit ?? PER_CALL_COST_LIMIT, budget?.remaining ?? Infinity);
    const meter = new CostMeter(limit);
    try {
      const value = withMeter(meter, () => this.run(context));
      if (meter.exceeded) throw new CostLimitExceededError();
      return { ok: true, value, cost: meter.cost };
    } catch (error) {
      if (meter.exceeded || error instanceof CostLimitExceededError) {
        return { ok: false, error: new CostLimitExceededError().message, cost: meter.cost, costExceeded: true };
      }
      return { ok: false, error: evaluationMessage(error), cost: meter.cost, costExceeded: false };
    } finally {
      if (budget) budget.remaining -= Math.min(meter.cost, budget.remaining);
    }
  }
}

/** `values` (JSON, or library values) in CEL's representation for the declared variables. */
function celValuesOf(
  variables: VariableDeclarations,
  values: Readonly<Record<string, unknown>>,
): Record<string, CelValue> {
  const context: Record<string, CelValue> = {};
  for (const [name, value] of Object.entries(values)) {
    const type = variables[name];
    if (type === undefined) continue;
    if (typeof type !== 'object') context[name] = fromJson(value);
    else if (!type.optional) context[name] = valueForSchema(type.schema, value);
    else context[name] = value === undefined ? Optional.none() : Optional.of(valueForSchema(type.schema, value));
  }
  return context;
}

function evaluationMessage(error: unknown): string {
  if (error instanceof CelFunctionError) return error.message;
  if (error instanceof Error) {
    const summary = (error as { summary?: string }).summary ?? error.message.split('\n')[0];
    // cel-go's wording of a missing map key, which policies' refusals show.
    return summary.replace(/^No such key: /, 'no such key: ');
  }
  return String(error);
}

/** `rewrite` may restate the engine's summary of the error first. */
function compileError(expression: string, error: unknown, rewrite: (summary: string) => string = (s) => s): string {
  const engineSummary =
    error instanceof Error ? ((error as { summary?: string }).summary ?? error.message) : String(error);
  const summary = rewrite(engineSummary);
  const { range, node } = error as { range?: { start: number }; node?: Parameters<typeof referencePosition>[2] };
  return formatCompileError(
    expression,
    summary,
    range === undefined ? undefined : referencePosition(expression, range.start, node),
  );
}

/** The most type errors reported of one expression (each costs a check of the whole expression). */
const MAX_CHECK_ERRORS = 20;

/** The most parse errors reported of one expression, as cel-go's parser stops after a hundred. */
const MAX_PARSE_ERRORS = 100;

/**
 * The parse errors as cel-go's parser words and places them (`Syntax error: ...`): the engine
 * stops at its first, where cel-go's lexer skips what it cannot read and goes on, so after such
 * an error the rest (with the skipped text blanked out, keeping every position) is parsed again
 * for the errors that follow. `source` is what the engine parses, of the length of `expression`.
 */
function parseErrors(env: Environment, expression: string, source: string, error: unknown): string {
  const errors: string[] = [];
  const blank = (text: string, from: number, to: number) =>
    text.slice(0, from) + text.slice(from, to).replace(/[^\n]/g, ' ') + text.slice(to);
  // What the engine parses, and the expression as cel-go's lexer reads on in it (for the words).
  let parsed = source;
  let read = expression;
  let current = error;
  while (errors.length < MAX_PARSE_ERRORS) {
    const { range, code } = current as { range?: { start: number; end: number }; code?: string };
    if (range === undefined || code === MACRO_ERROR_CODE) {
      errors.push(compileError(expression, current));
      break;
    }
    const summary =
      current instanceof Error ? ((current as { summary?: string }).summary ?? current.message) : String(current);
    const { message, start, dropped } = syntaxError(read, summary, range);
    errors.push(formatCompileError(expression, message, start));
    if (dropped === undefined) break;
    parsed = blank(parsed, dropped.start, dropped.end);
    read = blank(read, dropped.start, dropped.end);
    try {
      env.parse(parsed);
      break;
    } catch (next) {
      current = next;
    }
  }
  return errors.join('\n');
}

export type CompileResult =
  { readonly ok: true; readonly compiled: CompiledExpression } | { readonly ok: false; readonly error: string };

export interface CompilerOptions {
  /**
   * Libraries of this place only, beyond the ones every environment has (the mutation types of
   * MutatingAdmissionPolicy, say); the types they offer are the ones expressions may construct.
   */
  readonly libraries?: readonly CelLibrary[];
  /** The environment to compile in (default `new`). */
  readonly environment?: EnvironmentKind;
  /** Sizes by field path for cost estimates, where the place gives them (see estimated-cost.ts). */
  readonly pathSizes?: PathSizes;
}

/** Whether the engine converts `literal` with `duration()` or `timestamp()` (the runtime's own judge). */
function validConversion(functionName: 'duration' | 'timestamp', literal: string): boolean {
  try {
    sharedBases.new!.evaluate(`${functionName}(${JSON.stringify(literal)})`);
    return true;
  } catch {
    return false;
  }
}

/** Compiles expressions against one set of declared variables. */
export class ExpressionCompiler {
  private readonly env: Environment;
  private readonly libraries: readonly CelLibrary[];
  private readonly instrumentation: Instrumentation;
  private readonly validators: ReadonlyArray<NonNullable<CelLibrary['validate']>>;
  /** The names of the functions the environment has, read on the first compile error that needs them. */
  private functionNames: Set<string> | undefined;
  /** The constructible types registered with the engine so far, by name. */
  private readonly messageTypes = new Map<string, MessageType>();
  private readonly resolveMessageType: MessageTypeResolver = (name) =>
    this.messageTypes.get(name) ?? this.libraries.map((library) => library.resolveMessageType?.(name)).find(Boolean);

  private readonly pathSizes: PathSizes | undefined;

  constructor(
    private readonly variables: VariableDeclarations,
    options: CompilerOptions = {},
  ) {
    const kind = options.environment ?? 'new';
    this.pathSizes = options.pathSizes;
    sharedBases.new ??= baseEnvironment('new');
    this.env = (sharedBases[kind] ??= baseEnvironment(kind)).clone();
    this.libraries = options.libraries ?? [];
    for (const library of this.libraries) library.declare(this.env);
    this.instrumentation =
      this.libraries.length === 0
        ? INSTRUMENTATION[kind]
        : instrumentationOf([...LIBRARIES_BY_KIND[kind], ...this.libraries]);
    this.validators = [...LIBRARIES_BY_KIND[kind], ...this.libraries].flatMap((library) =>
      library.validate ? [library.validate] : [],
    );
    const types: ObjectTypeDeclaration[] = [];
    const declared: DeclaredTypes = new Map();
    const variableTypes: Record<string, string> = {};
    for (const [name, type] of Object.entries(variables)) {
      if (typeof type !== 'object') variableTypes[name] = type;
      else {
        const declaredType = celTypeOf(type.schema, `${name}.type`, types, declared);
        variableTypes[name] = type.optional ? `optional<${declaredType}>` : declaredType;
      }
    }
    // Nested types are declared before the types that hold them.
    for (const type of types) {
      this.env.registerType(type.name, { ctor: type.ctor, fields: type.fields });
      this.env.registerOperator(`${type.name} == ${type.name}`, celEquals);
    }
    for (const [name, type] of Object.entries(variableTypes)) this.env.registerVariable(name, type);
  }

  /**
   * cel-go's words for a call of a function the environment does not have at all (the list
   * extension's `sort()` in the environment for new expressions, say): an undeclared reference,
   * where the engine finds no matching overload.
   */
  private undeclared(summary: string): string {
    const name = /^found no matching overload for '(?:.+\.)?([A-Za-z_]\w*)\(.*\)'$/.exec(summary)?.[1];
    if (name === undefined) return summary;
    this.functionNames ??= new Set(this.env.getDefinitions().functions.map((fn) => fn.name));
    return this.functionNames.has(name) ? summary : `undeclared reference to '${name}' (in container '')`;
  }

  /** The first call in the checked tree under `root` that a library's own check refuses, if any. */
  private callProblem(root: ASTNode): CallProblem | undefined {
    if (this.validators.length === 0) return undefined;
    const nodes = treeNodes(root as unknown as Parameters<typeof treeNodes>[0]);
    for (const validate of this.validators) {
      const problem = validate(nodes);
      if (problem) return problem;
    }
    return undefined;
  }

  /** Makes a type a library offers known to the engine, the first time an expression names it. */
  private registerMessageType(name: string): void {
    if (this.messageTypes.has(name)) return;
    const type = this.resolveMessageType(name);
    if (type === undefined) return;
    this.env.registerType(name, type.registration);
    this.env.registerOperator(`${name} == ${name}`, celEquals);
    this.messageTypes.set(name, type);
  }

  /**
   * `values` converted once for many expressions of this compiler (for `evaluateCelValues`):
   * converting an object costs about a microsecond per field, more than most rules.
   */
  celValues(values: Readonly<Record<string, unknown>>): Record<string, CelValue> {
    return celValuesOf(this.variables, values);
  }

  /**
   * The type errors of `expression`, the first being `first`: cel-go's checker reports every one,
   * giving a node in error a type that fits anywhere, where the engine stops at the first. So the
   * text of each node in error is replaced by a variable of type dyn of the same length (keeping
   * every position), and the expression checked again, until it passes.
   */
  private checkErrors(expression: string, first: unknown): string {
    const undeclared = (summary: string) => this.undeclared(summary);
    const errors = [compileError(expression, first, undeclared)];
    // Message constructions are rewritten before parsing, so the engine's positions are not the text's.
    if (prepareMessageSyntax(expression).sites.size > 0) return errors[0];
    const env = this.env.clone();
    const placeholders = new Set<string>();
    let text = expression;
    let error = first as { node?: { range?: { start: number; end: number } }; range?: { start: number; end: number } };
    while (errors.length < MAX_CHECK_ERRORS) {
      const range = error.node?.range ?? error.range;
      if (range === undefined || range.end <= range.start) break;
      const placeholder = '_'.repeat(range.end - range.start);
      if (!placeholders.has(placeholder)) env.registerVariable(placeholder, 'dyn');
      placeholders.add(placeholder);
      text = text.slice(0, range.start) + placeholder + text.slice(range.end);
      const { source, literals } = prepareLiterals(text);
      let checked;
      try {
        const parsed = env.parse(source);
        correctLiterals(parsed.ast, literals);
        widenPresenceTests(parsed.ast);
        checked = parsed.check();
      } catch {
        break;
      }
      if (checked.valid) break;
      error = checked.error as typeof error;
      errors.push(compileError(expression, error, undeclared));
    }
    return errors.join('\n');
  }

  compile(expression: string): CompileResult {
    const messages = prepareMessageSyntax(expression);
    const { sites, syntaxError: constructionError } = messages;
    const { source, literals } = prepareLiterals(messages.source);
    const constructionFailure = (): CompileResult => ({
      ok: false,
      error: formatCompileError(expression, constructionError!.message, constructionError!.start),
    });
    let parsed;
    try {
      parsed = this.env.parse(source);
    } catch (error) {
      // cel-go reports the first error in the text.
      const start = (error as { range?: { start: number } }).range?.start;
      if (constructionError && (start === undefined || constructionError.start <= start)) return constructionFailure();
      return { ok: false, error: parseErrors(this.env, expression, source, error) };
    }
    if (constructionError) return constructionFailure();
    correctLiterals(parsed.ast, literals);
    widenPresenceTests(parsed.ast);
    for (const { typeName } of sites.values()) this.registerMessageType(typeName);
    markConstructions(parsed.ast, sites, this.resolveMessageType);
    const checked = parsed.check();
    if (!checked.valid) return { ok: false, error: this.checkErrors(expression, checked.error) };
    const literalError = invalidLiteral(parsed.ast, validConversion);
    if (literalError)
      return { ok: false, error: formatCompileError(expression, literalError.message, literalError.start) };
    const problem = this.callProblem(parsed.ast);
    if (problem) {
      const node = problem.node as Parameters<typeof referencePosition>[2] & { start: number };
      const at = referencePosition(expression, node.start, node);
      return { ok: false, error: formatCompileError(expression, problem.message, at) };
    }
    buildMapLiteralsAsCelGo(parsed.ast);
    instrument(parsed.ast, this.instrumentation);
    return {
      ok: true,
      compiled: new CompiledExpression(
        expression,
        checked.type ?? 'dyn',
        parsed.ast,
        parsed,
        this.variables,
        this.pathSizes,
      ),
    };
  }
}

export { RequestCostBudget, fromJson, toJson };
// Reached through lazy.ts by the MutatingAdmissionPolicy machinery.
export {
  ConstructedObject,
  JsonPatchOperation,
  mutationTypesLibrary,
  typeNameMismatches,
} from './libraries/mutation-types';
