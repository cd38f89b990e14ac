/**
 * The cel-spec conformance corpus (`@bufbuild/cel-spec`, cel-spec v0.25.1) run over capstan's CEL
 * environment. Every test of the core suites runs; the pass rate is printed with the failures
 * and must stay at or above 99.5%. A test that cannot apply to Kubernetes CEL or cannot pass
 * without replacing the engine is named in EXCLUDED with its reason. Suites outside the core
 * (protobuf messages, extensions Kubernetes does not enable) are run and reported but not held
 * to the rate.
 */
import type { Any } from '@bufbuild/protobuf/wkt';
import type { Registry } from '@bufbuild/protobuf';
import type { IncrementalTestSuite } from '@bufbuild/cel-spec/dist/cjs/testdata/tests';
import type { Value } from '@bufbuild/cel-spec/dist/cjs/gen/cel/expr/value_pb';
import type { Type } from '@bufbuild/cel-spec/dist/cjs/gen/cel/expr/checked_pb';
import type { SimpleTest } from '@bufbuild/cel-spec/dist/cjs/gen/cel/expr/conformance/test/simple_pb';
import { Optional } from '@marcbachmann/cel-js';
import { ExpressionCompiler } from '../../server/cel/environment';
import { Duration, UnsignedInt } from '../../server/cel/engine-values';
import type { CelValue } from '../../server/cel/values';

// The package publishes these under subpath exports, which the project's module resolution
// leaves to Node at run time; the types above come from the files themselves.
const { getConformanceSuite } = require('@bufbuild/cel-spec/testdata/tests.js') as {
  getConformanceSuite(): IncrementalTestSuite;
};
const { getTestRegistry } = require('@bufbuild/cel-spec/testdata/registry.js') as { getTestRegistry(): Registry };
const { anyUnpack } = require('@bufbuild/protobuf/wkt') as {
  anyUnpack(any: Any, registry: Registry): { $typeName: string; [field: string]: unknown } | undefined;
};

const CORE_SUITES = [
  'basic',
  'comparisons',
  'conversions',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'namespace',
  'parse',
  'plumbing',
  'string',
  'timestamps',
];
const OTHER_SUITES = [
  'macros2',
  'optionals',
  'string_ext',
  'type_deductions',
  'dynamic',
  'wrappers',
  'enums',
  'proto2',
  'proto3',
];

const registry = getTestRegistry();

class Unsupported extends Error {}
class MessageValue extends Error {}

function unpack(any: Any): CelValue {
  const message = anyUnpack(any, registry);
  if (!message) throw new Unsupported(`cannot unpack ${any.typeUrl}`);
  switch (message.$typeName) {
    case 'google.protobuf.Timestamp':
      return new Date(Number(message.seconds as bigint) * 1000 + Math.floor((message.nanos as number) / 1e6));
    case 'google.protobuf.Duration':
      return new Duration(message.seconds as bigint, message.nanos as number);
    case 'google.protobuf.Int64Value':
    case 'google.protobuf.Int32Value':
      return BigInt(message.value as bigint | number);
    case 'google.protobuf.UInt64Value':
    case 'google.protobuf.UInt32Value':
      return new UnsignedInt(BigInt(message.value as bigint | number));
    case 'google.protobuf.DoubleValue':
    case 'google.protobuf.FloatValue':
    case 'google.protobuf.StringValue':
    case 'google.protobuf.BoolValue':
    case 'google.protobuf.BytesValue':
      return message.value as CelValue;
    default:
      throw new MessageValue(message.$typeName);
  }
}

function toCel(value: Value): CelValue {
  const kind = value.kind;
  switch (kind.case) {
    case 'nullValue':
      return null;
    case 'boolValue':
    case 'stringValue':
    case 'doubleValue':
    case 'bytesValue':
      return kind.value;
    case 'int64Value':
      return kind.value;
    case 'uint64Value':
      return new UnsignedInt(kind.value);
    case 'enumValue':
      return BigInt(kind.value.value);
    case 'listValue':
      return kind.value.values.map(toCel);
    case 'mapValue':
      return new Map(kind.value.entries.map((entry) => [toCel(entry.key!) as string, toCel(entry.value!)]));
    case 'objectValue':
      return unpack(kind.value);
    case 'typeValue':
      return { celTypeName: kind.value };
    default:
      throw new Unsupported(`value kind ${kind.case}`);
  }
}

const PRIMITIVES: Record<number, string> = { 1: 'bool', 2: 'int', 3: 'uint', 4: 'double', 5: 'string', 6: 'bytes' };
const WELL_KNOWN: Record<number, string> = { 1: 'dyn', 2: 'google.protobuf.Timestamp', 3: 'google.protobuf.Duration' };

function typeName(type: Type): string {
  const kind = type.typeKind;
  switch (kind.case) {
    case 'primitive':
      return PRIMITIVES[kind.value] ?? 'dyn';
    case 'wellKnown':
      return WELL_KNOWN[kind.value] ?? 'dyn';
    case 'listType':
      return `list<${typeName(kind.value.elemType!)}>`;
    case 'mapType':
      return `map<${typeName(kind.value.keyType!)}, ${typeName(kind.value.valueType!)}>`;
    case 'wrapper':
      return PRIMITIVES[kind.value] ?? 'dyn';
    default:
      return 'dyn';
  }
}

/** A canonical text of a value that keeps CEL's type distinctions (1 vs 1u vs 1.0). */
function canonical(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return `bool:${value}`;
  if (typeof value === 'bigint') return `int:${value}`;
  if (typeof value === 'number') return `double:${Number.isNaN(value) ? 'NaN' : String(value)}`;
  if (typeof value === 'string') return `string:${JSON.stringify(value)}`;
  if (value instanceof UnsignedInt) return `uint:${value.value}`;
  if (value instanceof Uint8Array) return `bytes:${Buffer.from(value).toString('hex')}`;
  if (value instanceof Date) return `timestamp:${value.toISOString()}`;
  if (value instanceof Duration) return `duration:${value.seconds}.${value.nanos}`;
  if (value instanceof Optional) return value.hasValue() ? `optional:${canonical(value.value())}` : 'optional:none';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = value instanceof Map ? [...value] : Object.entries(value as Record<string, unknown>);
  if ('celTypeName' in (value as object)) return `type:${(value as { celTypeName: string }).celTypeName}`;
  return `{${entries
    .map(([k, v]) => `${canonical(k)}=${canonical(v)}`)
    .sort()
    .join(',')}}`;
}

function canonicalActual(value: unknown): string {
  // The engine's type values print as `Type<name>`.
  if (value !== null && typeof value === 'object' && value.constructor?.name === 'Type') {
    const name = String(value).replace(/^Type<(.*)>$/, '$1');
    return `type:${name === 'null' ? 'null_type' : name.replace(/<.*>$/, '')}`;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalActual).join(',')}]`;
  return canonical(value);
}

type Outcome = { passed: true } | { passed: false; why: string } | { notApplicable: string };

// No Kubernetes CEL environment declares protobuf message types, so tests that build or bind
// messages (a message literal `pkg.Type{...}`, a container of message types, a message value)
// exercise nothing an API expression can do.
const MESSAGE_LITERAL = /(?:^|[^\w\s])\s*\.?[A-Za-z_][\w.]*\s*\{/;

// Kubernetes environments require homogeneous aggregate literals (as capstan's does): the
// conformance corpus assumes mixed literals are accepted, so a compile error saying so is the
// Kubernetes behaviour, not a failure.
const HETEROGENEOUS =
  /List elements must have the same type|Map (key|value) uses wrong type|Ternary branches must have the same type/;

const NO_IDENTIFIER_ESCAPES =
  "backtick-escaped field names need cel-go's EnableIdentifierEscapeSyntax, which Kubernetes's base environment does not enable (the reference rejects them too)";
const NO_QUALIFIED_VARIABLES =
  'a dotted variable name (`a.b.c` declared as one variable): Kubernetes declares only simple names (object, oldObject, params, request, ...)';
const NO_CONTAINER = 'a container: Kubernetes compiles every expression in the root container';
const MILLISECOND_TIMESTAMPS =
  "nanosecond timestamps: the engine's timestamps are JavaScript Dates, exact to the millisecond; finer ones need another timestamp representation throughout the engine";

/**
 * Tests that cannot apply to Kubernetes CEL or cannot pass without replacing the engine, each by
 * its full name, with the reason. They are counted neither as passed nor as applicable.
 */
const EXCLUDED: ReadonlyMap<string, string> = new Map([
  ['fields/quoted_map_fields/field_access_slash', NO_IDENTIFIER_ESCAPES],
  ['fields/quoted_map_fields/field_access_dash', NO_IDENTIFIER_ESCAPES],
  ['fields/quoted_map_fields/field_access_dot', NO_IDENTIFIER_ESCAPES],
  ['fields/quoted_map_fields/has_field_slash', NO_IDENTIFIER_ESCAPES],
  ['fields/quoted_map_fields/has_field_dash', NO_IDENTIFIER_ESCAPES],
  ['fields/quoted_map_fields/has_field_dot', NO_IDENTIFIER_ESCAPES],
  ['fields/qualified_identifier_resolution/qualified_ident', NO_QUALIFIED_VARIABLES],
  ['fields/qualified_identifier_resolution/map_field_select', NO_QUALIFIED_VARIABLES],
  ['fields/qualified_identifier_resolution/ident_with_longest_prefix_check', NO_QUALIFIED_VARIABLES],
  ['namespace/qualified/self_eval_qualified_lookup', NO_QUALIFIED_VARIABLES],
  ['namespace/namespace/self_eval_container_lookup', NO_CONTAINER],
  ['namespace/namespace/self_eval_container_lookup_unchecked', NO_CONTAINER],
  [
    'parse/comments/new_line_terminated',
    'protobuf messages (a TestAllTypes literal, split by comments so that the message check above misses it)',
  ],
  ['timestamps/timestamp_conversions/toString_timestamp_nanos', MILLISECOND_TIMESTAMPS],
  ['timestamps/timestamp_arithmetic/add_time_to_duration_nanos_positive', MILLISECOND_TIMESTAMPS],
  ['timestamps/timestamp_range/add_duration_nanos_over', MILLISECOND_TIMESTAMPS],
]);
const exclusionsMet = new Set<string>();

function runTest(test: SimpleTest): Outcome {
  if (test.container.startsWith('cel.expr.conformance') || test.container.startsWith('google.')) {
    return { notApplicable: 'protobuf messages' };
  }
  if (MESSAGE_LITERAL.test(test.expr) && !/^\s*\{/.test(test.expr)) return { notApplicable: 'protobuf messages' };
  if (test.container !== '') return { passed: false, why: `container ${test.container} unsupported` };
  const variables: Record<string, string> = {};
  for (const decl of test.typeEnv) {
    if (decl.declKind.case === 'ident') variables[decl.name] = typeName(decl.declKind.value.type!);
  }
  const context: Record<string, CelValue> = {};
  for (const [name, binding] of Object.entries(test.bindings)) {
    if (binding.kind.case !== 'value') return { passed: false, why: 'non-value binding' };
    variables[name] ??= 'dyn';
    context[name] = toCel(binding.kind.value);
  }
  const compiled = new ExpressionCompiler(variables).compile(test.expr);
  const matcher = test.resultMatcher;
  const expectsError = matcher.case === 'evalError' || matcher.case === 'anyEvalErrors';
  if (!compiled.ok) {
    if (expectsError) return { passed: true };
    if (HETEROGENEOUS.test(compiled.error)) return { notApplicable: 'heterogeneous aggregate literal' };
    // Tests marked disable_check probe the behaviour of unchecked expressions; Kubernetes
    // type-checks every expression before it is stored, so it rejects these at compile time.
    if (test.disableCheck) return { notApplicable: 'unchecked expression (Kubernetes always type-checks)' };
    return { passed: false, why: compiled.error.split('\n')[0] };
  }
  if (test.checkOnly) return { passed: true };
  const result = compiled.compiled.evaluateCelValues(context);
  if (expectsError)
    return result.ok
      ? { passed: false, why: `expected an error, got ${canonicalActual(result.value)}` }
      : { passed: true };
  if (!result.ok) return { passed: false, why: result.error };
  let expected: string;
  if (matcher.case === undefined) expected = canonical(true);
  else if (matcher.case === 'value') expected = canonical(toCel(matcher.value));
  else if (matcher.case === 'typedResult') expected = canonical(toCel(matcher.value.result!));
  else return { passed: false, why: `matcher ${matcher.case} unsupported` };
  const actual = canonicalActual(result.value);
  return actual === expected ? { passed: true } : { passed: false, why: `got ${actual}, want ${expected}` };
}

interface Tally {
  passed: number;
  total: number;
  failures: string[];
  notApplicable: Map<string, number>;
}

function runSuite(suite: IncrementalTestSuite, path: string, tally: Tally): void {
  for (const test of suite.tests) {
    tally.total++;
    let outcome: Outcome;
    const name = `${path}/${test.name}`;
    const exclusion = EXCLUDED.get(name);
    if (exclusion !== undefined) exclusionsMet.add(name);
    try {
      outcome =
        exclusion !== undefined ? { notApplicable: 'excluded (EXCLUDED gives the reason)' } : runTest(test.original);
    } catch (error) {
      if (error instanceof MessageValue) outcome = { notApplicable: 'protobuf messages' };
      else
        outcome = {
          passed: false,
          why: error instanceof Unsupported ? `unsupported: ${error.message}` : String(error),
        };
    }
    if ('notApplicable' in outcome) {
      tally.total--;
      tally.notApplicable.set(outcome.notApplicable, (tally.notApplicable.get(outcome.notApplicable) ?? 0) + 1);
    } else if (outcome.passed) tally.passed++;
    else tally.failures.push(`${name}: ${test.original.expr} -> ${outcome.why}`);
  }
  for (const child of suite.suites) runSuite(child, `${path}/${child.name}`, tally);
}

const corpus = getConformanceSuite();
const byName = new Map(corpus.suites.map((suite) => [suite.name, suite]));

function tallyOf(names: readonly string[]): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  for (const name of names) {
    const tally: Tally = { passed: 0, total: 0, failures: [], notApplicable: new Map() };
    runSuite(byName.get(name)!, name, tally);
    tallies.set(name, tally);
  }
  return tallies;
}

function report(title: string, tallies: Map<string, Tally>): { passed: number; total: number } {
  let passed = 0;
  let total = 0;
  const lines = [...tallies].map(([name, t]) => {
    passed += t.passed;
    total += t.total;
    const skipped = [...t.notApplicable].map(([why, n]) => `${n} not applicable: ${why}`).join('; ');
    return `  ${name.padEnd(16)} ${t.passed}/${t.total}${skipped ? ` (${skipped})` : ''}`;
  });
  const failures = [...tallies.values()].flatMap((t) => t.failures);
  console.log(
    `${title}: ${passed}/${total} = ${((100 * passed) / total).toFixed(1)}%\n${lines.join('\n')}\n` +
      `failures:\n${failures.map((f) => `  ${f}`).join('\n')}`,
  );
  return { passed, total };
}

test('the core cel-spec suites pass at 99.5% or more', () => {
  const { passed, total } = report('cel-spec core suites', tallyOf(CORE_SUITES));
  expect(total).toBeGreaterThan(1000);
  expect(passed / total).toBeGreaterThanOrEqual(0.995);
  // Each exclusion names a test of the corpus.
  expect([...EXCLUDED.keys()].filter((name) => !exclusionsMet.has(name))).toEqual([]);
});

test('the other suites run and are reported', () => {
  const { total } = report('cel-spec other suites (not held to the rate)', tallyOf(OTHER_SUITES));
  expect(total).toBeGreaterThan(0);
});
