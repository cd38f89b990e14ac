/**
 * The CEL environment's cost per evaluation, in process: a typical CustomResourceDefinition
 * rule on a schema-typed object (converted once, as validation does), the same on a dynamic
 * object (as admission policies see it), and MutatingAdmissionPolicy's constructions. Each figure is the median of several timed rounds, so one busy
 * moment on a shared machine does not move it.
 */
import { performance } from 'node:perf_hooks';
import { ExpressionCompiler, type CompiledExpression } from '../server/cel/environment';
import { mutationTypesLibrary } from '../server/cel/libraries/mutation-types';
import type { CelSchema } from '../server/cel/schema-types';
import type { CelValue } from '../server/cel/values';
import type { Benchmark, ResultRow } from './benchmark';

const ROUNDS = 7;
const EVALUATIONS_PER_ROUND = 20_000;

const DEPLOYMENT_SCHEMA: CelSchema = {
  type: 'object',
  properties: {
    metadata: { type: 'object', properties: { name: { type: 'string' } } },
    spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
  },
};

const DEPLOYMENT = { metadata: { name: 'alpha' }, spec: { replicas: 3 } };

interface Case {
  readonly metric: string;
  readonly compiler: ExpressionCompiler;
  readonly expression: string;
  readonly values: Readonly<Record<string, unknown>>;
}

function compiled(compiler: ExpressionCompiler, expression: string): CompiledExpression {
  const result = compiler.compile(expression);
  if (!result.ok) throw new Error(`${expression}: ${result.error}`);
  return result.compiled;
}

/** Median µs per evaluation of `expression` on `context`. */
function microsecondsPerEvaluation(
  expression: CompiledExpression,
  context: Readonly<Record<string, CelValue>>,
): number {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const begin = performance.now();
    for (let i = 0; i < EVALUATIONS_PER_ROUND; i++) {
      if (!expression.evaluateCelValues(context).ok) throw new Error(`${expression.expression} failed`);
    }
    rounds.push(((performance.now() - begin) * 1000) / EVALUATIONS_PER_ROUND);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(ROUNDS / 2)];
}

export function measureCel(): ResultRow[] {
  const typed = new ExpressionCompiler({ self: { schema: DEPLOYMENT_SCHEMA } });
  const dynamic = new ExpressionCompiler({ object: 'dyn' });
  const mutating = new ExpressionCompiler({ object: 'dyn' }, { libraries: [mutationTypesLibrary()] });
  const cases: Case[] = [
    {
      metric: 'typical rule (schema-typed)',
      compiler: typed,
      expression: "self.spec.replicas <= 5 && self.metadata.name.startsWith('a')",
      values: { self: DEPLOYMENT },
    },
    {
      metric: 'typical rule (dynamic object)',
      compiler: dynamic,
      expression: "object.spec.replicas <= 5 && object.metadata.name.startsWith('a')",
      values: { object: DEPLOYMENT },
    },
    {
      metric: 'apply configuration (two constructions)',
      compiler: mutating,
      expression: 'Object{spec: Object.spec{replicas: object.spec.replicas + 1}}',
      values: { object: DEPLOYMENT },
    },
    {
      metric: 'JSON patch (one operation, escaped key)',
      compiler: mutating,
      expression:
        "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/owner'), value: object.metadata.name}]",
      values: { object: DEPLOYMENT },
    },
  ];
  return cases.map(({ metric, compiler, expression, values }) => ({
    metric,
    value: microsecondsPerEvaluation(compiled(compiler, expression), compiler.celValues(values)),
    unit: 'µs/eval',
    note: `median of ${ROUNDS} rounds of ${EVALUATIONS_PER_ROUND}`,
  }));
}

export const celBenchmark: Benchmark = {
  name: 'cel',
  description: 'CEL evaluation per expression (in process, one core)',
  async run(context) {
    context.log('measuring');
    context.report({ title: 'CEL evaluation', rows: measureCel() });
  },
};
