/**
 * `x-kubernetes-validations`: the CEL rules of a CRD's schema, compiled (server/cel/) when
 * the CRD is written and evaluated on every custom resource write, as the reference does:
 * `self` is the value at the rule's node and `oldSelf` the same value in the stored object,
 * where the two can be matched (object properties, granular maps, list-map items by key);
 * a rule that uses `oldSelf` (a transition rule) runs only where there is an old value,
 * unless it sets `optionalOldSelf`. A failed rule reports its message, its evaluated
 * messageExpression or `failed rule: <rule>`, at its node or at its `fieldPath`, with its
 * `reason`. Evaluation shares the request's cost budget; a rule over the per-call limit ends
 * the evaluation. When the CRD is written, each rule's static worst case, times how many times it
 * can run (the sizes of the lists and maps above it), must stay within 10,000,000, and all the
 * schema's rules together within 100,000,000, as the reference checks them.
 */
import type { CompiledExpression, EnvironmentKind, ExpressionCompiler, RequestCostBudget } from '../cel/environment';
import { celEnvironment } from '../cel/lazy';
import type { CelSchema } from '../cel/schema-types';
import { goJson } from '../audit/record/event';
import { isObject } from '../json/value';
import type { FieldError } from '../registry/types';
import { duplicate, FieldPath, forbidden, invalid, required } from '../status/field-errors';
import type { JSONSchemaProps, ValidationRule } from './crd-types';
import { correlatedListItem, RatchetPosition } from './ratcheting';
import { itemsOf } from './schema-members';
import { schemaFieldPath } from './schema-field-path';

type CelCosts = typeof import('../cel/estimated-cost');
let celCosts: CelCosts | undefined;

/** The static cost estimate's limits and texts, loaded with the engine. */
function costs(): CelCosts {
  celCosts ??= require('../cel/estimated-cost') as CelCosts;
  return celCosts;
}

const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program?: CompiledExpression;
  readonly message?: CompiledExpression;
  readonly usesOldSelf: boolean;
  /** What compiling said, as the reference words it. */
  readonly ruleError?: string;
  readonly messageError?: string;
}

const compiledNodes: Readonly<Record<EnvironmentKind, WeakMap<JSONSchemaProps, readonly CompiledRule[]>>> = {
  new: new WeakMap(),
  stored: new WeakMap(),
};

/**
 * The expressions of a CRD before an update. As in the reference, a rule or messageExpression
 * found there unchanged (anywhere in the old schemas) is compiled in the stored-expression
 * environment, so that an update does not refuse what the server already accepted; everything
 * else in the environment for new expressions.
 */
export interface PreexistingExpressions {
  readonly rules: ReadonlySet<string>;
  readonly messageExpressions: ReadonlySet<string>;
}

export const NO_PREEXISTING_EXPRESSIONS: PreexistingExpressions = { rules: new Set(), messageExpressions: new Set() };

/** The rules and messageExpressions of `schemas` (a CRD's, before an update). */
export function preexistingExpressions(schemas: readonly JSONSchemaProps[]): PreexistingExpressions {
  const rules = new Set<string>();
  const messageExpressions = new Set<string>();
  const walk = (node: JSONSchemaProps): void => {
    for (const rule of node['x-kubernetes-validations'] ?? []) {
      if (rule.rule) rules.add(rule.rule);
      if (rule.messageExpression) messageExpressions.add(rule.messageExpression);
    }
    Object.values(node.properties ?? {}).forEach(walk);
    if (typeof node.additionalProperties === 'object') walk(node.additionalProperties);
    const items = itemsOf(node);
    if (items !== undefined) walk(items);
  };
  schemas.forEach(walk);
  return { rules, messageExpressions };
}

/** The reference types a resource's root like an embedded resource: apiVersion, kind, metadata.name. */
function celSchemaOf(schema: JSONSchemaProps, atRoot: boolean): CelSchema {
  const typed = { ...schema, items: itemsOf(schema) } as CelSchema;
  return atRoot ? { ...typed, 'x-kubernetes-embedded-resource': true } : typed;
}

function usesOldSelf(expression: string): boolean {
  return /\boldSelf\b/.test(expression);
}

function compileNode(schema: JSONSchemaProps, atRoot: boolean, environment: EnvironmentKind): readonly CompiledRule[] {
  let found = compiledNodes[environment].get(schema);
  if (found !== undefined) return found;
  const rules = schema['x-kubernetes-validations'] ?? [];
  if (rules.length === 0) found = [];
  else {
    const celSchema = celSchemaOf(schema, atRoot);
    const compiler = new (celEnvironment().ExpressionCompiler)(
      { self: { schema: celSchema }, oldSelf: { schema: celSchema } },
      { environment },
    );
    // Rules with optionalOldSelf see oldSelf as an optional, absent where there is no old value.
    let optionalCompiler: ExpressionCompiler | undefined;
    found = rules.map((rule) => {
      const ruleCompiler =
        rule.optionalOldSelf === true
          ? (optionalCompiler ??= new (celEnvironment().ExpressionCompiler)(
              { self: { schema: celSchema }, oldSelf: { schema: celSchema, optional: true } },
              { environment },
            ))
          : compiler;
      const compiledRule = ruleCompiler.compile(rule.rule);
      const oldSelf = usesOldSelf(rule.rule);
      let ruleError: string | undefined;
      let program: CompiledExpression | undefined;
      if (!compiledRule.ok) ruleError = `compilation failed: ${compiledRule.error}`;
      else if (compiledRule.compiled.outputType !== 'bool' && compiledRule.compiled.outputType !== 'dyn')
        ruleError = 'cel expression must evaluate to a bool';
      else program = compiledRule.compiled;
      let message: CompiledExpression | undefined;
      let messageError: string | undefined;
      if (rule.messageExpression) {
        const compiledMessage = ruleCompiler.compile(rule.messageExpression);
        if (!compiledMessage.ok) messageError = `messageExpression compilation failed: ${compiledMessage.error}`;
        else if (compiledMessage.compiled.outputType !== 'string' && compiledMessage.compiled.outputType !== 'dyn')
          messageError = 'messageExpression must evaluate to a string';
        else message = compiledMessage.compiled;
      }
      return {
        rule,
        usesOldSelf: oldSelf,
        ...(program ? { program } : {}),
        ...(message ? { message } : {}),
        ...(ruleError ? { ruleError } : {}),
        ...(messageError ? { messageError } : {}),
      };
    });
  }
  compiledNodes[environment].set(schema, found);
  return found;
}

/** A rule as the reference shows it with compile errors: Go's JSON of its internal ValidationRule. */
function shownRule(rule: ValidationRule): string {
  return goJson({
    Rule: rule.rule,
    Message: rule.message ?? '',
    MessageExpression: rule.messageExpression ?? '',
    Reason: rule.reason ?? null,
    FieldPath: rule.fieldPath ?? '',
    OptionalOldSelf: rule.optionalOldSelf ?? null,
  });
}

/** The rules' problems at CRD write time: their fields, then what compiling them said. */
/** Where a node's rules sit: how many times they can run, and the schema's running total of cost. */
interface CostContext {
  readonly cardinality: number;
  readonly total: { cost: number; readonly rules: Array<{ readonly at: FieldPath; readonly cost: number }> };
}

/** How many of the costliest rules the reference names when the schema's total is over budget. */
const EXPENSIVE_RULES_NAMED = 4;

/** Adds an expression's cost to the schema's total; one under 1% of the limit is never named as a cause. */
function observeCost(total: CostContext['total'], at: FieldPath, estimated: number): void {
  total.cost += estimated;
  if (estimated >= costs().STATIC_ESTIMATED_CRD_COST_LIMIT / 100) total.rules.push({ at, cost: estimated });
}

function nodeRuleErrors(
  schema: JSONSchemaProps,
  path: FieldPath,
  atRoot: boolean,
  errors: FieldError[],
  cost: CostContext,
  preexisting: PreexistingExpressions,
): void {
  const rules = schema['x-kubernetes-validations'] ?? [];
  rules.forEach((rule, index) => {
    const at = path.child('x-kubernetes-validations').index(index);
    if (!rule.rule || rule.rule.trim() === '') errors.push(required(at.child('rule'), 'rule is not specified'));
    else if (rule.message !== undefined && rule.message !== '' && rule.message.trim() === '')
      errors.push(invalid(at.child('message'), rule.message, 'must be non-empty if specified'));
    else if (/\n/.test((rule.message ?? '').trim()))
      errors.push(invalid(at.child('message'), rule.message, 'must not contain line breaks'));
    else if (/\n/.test(rule.rule.trim()) && !(rule.message ?? '').trim())
      errors.push(required(at.child('message'), 'message must be specified if rule contains line breaks'));
    if (rule.messageExpression !== undefined && rule.messageExpression !== '' && rule.messageExpression.trim() === '') {
      errors.push(required(at.child('messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (rule.reason !== undefined && !SUPPORTED_REASONS.includes(rule.reason))
      errors.push({
        ...invalid(at.child('reason'), rule.reason, ''),
        type: 'FieldValueNotSupported',
        detail: `Unsupported value: ${JSON.stringify(rule.reason)}: supported values: ${SUPPORTED_REASONS.map((r) => JSON.stringify(r)).join(', ')}`,
      });
    errors.push(...fieldPathErrors(rule.fieldPath, schema, at.child('fieldPath')));
  });
  if (errors.length > 0 || rules.length === 0) return;
  const inEnvironment = (kind: EnvironmentKind) => compileNode(schema, atRoot, kind);
  rules.forEach((rule, index) => {
    const compiled = inEnvironment(preexisting.rules.has(rule.rule) ? 'stored' : 'new')[index];
    const message =
      rule.messageExpression !== undefined && preexisting.messageExpressions.has(rule.messageExpression)
        ? inEnvironment('stored')[index]
        : inEnvironment('new')[index];
    const at = path.child('x-kubernetes-validations').index(index);
    const { STATIC_ESTIMATED_COST_LIMIT, costExceededMessage } = costs();
    const checkCost = (member: 'rule' | 'messageExpression', estimated: number) => {
      if (estimated > STATIC_ESTIMATED_COST_LIMIT)
        errors.push(
          forbidden(
            at.child(member),
            costExceededMessage(`estimated ${member} cost`, estimated, STATIC_ESTIMATED_COST_LIMIT),
          ),
        );
      observeCost(cost.total, at.child(member), estimated);
    };
    // A rule's cost counts once per value it may run on; its message's, once.
    if (compiled.program !== undefined) checkCost('rule', compiled.program.estimateMaxCost() * cost.cardinality);
    if (compiled.ruleError)
      errors.push({
        type: 'FieldValueInvalid',
        field: at.child('rule').toString(),
        detail: `Invalid value: ${shownRule(compiled.rule)}: ${compiled.ruleError}`,
      });
    if (message.messageError)
      errors.push({
        type: 'FieldValueInvalid',
        field: at.child('messageExpression').toString(),
        detail: `Invalid value: ${shownRule(compiled.rule)}: ${message.messageError}`,
      });
    else if (message.message !== undefined) checkCost('messageExpression', message.message.estimateMaxCost());
    if (!compiled.usesOldSelf && compiled.rule.optionalOldSelf !== undefined) {
      errors.push(
        invalid(
          at.child('optionalOldSelf'),
          compiled.rule.optionalOldSelf,
          'may not be set if oldSelf is not used in rule',
        ),
      );
    }
  });
}

/** How many values a list's items or a map's values can be (its bound, else what a request can hold). */
function elementsOf(node: JSONSchemaProps, bound: number | undefined, atRoot: boolean): number {
  return bound ?? costs().maxSizeOf(celSchemaOf(node, atRoot));
}

/** Every rule problem of a version's schema (for CRD validation); `path` is the schema's. */
export function validationRuleErrors(
  schema: JSONSchemaProps,
  path: FieldPath,
  preexisting: PreexistingExpressions = NO_PREEXISTING_EXPRESSIONS,
): FieldError[] {
  const errors: FieldError[] = [];
  const total: CostContext['total'] = { cost: 0, rules: [] };
  const walk = (node: JSONSchemaProps, at: FieldPath, atRoot: boolean, cardinality: number) => {
    nodeRuleErrors(node, at, atRoot, errors, { cardinality, total }, preexisting);
    for (const [name, property] of Object.entries(node.properties ?? {}))
      walk(property, at.child('properties').key(name), false, cardinality);
    if (typeof node.additionalProperties === 'object') {
      walk(
        node.additionalProperties,
        at.child('additionalProperties'),
        false,
        cardinality * elementsOf(node, node.maxProperties, atRoot),
      );
    }
    const items = itemsOf(node);
    if (items !== undefined)
      walk(items, at.child('items'), false, cardinality * elementsOf(node, node.maxItems, atRoot));
  };
  walk(schema, path, true, 1);
  if (total.cost > 0) {
    const { STATIC_ESTIMATED_CRD_COST_LIMIT, costExceededMessage } = costs();
    if (total.cost > STATIC_ESTIMATED_CRD_COST_LIMIT) {
      const costliest = [...total.rules].sort((a, b) => b.cost - a.cost).slice(0, EXPENSIVE_RULES_NAMED);
      for (const { at } of costliest)
        errors.push(
          forbidden(at, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'),
        );
      errors.push(
        forbidden(
          path,
          costExceededMessage(
            'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
            total.cost,
            STATIC_ESTIMATED_CRD_COST_LIMIT,
          ),
        ),
      );
    }
  }
  return errors;
}

// ---- evaluation --------------------------------------------------------------------------

interface Evaluation {
  readonly budget: RequestCostBudget;
  readonly errors: FieldError[];
  /** Failures of rules ratcheted away (unchanged values on update), as the reference warns of them. */
  readonly warnings: string[];
  stopped: boolean;
}

/** `<nil>` names the root, as the reference prints a nil field path. */
function pathText(path: FieldPath): string {
  return path.toString() === '' ? '<nil>' : path.toString();
}

function failure(path: FieldPath, type: string, detail: string, reason: string | undefined): FieldError {
  const field = pathText(path);
  switch (reason) {
    case 'FieldValueForbidden':
      return { ...forbidden(path, detail), field };
    case 'FieldValueRequired':
      return { ...required(path, detail), field };
    case 'FieldValueDuplicate':
      return { ...duplicate(path, type), field };
    default:
      return { ...invalid(path, type, detail), field };
  }
}

function ruleText(rule: ValidationRule): string {
  return rule.message?.trim() || rule.rule.trim();
}

/** What is wrong with a rule's fieldPath: blank, on several lines, or not a path into the rule's node. */
function fieldPathErrors(fieldPath: string | undefined, schema: JSONSchemaProps, at: FieldPath): FieldError[] {
  if (fieldPath === undefined || fieldPath === '') return [];
  const errors: FieldError[] = [];
  if (fieldPath.trim() === '') errors.push(invalid(at, fieldPath, 'must be non-empty if specified'));
  if (/[\n\r]/.test(fieldPath)) errors.push(invalid(at, fieldPath, 'must not contain line breaks'));
  if ('error' in schemaFieldPath(fieldPath, schema, { allowArrayNotation: true }))
    errors.push(invalid(at, fieldPath, 'must be a valid path'));
  return errors;
}

/** A rule's fieldPath (`.spec.x`, `.labels['a']`) under its node's path, a key of a map as `[key]`. */
function withFieldPath(path: FieldPath, fieldPath: string | undefined, schema: JSONSchemaProps): FieldPath {
  if (!fieldPath) return path;
  const found = schemaFieldPath(fieldPath.trim(), schema, { allowArrayNotation: true });
  // A definition's write refuses any other path (fieldPathErrors).
  if ('error' in found) return path;
  return found.steps.reduce((at, step) => (step.named ? at.child(step.name) : at.key(step.name)), path);
}

function evaluateNode(
  state: Evaluation,
  schema: JSONSchemaProps,
  path: FieldPath,
  value: unknown,
  old: unknown,
  atRoot: boolean,
  ratchet: RatchetPosition,
): void {
  const type = schema.type ?? (schema['x-kubernetes-int-or-string'] ? 'string' : 'object');
  // Custom resources are checked against rules already stored with their CRD.
  for (const compiled of compileNode(schema, atRoot, 'stored')) {
    if (state.stopped || compiled.program === undefined) continue;
    const hasOld = old !== undefined;
    const optionalOldSelf = compiled.rule.optionalOldSelf === true;
    if (compiled.usesOldSelf && !hasOld && !optionalOldSelf) continue;
    const values = { self: value, ...(hasOld || optionalOldSelf ? { oldSelf: old } : {}) };
    const result = compiled.program.evaluate(values, { budget: state.budget });
    if (!result.ok) {
      if (result.costExceeded) {
        state.errors.push({
          ...invalid(
            path,
            type,
            `'${result.error}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(compiled.rule)}`,
          ),
          field: pathText(path),
        });
        state.stopped = true;
      } else {
        state.errors.push({
          ...invalid(path, type, `${result.error} evaluating rule: ${ruleText(compiled.rule)}`),
          field: pathText(path),
        });
      }
      continue;
    }
    if (result.value === true) continue;
    const at = withFieldPath(path, compiled.rule.fieldPath, schema);
    let detail = compiled.rule.message?.trim() || `failed rule: ${ruleText(compiled.rule)}`;
    if (compiled.message !== undefined) {
      const message = compiled.message.evaluate(values, { budget: state.budget });
      if (
        message.ok &&
        typeof message.value === 'string' &&
        message.value.trim() !== '' &&
        !/\n/.test(message.value.trim())
      )
        detail = message.value.trim();
    }
    const error = failure(at, type, detail, compiled.rule.reason);
    // Transition rules are never ratcheted: they are about the change itself.
    if (!compiled.usesOldSelf && ratchet.ratchets()) state.warnings.push(`${error.field}: ${error.detail}`);
    else state.errors.push(error);
  }
}

function walk(
  state: Evaluation,
  schema: JSONSchemaProps,
  path: FieldPath,
  value: unknown,
  old: unknown,
  atRoot: boolean,
  ratchet: RatchetPosition,
): void {
  if (state.stopped || value === undefined) return;
  evaluateNode(state, schema, path, value, old, atRoot, ratchet);
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    if (items === undefined) return;
    value.forEach((item, index) =>
      walk(state, items, path.index(index), item, correlatedListItem(schema, item, old), false, ratchet.index(index)),
    );
    return;
  }
  if (!isObject(value)) return;
  const oldObject = isObject(old) ? old : undefined;
  const correlated = schema['x-kubernetes-map-type'] !== 'atomic';
  for (const [key, member] of Object.entries(value)) {
    if (atRoot && (key === 'metadata' || key === 'apiVersion' || key === 'kind')) continue;
    const property = schema.properties?.[key];
    const memberOld = correlated ? oldObject?.[key] : undefined;
    if (property !== undefined) walk(state, property, path.child(key), member, memberOld, false, ratchet.key(key));
    else if (typeof schema.additionalProperties === 'object')
      walk(state, schema.additionalProperties, path.key(key), member, memberOld, false, ratchet.key(key));
  }
}

/**
 * The rule failures of a whole custom resource; `old` on update, with where ratcheting starts
 * (ratcheting.ts) and where the failures it drops go as warnings.
 */
export function validateByRules(
  object: unknown,
  old: unknown,
  schema: JSONSchemaProps,
  update?: { readonly ratchet: RatchetPosition; readonly warnings: string[] },
): FieldError[] {
  const state: Evaluation = {
    budget: new (celEnvironment().RequestCostBudget)(),
    errors: [],
    warnings: update?.warnings ?? [],
    stopped: false,
  };
  walk(state, schema, FieldPath.root(), object, old, true, update?.ratchet ?? RatchetPosition.NONE);
  return state.errors;
}

/**
 * The rules a schema node's default must pass when the CRD is written, as the reference checks
 * it: as an update from itself (transition rules compare it with itself), then, when that
 * passes, as a value introduced anew (a rule with optionalOldSelf sees no old value). Errors
 * are placed under `at`, the default's path in the CRD.
 */
export function validateDefaultByRules(value: unknown, schema: JSONSchemaProps, at: FieldPath): FieldError[] {
  const run = (old: unknown): FieldError[] => {
    const state: Evaluation = {
      budget: new (celEnvironment().RequestCostBudget)(),
      errors: [],
      warnings: [],
      stopped: false,
    };
    walk(state, schema, at, value, old, false, RatchetPosition.NONE);
    return state.errors;
  };
  const asUpdate = run(value);
  return asUpdate.length > 0 ? asUpdate : run(undefined);
}

/** Whether a schema has any rule at all (most have none, and skip the walk). */
export function hasValidationRules(schema: JSONSchemaProps): boolean {
  if ((schema['x-kubernetes-validations'] ?? []).length > 0) return true;
  const items = itemsOf(schema);
  return (
    Object.values(schema.properties ?? {}).some(hasValidationRules) ||
    (typeof schema.additionalProperties === 'object' && hasValidationRules(schema.additionalProperties)) ||
    (items !== undefined && hasValidationRules(items))
  );
}
