/**
 * An Indexed Job's success policy (the reference's validateSuccessPolicy): up to 20 rules, each
 * naming the indexes that must succeed, how many of them, or both, within the Job's completions.
 */
import type { FieldError } from '../status/field-error';
import { invalid, required, tooLong, tooMany, type FieldPath } from '../status/field-errors';
import { parseIndexList } from './job-indexes';
import { validateNonnegative } from './object-meta';

interface SuccessPolicyRule {
  succeededIndexes?: string | null;
  succeededCount?: number | null;
}

export interface SuccessPolicy {
  rules?: SuccessPolicyRule[] | null;
}

const MAX_RULES = 20;
/** Bytes of succeededIndexes: a list of 64 KiB already names far more intervals than a Job runs. */
const MAX_SUCCEEDED_INDEXES_BYTES = 64 * 1024;

/**
 * `completions` undefined: the Job lacks them, which is reported apart. The reference reads
 * them all the same and fails the request with a panic; here the rules that compare with them
 * are left out instead, so that the client hears only of the missing completions.
 */
export function validateSuccessPolicy(
  policy: SuccessPolicy,
  completions: number | undefined,
  path: FieldPath,
): FieldError[] {
  const rules = policy.rules ?? [];
  const rulesPath = path.child('rules');
  const errors: FieldError[] = [];
  if (rules.length === 0)
    errors.push(required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_RULES) errors.push(tooMany(rulesPath, rules.length, MAX_RULES));
  rules.forEach((rule, i) => errors.push(...ruleErrors(rule, completions, rulesPath.index(i))));
  return errors;
}

function ruleErrors(rule: SuccessPolicyRule, completions: number | undefined, path: FieldPath): FieldError[] {
  const { succeededIndexes, succeededCount } = rule;
  const errors: FieldError[] = [];
  if (succeededIndexes == null && succeededCount == null)
    errors.push(required(path, 'at least one of succeededCount or succeededIndexes must be specified'));
  // A list that does not parse counts no indexes, as in the reference.
  let indexesNamed = 0;
  if (succeededIndexes != null) {
    const indexesPath = path.child('succeededIndexes');
    if (Buffer.byteLength(succeededIndexes) > MAX_SUCCEEDED_INDEXES_BYTES)
      errors.push(tooLong(indexesPath, MAX_SUCCEEDED_INDEXES_BYTES));
    if (completions !== undefined) {
      const parsed = parseIndexList(succeededIndexes, completions);
      if ('problem' in parsed)
        errors.push(invalid(indexesPath, succeededIndexes, `error parsing succeededIndexes: ${parsed.problem}`));
      else indexesNamed = parsed.total;
    }
  }
  if (succeededCount != null) {
    const countPath = path.child('succeededCount');
    errors.push(...validateNonnegative(succeededCount, countPath));
    if (completions !== undefined && succeededCount > completions)
      errors.push(
        invalid(
          countPath,
          succeededCount,
          `must be less than or equal to ${completions} (the number of specified completions)`,
        ),
      );
    if (completions !== undefined && succeededIndexes != null && succeededCount > indexesNamed)
      errors.push(
        invalid(
          countPath,
          succeededCount,
          `must be less than or equal to ${indexesNamed} (the number of indexes in the specified succeededIndexes field)`,
        ),
      );
  }
  return errors;
}

/** A success policy as the reference prints the Go value in a cause: its fields' Go names, unset ones null. */
export function goSuccessPolicy(policy: SuccessPolicy): unknown {
  return {
    Rules:
      policy.rules?.map((rule) => ({
        SucceededIndexes: rule.succeededIndexes ?? null,
        SucceededCount: rule.succeededCount ?? null,
      })) ?? null,
  };
}
