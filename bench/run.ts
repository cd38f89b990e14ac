/**
 * The benchmark runner: `npm run bench` runs every benchmark, `npm run bench -- storage` only
 * the named ones, and `npm run bench -- <name> --<parameter> <value>` sets a parameter the named ones
 * declare (an option no selected benchmark declares is an error, not ignored). A benchmark is a module in bench/ exporting a `Benchmark`; add it to the list
 * below. Results are printed as Markdown tables (stdout), progress goes to stderr, so
 * `npm run bench > results.md` keeps only the figures.
 */
import { cpus, loadavg, release, type } from 'node:os';
import { admissionBenchmark } from './admission';
import { apiBenchmark } from './api';
import { auditBenchmark } from './audit';
import type { Benchmark, BenchmarkParameter } from './benchmark';
import { celBenchmark } from './cel';
import { decodedObjectsBenchmark } from './decoded-objects';
import { encodingsBenchmark } from './encodings';
import { envtestBenchmark } from './envtest';
import { flowControlBenchmark } from './flow-control';
import { formatComparison, formatTable } from './report';
import { patchBenchmark } from './patch';
import { rbacBenchmark } from './rbac';
import { scaleBenchmark } from './scale';
import { sideBySideBenchmark } from './side-by-side';
import { startupBenchmark } from './startup';
import { startWithDataBenchmark } from './start-with-data';
import { storageBenchmark } from './storage';
import { watchFanoutBenchmark } from './watch-fanout';

const BENCHMARKS: readonly Benchmark[] = [
  storageBenchmark,
  decodedObjectsBenchmark,
  patchBenchmark,
  celBenchmark,
  apiBenchmark,
  admissionBenchmark,
  encodingsBenchmark,
  watchFanoutBenchmark,
  startupBenchmark,
  rbacBenchmark,
  auditBenchmark,
  flowControlBenchmark,
];
// Need the reference binary (and envtest, controller-runtime's test binary) and a quiet machine: run only when named.
const ON_REQUEST: readonly Benchmark[] = [
  sideBySideBenchmark,
  startWithDataBenchmark,
  envtestBenchmark,
  scaleBenchmark,
];

/** The command line: benchmark names, and `--<parameter> <value>` pairs as given. */
interface CommandLine {
  readonly names: readonly string[];
  readonly values: ReadonlyMap<string, string>;
}

function parseCommandLine(args: readonly string[]): CommandLine {
  const names: string[] = [];
  const values = new Map<string, string>();
  for (let at = 0; at < args.length; at++) {
    if (args[at].startsWith('--')) values.set(args[at].slice(2), args[++at] ?? '');
    else names.push(args[at]);
  }
  return { names, values };
}

/** The given values as numbers, each checked against the parameter a selected benchmark declares; or what is wrong. */
function parameterValues(
  declared: readonly BenchmarkParameter[],
  given: ReadonlyMap<string, string>,
): ReadonlyMap<string, number> | string {
  const values = new Map<string, number>();
  for (const [name, text] of given) {
    const parameter = declared.find((candidate) => candidate.name === name);
    if (parameter === undefined)
      return (
        `no selected benchmark takes --${name}; ` +
        (declared.length > 0 ? `they take ${describeParameters(declared)}` : 'they take no parameters')
      );
    const value = Number(text);
    if (text === '' || !Number.isInteger(value) || value < parameter.minimum)
      return `--${name} needs a whole number of at least ${parameter.minimum}, got ${JSON.stringify(text)}`;
    values.set(name, value);
  }
  return values;
}

/** Each parameter `benchmark` declares, at its default or the given value. */
function parametersOf(benchmark: Benchmark, values: ReadonlyMap<string, number>): Record<string, number> {
  return Object.fromEntries(
    (benchmark.parameters ?? []).map((parameter) => [
      parameter.name,
      values.get(parameter.name) ?? parameter.defaultValue,
    ]),
  );
}

function describeParameters(parameters: readonly BenchmarkParameter[]): string {
  return parameters.map((p) => `--${p.name} (${p.description}, default ${p.defaultValue})`).join(', ');
}

async function main(args: readonly string[]): Promise<number> {
  const { names, values: given } = parseCommandLine(args);
  const known = [...BENCHMARKS, ...ON_REQUEST];
  const unknown = names.filter((name) => !known.some((benchmark) => benchmark.name === name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark: ${unknown.join(', ')}; known: ${known.map((b) => b.name).join(', ')}`);
    return 2;
  }
  const selected = names.length === 0 ? BENCHMARKS : known.filter((benchmark) => names.includes(benchmark.name));
  const values = parameterValues(
    selected.flatMap((benchmark) => benchmark.parameters ?? []),
    given,
  );
  if (typeof values === 'string') {
    console.error(values);
    return 2;
  }
  // The load average says how much the figures were shared with other work on the machine.
  console.log(
    `Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${type()} ${release()}, ` +
      `load average ${loadavg()[0].toFixed(1)}, Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  );
  for (const benchmark of selected) {
    console.log(`\n## ${benchmark.name}: ${benchmark.description}`);
    const began = Date.now();
    await benchmark.run({
      parameters: parametersOf(benchmark, values),
      report: (table) => console.log(`\n${formatTable(table)}`),
      compare: (table) => console.log(`\n${formatComparison(table)}`),
      log: (message) => console.error(`[${benchmark.name} ${((Date.now() - began) / 1000).toFixed(0)}s] ${message}`),
    });
  }
  return 0;
}

// Ctrl-C becomes an ordinary exit, so the exit hooks kill etcd and remove temp dirs.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
