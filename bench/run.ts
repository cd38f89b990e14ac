/**
 * The benchmark runner: `npm run bench` runs every benchmark, `npm run bench -- storage` only
 * the named ones. A benchmark is a module in bench/ exporting a `Benchmark`; add it to the list
 * below. Results are printed as Markdown tables (stdout), progress goes to stderr, so
 * `npm run bench > results.md` keeps only the figures.
 */
import { cpus, loadavg } from 'node:os';
import { apiBenchmark } from './api';
import { auditBenchmark } from './audit';
import type { Benchmark } from './benchmark';
import { celBenchmark } from './cel';
import { encodingsBenchmark } from './encodings';
import { envtestBenchmark } from './envtest';
import { flowControlBenchmark } from './flow-control';
import { formatComparison, formatTable } from './report';
import { patchBenchmark } from './patch';
import { rbacBenchmark } from './rbac';
import { sideBySideBenchmark } from './side-by-side';
import { startupBenchmark } from './startup';
import { storageBenchmark } from './storage';
import { watchFanoutBenchmark } from './watch-fanout';

const BENCHMARKS: readonly Benchmark[] = [
  storageBenchmark,
  patchBenchmark,
  celBenchmark,
  apiBenchmark,
  encodingsBenchmark,
  watchFanoutBenchmark,
  startupBenchmark,
  rbacBenchmark,
  auditBenchmark,
  flowControlBenchmark,
];
// Need the reference binary (and envtest, controller-runtime's test binary) and a quiet machine: run only when named.
const ON_REQUEST: readonly Benchmark[] = [sideBySideBenchmark, envtestBenchmark];

async function main(names: string[]): Promise<number> {
  const known = [...BENCHMARKS, ...ON_REQUEST];
  const unknown = names.filter((name) => !known.some((benchmark) => benchmark.name === name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark: ${unknown.join(', ')}; known: ${known.map((b) => b.name).join(', ')}`);
    return 2;
  }
  const selected = names.length === 0 ? BENCHMARKS : known.filter((benchmark) => names.includes(benchmark.name));
  // The load average says how much the figures were shared with other work on the machine.
  console.log(
    `Machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), load average ${loadavg()[0].toFixed(1)}, ` +
      `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
  );
  for (const benchmark of selected) {
    console.log(`\n## ${benchmark.name}: ${benchmark.description}`);
    const began = Date.now();
    await benchmark.run({
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
