/**
 * The benchmark runner: `npm run bench` runs every benchmark, `npm run bench -- storage` only
 * the named ones. A benchmark is a module in bench/ exporting a `Benchmark`; add it to the list
 * below. Results are printed as Markdown tables (stdout), progress goes to stderr, so
 * `npm run bench > results.md` keeps only the figures.
 */
import { cpus, loadavg } from 'node:os';
import { apiBenchmark } from './api';
import type { Benchmark } from './benchmark';
import { encodingsBenchmark } from './encodings';
import { flowControlBenchmark } from './flow-control';
import { formatTable } from './report';
import { patchBenchmark } from './patch';
import { startupBenchmark } from './startup';
import { storageBenchmark } from './storage';
import { watchFanoutBenchmark } from './watch-fanout';

const BENCHMARKS: readonly Benchmark[] = [storageBenchmark, patchBenchmark, apiBenchmark, encodingsBenchmark, watchFanoutBenchmark, startupBenchmark, flowControlBenchmark];

async function main(names: string[]): Promise<number> {
  const unknown = names.filter((name) => !BENCHMARKS.some((benchmark) => benchmark.name === name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark: ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
    return 2;
  }
  const selected = names.length === 0 ? BENCHMARKS : BENCHMARKS.filter((benchmark) => names.includes(benchmark.name));
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
