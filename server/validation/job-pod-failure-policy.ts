/**
 * A Job's pod failure policy (the reference's validatePodFailurePolicy): up to 20 rules, each an
 * action taken when a failed pod matches either its container exit codes or its conditions.
 */
import { goJSONQuote, goQuote } from '../../api/go-quote';
import type { FieldError } from '../status/field-error';
import {
  duplicate,
  type FieldPath,
  GoValue,
  invalid,
  invalidWithoutValue,
  notSupported,
  required,
  tooMany,
} from '../status/field-errors';
import { isQualifiedName } from './names';

interface OnExitCodes {
  containerName?: string | null;
  operator?: string;
  values?: number[] | null;
}

interface OnPodConditionsPattern {
  type?: string;
  status?: string;
}

interface PodFailurePolicyRule {
  action?: string;
  onExitCodes?: OnExitCodes | null;
  onPodConditions?: OnPodConditionsPattern[] | null;
}

export interface PodFailurePolicy {
  rules?: PodFailurePolicyRule[] | null;
}

/** What of the Job's spec the rules read besides the policy. */
export interface PodFailurePolicyContext {
  readonly backoffLimitPerIndex?: number | null;
  /** The names of the template's containers and init containers, which onExitCodes may name. */
  readonly containerNames: ReadonlySet<string>;
}

const MAX_RULES = 20;
const MAX_EXIT_CODE_VALUES = 255;
const MAX_CONDITION_PATTERNS = 20;
// Sorted, as the reference lists its sets.
const ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];

/** A list as Go's `%q` prints a slice of strings. */
function goQuotedList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

/** A value of a named string type, which a field error prints as JSON rather than quotes. */
function namedString(value: string): GoValue {
  return new GoValue(goJSONQuote(value));
}

export function validatePodFailurePolicy(
  policy: PodFailurePolicy,
  context: PodFailurePolicyContext,
  path: FieldPath,
): FieldError[] {
  const rules = policy.rules ?? [];
  const rulesPath = path.child('rules');
  const errors: FieldError[] = [];
  if (rules.length > MAX_RULES) errors.push(tooMany(rulesPath, rules.length, MAX_RULES));
  rules.forEach((rule, i) => errors.push(...ruleErrors(rule, context, rulesPath.index(i))));
  return errors;
}

function ruleErrors(rule: PodFailurePolicyRule, context: PodFailurePolicyContext, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const actionPath = path.child('action');
  const action = rule.action ?? '';
  if (action === '') errors.push(required(actionPath, `valid values: ${goQuotedList(ACTIONS)}`));
  else if (action === 'FailIndex') {
    // Failing an index only means something when indexes have limits of their own.
    if (context.backoffLimitPerIndex == null)
      errors.push(invalid(actionPath, namedString(action), 'requires the backoffLimitPerIndex to be set'));
  } else if (!ACTIONS.includes(action)) errors.push(notSupported(actionPath, action, ACTIONS));
  const onExitCodes = rule.onExitCodes ?? undefined;
  const patterns = rule.onPodConditions ?? [];
  if (onExitCodes !== undefined)
    errors.push(...onExitCodesErrors(onExitCodes, context.containerNames, path.child('onExitCodes')));
  if (patterns.length > 0) errors.push(...onPodConditionsErrors(patterns, path.child('onPodConditions')));
  if (onExitCodes !== undefined && patterns.length > 0)
    errors.push(invalidWithoutValue(path, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (onExitCodes === undefined && patterns.length === 0)
    errors.push(invalidWithoutValue(path, 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errors;
}

function onPodConditionsErrors(patterns: readonly OnPodConditionsPattern[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (patterns.length > MAX_CONDITION_PATTERNS) errors.push(tooMany(path, patterns.length, MAX_CONDITION_PATTERNS));
  patterns.forEach((pattern, j) => {
    const patternPath = path.index(j);
    const type = pattern.type ?? '';
    errors.push(...isQualifiedName(type).map((message) => invalid(patternPath.child('type'), type, message)));
    const status = pattern.status ?? '';
    const statusPath = patternPath.child('status');
    if (status === '') errors.push(required(statusPath, `valid values: ${goQuotedList(CONDITION_STATUSES)}`));
    else if (!CONDITION_STATUSES.includes(status)) errors.push(notSupported(statusPath, status, CONDITION_STATUSES));
  });
  return errors;
}

/** Exit code 0 is success, so `In` may not name it; the values are a sorted set. */
function onExitCodesErrors(
  onExitCodes: OnExitCodes,
  containerNames: ReadonlySet<string>,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const operator = onExitCodes.operator ?? '';
  const operatorPath = path.child('operator');
  if (operator === '') errors.push(required(operatorPath, `valid values: ${goQuotedList(OPERATORS)}`));
  else if (!OPERATORS.includes(operator)) errors.push(notSupported(operatorPath, operator, OPERATORS));
  const { containerName } = onExitCodes;
  if (containerName != null && !containerNames.has(containerName))
    errors.push(
      invalid(
        path.child('containerName'),
        containerName,
        'must be one of the container or initContainer names in the pod template',
      ),
    );
  const values = onExitCodes.values ?? [];
  const valuesPath = path.child('values');
  if (values.length === 0)
    errors.push(invalid(valuesPath, onExitCodes.values ?? null, 'at least one value is required'));
  else if (values.length > MAX_EXIT_CODE_VALUES) errors.push(tooMany(valuesPath, values.length, MAX_EXIT_CODE_VALUES));
  const seen = new Set<number>();
  values.forEach((value, j) => {
    const valuePath = valuesPath.index(j);
    if (operator === 'In' && value === 0) errors.push(invalid(valuePath, value, 'must not be 0 for the In operator'));
    if (seen.has(value)) errors.push(duplicate(valuePath, value));
    else seen.add(value);
  });
  if (values.some((value, j) => j > 0 && values[j - 1] > value))
    errors.push(invalid(valuesPath, values, 'must be ordered'));
  return errors;
}

/** A pod failure policy as the reference prints the Go value in a cause: its fields' Go names, unset ones null. */
export function goPodFailurePolicy(policy: PodFailurePolicy): unknown {
  return {
    Rules:
      policy.rules?.map((rule) => ({
        Action: rule.action ?? '',
        OnExitCodes:
          rule.onExitCodes == null
            ? null
            : {
                ContainerName: rule.onExitCodes.containerName ?? null,
                Operator: rule.onExitCodes.operator ?? '',
                Values: rule.onExitCodes.values ?? null,
              },
        OnPodConditions:
          rule.onPodConditions?.map((pattern) => ({ Type: pattern.type ?? '', Status: pattern.status ?? '' })) ?? null,
      })) ?? null,
  };
}
